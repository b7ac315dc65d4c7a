"""course_lib.viz_blocks: lesson 08's pictures build headless and show what they claim to."""

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.viz_blocks import LivePlot, plot_attention_grid, plot_block_orders  # noqa: E402

# Every test here: viz builds figures without pyplot's global state (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_pyplot_figures_leak")


def texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def test_block_orders_draw_both_orders_with_their_sublayers_in_order():
    fig = plot_block_orders()
    assert isinstance(fig, Figure)
    pre, post = fig.axes
    assert "Pre-LN" in pre.get_title() and "Post-LN" in post.get_title()
    for ax in (pre, post):
        assert texts(ax).count("+") == 2, "two residual sums per block"
    # read bottom to top: Pre-LN normalises before attention, Post-LN after the residual sum
    assert texts(pre).index("LayerNorm 1") < texts(pre).index("Attention")
    assert texts(post).index("Attention") < texts(post).index("LayerNorm 1")


def test_attention_grid_has_one_panel_per_layer_and_head():
    weights = [torch.softmax(torch.randn(3, 5, 5), dim=-1) for _ in range(2)]  # 2 layers, 3 heads
    fig = plot_attention_grid(weights, list("abcde"), title="t")
    assert len(fig.axes) == 6
    assert fig.axes[5].get_title() == "layer 1, head 2"
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == list("abcde")


def test_live_plot_records_each_curve_and_rejects_unknown_names():
    live = LivePlot(["loss", "accuracy"], every=2)
    live.add(0, loss=2.0)
    live.add(10, loss=1.0, accuracy=0.5)
    assert live.data["loss"] == ([0.0, 10.0], [2.0, 1.0])
    assert live.data["accuracy"] == ([10.0], [0.5])
    with pytest.raises(KeyError, match="not one of the curves"):
        live.add(20, los=0.5)
    live.close()
    assert [line.get_ydata().tolist() for line in live.axes["loss"].lines] == [[2.0, 1.0]]


class _Clock:
    """A fake CPU clock: the test advances it; every drawing the plot shows costs `cost`."""

    def __init__(self, cost: float):
        self.now, self.cost = 0.0, cost

    def __call__(self) -> float:
        return self.now


def test_live_plot_redraws_only_within_its_cpu_budget_and_always_shows_the_end(monkeypatch):
    import IPython.display

    clock, shown = _Clock(cost=1.0), []

    class Handle:
        def update(self, obj):
            shown.append(obj)
            clock.now += clock.cost  # rendering the PNG takes CPU time

    monkeypatch.setattr(IPython.display, "display", lambda obj, display_id=None: Handle())
    live = LivePlot(["loss"], budget=0.5, clock=clock)
    live.add(0, loss=3.0)  # nothing else ran yet: 0 + 0 <= 0.5 * 0, the first point is drawn
    assert len(shown) == 1 and live.cpu_seconds == 1.0
    clock.now += 3.0  # three seconds of training: a second drawing would make 2 > 0.5 * 3
    live.add(1, loss=2.0)
    assert len(shown) == 1
    clock.now += 1.0  # four seconds of training: 2 <= 0.5 * 4
    live.add(2, loss=1.0)
    assert len(shown) == 2 and live.cpu_seconds == 2.0
    live.add(3, loss=0.5)  # over budget, but the end is always shown
    live.close()
    assert len(shown) == 3 and shown[-1].data.startswith(b"\x89PNG")
    assert live.lines["loss"].get_ydata().tolist() == [3.0, 2.0, 1.0, 0.5]
    live.close()  # nothing new: no drawing
    assert len(shown) == 3
