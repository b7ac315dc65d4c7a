"""A count of zero is not said as a fact: a late submission that scored nothing loses no points,
and its note said 'late penalty: -0 points' ('迟交罚分：-0 分')."""

from __future__ import annotations

from datetime import datetime, timezone

from test_grade_zh import language  # noqa: F401 (a fixture)

from autograder.grade import messages
from autograder.grade.results import LATE, Graded


def late(points_taken: float) -> Graded:
    utc = timezone.utc
    return Graded(
        "bob",
        "04_softmax_masks",
        LATE,
        8.0,
        submitted=datetime(2026, 12, 1, 23, 30, tzinfo=utc),
        due=datetime(2026, 12, 1, 23, 0, tzinfo=utc),
        penalty=points_taken,
        late_penalty=0.125,
    )


def test_a_late_penalty_that_takes_nothing_is_not_said_as_minus_zero(language):  # noqa: F811
    language("C.UTF-8")
    assert messages.late_note(late(0.5)).endswith("; late penalty: -0.5 points")
    nothing = messages.late_note(late(0.0))
    assert "-0 points" not in nothing and nothing.endswith(
        "; a late penalty of 12.5%, with no points to take off"
    ), nothing
    language("zh_CN.UTF-8")
    nothing = messages.late_note(late(0.0))
    assert "-0 points" not in nothing, nothing
    assert nothing.endswith("；迟交罚分为 12.5%，但没有分数可扣"), nothing
