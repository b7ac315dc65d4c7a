"""The check author's kit: everything a lesson's ``checks.py`` needs, one import away.

    from autograder.kit import Call, exercise, expect_close, generator, randn, ...

Split by job, one module each:

- ``exercise``       the ``@exercise`` mark, ``CheckFailure``, shared forbid lists;
- ``calling``        ``Call`` (run the learner's code, name it in messages), ``fail``, diagnosing
                     errors, ``on_meta`` sections;
- ``compare``        tolerances, ``expect_close`` / ``expect_tensor`` / ``expect_mask`` ...,
                     naming a wrong value by the mutant that reproduces it;
- ``inputs``         seeded random tensors and masks, the low-precision dtypes;
- ``expected``       every check's float64 expected values (``from autograder.kit.expected``);
- ``mutants``        mutants several lessons share (transposes, scales, mask mistakes);
- ``modules``        constructing a learner's nn.Module, its layers, loading known weights;
- ``invariants``     what must not change when an input the output ignores changes;
- ``shared_checks``  whole checks several exercises share;
- ``gradients``      the contract's rules for every exercise: gradients reach every input and
                     parameter, size-1 dimensions are kept (``with_rules``); naming randomness;
- ``dropout``        dropout judged by its statistics in training mode (FFN, block);
- ``lm``             a task only attention solves, for the language model;
- ``notes``          notes on a passing result (an ``assert`` accepted where ValueError is asked);
- ``text``           formatting shapes, dtypes, numbers.

Lessons use the kit and never each other's helpers; a helper a second lesson needs moves here.
A helper that must run in the sandbox next to a learner's object (``obj.apply("fit", ...)``: a
training loop, a look at its layers, gradients) is in ``autograder/sandbox/inside/remote.py``.
"""

from autograder.kit.calling import (
    PARAMS,
    Call,
    LearnerError,
    Mutant,
    Mutants,
    diagnose_error,
    fail,
    learner_failed,
)
from autograder.kit.compare import (
    DTYPE_PROMOTED,
    TOLERANCE,
    close_mask,
    diagnose,
    excerpt,
    expect_attention,
    expect_close,
    expect_mask,
    expect_meta,
    expect_tensor,
    expect_tuple,
    mask_row_message,
    same,
    tolerance,
)
from autograder.kit.exercise import (
    ATTENTION_FORBID,
    MHA_FORBID,
    CheckFailure,
    ExerciseMark,
    exercise,
    rules_of,
)
from autograder.kit.expected import INF, attend, knobs_for, merge, mha, ref_softmax, scores, split
from autograder.kit.inputs import (
    additive,
    bias_mask,
    fully_masked,
    generator,
    low_precision_dtypes,
    no_full_rows,
    rand_mask,
    randn,
)
from autograder.kit.invariants import expect_unchanged, yours_dtype
from autograder.kit.meta import MetaDataAccess, on_meta
from autograder.kit.modules import (
    construct,
    expect_layers,
    linear,
    linear_state,
    load_weights,
    method,
)
from autograder.kit.mutants import (
    ADDITIVE_MODES,
    MASK_MODES,
    attention_mutants,
    scale_mutants,
    transpose_mutants,
)
from autograder.kit.shared_checks import check_scores_like
from autograder.kit.text import (
    first_line,
    fmt_dtype,
    fmt_num,
    fmt_returned,
    fmt_row,
    fmt_shape,
    fmt_type,
    fmt_value,
    ranges,
)

__all__ = [
    "ADDITIVE_MODES",
    "ATTENTION_FORBID",
    "DTYPE_PROMOTED",
    "INF",
    "LearnerError",
    "MASK_MODES",
    "MHA_FORBID",
    "PARAMS",
    "TOLERANCE",
    "Call",
    "CheckFailure",
    "MetaDataAccess",
    "Mutant",
    "Mutants",
    "ExerciseMark",
    "attend",
    "attention_mutants",
    "check_scores_like",
    "close_mask",
    "construct",
    "diagnose",
    "diagnose_error",
    "excerpt",
    "exercise",
    "expect_attention",
    "expect_close",
    "expect_layers",
    "expect_mask",
    "expect_meta",
    "expect_tensor",
    "expect_tuple",
    "expect_unchanged",
    "fail",
    "first_line",
    "fmt_dtype",
    "fmt_num",
    "fmt_row",
    "fmt_shape",
    "fmt_returned",
    "fmt_type",
    "fmt_value",
    "additive",
    "bias_mask",
    "fully_masked",
    "generator",
    "knobs_for",
    "learner_failed",
    "linear",
    "linear_state",
    "load_weights",
    "low_precision_dtypes",
    "mask_row_message",
    "merge",
    "method",
    "mha",
    "no_full_rows",
    "on_meta",
    "rand_mask",
    "randn",
    "ranges",
    "ref_softmax",
    "rules_of",
    "same",
    "scale_mutants",
    "scores",
    "split",
    "tolerance",
    "transpose_mutants",
    "yours_dtype",
]
