"""course_lib.masks: the masks are exact, and masked_scores is the one -inf filler."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import (
    causal_mask,
    masked_scores,
    padding_mask,
    scaled_dot_product_attention,
    sliding_window_mask,
    softmax,
)


def test_causal_mask_is_exactly_the_lower_triangle():
    expected = torch.tensor(
        [[True, False, False, False], [True, True, False, False], [True, True, True, False]]
        + [[True, True, True, True]]
    )
    assert torch.equal(causal_mask(4), expected)
    assert causal_mask(4).dtype == torch.bool


@settings(max_examples=20, deadline=None)
@given(L=st.integers(1, 12))
def test_causal_mask_allows_key_j_iff_j_at_most_i(L):
    mask = causal_mask(L)
    assert mask.shape == (L, L)
    for i in range(L):
        for j in range(L):
            assert mask[i, j].item() == (j <= i)


def test_causal_mask_is_created_on_the_requested_device():
    assert causal_mask(3, device="meta").device.type == "meta"


def test_padding_mask_marks_real_tokens_true_and_padding_false():
    mask = padding_mask(torch.tensor([3, 1, 0, 4]), max_len=4)
    expected = torch.tensor(
        [
            [True, True, True, False],
            [True, False, False, False],
            [False, False, False, False],
            [True, True, True, True],
        ]
    )
    assert mask.dtype == torch.bool
    assert torch.equal(mask, expected)


def test_padding_changes_nothing_for_real_tokens():
    g = torch.Generator().manual_seed(0)
    real = 5
    q, k, v = (torch.randn(1, real, 4, generator=g, dtype=torch.float64) for _ in range(3))
    padded = [
        torch.cat([t, torch.randn(1, 3, 4, generator=g, dtype=torch.float64)], 1) for t in (q, k, v)
    ]
    key_mask = padding_mask(torch.tensor([real]), real + 3)[:, None, :]  # (B, 1, S)
    expected, _ = scaled_dot_product_attention(q, k, v)
    output, weights = scaled_dot_product_attention(*padded, key_mask)
    torch.testing.assert_close(output[:, :real], expected)
    assert torch.all(weights[..., real:] == 0)


def test_sliding_window_mask_is_exact():
    expected = torch.tensor(
        [
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [0, 1, 1, 0, 0],
            [0, 0, 1, 1, 0],
            [0, 0, 0, 1, 1],
        ],
        dtype=torch.bool,
    )
    assert torch.equal(sliding_window_mask(5, 2), expected)


@settings(max_examples=20, deadline=None)
@given(L=st.integers(1, 10), window=st.integers(1, 12))
def test_sliding_window_mask_allows_0_le_i_minus_j_lt_window(L, window):
    mask = sliding_window_mask(L, window)
    i = torch.arange(L)[:, None]
    j = torch.arange(L)[None, :]
    assert torch.equal(mask, (i - j >= 0) & (i - j < window))
    if window >= L:
        assert torch.equal(mask, causal_mask(L))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16])
def test_masked_scores_give_masked_keys_exactly_zero_weight_in_every_float_dtype(dtype):
    scores = torch.tensor([[1.0, 2.0, 3.0], [-60000.0, 0.0, 60000.0]]).to(dtype)
    mask = torch.tensor([[True, False, True], [False, False, True]])
    masked = masked_scores(scores, mask)
    assert masked.dtype == dtype
    assert torch.isneginf(masked[~mask]).all()
    assert torch.equal(masked[mask], scores[mask])
    weights = softmax(masked)
    assert torch.all(weights[~mask] == 0)


def test_masked_scores_broadcasts_the_mask_and_allows_none():
    scores = torch.zeros(2, 3, 4)
    key_mask = torch.tensor([True, True, False, True])
    assert masked_scores(scores, key_mask).shape == (2, 3, 4)
    assert torch.isneginf(masked_scores(scores, key_mask)[..., 2]).all()
    assert masked_scores(scores, None) is scores


def test_masked_scores_rejects_a_non_bool_mask():
    with pytest.raises(TypeError, match="bool"):
        masked_scores(torch.zeros(2, 2), torch.ones(2, 2))
