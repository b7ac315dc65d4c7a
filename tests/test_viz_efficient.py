"""course_lib.viz_efficient: lesson 09's pictures build headless and show what they claim to."""

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.masks import sliding_window_mask  # noqa: E402
from course_lib.viz_efficient import plot_block_loop, plot_masks  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_pyplot_figures_leak")


def test_plot_masks_draws_each_mask_and_counts_its_pairs():
    masks = {
        "causal": torch.ones(6, 6, dtype=torch.bool).tril(),
        "window": sliding_window_mask(6, 3),
    }
    fig = plot_masks(masks)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    for ax, mask in zip(fig.axes, masks.values(), strict=True):
        assert (ax.images[0].get_array() == mask.float().numpy()).all()
    assert "21 of 36 pairs" in fig.axes[0].get_title()
    assert "15 of 36 pairs" in fig.axes[1].get_title()  # 1 + 2 + 3 + 3 + 3 + 3


def test_plot_masks_takes_one_mask_and_refuses_what_is_not_a_bool_matrix():
    assert len(plot_masks({"one": torch.ones(3, 3, dtype=torch.bool)}).axes) == 1
    with pytest.raises(ValueError, match="at least one mask"):
        plot_masks({})
    with pytest.raises(ValueError, match="'float': expected a bool"):
        plot_masks({"float": torch.ones(3, 3)})


@pytest.mark.parametrize("key_blocks", [3, 6])
def test_plot_block_loop_colours_exactly_one_key_block_per_step(key_blocks):
    query_blocks = 4
    fig = plot_block_loop(query_blocks, key_blocks)
    assert len(fig.axes) == 3
    orange = matplotlib.colors.to_rgba("tab:orange")
    for ax, step in zip(fig.axes, [0, 1, key_blocks - 1], strict=True):
        current = [p for p in ax.patches if p.get_facecolor() == orange]
        assert len(current) == query_blocks, "one column of tiles: the current key block"
        assert {p.get_x() for p in current} == {step + 1.5}
        assert f"key block {step}" in ax.get_title()
    with pytest.raises(ValueError):
        plot_block_loop(1, 6)
