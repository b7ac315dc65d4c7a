"""The per-exercise checks, one module per lesson; importing this package registers them all.

Each check runs its cases from the smallest to the largest and raises ``CheckFailure`` at the
first thing that is wrong, naming the known mistake it recognises (``autograder.mistakes``).
Shared helpers (calling, comparing, diagnosing) live in ``_compare``.
"""

from autograder.checks import (  # noqa: F401  (imported to register the exercises)
    l01_projections,
    l02_scores,
    l03_scaling,
    l04_masks,
    l05_attention,
    l06_multihead,
    l07_positions,
    l08_blocks,
    l09_efficient,
)
