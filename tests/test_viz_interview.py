"""course_lib.viz_interview: the countdown builds headless and its label follows the clock."""

import pytest

from course_lib.viz_interview import Countdown, time_left


def test_the_label_shows_the_time_left_as_the_clock_runs():
    widget = Countdown(10)
    assert widget.label.value == "10:00 left" and widget.clock.max == 600
    widget.clock.value = 31
    assert widget.label.value == "09:29 left"
    widget.clock.value = 600
    assert widget.label.value.startswith("time is up")


def test_time_left_formats_minutes_and_seconds():
    assert time_left(75) == "01:15 left"
    assert time_left(0).startswith("time is up")


def test_a_countdown_needs_a_positive_duration():
    with pytest.raises(ValueError, match="positive"):
        Countdown(0)
