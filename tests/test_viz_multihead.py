"""course_lib.viz_multihead: the head view and the head-count slider build headless and show the
learner's own module and count."""

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.data import toy_sentence  # noqa: E402
from course_lib.multihead import MultiHeadAttention, mha_num_parameters  # noqa: E402
from course_lib.viz_multihead import HeadCountExplorer, HeadView, plot_heads  # noqa: E402

PNG = b"\x89PNG"


# Every test here: viz builds figures without pyplot's global state (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_pyplot_figures_leak")


def test_plot_heads_draws_one_map_per_head_with_its_weights():
    weights = torch.softmax(torch.randn(3, 4, 4), dim=-1)  # (H, T, S)
    fig = plot_heads(weights, ["a", "b", "c", "d"], title="t", query=1)
    assert isinstance(fig, Figure)
    maps = [ax for ax in fig.axes if ax.images and ax.get_title()]
    assert [ax.get_title() for ax in maps] == ["head 0", "head 1", "head 2"]
    for ax, w in zip(maps, weights, strict=True):
        assert torch.allclose(torch.as_tensor(ax.images[0].get_array()), w)
        assert len(ax.patches) == 1, "the picked query's row is outlined"


def test_plot_heads_wraps_many_heads_onto_rows_and_hides_spare_axes():
    fig = plot_heads(torch.rand(5, 2, 2))
    assert sum(ax.get_title().startswith("head") for ax in fig.axes) == 5
    assert sum(not ax.axison for ax in fig.axes) == 3  # a 2 x 4 grid, 3 spare


def test_head_view_shows_every_head_of_the_learners_module_for_the_picked_query():
    words, x = toy_sentence(d_model=8)
    module = MultiHeadAttention(8, 2)
    view = HeadView(module, words, x)
    assert view.image.value[:4] == PNG
    _, expected = module(x[None])
    assert torch.allclose(view.weights, expected[0])
    view.query.value = 1  # "cat"
    bars = [ax for ax in view.figure.axes if not ax.images]
    assert len(bars) == 2
    for i, ax in enumerate(bars):
        heights = torch.tensor([p.get_height() for p in ax.patches], dtype=torch.float32)
        assert torch.allclose(heights, expected[0, i, 1].detach())
    assert "'cat'" in view.figure.texts[0].get_text()


def test_head_count_explorer_reports_d_head_and_the_learners_count():
    words, x = toy_sentence(d_model=8)
    calls = []

    def count(d_model, num_heads, bias=False):
        calls.append((d_model, num_heads, bias))
        return mha_num_parameters(d_model, num_heads, bias)

    explorer = HeadCountExplorer(MultiHeadAttention, count, words, x)
    assert list(explorer.heads.options) == [1, 2, 4, 8]
    explorer.heads.value = 4
    assert "d_head = d_model / h = <b>2</b>" in explorer.summary.value
    assert (8, 4, False) in calls
    assert sum(ax.get_title().startswith("head") for ax in explorer.figure.axes) == 4
    explorer.bias.value = True
    numbers = explorer.numbers(4, True)
    assert numbers["formula"] == numbers["counted"] == 4 * 8 * 8 + 4 * 8
    assert numbers["h_times_one_head"] == 4 * numbers["counted"]
    assert explorer.image.value[:4] == PNG
