"""Lesson 09's known mistakes (efficient attention) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

MISTAKES = (
    Mistake(
        "window-off-by-one",
        ("sliding_window_mask",),
        "Sliding window one too wide or too narrow",
        "A window of w keys is 0 ≤ i − j < w: the token itself and the w − 1 before it.",
    ),
    Mistake(
        "window-not-causal",
        ("sliding_window_mask",),
        "Window looks both ways: |i − j| < window",
        "A causal sliding window only looks back: 0 ≤ i − j < window.",
    ),
    Mistake(
        "window-clamped-to-length",
        ("sliding_window_mask",),
        "A window longer than the sequence is clamped, or fails",
        "Window w lets query i see keys i - w + 1 .. i: a window of seq_len or more lets every "
        "query see all its earlier keys, with no clamping (min(window, seq_len - 1) hides key 0 "
        "from the last query) and no error.",
    ),
    Mistake(
        "tiled-block-size-ignored",
        ("tiled_attention",),
        "The key blocks are not block_size keys long",
        "Step through the keys by the block_size argument, range(0, Lk, block_size): a fixed "
        "size (or the default 64) ignores what the caller asked for.",
    ),
    Mistake(
        "online-softmax-no-rescale",
        ("tiled_attention",),
        "Online softmax does not rescale the running sums when the max changes",
        "When the running max grows from m to m', multiply the accumulator and the running sum "
        "by exp(m − m') before adding the new block.",
    ),
    Mistake(
        "forgot-final-normalisation",
        ("tiled_attention",),
        "Output not divided by the softmax denominator at the end",
        "After the last key block, divide the accumulator by the running sum l.",
    ),
    Mistake(
        "materialises-full-matrix",
        ("tiled_attention",),
        "Builds a full (Lq, Lk) matrix",
        "Only (Lq, block_size) score tiles may exist at a time: that is the point of tiling.",
    ),
    Mistake(
        "causal-block-offset",
        ("tiled_attention",),
        "Causal mask inside a block uses block-local indices",
        "Compare global positions: key start + j may be seen by query i when start + j ≤ i.",
    ),
    Mistake(
        "tiled-causal-diagonal-unmasked",
        ("tiled_attention",),
        "Queries tiled too, and the key block on the diagonal left unmasked",
        "Only a key block that ends before the query block starts (end <= q_start) needs no "
        "mask: the block on the diagonal holds keys after some of its queries, so mask key j > "
        "query i there, with global positions.",
    ),
    Mistake(
        "partial-block-dropped",
        ("tiled_attention",),
        "The last, shorter block of keys (or of queries) is skipped or breaks the code",
        "When Lk (or Lq, if you tile the queries) is not a multiple of block_size the last block "
        "is shorter, and a reshape of k into Lk // block_size whole blocks fails: loop with "
        "range(0, Lk, block_size) and slice to min(start + block_size, Lk).",
    ),
    Mistake(
        "kv-cache-wrong-dim",
        ("KVCache",),
        "Cache concatenates along the wrong dimension",
        "New keys and values are new positions: torch.cat([old, new], dim=-2).",
    ),
    Mistake(
        "kv-cache-not-stored",
        ("KVCache",),
        "The cache does not keep what was appended",
        "Store the concatenated tensors on self and return them; the next append builds on them.",
    ),
    Mistake(
        "kv-cache-prepends",
        ("KVCache",),
        "New keys/values put before the old ones",
        "Order matters for positions: torch.cat([old, new], dim=-2), old first.",
    ),
    Mistake(
        "tiled-causal-bottom-right",
        ("tiled_attention",),
        "The causal mask aligned bottom-right when Lq != Lk",
        "causal=True is top-left aligned, as SDPA's is_causal: query i sees keys 0..i whatever "
        "Lk - Lq is, so mask key j where j > i.",
    ),
    Mistake(
        "tiled-causal-ignored",
        ("tiled_attention",),
        "causal=True is ignored: every query sees every key",
        "With causal=True, query i sees keys 0..i only: mask key j where j > i in each block "
        "(the blocks that start after the last query need not be computed at all).",
    ),
    Mistake(
        "tiled-causal-strict",
        ("tiled_attention",),
        "The causal mask hides the query's own position",
        "Query i sees keys 0..i, itself included: mask key j only where j > i, not j >= i.",
    ),
    Mistake(
        "online-softmax-inverted-correction",
        ("tiled_attention",),
        "The running sums rescaled by exp(m_new - m) instead of exp(m - m_new)",
        "When the running max grows from m to m_new, what was summed under m shrinks: multiply "
        "the sum and the accumulator by exp(m - m_new), at most 1.",
    ),
    Mistake(
        "online-softmax-no-max",
        ("tiled_attention",),
        "The online softmax exponentiates the scores without subtracting the running max",
        "exp(s) overflows to inf once a score passes about 88 in float32: keep a running max m "
        "per query and exponentiate s - m_new, as in the lesson's loop.",
    ),
    Mistake(
        "online-max-starts-at-zero",
        ("tiled_attention",),
        "The running max starts at 0 instead of -inf",
        "Start m at -inf (torch.full(..., float('-inf'))): from 0, a query whose scores are all "
        "below about -88 adds exp(s - 0) = 0 in float32 and its sum stays 0.",
    ),
    Mistake(
        "online-max-not-updated",
        ("tiled_attention",),
        "The running max is not updated from block to block",
        "At every block take m_new = torch.maximum(m, s.amax(-1, keepdim=True)), then set m = "
        "m_new: with m left at -inf every block wipes out the ones before it, and a max kept "
        "from the first block lets a later block's larger scores overflow exp.",
    ),
    Mistake(
        "online-max-before-mask",
        ("tiled_attention",),
        "The running max includes scores the causal mask hides",
        "Mask first, then take the max: s = s.masked_fill(mask, float('-inf')) before "
        "s.amax(-1, keepdim=True). A hidden key that scores far above the visible ones makes "
        "their exp(s - m) underflow to 0, and the query's output 0 or NaN.",
    ),
    Mistake(
        "tiled-v-sliced-on-features",
        ("tiled_attention",),
        "The value block is sliced on the feature dim instead of the key positions",
        "Slice v like k, on the positions: v[..., start:end, :]; v[..., start:end] cuts its "
        "last dim, the features.",
    ),
    Mistake(
        "tiled-half-accumulation",
        ("tiled_attention",),
        "Half-precision inputs accumulated in half precision",
        "Do the arithmetic in float32 (q.to(torch.promote_types(q.dtype, torch.float32)), the "
        "same for k and v) and return out.to(q.dtype): sums of exponentials over many key "
        "blocks lose digits in float16.",
    ),
    Mistake(
        "window-no-lower-bound",
        ("sliding_window_mask",),
        "The window has no lower bound: every earlier key is allowed",
        "Query i sees only the last `window` keys: 0 <= i - j < window, not just j <= i.",
    ),
    Mistake(
        "window-looks-ahead",
        ("sliding_window_mask",),
        "The window looks ahead: j - i where i - j is meant",
        "Query i sees keys i - window + 1 .. i, behind it: True where 0 <= i - j < window.",
    ),
    Mistake(
        "kv-cache-values-not-stored",
        ("KVCache",),
        "The cache keeps the keys but not the values",
        "Concatenate and store both: self.v = torch.cat([self.v, v], dim=-2) as for self.k.",
    ),
    Mistake(
        "kv-cache-returns-v-k",
        ("KVCache",),
        "append gives the values where the keys belong, (v_all, k_all)",
        "Keys first, where they are stored and where they are returned: self.k, self.v = k, v on "
        "the first append (not v, k), and return self.k, self.v.",
    ),
    Mistake(
        "kv-cache-returns-new-only",
        ("KVCache",),
        "append returns only the new keys and values",
        "Store the concatenation (self.k = torch.cat([self.k, k], dim=-2), the same for v) and "
        "return all of it, self.k and self.v: the new token attends to every cached key and "
        "value.",
    ),
    Mistake(
        "kv-cache-shared-between-instances",
        ("KVCache",),
        "Every cache shares one store: lists created in the class body",
        "Create the store in __init__ (self.ks = [] or self.k = None): a list assigned in the "
        "class body is one list shared by every KVCache.",
    ),
    Mistake(
        "online-sum-over-queries",
        ("tiled_attention",),
        "The running sum l mixes the queries' rows",
        "l holds one sum per query: add p.sum(dim=-1, keepdim=True), the block's weights summed "
        "over its keys, never summed or averaged over the queries (dim=-2).",
    ),
    Mistake(
        "kv-cache-len-wrong",
        ("KVCache",),
        "len(cache) is not the number of cached positions",
        "__len__ is given and reads self.k: keep all the keys so far in self.k (and the values in "
        "self.v); TinyTransformer numbers the new positions with len(cache).",
    ),
    Mistake(
        "window-wraps-around",
        ("sliding_window_mask",),
        "The window wraps around: the first queries see the last keys",
        "Compare i - j itself, without a modulo: True where 0 <= i - j < window; (i - j) % L "
        "turns the future keys at the end into recent ones, and so do positions in a small "
        "integer type (int8 wraps past 127).",
    ),
    Mistake(
        "kv-cache-drops-oldest",
        ("KVCache",),
        "The cache keeps only N positions (the latest, or the first N)",
        "append concatenates every k and v so far along dim -2, however many: a cache cut to "
        "the last N positions (a sliding window, a maximum length) loses the start of the "
        "sequence once it grows past N, and a buffer of N preallocated slots drops the rest.",
    ),
    Mistake(
        "window-always-sees-first",
        ("sliding_window_mask",),
        "Every query also sees token 0",
        "The mask is the window only, True where 0 <= i - j < window; an extra 'sink' column for "
        "token 0 is not part of it.",
    ),
    Mistake(
        "online-max-over-queries",
        ("tiled_attention",),
        "One running max for the whole block instead of one per query",
        "Take the max over the keys only, s.amax(dim=-1, keepdim=True): a query whose scores "
        "are far below another query's max gets exp(s - m) = 0 for every key.",
    ),
    Mistake(
        "online-max-before-scaling",
        ("tiled_attention",),
        "The running max is taken of the scores before scaling",
        "Scale first, s = q @ k.T * scale, and keep the max of that s: the max of the unscaled "
        "scores is off by the factor sqrt(d_k), so exp(s - m) underflows or overflows.",
    ),
    Mistake(
        "tiled-keys-first-block-only",
        ("tiled_attention",),
        "Only the first key block is used: k sliced as k[..., start:block_size, :]",
        "Slice each block's keys as k[..., start:start + block_size, :]: an end of block_size "
        "leaves every later block empty, a start of 0 gives every block the first one's keys.",
    ),
    Mistake(
        "online-sum-no-keepdim",
        ("tiled_attention",),
        "The running sum l has no last dim (no keepdim), so acc / l divides by the wrong sums",
        "Keep l as (..., Lq, 1), p.sum(dim=-1, keepdim=True): an l of shape (..., Lq) divides "
        "feature j of every query by query j's sum.",
    ),
    Mistake(
        "tiled-returns-tuple",
        ("tiled_attention",),
        "tiled_attention returns a tuple where the output alone is asked for",
        "Return the output tensor only, (..., Lq, d_v): the weights are never formed here, and "
        "the running max and sum stay inside the function.",
    ),
    Mistake(
        "online-normalised-twice",
        ("tiled_attention",),
        "The output is divided by the softmax's sum twice",
        "Divide by the running sum l once: keep the accumulator unnormalised and return acc / l, "
        "or keep it normalised block by block (FlashAttention-1) and return it as it is.",
    ),
    Mistake(
        "online-old-sum-dropped",
        ("tiled_attention",),
        "The output kept normalised (FlashAttention-1) is rescaled without the old sum l",
        "A normalised output is divided by the old sum l: undo that before adding the new "
        "block, o = (exp(m - m') * l * o + P @ V_j) / l' (or keep the accumulator unnormalised "
        "and divide by l once, at the end).",
    ),
    Mistake(
        "tiled-output-width-d-k",
        ("tiled_attention",),
        "The accumulator or output is shaped like q, so d_v != d_k fails",
        "The output has v's width, (..., Lq, d_v): make the accumulator "
        "torch.zeros(*q.shape[:-1], v.shape[-1], device=q.device), not torch.zeros_like(q).",
    ),
    Mistake(
        "online-max-block-only",
        ("tiled_attention",),
        "The new running max is the block's max alone",
        "The running max only grows: m_new = torch.maximum(m, s.amax(-1, keepdim=True)); the "
        "block's max alone forgets the earlier blocks, and a fully masked block then wipes them.",
    ),
    Mistake(
        "tiled-masked-block-nan",
        ("tiled_attention",),
        "A key block that is all masked for a query gives NaN",
        "Before any key is seen the running max is -inf, and exp(-inf - (-inf)) is NaN: take 0 "
        "where m_new is -inf, torch.where(m_new.isneginf(), 0.0, m_new), before exponentiating.",
    ),
    Mistake(
        "tiled-causal-skips-visible-block",
        ("tiled_attention",),
        "With causal=True the loop skips a key block that some query still sees",
        "Only a key block that starts after the last query is all in the future: skip (or break) "
        "when start >= Lq, never earlier, and let the mask hide the rest.",
    ),
)
