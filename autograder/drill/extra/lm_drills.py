"""The new drills around the model: ALiBi, the norms, the LM loss, decoding with a KV cache,
top-k and top-p sampling."""

from __future__ import annotations

from autograder.drill.extra.base import NewDrill, _stub_class, _stub_def

DRILLS = (
    NewDrill(
        "alibi",
        "ALiBi attention bias",
        ("alibi_bias",),
        2,
        12,
        "ALiBi (Press et al., 2022) replaces position embeddings by a per-head linear penalty on "
        "the distance between query and key, added to the scores.",
        (
            "alibi_bias(num_heads, seq_len) -> float tensor (num_heads, L, L) to add to the "
            "causal attention scores: bias[h, i, j] = -slope_h * (i - j) for j <= i (entries "
            "above the diagonal are masked anyway: any value).",
            "slope_h = 2^(-8 (h + 1) / num_heads) for h = 0..num_heads-1 when num_heads is a "
            "power of 2; otherwise the paper's rule: the slopes of the closest smaller power of "
            "2, m, then every other slope of 2m heads.",
        ),
        (
            "The bias only matters up to a constant per row (softmax ignores it): -slope * (i - "
            "j) = -slope * i + slope * j, so +slope * j (BLOOM's form) works too; -slope * j "
            "is the sign flipped.",
        ),
        _stub_def("alibi_bias", "(num_heads, seq_len)"),
        (
            "distance = positions[:, None] - positions[None, :] is i - j.",
            "slopes[:, None, None] * distance broadcasts to (num_heads, L, L); negate it.",
            "12 heads: slopes(8) + slopes(16)[0::2][:4].",
        ),
        "A fixed, non-learned recency bias: each head sees a different range, and models "
        "trained on short sequences extrapolate to longer ones.",
        ("references:alibi_slopes", "references:alibi_bias"),
        {"alibi_bias": ("checks_norms:check_alibi", ())},
    ),
    NewDrill(
        "rmsnorm",
        "RMSNorm from scratch",
        ("RMSNorm",),
        1,
        6,
        "RMSNorm (Zhang & Sennrich, 2019; LLaMA, T5): scale by the root mean square of the "
        "features, no centring, no bias.",
        (
            "RMSNorm(d_model, eps=1e-6): attribute weight = nn.Parameter of shape (d_model,), "
            "ones at first.",
            "forward(x (..., d_model)) -> x / sqrt(mean(x^2 over the last dim) + eps) * weight, "
            "same shape; a half-precision module on half inputs returns half.",
            "Do not call nn.RMSNorm or F.rms_norm.",
        ),
        ("eps goes inside the square root.", "Mean over the last dim with keepdim=True."),
        _stub_class("RMSNorm", "(self, d_model, eps=1e-6)", "(self, x)"),
        (
            "x.pow(2).mean(-1, keepdim=True)",
            "torch.rsqrt(... + self.eps)",
            "Compute in float32 and cast back (x.float() ... .to(x.dtype)), as LLaMA does.",
        ),
        "RMSNorm drops LayerNorm's mean subtraction and bias: cheaper, and as good in practice.",
        ("references:RMSNorm",),
        {
            "RMSNorm": (
                "checks_norms:check_rmsnorm",
                ("torch.nn.RMSNorm", "torch.nn.functional.rms_norm", "torch.rms_norm"),
            )
        },
    ),
    NewDrill(
        "layernorm",
        "LayerNorm from scratch",
        ("LayerNorm",),
        1,
        8,
        "Layer normalisation over the features, with a learned scale and shift.",
        (
            "LayerNorm(d_model, eps=1e-5): attributes weight (ones) and bias (zeros), "
            "nn.Parameters of shape (d_model,).",
            "forward(x (..., d_model)) -> (x - mean) / sqrt(var + eps) * weight + bias over the "
            "last dim; matches F.layer_norm.",
            "Do not call nn.LayerNorm or F.layer_norm.",
        ),
        (
            "The variance is the biased one (divide by n): x.var(-1, unbiased=False).",
            "eps goes inside the square root.",
        ),
        _stub_class("LayerNorm", "(self, d_model, eps=1e-5)", "(self, x)"),
        (
            "mean = x.mean(-1, keepdim=True)",
            "var = x.var(-1, keepdim=True, unbiased=False)",
            "(x - mean) / torch.sqrt(var + eps) * self.weight + self.bias",
        ),
        "torch's LayerNorm uses the biased variance; x.var()'s default is unbiased.",
        ("references:LayerNorm",),
        {
            "LayerNorm": (
                "checks_norms:check_layernorm",
                (
                    "torch.nn.LayerNorm",
                    "torch.nn.functional.layer_norm",
                    "torch.layer_norm",
                    "aten.native_layer_norm",
                ),
            )
        },
    ),
    NewDrill(
        "lm-loss",
        "causal LM loss with padding",
        ("causal_lm_loss",),
        1,
        8,
        "The training loss of a decoder-only language model on a right-padded batch.",
        (
            "causal_lm_loss(logits (B, L, V), tokens (B, L) long, pad_id) -> scalar tensor: "
            "the mean cross-entropy of predicting tokens[:, t + 1] from logits[:, t], over the "
            "targets that are not pad_id.",
            "F.cross_entropy is allowed; gradients must flow to the logits.",
        ),
        (
            "Shift: logits[:, :-1] against tokens[:, 1:].",
            "Ignore the pad targets (ignore_index=pad_id): the mean is over real targets only.",
        ),
        _stub_def("causal_lm_loss", "(logits, tokens, pad_id)"),
        (
            "Which logit predicts which token? Write the shift first.",
            "Flatten: reshape(-1, V) and reshape(-1).",
            "F.cross_entropy(..., ignore_index=pad_id).",
        ),
        "Position t can only see tokens 0..t, so its logits predict token t + 1; padding "
        "targets carry no signal and must not dilute the mean.",
        ("references:causal_lm_loss",),
        {"causal_lm_loss": ("checks_decoding:check_lm_loss", ())},
    ),
    NewDrill(
        "greedy-kv",
        "greedy decoding with a KV cache",
        ("decode_step", "greedy_decode"),
        3,
        20,
        "Decode greedily from a tiny one-layer, one-head model without recomputing the past: "
        "keep each position's key and value in a cache.",
        (
            "params: a dict of tensors: embed (V, d), pos (max_len, d), w_q, w_k, w_v, w_o "
            "(d, d), unembed (d, V). The model on tokens at positions p: h = embed[tokens] + "
            "pos[p]; q, k, v = h @ w_q, h @ w_k, h @ w_v; a = softmax(q k^T / sqrt(d)) v over "
            "the keys of positions <= the query's (causal); logits = (h + a @ w_o) @ unembed.",
            "decode_step(params, tokens (B, T), cache=None) -> (logits (B, T, V), (k_all, "
            "v_all)): tokens are the T tokens after the cached ones; cache is (k, v), each "
            "(B, P, d), None when empty; k_all, v_all are (B, P + T, d).",
            "greedy_decode(params, prompt (B, P), max_new_tokens) -> (B, P + max_new_tokens) "
            "long: the prompt and the argmax tokens, computed with decode_step and its cache.",
        ),
        (
            "The new tokens start at position P (the cache's length), not 0.",
            "Several new tokens at once (the prompt) still need a causal mask among themselves.",
        ),
        _stub_def("decode_step", "(params, tokens, cache=None)")
        + "\n\n"
        + _stub_def("greedy_decode", "(params, prompt, max_new_tokens)"),
        (
            "past = 0 if cache is None else cache[0].size(1); positions = arange(past, past + T).",
            "k = cat([cache_k, k], dim=1); the mask: ones(T, past + T).tril(diagonal=past).",
            "greedy: prefill with the prompt, then feed logits[:, -1].argmax(-1, keepdim=True) "
            "one token at a time.",
        ),
        "With the cache each new token costs O(P d) instead of O(P^2 d): the keys and values of "
        "the past never change in a causal model.",
        ("references:_attend", "references:decode_step", "references:greedy_decode"),
        {
            "decode_step": ("checks_decoding:check_decode_step", ()),
            "greedy_decode": ("checks_decoding:check_greedy_decode", ()),
        },
        probe="decode_probe:PROBE",
    ),
    NewDrill(
        "top-k",
        "top-k sampling",
        ("top_k_probs",),
        1,
        8,
        "Top-k sampling: sample only among the k most likely tokens.",
        (
            "top_k_probs(logits (..., V), k, temperature=1.0) -> probabilities (..., V): "
            "softmax(logits / temperature) restricted to the k largest logits, renormalised; "
            "0 elsewhere. k >= V keeps every token. (Sampling is then torch.multinomial.)",
        ),
        ("Divide by the temperature.", "Renormalise after filtering."),
        _stub_def("top_k_probs", "(logits, k, temperature=1.0)"),
        (
            "torch.topk(logits, k).values[..., -1:] is the k-th largest.",
            "masked_fill(logits < kth, -inf), then softmax.",
        ),
        "Top-k cuts the long tail of unlikely tokens; its weakness is a fixed k whatever the "
        "shape of the distribution, which top-p fixes.",
        ("references:top_k_probs",),
        {"top_k_probs": ("checks_decoding:check_top_k", ())},
    ),
    NewDrill(
        "top-p",
        "nucleus (top-p) sampling",
        ("top_p_probs",),
        2,
        12,
        "Nucleus sampling (Holtzman et al., 2020): sample from the smallest set of most likely "
        "tokens whose total probability reaches p.",
        (
            "top_p_probs(logits (..., V), p, temperature=1.0) -> probabilities (..., V): of "
            "softmax(logits / temperature), keep the most likely tokens until their mass "
            "reaches p (the token that crosses p is kept; the top token always is), "
            "renormalised; 0 elsewhere.",
        ),
        (
            "Sort in descending order before the cumulative sum.",
            "Keep a token when the mass ranked above it is < p.",
        ),
        _stub_def("top_p_probs", "(logits, p, temperature=1.0)"),
        (
            "probs.sort(-1, descending=True) gives the order; cumsum(-1) the mass.",
            "before = cumsum - sorted_probs; keep where before < p.",
            "Put the kept probabilities back with scatter(-1, order, ...) and renormalise.",
        ),
        "The nucleus adapts to the distribution: a confident model keeps few tokens, an unsure "
        "one many.",
        ("references:top_p_probs",),
        {"top_p_probs": ("checks_decoding:check_top_p", ())},
    ),
)
