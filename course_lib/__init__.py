"""Reference implementations of every exercise of "Attention from Scratch".

Read a module after you have solved its lesson's exercises; each one holds one concept::

    projections  01     the Q/K/V projections
    attention    02-05  scores, scaling, softmax, single-head attention
    scaling      03     why scale: the variance of q·k, the entropy of the weights
    masks        04, 09 causal, padding and sliding-window masks
    multihead    06     splitting and merging heads, multi-head attention
    positions    07     sinusoidal, learned and rotary positions
    blocks       08     the feed-forward layer, the Transformer block, a tiny LM
    efficient    09     tiled (online-softmax) attention, the KV cache
    data                toy_sentence, toy_task_batch (toy data, no downloads)
    memory              MemoryTracker (peak tensor memory of a block of code)
    device              pick_device, and ``python -m course_lib.device`` (the environment doctor)
    fonts               a CJK font for the Chinese edition's plot labels, when one is installed

``EXERCISES`` names the exercises in lesson order; each is importable from here. The course
contract's table, ``autograder/contract.py``, says where each reference lives; a test checks that
this package agrees with it. This package imports nothing of the grader.
"""

from course_lib.attention import (
    SelfAttention,
    attention_loop,
    attention_scores,
    scaled_attention_scores,
    scaled_dot_product_attention,
    softmax,
)
from course_lib.blocks import FeedForward, TinyTransformer, TransformerBlock, generate
from course_lib.data import toy_sentence, toy_task_batch, toy_task_sequences
from course_lib.efficient import KVCache, tiled_attention
from course_lib.masks import causal_mask, masked_scores, padding_mask, sliding_window_mask
from course_lib.memory import MemoryTracker
from course_lib.multihead import MultiHeadAttention, merge_heads, mha_num_parameters, split_heads
from course_lib.positions import (
    LearnedPositionalEmbedding,
    apply_rope,
    sinusoidal_positional_encoding,
)
from course_lib.projections import QKVProjection, project_qkv
from course_lib.scaling import dot_product_variance, softmax_entropy


def __getattr__(name: str):
    # pick_device is imported on first use, so that `python -m course_lib.device` does not find
    # course_lib.device already imported by this package (runpy warns about that).
    if name == "pick_device":
        from course_lib.device import pick_device

        return pick_device
    raise AttributeError(f"module 'course_lib' has no attribute {name!r}")


__all__ = [
    # The exercise ids of COURSE_SPEC.md, in lesson order, up to EXERCISES
    # (tests/test_course_lib_package.py checks them against the grader's autograder/contract.py).
    "project_qkv",
    "QKVProjection",
    "attention_scores",
    "scaled_attention_scores",
    "dot_product_variance",
    "softmax_entropy",
    "softmax",
    "causal_mask",
    "padding_mask",
    "masked_scores",
    "scaled_dot_product_attention",
    "SelfAttention",
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
    "mha_num_parameters",
    "sinusoidal_positional_encoding",
    "LearnedPositionalEmbedding",
    "apply_rope",
    "FeedForward",
    "TransformerBlock",
    "TinyTransformer",
    "sliding_window_mask",
    "tiled_attention",
    "KVCache",
    "EXERCISES",  # helpers from here on
    "attention_loop",
    "generate",
    "toy_sentence",
    "toy_task_batch",
    "toy_task_sequences",
    "MemoryTracker",
    "pick_device",
]

# The exercise ids, in lesson order.
EXERCISES = tuple(__all__[: __all__.index("EXERCISES")])
