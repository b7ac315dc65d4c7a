"""Reference implementations of every exercise of "Attention from Scratch".

Read a module after you have solved its lesson's exercises; each one holds one concept::

    projections  01  project_qkv, QKVProjection
    attention    02-05  attention_scores, scaled_attention_scores, softmax,
                        scaled_dot_product_attention, SelfAttention, attention_loop
    scaling      03  dot_product_variance, softmax_entropy
    masks        04, 09  causal_mask, padding_mask, masked_scores, sliding_window_mask
    multihead    06  split_heads, merge_heads, MultiHeadAttention, mha_num_parameters
    positions    07  sinusoidal_positional_encoding, LearnedPositionalEmbedding, apply_rope
    blocks       08  FeedForward, TransformerBlock, TinyTransformer, generate
    efficient    09  tiled_attention, KVCache
    data             toy_sentence, toy_task_batch (toy data, no downloads)
    memory           MemoryTracker (peak tensor memory of a block of code)
    device           pick_device, and ``python -m course_lib.device`` (the environment doctor)
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
from course_lib.multihead import (
    MultiHeadAttention,
    merge_heads,
    mha_num_parameters,
    split_heads,
)
from course_lib.positions import (
    LearnedPositionalEmbedding,
    apply_rope,
    sinusoidal_positional_encoding,
)
from course_lib.projections import QKVProjection, project_qkv
from course_lib.scaling import dot_product_variance, softmax_entropy

# The exercise ids of COURSE_SPEC.md, in lesson order.
EXERCISES = (
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
)


def __getattr__(name: str):
    # pick_device is imported on first use, so that `python -m course_lib.device` does not find
    # course_lib.device already imported by this package (runpy warns about that).
    if name == "pick_device":
        from course_lib.device import pick_device

        return pick_device
    raise AttributeError(f"module 'course_lib' has no attribute {name!r}")


__all__ = [
    # the exercises
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
    # helpers
    "EXERCISES",
    "attention_loop",
    "generate",
    "toy_sentence",
    "toy_task_batch",
    "toy_task_sequences",
    "MemoryTracker",
    "pick_device",
]
