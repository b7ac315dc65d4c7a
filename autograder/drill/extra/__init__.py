"""Drills beyond the course's exercises: what interviews ask besides SDPA and MHA.

Each :class:`NewDrill` has what a course drill has (a statement, hints, an explanation, a target
time) plus what the course's contract gives the others: the interface the checks rely on (in the
blank file at both levels), the pitfalls (the guided level only), the stubs, its own checks
(:mod:`.checks_attention`, :mod:`.checks_norms`, :mod:`.checks_decoding`) and its model answer
(:mod:`.references`, hidden from the sandbox like ``course_lib``'s references). The "find the bug"
drills give broken code instead of stubs; those on a course exercise are graded by the course's
own checks.
"""

from __future__ import annotations

import inspect

from autograder.drill.extra import checks_attention as ca
from autograder.drill.extra import checks_decoding as cd
from autograder.drill.extra import checks_norms as cn
from autograder.drill.extra import references as ref
from autograder.drill.extra.base import NewDrill, _forbid
from autograder.drill.extra.bugs import BUGS
from autograder.kit.exercise import ATTENTION_FORBID

_MASK = (
    "A bool mask is True where a query MAY attend (F.scaled_dot_product_attention's convention)."
)
_NO_BUILTIN = (
    "Do not call F.scaled_dot_product_attention or nn.MultiheadAttention: write attention."
)
_LINEARS = "Layers are nn.Linear attributes named as stated: the checks load known weights by name."


def _stub_class(name: str, init: str, forward: str) -> str:
    return (
        f"class {name}(nn.Module):\n    def __init__{init}:\n        super().__init__()\n"
        f"        raise NotImplementedError\n\n    def forward{forward}:\n"
        "        raise NotImplementedError\n"
    )


def _stub_def(name: str, params: str) -> str:
    return f"def {name}{params}:\n    raise NotImplementedError\n"


