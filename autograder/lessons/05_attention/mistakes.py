"""Lesson 05's known mistakes (single-head attention) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

_ATTN = ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention")
# The exercises from this lesson on whose checks watch that calls are independent
# (autograder.kit.repeat; lessons 01-04's checks, QKVProjection's calls too, are watched as well:
# the mistake is taught here).
_STATELESS = _ATTN + (
    "split_heads",
    "merge_heads",
    "LearnedPositionalEmbedding",
    "apply_rope",
    "FeedForward",
    "TransformerBlock",
    "TinyTransformer",
    "sliding_window_mask",
    "tiled_attention",
)

MISTAKES = (
    Mistake(
        "computed-in-float32",
        ("scaled_dot_product_attention", "tiled_attention"),
        "float64 inputs computed in float32 and cast back",
        "Keep float64 inputs in float64: no .float() on q, k or v (for half inputs, "
        "torch.promote_types(q.dtype, torch.float32) is float32 and leaves float64 alone). A "
        "float64 score of 1e8 · (1 + 1e-8) - 1e8 is 1, but float32 rounds 1 + 1e-8 to 1 and "
        "gets 0.",
    ),
    Mistake(
        "scaled-after-softmax",
        ("scaled_dot_product_attention",),
        "The scale applied to the weights after the softmax instead of to the scores before it",
        "Divide the scores by sqrt(d_k) before the softmax: softmax(q @ k^T / sqrt(d_k)). Scaled "
        "afterwards, each row of weights sums to 1 / sqrt(d_k) instead of 1.",
    ),
    Mistake(
        "scores-returned-as-weights",
        ("scaled_dot_product_attention",),
        "The scores before the softmax returned as the weights",
        "Return the attention weights, the softmax of the scores, as the second output: "
        "(weights @ v, weights), not the scores they were computed from.",
    ),
    Mistake(
        "output-shaped-like-q",
        ("scaled_dot_product_attention", "SelfAttention"),
        "The output reshaped to q's shape",
        "weights @ v already has the right shape, (..., Lq, d_v): its last dim is v's d_v, which "
        "may differ from q's d_k, so drop the .view(q.shape).",
    ),
    Mistake(
        "batch-flattened",
        ("SelfAttention",),
        "Every token of the batch attends to every other: the batch flattened into one sequence",
        "Keep x's leading dims: project x as it is, (B, L, d_model), so that each sequence's "
        "queries see only its own keys; x.reshape(-1, d_model) makes one sequence of B·L tokens.",
    ),
    Mistake(
        "weight-untransposed",
        ("SelfAttention", "MultiHeadAttention"),
        "A projection computed as x @ layer.weight, without transposing nn.Linear's weight",
        "nn.Linear stores its weight as (out_features, in_features) and computes x @ W.T + b: "
        "call the layer, self.w_q(x), or use x @ self.w_q.weight.T.",
    ),
    Mistake(
        "additive-mask-as-bool",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention", "TransformerBlock"),
        "An additive float mask is used as a bool mask",
        "Add a float mask to the scores, scores + mask.to(scores.dtype), as "
        "F.scaled_dot_product_attention does: its entries are 0, -inf (blocked) or a finite bias. "
        "Made a bool mask (mask.bool(), mask == 0, mask.isfinite()) it blocks the wrong keys or "
        "loses the biases.",
    ),
    Mistake(
        "additive-mask-wrong-sign",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention"),
        "An additive float mask is subtracted from the scores instead of added",
        "Add it: scores + mask. Subtracting turns -inf into +inf, so blocked keys win and the "
        "weights become NaN.",
    ),
    Mistake(
        "bool-mask-added",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention", "TransformerBlock"),
        "A bool mask made a float and added to the scores",
        "mask.float() is 1 where a query may attend and 0 where it may not, so adding it blocks "
        "nothing: fill the blocked scores with -inf, scores.masked_fill(~mask, float('-inf')).",
    ),
    Mistake(
        "scaled-by-d-model",
        ("SelfAttention", "MultiHeadAttention"),
        "Scaled by sqrt(d_model) instead of sqrt(d_k), the width q and k have",
        "Divide the scores by the square root of the dimension q and k actually have, "
        "q.shape[-1] (SelfAttention's d_k, or each head's d_model // num_heads), not d_model.",
    ),
    Mistake(
        "scaled-by-d-v",
        ("scaled_dot_product_attention", "SelfAttention", "tiled_attention"),
        "Scaled by sqrt(d_v), the values' width, instead of sqrt(d_k)",
        "The scale belongs to the scores q @ k^T, whose variance grows with d_k = q.shape[-1]; "
        "v.shape[-1] is d_v, which may differ.",
    ),
    Mistake(
        "mask-after-softmax",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention"),
        "Mask applied after the softmax, not to the scores",
        "Mask the scores before the softmax, so that the weights of the keys left sum to 1. "
        "Weights masked after it sum to less, and renormalising them does not mend it: a "
        "blocked key with a high score has already taken the weight, and left the others at 0.",
    ),
    Mistake(
        "weights-before-masking",
        ("scaled_dot_product_attention", "MultiHeadAttention"),
        "The output or the returned weights computed before masking",
        "Multiply v with the weights you return, both computed from the masked scores.",
    ),
    Mistake(
        "mask-ignored",
        ("TransformerBlock",) + _ATTN,
        "The mask argument is ignored, for this kind of mask at least",
        "Pass the mask through to where the scores are computed and apply it there, whichever "
        "kind it is: a bool mask (True: may attend) or a float one (added to the scores).",
    ),
    Mistake(
        "dtype-promoted",
        (
            "apply_rope",
            "LearnedPositionalEmbedding",
            "scaled_dot_product_attention",
            "MultiHeadAttention",
        ),
        "float16/bfloat16 mixed with float32: the result comes back as float32 or the call raises",
        "A float32 tensor you created or were given (a scale, a mask, position angles), or a "
        ".float() on the way, promoted the result or made a matmul raise (expected scalar type "
        "Float but found Half): create tensors with dtype=x.dtype, or cast with .to(x.dtype).",
    ),
    Mistake(
        "dropout-always-on",
        (
            "scaled_dot_product_attention",
            "SelfAttention",
            "MultiHeadAttention",
            "LearnedPositionalEmbedding",
            "FeedForward",
            "TransformerBlock",
            "TinyTransformer",
        ),
        "Dropout still active in eval mode, or where the exercise has none",
        "F.dropout(x, p) defaults to training=True: use an nn.Dropout module, or pass "
        "training=self.training; where the exercise takes no dropout argument, apply none.",
    ),
    Mistake(
        "weights-times-keys",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention", "tiled_attention"),
        "The weights average the keys instead of the values: weights @ k",
        "The output is weights @ v: the keys decide how much each position counts, the values "
        "are what is averaged.",
    ),
    Mistake(
        "output-weights-swapped",
        ("scaled_dot_product_attention", "SelfAttention"),
        "Returns (weights, output) instead of (output, weights)",
        "Return the output first: return weights @ v, weights.",
    ),
    Mistake(
        "mask-reshaped-in-sdpa",
        ("scaled_dot_product_attention",),
        "The mask reshaped inside scaled_dot_product_attention",
        "Use the mask as it is given: it already broadcasts to the scores (..., Lq, Lk), as "
        "(Lq, Lk), (B, 1, Lk) or (B, h, Lq, Lk) do; an unsqueeze moves its batch dim onto "
        "another axis.",
    ),
    Mistake(
        "value-projection-width-d-k",
        ("SelfAttention",),
        "w_v built with d_k outputs instead of d_v",
        "The values have their own width: w_v = nn.Linear(d_model, d_v, bias=False), so the "
        "output is (..., L, d_v); only w_q and w_k use d_k.",
    ),
    Mistake(
        "values-transposed",
        ("scaled_dot_product_attention",),
        "v is transposed before weights @ v",
        "Only k is transposed (for the scores q @ k^T); the output is weights @ v, with v as "
        "given, (..., Lk, d_v). weights @ v.transpose(-2, -1) fails unless Lk == d_v, and is "
        "wrong then.",
    ),
    Mistake(
        "key-projection-width-d-v",
        ("SelfAttention",),
        "w_k built with d_v outputs instead of d_k",
        "Keys are compared with queries, so they share their width: w_k = nn.Linear(d_model, "
        "d_k, bias=False); only w_v uses d_v.",
    ),
    Mistake(
        "state-between-calls",
        _STATELESS,
        "A call depends on the calls before it",
        "Keep nothing from one call to the next on self or in a global (a remembered mask, a "
        "cache keyed by a shape, a position counter): compute everything from the arguments (a "
        "cache keyed by all it depends on, device and dtype included), and keep a module's fixed "
        "tables as buffers made in __init__.",
    ),
    Mistake(
        "fixed-input-rank",
        ("SelfAttention",),
        "Only inputs of one rank work: B, L, D = x.shape",
        "x may have any leading dims, (L, d_model) or (B, L, d_model): nn.Linear and @ act on "
        "the last dims already, so don't unpack x.shape; read L as x.shape[-2] if you need it.",
    ),
    Mistake(
        "mask-default-causal",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention"),
        "mask=None is taken as a causal mask",
        "No mask means every query may attend to every key: apply a mask only when one is given "
        "(a decoder passes causal_mask(L) itself).",
    ),
    Mistake(
        "mask-transposed",
        _ATTN,
        "The mask transposed: (keys, queries) instead of (queries, keys)",
        "mask[i, j] says whether query i may attend to key j, the layout of the scores "
        "(..., Lq, Lk): pass it as given; transposed, a causal mask lets every query see the "
        "future instead.",
    ),
    Mistake(
        "mask-added-before-scaling",
        ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention"),
        "A float mask added before the scores are divided by sqrt(d_k)",
        "Scale first, then add the mask: q @ k^T / sqrt(d_k) + mask, as "
        "F.scaled_dot_product_attention does; added before, a finite bias is divided too.",
    ),
)
