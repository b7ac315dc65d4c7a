"""The mistakes the new drills' checks name: each reproduced by a mutant in their checks.

Ids are kebab-case and never collide with the course's catalogue (``autograder.core.mistakes``,
whose ids the checks also use where the mistake is the same: ``scaled-by-d-model``,
``mask-polarity-inverted``...). ``exercises`` lists the names the candidate defines.
"""

from __future__ import annotations

from autograder.core.mistakes import Mistake

_NORMS = ("RMSNorm", "LayerNorm")
_ENTRIES = (
    Mistake(  # the course's wrong-dtype, in the drills' words: upcasting inside is fine
        "output-dtype-changed",
        (),
        "Returns another dtype than the input's",
        "Return the input's dtype: computing in float32 inside and casting back with "
        ".to(x.dtype) (as LLaMA's RMSNorm does) is fine; returning the float32 result is not.",
    ),
    Mistake(
        "rmsnorm-subtracts-mean",
        ("RMSNorm",),
        "Subtracts the mean: that is LayerNorm",
        "RMSNorm divides x by sqrt(mean(x^2) + eps) and never centres it.",
    ),
    Mistake(
        "norm-eps-outside-sqrt",
        _NORMS,
        "Adds eps after the square root",
        "eps goes inside: rsqrt(mean(x^2) + eps) (RMSNorm), sqrt(var + eps) (LayerNorm), as "
        "torch and LLaMA do.",
    ),
    Mistake(
        "norm-weight-ignored",
        _NORMS,
        "Never multiplies by the learned weight",
        "Scale the normalised x by self.weight (initialised to ones).",
    ),
    Mistake(
        "rmsnorm-root-of-sum",
        ("RMSNorm",),
        "Uses the sum of squares, not their mean",
        "The root mean square is sqrt(x.pow(2).mean(-1, keepdim=True)).",
    ),
    Mistake(
        "norm-over-wrong-dim",
        _NORMS,
        "Normalises over the wrong dimension",
        "Statistics are over the features, the last dim: mean(-1, keepdim=True).",
    ),
    Mistake(
        "layernorm-unbiased-variance",
        ("LayerNorm",),
        "Uses the unbiased variance",
        "x.var() divides by n - 1 by default; LayerNorm uses the biased variance: "
        "x.var(-1, keepdim=True, unbiased=False).",
    ),
    Mistake(
        "layernorm-std-plus-eps",
        ("LayerNorm",),
        "Divides by the unbiased std plus eps (the Annotated Transformer's LayerNorm)",
        "x.std(-1) divides by n - 1 and eps is added after the root; nn.LayerNorm divides by "
        "torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + eps).",
    ),
    Mistake(
        "norm-statistics-detached",
        ("LayerNorm",),
        "The gradient does not flow through the mean or the variance",
        "Keep the statistics in the graph (no .detach() or torch.no_grad()): LayerNorm's "
        "backward differentiates through them.",
    ),
    Mistake(
        "layernorm-bias-ignored",
        ("LayerNorm",),
        "Never adds the learned bias",
        "Add self.bias after scaling by self.weight.",
    ),
    Mistake(
        "layernorm-bias-before-scale",
        ("LayerNorm",),
        "Adds the bias before scaling",
        "The affine step is normalised * weight + bias.",
    ),
    Mistake(
        "layernorm-no-centring",
        ("LayerNorm",),
        "Never subtracts the mean",
        "LayerNorm centres x: (x - mean) / sqrt(var + eps).",
    ),
    Mistake(
        "alibi-sign-flipped",
        ("alibi_bias",),
        "The bias grows with distance",
        "ALiBi penalises distant keys: bias[h, i, j] = -slope_h * (i - j) for j <= i.",
    ),
    Mistake(
        "alibi-slopes-reversed",
        ("alibi_bias",),
        "The heads' slopes are in reverse order",
        "Head 0 has the steepest slope, 2^(-8/n); they shrink geometrically.",
    ),
    Mistake(
        "alibi-slopes-off-by-one",
        ("alibi_bias",),
        "The slopes start at 2^0 = 1",
        "The slopes are 2^(-8 (h + 1) / n) for h = 0..n-1: the first is 2^(-8/n).",
    ),
    Mistake(
        "alibi-slopes-not-interleaved",
        ("alibi_bias",),
        "Non-power-of-2 head counts use the power-of-2 formula",
        "For n heads not a power of 2, take the slopes of the closest smaller power of 2, m, "
        "then every other slope of 2m heads (the paper's code).",
    ),
    Mistake(
        "alibi-extra-slopes-not-every-other",
        ("alibi_bias",),
        "The extra slopes are the first ones of 2m heads, not every other one",
        "For n heads between m and 2m (m a power of 2), the n - m extra slopes are every other "
        "slope of 2m heads: slopes(2 * m)[0::2][: n - m] (the paper's code), which lie between "
        "m's.",
    ),
    Mistake(
        "alibi-same-slope-every-head",
        ("alibi_bias",),
        "Every head has the same slope",
        "Each head gets its own slope, so heads see different ranges.",
    ),
    Mistake(
        "gqa-kv-heads-tiled",
        ("GroupedQueryAttention",),
        "Query head i uses key/value head i % num_kv_heads",
        "Query heads are grouped in order: head i uses key/value head i // (num_heads // "
        "num_kv_heads); use repeat_interleave (LLaMA's repeat_kv), not repeat.",
    ),
    Mistake(
        "cross-attention-kv-from-queries",
        ("CrossAttention", "DecoderBlock"),
        "Keys and values come from the queries' sequence",
        "In cross-attention, k and v are projections of the memory (the encoder's output).",
    ),
    Mistake(
        "cross-attention-queries-from-memory",
        ("CrossAttention",),
        "Queries come from the memory, keys and values from x",
        "The decoder asks (queries from x); the memory answers (keys, values from memory).",
    ),
    Mistake(
        "memory-mask-ignored",
        ("CrossAttention", "DecoderBlock"),
        "Padding in the memory is attended to",
        "Apply memory_mask (B, Lk) to the keys: mask[:, None, None, :] broadcasts to "
        "(B, h, Lq, Lk).",
    ),
    Mistake(
        "memory-mask-on-queries",
        ("CrossAttention",),
        "The memory mask masks queries",
        "memory_mask marks keys (columns): mask[:, None, None, :], not mask[:, None, :, None].",
    ),
    Mistake(
        "decoder-self-attention-not-causal",
        ("DecoderBlock",),
        "The decoder's self-attention sees future tokens",
        "Mask the self-attention with a causal (L, L) mask; cross-attention needs none.",
    ),
    Mistake(
        "lm-loss-not-shifted",
        ("causal_lm_loss",),
        "Predicts each token from itself",
        "Position t predicts token t + 1: logits[:, :-1] against tokens[:, 1:].",
    ),
    Mistake(
        "lm-loss-shifted-wrong-way",
        ("causal_lm_loss",),
        "Predicts the previous token",
        "Drop the last logit and the first token: logits[:, :-1] vs tokens[:, 1:].",
    ),
    Mistake(
        "lm-loss-pads-counted",
        ("causal_lm_loss",),
        "Padding targets count in the loss",
        "Pass ignore_index=pad_id to F.cross_entropy (or mask the padded targets out).",
    ),
    Mistake(
        "lm-loss-mean-over-pads",
        ("causal_lm_loss",),
        "Averages over every position, padding included",
        "Divide by the number of real targets, not by B * (L - 1).",
    ),
    Mistake(
        "lm-loss-summed",
        ("causal_lm_loss",),
        "Returns the sum, not the mean",
        "The loss is the mean over the real (non-pad) targets.",
    ),
    Mistake(
        "lm-loss-pad-mask-from-inputs",
        ("causal_lm_loss",),
        "The padding mask is built from the inputs, not from the targets",
        "What is ignored is a padded target: mask tokens[:, 1:] != pad_id (the shifted "
        "targets), not tokens[:, :-1].",
    ),
    Mistake(
        "lm-loss-mean-per-sequence",
        ("causal_lm_loss",),
        "Averages each sequence, then the sequences",
        "The mean is over all real target tokens of the batch at once (as cross_entropy with "
        "ignore_index does): a short sequence weighs less, not as much as a long one.",
    ),
    Mistake(
        "kv-prefill-not-causal",
        ("decode_step",),
        "New tokens attend to each other without a causal mask",
        "Several new tokens (the prompt) still need a causal mask: query t sees keys up to "
        "past + t, e.g. torch.ones(T, past + T).tril(diagonal=past).",
    ),
    Mistake(
        "kv-positions-restart",
        ("decode_step",),
        "Positions restart at 0 every step",
        "New tokens are at positions past..past + T - 1, past = the cache's length.",
    ),
    Mistake(
        "kv-mask-not-offset",
        ("decode_step",),
        "The causal mask ignores the cached positions: tril() without diagonal=past",
        "New query t sits at position past + t and sees keys 0..past + t: "
        "torch.ones(T, past + T).tril(diagonal=past).",
    ),
    Mistake(
        "kv-cache-not-used",
        ("greedy_decode",),
        "Recomputes the whole sequence every step: the cache is not used",
        "Prefill once with the prompt, then pass decode_step only the new token and the cache "
        "it returned: decode_step(params, nxt, cache).",
    ),
    Mistake(
        "greedy-drops-the-prompt",
        ("greedy_decode",),
        "Returns only the new tokens",
        "Return the prompt followed by the generated tokens, (B, P + max_new_tokens).",
    ),
    Mistake(
        "sampling-not-renormalised",
        ("top_k_probs", "top_p_probs"),
        "The kept probabilities do not sum to 1",
        "Renormalise what is kept: softmax over the filtered logits (-inf elsewhere), or "
        "divide by the kept mass.",
    ),
    Mistake(
        "top-k-keeps-the-smallest",
        ("top_k_probs",),
        "Keeps the k least likely tokens",
        "torch.topk returns the largest by default; keep those.",
    ),
    Mistake(
        "top-k-off-by-one",
        ("top_k_probs",),
        "Keeps one token too many or too few",
        "Keep exactly k tokens: those >= the k-th largest logit, topk(...).values[..., -1:].",
    ),
    Mistake(
        "temperature-multiplied",
        ("top_k_probs", "top_p_probs"),
        "Multiplies the logits by the temperature",
        "Divide: logits / temperature (a temperature below 1 sharpens the distribution).",
    ),
    Mistake(
        "temperature-ignored",
        ("top_k_probs", "top_p_probs"),
        "Ignores the temperature",
        "Divide the logits by temperature before anything else (the softmax, the top-k cut and "
        "the nucleus all see logits / temperature).",
    ),
    Mistake(
        "top-p-drops-the-crossing-token",
        ("top_p_probs",),
        "Drops the token that takes the mass past p",
        "Keep the smallest set whose mass reaches p: a token stays when the mass ranked "
        "above it is below p (the top token always stays).",
    ),
    Mistake(
        "top-p-not-sorted",
        ("top_p_probs",),
        "Accumulates in vocabulary order",
        "Sort the probabilities in descending order before the cumulative sum, then scatter "
        "the kept ones back.",
    ),
    Mistake(
        "top-p-not-scattered-back",
        ("top_p_probs",),
        "Returns the kept probabilities in sorted order",
        "Scatter them back where they came from, so that index i is still token i: "
        "torch.zeros_like(probs).scatter(-1, order, kept_sorted).",
    ),
    Mistake(
        "temperature-after-the-cut",
        ("top_p_probs",),
        "The nucleus is chosen before the temperature is applied",
        "Divide the logits by the temperature first, then sort and cut: the temperature changes "
        "which tokens it takes to reach p (transformers applies its temperature warper before "
        "its top-p warper).",
    ),
)

MISTAKES: dict[str, Mistake] = {m.id: m for m in _ENTRIES}

# The course's advice in the words of a drill, where the course's words fit another exercise
# (lesson 05's [dtype-promoted] speaks of RoPE's angles; in SDPA it is the float mask).
IN_DRILLS: dict[tuple[str, str], Mistake] = {
    ("dtype-promoted", "scaled_dot_product_attention"): Mistake(
        "dtype-promoted",
        ("scaled_dot_product_attention",),
        "A float32 mask meets float16/bfloat16 scores",
        "Cast the float mask to the scores' dtype before adding it: scores + "
        "mask.to(scores.dtype) (adding it as it is either raises, as masked_fill or an "
        "in-place add does, or promotes the result to float32).",
    ),
    # the course's hint is for its KVCache class ("store them on self"); here the cache is the
    # returned pair (a candidate trial)
    ("kv-cache-not-stored", "decode_step"): Mistake(
        "kv-cache-not-stored",
        ("decode_step",),
        "The returned cache holds only the new keys and values",
        "Return the whole cache: k_all = torch.cat([k_past, k], dim=1), v_all likewise (just k "
        "and v when cache is None), as (logits, (k_all, v_all)); the next step builds on it.",
    ),
}
