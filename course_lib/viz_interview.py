"""Lesson 10's widget: a countdown for a whiteboard drill.

The clock is an ipywidgets ``Play`` widget: it ticks in the browser, so a running countdown never
blocks the kernel, and the label with the time left follows its value.
"""

from __future__ import annotations

import ipywidgets as widgets

from course_lib.labels import tr


def time_left(seconds: int) -> str:
    """``"09:30 left"``, or ``"time is up"`` at zero."""
    if seconds <= 0:
        return tr("time is up: check what you have")
    return tr("{minutes:02d}:{seconds:02d} left", minutes=seconds // 60, seconds=seconds % 60)


class Countdown(widgets.VBox):
    """``Countdown(10)``: press ▶ to start ten minutes; the bar fills as time passes."""

    def __init__(self, minutes: float):
        if minutes <= 0:
            raise ValueError(f"minutes must be positive, got {minutes}")
        self.total = round(minutes * 60)
        self.clock = widgets.Play(value=0, min=0, max=self.total, step=1, interval=1000)
        self.bar = widgets.IntProgress(value=0, min=0, max=self.total)
        self.label = widgets.Label(time_left(self.total))
        widgets.jslink((self.clock, "value"), (self.bar, "value"))
        self.clock.observe(self._tick, names="value")
        super().__init__([widgets.HBox([self.clock, self.label]), self.bar])

    def _tick(self, change) -> None:
        self.label.value = time_left(self.total - change["new"])
