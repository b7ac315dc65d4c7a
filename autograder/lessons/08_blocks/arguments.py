"""Lesson 08: ``TinyTransformer`` builds what its arguments ask for. The blocks are the learner's
own ``TransformerBlock``s, whose attribute names the contract gives (``ff.linear1``, ``norm1``), so
their number and their feed-forward width can be read from the parameters; the number of heads
shows in the construction: ``MultiHeadAttention`` refuses a d_model that num_heads does not divide.
"""

from __future__ import annotations

from autograder.i18n import _
from autograder.kit import Call, LearnerError, fail
from autograder.kit.lm_layout import block_names

IGNORED = "lm-ignores-arguments"


def expect_arguments_used(sub) -> None:
    """TinyTransformer(5, 8, 1, 3, 24, 4) has 3 blocks whose linear1 is Linear(8, 24), and
    TinyTransformer(5, 8, 3, 1, 16, 4) cannot be built where MultiHeadAttention(8, 3) cannot."""
    args = (5, 8, 1, 3, 24, 4)
    c = Call("TinyTransformer", *args)
    try:
        info = sub.new("TinyTransformer", *args).apply("describe")
    except LearnerError:
        info = {}  # judged by the other checks
    params = info.get("parameters", {})
    blocks = block_names(info)
    if blocks and len(blocks) != 3:
        raise fail(
            _("{call} has {count} TransformerBlocks; expected num_layers = 3.").format(
                call=c, count=len(blocks)
            ),
            IGNORED,
        )
    for name in sorted(blocks):
        shape = params.get(f"{name}.ff.linear1.weight")
        if shape is not None and list(shape) != [24, 8]:
            raise fail(
                _(
                    "{call}: {layer} has shape {shape}; expected (24, 8): each block's "
                    "FeedForward is built with d_ff = 24."
                ).format(call=c, layer=f"{name}.ff.linear1.weight", shape=tuple(shape)),
                IGNORED,
            )
    c = Call("TinyTransformer", 5, 8, 3, 1, 16, 4)
    try:
        sub.new("TinyTransformer", 5, 8, 3, 1, 16, 4)
    except LearnerError:
        return
    try:  # one that raises only when called (allowed), or never (lesson 06's), tells nothing
        sub.new("MultiHeadAttention", 8, 3, bias=True)
        return
    except LearnerError as err:
        if err.kind not in ("ValueError", "AssertionError"):
            return
    raise fail(
        _(
            "{call} was built, although d_model = 8 is not a multiple of num_heads = 3 and "
            "MultiHeadAttention raises then: build each block's attention with num_heads."
        ).format(call=c),
        IGNORED,
    )
