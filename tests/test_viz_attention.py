"""course_lib.viz_attention: lesson 05's widget and plots build headless and do what they say."""

import math

import matplotlib
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.attention import SelfAttention  # noqa: E402
from course_lib.data import toy_sentence  # noqa: E402
from course_lib.viz_attention import (  # noqa: E402
    AttentionMapExplorer,
    map_statistics,
    plot_reach,
)

PNG = b"\x89PNG"


def test_map_statistics_tell_uniform_one_hot_and_diagonal_maps_apart():
    uniform = map_statistics(torch.full((4, 4), 0.25))
    assert math.isclose(uniform["entropy"], math.log(4)) and uniform["max_weight"] == 0.25
    identity = map_statistics(torch.eye(4))
    assert identity == {"entropy": 0.0, "max_weight": 1.0, "diagonal": 1.0}
    assert map_statistics(torch.eye(4).roll(1, dims=1))["diagonal"] == 0.0


def test_explorer_goes_from_uniform_to_one_hot_as_the_scale_grows():
    words, x = toy_sentence(d_model=16)
    explorer = AttentionMapExplorer(SelfAttention, words, x, d_k=16, scales=(0.05, 1.0, 8.0))
    assert bytes(explorer.image.value).startswith(PNG)
    explorer.scale.value = 0.05
    small = map_statistics(explorer.attention_weights(0.05, False))
    assert small["entropy"] > 0.99 * math.log(len(words)), "tiny scores: nearly uniform"
    assert "entropy" in explorer.summary.value
    explorer.scale.value = 8.0
    large = map_statistics(explorer.attention_weights(8.0, False))
    assert large["max_weight"] > 0.9, "huge scores: nearly one-hot"


def test_explorer_with_tied_weights_shows_a_diagonal_not_a_uniform_map():
    words, x = toy_sentence(d_model=16)
    explorer = AttentionMapExplorer(SelfAttention, words, x, d_k=16)
    explorer.tied.value = True
    tied = map_statistics(explorer.attention_weights(1.0, True))
    untied = map_statistics(explorer.attention_weights(1.0, False))
    assert tied["diagonal"] > untied["diagonal"] and tied["diagonal"] >= 0.7
    assert tied["entropy"] < 0.9 * math.log(len(words)), "tied weights are far from uniform"


def test_explorer_uses_the_module_it_is_given():
    class Doubled(SelfAttention):  # a learner's module whose weights are not softmaxed rows
        def forward(self, x, mask=None):
            output, weights = super().forward(x, mask)
            return output, 2 * weights

    words, x = toy_sentence(d_model=16)
    weights = AttentionMapExplorer(Doubled, words, x).attention_weights(1.0, False)
    torch.testing.assert_close(weights.sum(-1), torch.full((len(words),), 2.0))


def test_plot_reach_draws_one_line_per_model_and_skips_zeros():
    fig = plot_reach({"a": [1.0, 0.5, 0.25], "b": [0.0, 0.0, 1.0]}, title="t")
    assert isinstance(fig, Figure)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2
    assert sum(~torch.tensor(lines[1].get_ydata()).isnan()) == 1
