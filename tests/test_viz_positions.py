"""course_lib.viz_positions: the lesson 07 plots and widget build headless and show what they
claim to, drawn from whatever functions they are given."""

import math

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.positions import apply_rope, sinusoidal_positional_encoding  # noqa: E402
from course_lib.viz_positions import (  # noqa: E402
    RopeRotation,
    plot_encoding,
    plot_offset_dots,
)

PNG = b"\x89PNG"


# Every test here: viz builds figures without pyplot's global state (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_pyplot_figures_leak")


def test_plot_encoding_shows_the_table_on_a_fixed_scale():
    pe = sinusoidal_positional_encoding(10, 6)
    fig = plot_encoding(pe, title="t")
    assert isinstance(fig, Figure)
    image = fig.axes[0].images[0]
    assert image.get_array().shape == (10, 6)
    assert image.get_clim() == (-1, 1), "sin and cos values live in [-1, 1]"
    with pytest.raises(ValueError, match="positions, features"):
        plot_encoding(torch.zeros(2, 3, 4))


def test_plot_offset_dots_draws_one_curve_per_start_that_coincide_for_sinusoids():
    pe = sinusoidal_positional_encoding(80, 16)
    fig = plot_offset_dots(pe, starts=[5, 30], max_offset=40)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2
    (x5, y5), (x30, y30) = (line.get_data() for line in lines)
    assert x5[0] == -5 and x30[0] == -30 and x5[-1] == x30[-1] == 40
    common = [k for k in x5 if k in set(x30)]
    assert len(common) == 46
    ys5 = dict(zip(x5, y5, strict=True))
    ys30 = dict(zip(x30, y30, strict=True))
    assert all(math.isclose(ys5[k], ys30[k], abs_tol=1e-4) for k in common)
    assert math.isclose(ys5[0], 8.0, rel_tol=1e-5), "at offset 0 the dot product is d/2"
    with pytest.raises(ValueError, match="past the table's end"):
        plot_offset_dots(pe, starts=[50], max_offset=40)


def test_rope_rotation_widget_keeps_the_score_when_both_positions_move():
    widget = RopeRotation(apply_rope, dim=8)
    assert widget.image.value[:4] == PNG
    widget.offset.value = 3
    widget.position.value = 0
    at_zero = widget.score(0, 3)
    widget.position.value = 17
    assert "equal" in widget.summary.value and "DIFFERENT" not in widget.summary.value
    assert math.isclose(widget.score(17, 3), at_zero, rel_tol=1e-5)
    widget.offset.value = 5
    assert not math.isclose(widget.score(17, 5), at_zero, rel_tol=1e-3)
    first = widget.image.value
    widget.pair.value = 2
    assert widget.image.value != first
    assert "pair 2" in widget.summary.value


def test_rope_rotation_widget_reports_a_rope_that_depends_on_absolute_positions():
    def absolute(x, positions=None, base=10000.0):  # not RoPE: scales by the position
        return x * (1 + positions[:, None].to(x.dtype))

    widget = RopeRotation(absolute, dim=4)
    widget.position.value = 5
    assert "DIFFERENT" in widget.summary.value


def test_rope_rotation_widget_never_puts_the_key_before_position_zero():
    widget = RopeRotation(apply_rope, dim=4)
    widget.position.value = 2
    widget.offset.value = -8  # the key would be at -6: it is clamped to 0
    assert "k at 0" in [t.get_text().strip() for t in widget.figure.axes[0].texts]
