"""Lesson 08's known mistakes (Transformer blocks) (see autograder/mistakes.py)."""

from autograder.mistakes import Mistake

MISTAKES = (
    Mistake(
        "ffn-missing-activation",
        ("FeedForward", "TransformerBlock"),
        "No activation between the two linear layers",
        "Two linear layers in a row are one linear layer; put a ReLU between them.",
    ),
    Mistake(
        "ffn-wrong-activation",
        ("FeedForward",),
        "Wrong activation in the feed-forward network",
        "The contract (and the original Transformer) use ReLU; GPT-2 uses GELU, but not here.",
    ),
    Mistake(
        "dropout-always-on",
        ("FeedForward", "TransformerBlock"),
        "Dropout still active in eval mode",
        "F.dropout(x, p) defaults to training=True; use an nn.Dropout module (or pass "
        "training=self.training).",
    ),
    Mistake(
        "pre-post-ln-swapped",
        ("TransformerBlock",),
        "Pre-LN and Post-LN mixed up (norm_first)",
        "Pre-LN (norm_first=True): x + sublayer(norm(x)). Post-LN: norm(x + sublayer(x)).",
    ),
    Mistake(
        "residual-missing",
        ("TransformerBlock",),
        "A residual connection is missing",
        "Each sublayer adds its output to its input: x = x + attn(...), then x = x + ff(...).",
    ),
    Mistake(
        "residual-from-normed-input",
        ("TransformerBlock",),
        "Pre-LN residual adds the normalised x instead of the raw x",
        "Keep the un-normalised x for the residual: x = x + attn(norm1(x)), not "
        "x = norm1(x); x = x + attn(x).",
    ),
    Mistake(
        "same-norm-twice",
        ("TransformerBlock",),
        "The same LayerNorm used for both sublayers",
        "norm1 goes with attention, norm2 with the feed-forward network.",
    ),
    Mistake(
        "not-causal",
        ("TinyTransformer",),
        "The language model sees future tokens",
        "A decoder-only model must use a causal mask in every attention layer.",
    ),
    Mistake(
        "positions-missing",
        ("TinyTransformer",),
        "No positional information: the model can't tell token order",
        "Add position embeddings (learned or sinusoidal) to the token embeddings.",
    ),
    Mistake(
        "logits-softmaxed",
        ("TinyTransformer",),
        "forward returns probabilities instead of logits",
        "Return the raw output of the last linear layer; cross-entropy applies the softmax.",
    ),
    Mistake(
        "layers-not-registered",
        ("TinyTransformer",),
        "Blocks stored in a plain Python list: their parameters are not registered",
        "Use nn.ModuleList (or nn.Sequential) so the blocks' weights are trained and saved.",
    ),
)
