"""course_lib.attention_variants: sparse masks, Linformer and Performer against exact attention."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.attention_variants import (
    linformer_attention,
    performer_attention,
    power_law_exponent,
    relative_error,
)


def exact(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v


@settings(max_examples=20, deadline=None)
@given(
    batch=st.integers(1, 3),
    length=st.sampled_from([4, 8, 12]),
    d=st.integers(1, 6),
    d_v=st.integers(1, 5),
)
def test_linformer_at_full_rank_is_exact_attention_and_keeps_the_shapes(batch, length, d, d_v):
    q, k = torch.randn(batch, length, d).double(), torch.randn(batch, length, d).double()
    v = torch.randn(batch, length, d_v).double()
    out = linformer_attention(q, k, v, rank=length)
    assert out.shape == (batch, length, d_v)
    torch.testing.assert_close(out, exact(q, k, v))
    assert linformer_attention(q, k, v, rank=length // 2 or 1).shape == (batch, length, d_v)


def test_linformer_with_one_row_is_attention_to_the_average_key():
    q, k, v = (torch.randn(1, 8, 4).double() for _ in range(3))
    torch.testing.assert_close(
        linformer_attention(q, k, v, rank=1), v.mean(-2, keepdim=True).expand(1, 8, 4)
    )


def test_linformer_refuses_a_rank_that_does_not_divide_the_length():
    q = torch.randn(1, 6, 4)
    with pytest.raises(ValueError, match="divide"):
        linformer_attention(q, q, q, rank=4)


def test_performer_approaches_exact_attention_as_features_grow():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 32, 8) / 2 for _ in range(3))
    reference = exact(q, k, v)
    errors = [
        sum(relative_error(performer_attention(q, k, v, m, seed=s), reference) for s in range(4))
        / 4
        for m in (8, 128, 2048)
    ]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.1
    assert performer_attention(q, k, v, 16).shape == (1, 32, 8)


def test_performer_is_deterministic_for_a_seed_and_differs_between_seeds():
    q, k, v = (torch.randn(1, 8, 4) for _ in range(3))
    torch.testing.assert_close(
        performer_attention(q, k, v, 16, seed=3), performer_attention(q, k, v, 16, seed=3)
    )
    assert not torch.allclose(
        performer_attention(q, k, v, 16, seed=3), performer_attention(q, k, v, 16, seed=4)
    )


@settings(max_examples=20, deadline=None)
@given(b=st.floats(-2, 2), scale=st.floats(0.1, 10))
def test_power_law_exponent_recovers_the_exponent_of_a_power_law(b, scale):
    xs = [1, 2, 4, 8, 16]
    assert power_law_exponent(xs, [scale * x**b for x in xs]) == pytest.approx(b, abs=1e-9)


def test_relative_error_is_zero_for_equal_tensors_and_scale_free():
    x, y = torch.randn(5), torch.randn(5)
    assert relative_error(x, x) == 0
    assert relative_error(3 * y, 3 * x) == pytest.approx(relative_error(y, x))


def test_dilated_window_with_dilation_one_is_the_sliding_window():
    from course_lib.attention_variants import dilated_window_mask

    i, j = torch.arange(7)[:, None], torch.arange(7)[None, :]
    assert torch.equal(dilated_window_mask(7, 3, 1), (i - j >= 0) & (i - j < 3))
    mask = dilated_window_mask(9, 3, 2)
    assert mask[8].nonzero().flatten().tolist() == [4, 6, 8]  # itself and every other key, 3 in all
    assert not mask.triu(1).any()  # causal


def test_bigbird_mask_has_global_rows_and_columns_and_a_band():
    from course_lib.attention_variants import bigbird_mask

    mask = bigbird_mask(32, block=4, num_global=2, num_random=1)
    assert mask.shape == (32, 32) and mask.dtype == torch.bool
    assert mask[:2].all() and mask[:, :2].all()
    assert all(mask[i, i] for i in range(32))
    with pytest.raises(ValueError, match="multiple"):
        bigbird_mask(30, block=4, num_global=2, num_random=1)


def test_approximation_errors_and_their_plot():
    from course_lib.attention_variants import approximation_errors, plot_approximation_errors

    q, k, v = (torch.randn(1, 16, 4) / 2 for _ in range(3))
    linformer, performer = approximation_errors(q, k, v, [4, 16, 64], draws=2)
    assert len(linformer) == 2 and linformer[-1] == pytest.approx(0, abs=1e-6)
    assert len(performer) == 3 and all(e > 0 for e in performer)
    fig = plot_approximation_errors([4, 16, 64], linformer, performer, title="t")
    assert len(fig.axes[0].lines) == 3
