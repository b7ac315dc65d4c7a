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
    language, labels    the notebook's language, and the words figures and widgets draw in it

Each module lists what it exports in its ``__all__``; this package exports them all, so every
exercise is importable from here. The course contract's table, ``autograder/contract.py``, says
where each reference lives; a test checks that this package agrees with it. This package imports
nothing of the grader.
"""

from course_lib import (
    attention,
    blocks,
    data,
    efficient,
    masks,
    memory,
    multihead,
    positions,
    projections,
    scaling,
)
from course_lib.attention import *  # noqa: F403
from course_lib.blocks import *  # noqa: F403
from course_lib.data import *  # noqa: F403
from course_lib.efficient import *  # noqa: F403
from course_lib.masks import *  # noqa: F403
from course_lib.memory import *  # noqa: F403
from course_lib.multihead import *  # noqa: F403
from course_lib.positions import *  # noqa: F403
from course_lib.projections import *  # noqa: F403
from course_lib.scaling import *  # noqa: F403


def __getattr__(name: str):
    # pick_device is imported on first use, so that `python -m course_lib.device` does not find
    # course_lib.device already imported by this package (runpy warns about that).
    if name == "pick_device":
        from course_lib.device import pick_device

        return pick_device
    raise AttributeError(f"module 'course_lib' has no attribute {name!r}")


# Each module's own __all__ (a new reference goes into its module's __all__, not here).
__all__ = [
    *projections.__all__,
    *attention.__all__,
    *scaling.__all__,
    *masks.__all__,
    *multihead.__all__,
    *positions.__all__,
    *blocks.__all__,
    *efficient.__all__,
    *data.__all__,
    *memory.__all__,
    "pick_device",  # noqa: F405 (given by __getattr__ above, on first use)
]
