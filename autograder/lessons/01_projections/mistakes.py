"""Lesson 01's known mistakes (projections) (see autograder/mistakes.py)."""

from autograder.mistakes import Mistake

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
        "qkv-order-swapped",
        ("project_qkv", "QKVProjection", "SelfAttention"),
        "q, k and v come back in the wrong order or from the wrong weights",
        "Return exactly (x @ w_q, x @ w_k, x @ w_v), in that order.",
    ),
    Mistake(
        "projection-has-bias",
        ("QKVProjection", "SelfAttention", "MultiHeadAttention"),
        "Projection layers have a bias the contract does not ask for",
        "Create them as nn.Linear(d_in, d_out, bias=False) (MultiHeadAttention: bias=bias).",
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
)
