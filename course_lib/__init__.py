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

``EXERCISES`` names the exercises in lesson order; each is importable from here. They come from
the course contract's one table, ``autograder.contract``, which says where each reference lives.
"""

import importlib

from autograder.contract import CONTRACT
from course_lib.attention import attention_loop
from course_lib.blocks import generate
from course_lib.data import toy_sentence, toy_task_batch, toy_task_sequences
from course_lib.memory import MemoryTracker

# The exercise ids of COURSE_SPEC.md, in lesson order.
EXERCISES = tuple(e.name for e in CONTRACT)

for _e in CONTRACT:  # each exercise's reference, e.g. course_lib.masks.causal_mask as causal_mask
    globals()[_e.name] = getattr(importlib.import_module(_e.module), _e.name)
del _e


def __getattr__(name: str):
    # pick_device is imported on first use, so that `python -m course_lib.device` does not find
    # course_lib.device already imported by this package (runpy warns about that).
    if name == "pick_device":
        from course_lib.device import pick_device

        return pick_device
    raise AttributeError(f"module 'course_lib' has no attribute {name!r}")


__all__ = [  # the exercises' names come from the contract table
    *EXERCISES,
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
