"""Lesson 01's known mistakes (projections) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

# The exercises with float inputs to differentiate and a tensor output (COURSE_SPEC's rules).
_DIFFERENTIABLE = (
    "project_qkv",
    "QKVProjection",
    "attention_scores",
    "scaled_attention_scores",
    "softmax_entropy",
    "softmax",
    "masked_scores",
    "scaled_dot_product_attention",
    "SelfAttention",
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
    "LearnedPositionalEmbedding",
    "apply_rope",
    "FeedForward",
    "TransformerBlock",
    "TinyTransformer",
    "tiled_attention",
)

# The modules whose layers the grader finds by the contract's attribute names.
_NAMED_LAYERS = (
    "QKVProjection",
    "SelfAttention",
    "MultiHeadAttention",
    "LearnedPositionalEmbedding",
    "FeedForward",
    "TransformerBlock",
)

MISTAKES = (
    Mistake(
        "project-transposed-weights",
        ("project_qkv", "QKVProjection"),
        "Weights used transposed",
        "With w of shape (d_model, d_k) the projection is x @ w. nn.Linear stores its weight as "
        "(out, in), so inside a module it is x @ linear.weight.T, or simply linear(x).",
    ),
    Mistake(
        "weight-on-the-left",
        ("project_qkv", "QKVProjection"),
        "The weight multiplied on the left: w_q @ x instead of x @ w_q",
        "Each row of x is a token, so the token's features meet the weight's rows: x @ w_q, "
        "shape (..., L, d_model) @ (d_model, d_k) -> (..., L, d_k).",
    ),
    Mistake(
        "qkv-order-swapped",
        ("project_qkv", "QKVProjection", "SelfAttention", "MultiHeadAttention"),
        "q, k and v come back in the wrong order or from the wrong weights",
        "Queries come from w_q, keys from w_k, values from w_v, returned (or used) in that "
        "order: q, k, v.",
    ),
    Mistake(
        "projection-has-bias",
        ("QKVProjection", "SelfAttention", "MultiHeadAttention"),
        "Projection layers have a bias the contract does not ask for",
        "Create each projection as nn.Linear(d_in, d_out, bias=False), exactly as the "
        "exercise's signature asks.",
    ),
    Mistake(
        "shared-projection-layer",
        ("QKVProjection", "SelfAttention", "MultiHeadAttention"),
        "One layer shared by Q, K and V",
        "self.w_q = self.w_k = self.w_v = nn.Linear(...) makes one layer with three names, so "
        "Q = K = V always: create three nn.Linear layers.",
    ),
    Mistake(
        "matrix-only-op",
        (
            "project_qkv",
            "QKVProjection",
            "attention_scores",
            "scaled_attention_scores",
            "scaled_dot_product_attention",
        ),
        "An operation that works only for 2-D or 3-D tensors (torch.mm, torch.bmm, .t(), x.T, "
        "permute, einsum without ...)",
        "Inputs may have any number of leading batch dims: use @ (torch.matmul) and "
        "transpose(-2, -1), which act on the last two dims whatever comes before (in einsum, "
        "'...qd,...kd->...qk').",
    ),
    Mistake(
        "module-attribute-names",
        _NAMED_LAYERS,
        "Layers are not stored under the attribute names of the contract",
        "Name the layers exactly as the exercise says (w_q, w_k, w_v, w_o, embedding, linear1, "
        "...): the grader loads known weights into them by name.",
    ),
    Mistake(
        "missing-super-init",
        _NAMED_LAYERS + ("TinyTransformer",),
        "The module does not call super().__init__() first",
        "An nn.Module must call super().__init__() before it assigns any layer to self.",
    ),
    Mistake(
        "breaks-autograd",
        _DIFFERENTIABLE + ("KVCache",),
        "No gradient reaches an input or a parameter",
        "Drop the torch.no_grad(), .detach() or requires_grad_(False) on the way from the inputs "
        "and weights to the output: the model must be able to train.",
    ),
    Mistake(
        "gradient-path-detached",
        _DIFFERENTIABLE,
        "The output is right but a gradient is not: one path from an input is detached",
        "Drop the .detach(), .data or torch.no_grad() on the way from that input or weight: a "
        "gradient must flow along every path by which it reaches the output.",
    ),
    Mistake(
        "inplace-breaks-backward",
        _DIFFERENTIABLE,
        "An in-place edit of a tensor the gradient needs makes backward() fail",
        "Make a new tensor instead (replace x /= s by x = x / s, x += y by x = x + y, "
        "Dropout(inplace=True) by Dropout()): autograd needs the value from before the edit.",
    ),
    Mistake(
        "squeezed-output",
        _DIFFERENTIABLE + ("KVCache",),
        "A dimension of size 1 is dropped from the output",
        "Don't .squeeze() the result: a batch, a head or a sequence of length 1 keeps its "
        "dimension.",
    ),
)
