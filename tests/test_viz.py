"""course_lib.viz: every plot and widget builds headless and shows what it claims to."""

import math

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure

matplotlib.use("Agg")

from course_lib.masks import causal_mask, masked_scores  # noqa: E402
from course_lib.scaling import dot_product_variance, softmax_entropy  # noqa: E402
from course_lib.viz import (  # noqa: E402
    MaskBuilder,
    SaturationExplorer,
    plot_attention,
    plot_matrices,
    plot_variance_vs_dk,
)

PNG = b"\x89PNG"


# Every test here: viz builds figures without pyplot's global state (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_pyplot_figures_leak")


def test_plot_attention_labels_queries_and_keys():
    weights = torch.softmax(torch.randn(3, 4), dim=-1)
    fig = plot_attention(weights, ["a", "b", "c"], ["w", "x", "y", "z"], title="t")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "x", "y", "z"]
    assert len(ax.texts) == 12, "small matrices are annotated cell by cell"
    assert ax.images[0].get_array().shape == (3, 4)


def test_plot_attention_greys_out_blocked_cells_and_handles_minus_inf():
    scores = masked_scores(torch.randn(4, 4), causal_mask(4))
    fig = plot_attention(scores, mask=causal_mask(4))
    image = fig.axes[0].images[0].get_array()
    assert image.mask.sum() == 6, "the 6 blocked cells are masked out of the colour map"
    assert sum(t.get_text() == "×" for t in fig.axes[0].texts) == 6


def test_plot_attention_accepts_bool_masks_and_requires_grad_tensors():
    plot_attention(causal_mask(3), annotate=False)
    plot_attention(torch.randn(2, 2, requires_grad=True))


def test_plot_attention_explains_a_batched_input():
    with pytest.raises(ValueError, match=r"weights\[0\]"):
        plot_attention(torch.randn(2, 3, 3))


def test_plot_matrices_titles_each_matrix_with_its_shape():
    fig = plot_matrices({"X": torch.randn(4, 3), "W": torch.randn(3, 2)}, ["a", "b", "c", "d"])
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["X  (4, 3)", "W  (3, 2)"]
    with pytest.raises(ValueError):
        plot_matrices({})


def test_plot_variance_vs_dk_plots_the_learners_function():
    calls = []

    def variance(d_k, num_samples=100_000, generator=None):
        calls.append((d_k, num_samples))
        return dot_product_variance(d_k, num_samples, generator)

    fig = plot_variance_vs_dk(variance, dims=(1, 4, 16), num_samples=2000)
    assert [d for d, _ in calls] == [1, 4, 16]
    left, right = fig.axes
    measured = left.lines[1].get_ydata()
    assert measured == pytest.approx([1, 4, 16], rel=0.25)
    assert right.lines[1].get_ydata() == pytest.approx([1, 1, 1], rel=0.25)


def test_saturation_explorer_reacts_to_the_slider_and_the_checkbox():
    explorer = SaturationExplorer(softmax_entropy, dims=(1, 16, 256), num_queries=64)
    assert explorer.image.value[:4] == PNG
    explorer.d_k.value = 256
    unscaled = explorer.summary.value
    first_image = explorer.image.value
    explorer.scaled.value = True
    assert explorer.summary.value != unscaled and "scaled" in explorer.summary.value
    assert explorer.image.value != first_image
    curves = explorer._curves
    assert curves[False][-1] < 0.5 < curves[True][-1] < math.log(8) + 1e-6, (
        "unscaled entropy collapses at large d_k, scaled stays high"
    )


def test_mask_builder_applies_the_learners_functions():
    scores = torch.randn(5, 5)
    builder = MaskBuilder(scores, list("abcde"), masked_scores)
    assert builder.image.value[:4] == PNG
    builder.preset.value = "causal"
    assert torch.equal(builder.mask, causal_mask(5))
    assert torch.all(builder.weights[causal_mask(5).logical_not()] == 0)
    assert torch.allclose(builder.weights.sum(-1), torch.ones(5))


def test_mask_builder_toggles_and_padding_preset():
    builder = MaskBuilder(torch.randn(4, 4), list("abcd"), masked_scores)
    builder.cells[0][1].value = False
    assert builder.weights[0, 1] == 0
    builder.preset.value = "padding"
    builder.length.value = 2
    assert builder.mask.tolist() == [[True, True, False, False]] * 4


def test_mask_builder_reports_fully_masked_rows_and_inversion():
    def softmax(x, dim=-1):  # a learner's softmax that gives zeros for all -inf rows
        m = x.amax(dim, keepdim=True).nan_to_num(0.0, posinf=0.0, neginf=0.0)
        e = (x - m).exp()
        return e / e.sum(dim, keepdim=True).clamp_min(1e-30)

    builder = MaskBuilder(torch.randn(3, 3), ["x", "y", "z"], masked_scores, softmax)
    for button in builder.cells[1]:
        button.value = False
    assert "fully masked query rows (y)" in builder.message.value
    assert torch.all(builder.weights[1] == 0)
    builder.set_mask(causal_mask(3))
    builder.inverted.value = True
    assert "inverted" in builder.message.value
    assert torch.all(builder.weights[causal_mask(3)] == 0)


def test_mask_builder_wants_square_scores_matching_the_tokens():
    with pytest.raises(ValueError, match="square"):
        MaskBuilder(torch.randn(3, 4), ["a", "b", "c"], masked_scores)


def test_needs_names_the_exercise_whose_stub_raised(capsys):
    from course_lib.viz import needs

    def softmax(x):  # a blank exercise, as nbgrader releases it
        raise NotImplementedError()

    class QKVProjection:
        def __init__(self):
            raise NotImplementedError()

    with needs("causal_mask", "softmax"):
        softmax(torch.zeros(2))
    assert capsys.readouterr().out == "write `softmax` above first, then run this cell again.\n"
    with needs("project_qkv", "QKVProjection"):
        QKVProjection()
    assert capsys.readouterr().out.startswith("write `QKVProjection` above first")
    with needs("a", "b"):
        raise NotImplementedError  # raised here, by none of them: name them all
    assert capsys.readouterr().out.startswith("write `a` and `b` above first")


def test_needs_lets_every_other_error_through_and_stays_quiet_on_success(capsys):
    from course_lib.viz import needs

    with pytest.raises(ValueError, match="a real bug"):
        with needs("softmax"):
            raise ValueError("a real bug")
    with needs("softmax"):
        value = 1 + 1
    assert value == 2 and capsys.readouterr().out == ""


def test_needs_says_which_earlier_cells_a_demo_needs_and_keeps_the_learners_name_errors(capsys):
    from course_lib.viz import needs

    with needs("softmax"):
        exec("weights_of_an_earlier_demo", {})  # the demo cell's own code: a missing result
    assert "write `softmax` and run the cells above first" in capsys.readouterr().out

    def softmax(x):
        return typo_in_the_learners_code  # noqa: F821

    with pytest.raises(NameError), needs("softmax"):
        softmax(1)