DRILLS: tuple[NewDrill, ...] = (
    NewDrill(
        "gqa",
        "grouped-query attention",
        ("GroupedQueryAttention",),
        3,
        15,
        "Grouped-query attention (LLaMA 2/3, Mistral): num_heads query heads share num_kv_heads "
        "key/value heads, which shrinks the KV cache by num_heads / num_kv_heads.",
        (
            "GroupedQueryAttention(d_model, num_heads, num_kv_heads): nn.Linear attributes "
            "w_q (d_model -> d_model), w_k and w_v (d_model -> num_kv_heads * d_head), w_o "
            "(d_model -> d_model), all bias=False; d_head = d_model // num_heads.",
            "forward(x, mask=None) -> output (B, L, d_model); mask: bool, broadcastable to "
            "(B, num_heads, L, L).",
            "Query head i uses key/value head i // (num_heads // num_kv_heads) (LLaMA's "
            "repeat_kv). A d_model or num_heads that does not divide raises ValueError.",
            _MASK,
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "k.repeat(1, n_rep, 1, 1) pairs query heads with the wrong key/value heads: use "
            "repeat_interleave along the head dim.",
            "Scale by sqrt(d_head), not sqrt(d_model).",
        ),
        _stub_class(
            "GroupedQueryAttention",
            "(self, d_model, num_heads, num_kv_heads)",
            "(self, x, mask=None)",
        ),
        (
            "Shapes: q (B, h, L, d_head); k, v (B, g, L, d_head) with g = num_kv_heads.",
            "Give each query head its key/value head: k.repeat_interleave(h // g, dim=1) -> "
            "(B, h, L, d_head); then attention as in MHA.",
            "Merge: transpose(1, 2).reshape(B, L, d_model), then w_o.",
        ),
        "GQA interpolates between MHA (g = h) and MQA (g = 1): the KV cache holds g heads "
        "instead of h, for a small loss in quality (Ainslie et al., 2023).",
        (ref._attend, ref.GroupedQueryAttention),
        {"GroupedQueryAttention": (ca.check_gqa, ATTENTION_FORBID)},
    ),
    NewDrill(
        "mqa",
        "multi-query attention",
        ("MultiQueryAttention",),
        2,
        12,
        "Multi-query attention (Shazeer, 2019; PaLM, Falcon): every query head shares one key "
        "head and one value head.",
        (
            "MultiQueryAttention(d_model, num_heads): nn.Linear attributes w_q (d_model -> "
            "d_model), w_k and w_v (d_model -> d_head), w_o (d_model -> d_model), bias=False.",
            "forward(x, mask=None) -> output (B, L, d_model); mask: bool, broadcastable to "
            "(B, num_heads, L, L).",
            _MASK,
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "The shared k, v (B, 1, L, d_head) broadcast against q (B, h, L, d_head) in matmul.",
            "Scale by sqrt(d_head).",
        ),
        _stub_class("MultiQueryAttention", "(self, d_model, num_heads)", "(self, x, mask=None)"),
        (
            "k = w_k(x)[:, None] is (B, 1, L, d_head): q @ k.transpose(-2, -1) broadcasts over "
            "the heads.",
            "weights @ v broadcasts the same way; merge the heads and apply w_o.",
        ),
        "One key/value head cuts the KV cache by num_heads times; GQA is the compromise.",
        (ref._attend, ref.GroupedQueryAttention, ref.MultiQueryAttention),
        {"MultiQueryAttention": (ca.check_mqa, ATTENTION_FORBID)},
    ),
    NewDrill(
        "cross-attention",
        "cross-attention",
        ("CrossAttention",),
        2,
        12,
        "The decoder's queries attend to the encoder's output (the memory), which may be padded.",
        (
            "CrossAttention(d_model, num_heads): nn.Linear(d_model, d_model) attributes w_q, w_k, "
            "w_v, w_o (with bias).",
            "forward(x (B, Lq, d_model), memory (B, Lk, d_model), memory_mask=None) -> output "
            "(B, Lq, d_model); memory_mask: bool (B, Lk), True at real (non-pad) memory tokens.",
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "Lq and Lk differ: the memory mask marks keys, so it broadcasts as "
            "memory_mask[:, None, None, :].",
        ),
        _stub_class(
            "CrossAttention", "(self, d_model, num_heads)", "(self, x, memory, memory_mask=None)"
        ),
        (
            "q from x, k and v from memory.",
            "Scores (B, h, Lq, Lk); mask the padded keys.",
            "Merge the heads and apply w_o.",
        ),
        "Cross-attention is MHA with queries from one sequence and keys/values from another; no "
        "causal mask: the whole source is visible.",
        (ref._attend, ref.Attention, ref.CrossAttention),
        {"CrossAttention": (ca.check_cross_attention, ATTENTION_FORBID)},
    ),
    NewDrill(
        "decoder-block",
        "encoder-decoder: the decoder block",
        ("DecoderBlock",),
        3,
        25,
        "The decoder block of an encoder-decoder Transformer, Pre-LN: causal self-attention, "
        "cross-attention to the encoder's output, a feed-forward layer.",
        (
            "DecoderBlock(d_model, num_heads, d_ff): attributes self_attn and cross_attn (each "
            "with nn.Linear(d_model, d_model) w_q, w_k, w_v, w_o, with bias), linear1 "
            "(d_model -> d_ff), linear2 (d_ff -> d_model), norm1, norm2, norm3 (nn.LayerNorm).",
            "forward(x (B, Lt, d_model), memory (B, Ls, d_model), memory_mask=None) -> (B, Lt, "
            "d_model); memory_mask: bool (B, Ls), True at real source tokens.",
            "With weights copied it matches nn.TransformerDecoderLayer(batch_first=True, "
            "norm_first=True, dropout=0) under a causal tgt_mask. ReLU in the feed-forward.",
            "Do not use nn.MultiheadAttention or nn.TransformerDecoderLayer; "
            "F.scaled_dot_product_attention is allowed. Helper classes in the file are fine.",
        ),
        (
            "Pre-LN: x = x + sublayer(norm(x)), three times; the memory itself is not normalised.",
            "Only the self-attention is causal.",
        ),
        _stub_class(
            "DecoderBlock",
            "(self, d_model, num_heads, d_ff)",
            "(self, x, memory, memory_mask=None)",
        ),
        (
            "Write one attention module (w_q, w_k, w_v, w_o) taking (query, kv, mask); use it "
            "twice.",
            "x = x + self_attn(norm1(x), norm1(x), causal); x = x + cross_attn(norm2(x), memory, "
            "padding); x = x + linear2(relu(linear1(norm3(x)))).",
            "The padding mask (B, Ls) becomes memory_mask[:, None, None, :].",
        ),
        "The decoder block adds cross-attention between the causal self-attention and the "
        "feed-forward layer; Pre-LN keeps an identity path through the residual stream.",
        (ref._attend, ref.Attention, ref.CrossAttention, ref.DecoderBlock),
        {
            "DecoderBlock": (
                ca.check_decoder_block,
                _forbid(
                    "torch.nn.MultiheadAttention",
                    "torch.nn.TransformerDecoderLayer",
                    "torch.nn.TransformerDecoder",
                    "torch.nn.Transformer",
                ),
            )
        },
    ),
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
            "The bias only matters up to a constant per row (softmax ignores it): -slope * j "
            "works too.",
        ),
        _stub_def("alibi_bias", "(num_heads, seq_len)"),
        (
            "distance = positions[:, None] - positions[None, :] is i - j.",
            "slopes[:, None, None] * distance broadcasts to (num_heads, L, L); negate it.",
            "12 heads: slopes(8) + slopes(16)[0::2][:4].",
        ),
        "A fixed, non-learned recency bias: each head sees a different range, and models "
        "trained on short sequences extrapolate to longer ones.",
        (ref.alibi_slopes, ref.alibi_bias),
        {"alibi_bias": (cn.check_alibi, ())},
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
        (ref.RMSNorm,),
        {
            "RMSNorm": (
                cn.check_rmsnorm,
                _forbid("torch.nn.RMSNorm", "torch.nn.functional.rms_norm", "torch.rms_norm"),
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
        (ref.LayerNorm,),
        {
            "LayerNorm": (
                cn.check_layernorm,
                _forbid(
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
        (ref.causal_lm_loss,),
        {"causal_lm_loss": (cd.check_lm_loss, ())},
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
        (ref._attend, ref.decode_step, ref.greedy_decode),
        {"decode_step": (cd.check_decode_step, ()), "greedy_decode": (cd.check_greedy_decode, ())},
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
        (ref.top_k_probs,),
        {"top_k_probs": (cd.check_top_k, ())},
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
        (ref.top_p_probs,),
        {"top_p_probs": (cd.check_top_p, ())},
    ),
    *BUGS,
)

BY_NAME: dict[str, NewDrill] = {d.name: d for d in DRILLS}


def source_of(obj) -> str:
    return inspect.getsource(obj)
