"""Plots and widgets the lessons use to show an idea working on the learner's own code.

Every plot returns a ``matplotlib.figure.Figure`` built without pyplot, so nothing leaks between
cells and it works headless (Agg): in a notebook, a figure as the last expression of a cell is
shown once. Every widget is an ``ipywidgets.VBox`` subclass that draws its figure into an
``ipywidgets.Image`` (PNG bytes), so it can be built, driven and tested without a browser.

The functions the learner wrote are passed in (``plot_variance_vs_dk(dot_product_variance)``), so
the picture is of *their* code; where a widget needs a piece the learner has not built yet, it
uses ``torch.softmax``.

This module is what the notebooks import: ``needs`` (run a demo cell that calls the learner's
exercises) and the plots and widgets of the early lessons, which live by job in

- ``viz_figures``   matrices as heatmaps (``plot_attention``, ``plot_matrices``), figure helpers;
- ``viz_scaling``   lesson 03: ``plot_variance_vs_dk``, ``SaturationExplorer``;
- ``viz_masks``     lesson 04: ``MaskBuilder``;

and the later lessons' own in ``viz_attention``, ``viz_multihead``, ``viz_positions``,
``viz_blocks`` and ``viz_interview``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from course_lib.labels import tr
from course_lib.viz_figures import _heatmap as _heatmap  # the figure helpers, importable from
from course_lib.viz_figures import _png as _png  # here as they always were
from course_lib.viz_figures import _to_numpy as _to_numpy
from course_lib.viz_figures import plot_attention, plot_matrices
from course_lib.viz_masks import MaskBuilder
from course_lib.viz_scaling import SaturationExplorer, plot_variance_vs_dk

__all__ = [
    "needs",
    "plot_attention",
    "plot_matrices",
    "plot_variance_vs_dk",
    "SaturationExplorer",
    "MaskBuilder",
]


@contextlib.contextmanager
def needs(*names: str) -> Iterator[None]:
    """Run a demo that calls the learner's exercises; if one is not written yet, say so.

    ``with needs("softmax"): ...`` prints "write `softmax` above first, then run this cell
    again" instead of a traceback when the code inside raises ``NotImplementedError`` (the stub of
    a blank exercise), naming the exercise whose stub raised when it can tell (among ``names``).
    A ``NameError`` raised by the demo cell itself (not inside the learner's code) is a result of
    an earlier demo that could not run yet: it says so too. Every other error propagates: it is a
    real bug, and the learner must see it.
    """
    try:
        yield
    except NotImplementedError as error:
        print(
            tr(
                "write {names} above first, then run this cell again.",
                names=_unwritten(error, names),
            )
        )
    except NameError as error:
        if _raised_in(error).f_code.co_name != "<module>":
            raise
        listed = tr(" and ").join(f"`{n}`" for n in names)
        print(
            tr("write {names} and run the cells above first ({error}).", names=listed, error=error)
        )


def _raised_in(error: BaseException):
    """The frame where ``error`` was raised."""
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame


def _unwritten(error: BaseException, names: Sequence[str]) -> str:
    """The exercise whose stub raised ``error`` (a function, or a method of a class), as `name`;
    all of ``names`` when the raising frame is none of them."""
    if error.__traceback__ is not None:
        frame = _raised_in(error)
        name = frame.f_code.co_name
        owner = frame.f_locals.get("self")
        if name not in names and owner is not None:
            name = type(owner).__name__
        if name in names:
            return f"`{name}`"
    return tr(" and ").join(f"`{n}`" for n in names)
