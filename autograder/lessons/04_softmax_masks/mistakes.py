"""Lesson 04's known mistakes (softmax and masks) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

_ATTN = ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention")

MISTAKES = (
    Mistake(
        "softmax-wrong-dim",
        ("softmax",) + _ATTN,
        "Softmax normalised over the wrong dimension",
        "Each query's weights over the keys must sum to 1: normalise over the last dim (keys), "
        "not over the queries.",
    ),
    Mistake(
        "softmax-unstable",
        ("softmax", "scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention"),
        "Softmax without subtracting each row's max: exp overflows on large inputs",
        "exp(1000) is inf in float32, and a row far below 0 underflows to 0 / 0. Subtract each "
        "row's own max first, with no floor or clamp on it: softmax(x) = softmax(x - m).",
    ),
    Mistake(
        "softmax-global-max",
        ("softmax", "scaled_dot_product_attention", "SelfAttention"),
        "Subtracts the max of the whole tensor instead of each row's max",
        "Use x.amax(dim, keepdim=True): with one global max a row of very negative values "
        "underflows to 0 / 0.",
    ),
    Mistake(
        "sum-without-keepdim",
        ("softmax",),
        "Divides by a sum taken without keepdim=True",
        "x.sum(-1) has shape (..., L) and broadcasts along the wrong axis; use "
        "x.sum(dim, keepdim=True) so each row is divided by its own sum.",
    ),
    Mistake(
        "max-without-keepdim",
        ("softmax", "scaled_dot_product_attention"),
        "Subtracts row maxes taken without keepdim=True",
        "Take each row's max with scores.amax(-1, keepdim=True): without keepdim the (..., Lq) "
        "maxes line up with the keys, so column j is shifted by row j's max (and Lq != Lk fails).",
    ),
    Mistake(
        "fully-masked-nan",
        ("softmax",) + _ATTN,
        "NaN for a query whose keys are all masked",
        "A row of -inf gives exp(-inf - (-inf)) = NaN. Detect rows with no allowed key and give "
        "them all-zero weights (e.g. torch.where on the row max being -inf).",
    ),
    Mistake(
        "causal-mask-inverted",
        ("causal_mask", "sliding_window_mask"),
        "Mask inverted: True marks the keys to block (the nn.MultiheadAttention convention)",
        "In this course True means 'may attend'. nn.MultiheadAttention's attn_mask uses the "
        "opposite polarity; ours is the one of F.scaled_dot_product_attention.",
    ),
    Mistake(
        "causal-off-by-one",
        ("causal_mask", "TinyTransformer"),
        "Causal mask off by one: the diagonal is wrong",
        "Each token may attend to itself and to earlier tokens: key j ≤ query i, "
        "torch.tril(..., diagonal=0).",
    ),
    Mistake(
        "causal-upper-triangle",
        ("causal_mask",),
        "Upper triangle instead of lower: queries see the future",
        "Rows are queries, columns are keys: keep j ≤ i, the lower triangle (torch.tril).",
    ),
    Mistake(
        "mask-not-bool",
        ("causal_mask", "padding_mask", "sliding_window_mask"),
        "The mask is not a bool tensor",
        "Return a torch.bool tensor (comparisons like a <= b give one; or .bool()).",
    ),
    Mistake(
        "additive-float-mask",
        ("causal_mask", "sliding_window_mask"),
        "Returns an additive float mask (0 / -inf) instead of a bool mask",
        "That is nn.Transformer's generate_square_subsequent_mask convention; the course's masks "
        "are bool, True = may attend.",
    ),
    Mistake(
        "created-on-cpu",
        (
            "causal_mask",
            "padding_mask",
            "masked_scores",
            "scaled_dot_product_attention",
            "apply_rope",
            "LearnedPositionalEmbedding",
            "TinyTransformer",
            "tiled_attention",
            "KVCache",
        ),
        "A tensor is created on the CPU instead of on the input's device",
        "Create each new tensor (torch.arange, torch.ones, torch.full...) on the input's device, "
        "device=x.device; a function given no tensor uses its own device argument.",
    ),
    Mistake(
        "padding-mask-inverted",
        ("padding_mask",),
        "Padding mask inverted: True at the padding (key_padding_mask convention)",
        "In this course True marks the real tokens: positions < length. nn.MultiheadAttention's "
        "key_padding_mask is the opposite.",
    ),
    Mistake(
        "padding-off-by-one",
        ("padding_mask",),
        "Padding mask off by one",
        "A sequence of length n has real tokens at positions 0 .. n-1: position < length.",
    ),
    Mistake(
        "mask-fixed-size",
        ("causal_mask", "padding_mask"),
        "Mask cut from one made once for a fixed largest length",
        "A mask built once for a fixed size (a module-level torch.tril(torch.ones(block_size, "
        "block_size)), nanoGPT's block_size buffer) and sliced to [:L, :L] is too small for a "
        "longer sequence. Build it from seq_len (max_len) on every call.",
    ),
    Mistake(
        "padding-mask-transposed",
        ("padding_mask",),
        "Padding mask has shape (max_len, B) instead of (B, max_len)",
        "Compare positions (1, max_len) with lengths (B, 1): "
        "arange(max_len)[None] < lengths[:, None].",
    ),
    Mistake(
        "fill-overflows-fp16",
        ("softmax", "masked_scores") + _ATTN,
        "Masked with a huge finite number (-1e9) that does not fit in float16",
        "float16 stops at 65504, so filling in -1e9 overflows (masked_fill raises); fill with "
        "float('-inf'), which every float dtype holds exactly.",
    ),
    Mistake(
        "finite-fill-value",
        ("masked_scores",) + _ATTN,
        "Masked with a finite value instead of -inf",
        "A finite fill still leaks weight (a fully masked row becomes uniform instead of zero); "
        "fill with float('-inf') and handle fully masked rows.",
    ),
    Mistake(
        "masked-to-zero",
        ("masked_scores", "scaled_dot_product_attention", "MultiHeadAttention"),
        "Masked scores set to 0 (scores * mask) instead of -inf",
        "A score of 0 still gets weight exp(0) after softmax; masked scores must be -inf.",
    ),
    Mistake(
        "mask-polarity-inverted",
        ("masked_scores", "TransformerBlock") + _ATTN,
        "Mask used the wrong way round: True treated as 'blocked'",
        "True means 'may attend': fill -inf where the mask is False, e.g. "
        "scores.masked_fill(~mask, float('-inf')).",
    ),
)
