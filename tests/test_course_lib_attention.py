"""course_lib.attention: scores, softmax, scaled dot-product attention, the loop version."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import (
    MultiHeadAttention,
    SelfAttention,
    attention_loop,
    attention_scores,
    causal_mask,
    scaled_attention_scores,
    scaled_dot_product_attention,
    softmax,
)


def sdpa_inputs(seed, batch, Lq, Lk, d_k, d_v, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*batch, Lq, d_k, generator=g, dtype=dtype)
    k = torch.randn(*batch, Lk, d_k, generator=g, dtype=dtype)
    v = torch.randn(*batch, Lk, d_v, generator=g, dtype=dtype)
    return q, k, v


# --- scores ---------------------------------------------------------------------------------


def test_attention_scores_are_pairwise_dot_products(randn):
    q, k = randn(2, 3, 5), randn(2, 4, 5)
    expected = torch.einsum("bid,bjd->bij", q, k)
    torch.testing.assert_close(attention_scores(q, k), expected)


def test_scaled_attention_scores_divide_by_sqrt_d_k(randn):
    q, k = randn(3, 16), randn(7, 16)
    torch.testing.assert_close(scaled_attention_scores(q, k), q @ k.T / 4.0)


# --- softmax --------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    dim=st.integers(-1, 0),
    seed=st.integers(0, 2**16),
)
def test_softmax_matches_torch_softmax(shape, dim, seed):
    x = 5 * torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    torch.testing.assert_close(softmax(x, dim=dim), torch.softmax(x, dim=dim))


def test_softmax_of_huge_finite_inputs_has_no_nan_or_inf():
    x = torch.tensor([[3e38, -3e38, 0.0], [1e4, 1e4, -1e4]], dtype=torch.float32)
    y = softmax(x)
    assert torch.isfinite(y).all()
    torch.testing.assert_close(y, torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0]]))


def test_softmax_of_an_all_minus_inf_row_is_all_zeros():
    x = torch.tensor([[float("-inf")] * 3, [0.0, float("-inf"), 0.0]])
    y = softmax(x)
    assert torch.equal(y[0], torch.zeros(3))
    torch.testing.assert_close(y[1], torch.tensor([0.5, 0.0, 0.5]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_softmax_keeps_half_precision_dtypes(dtype):
    x = torch.tensor([[60000.0, 0.0], [float("-inf"), float("-inf")]], dtype=dtype)
    y = softmax(x)
    assert y.dtype == dtype
    assert torch.equal(y.float(), torch.tensor([[1.0, 0.0], [0.0, 0.0]]))


# --- scaled dot-product attention ------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), min_size=0, max_size=3),
    Lq=st.integers(1, 9),
    Lk=st.integers(1, 9),
    d_k=st.integers(1, 8),
    d_v=st.integers(1, 8),
    seed=st.integers(0, 2**16),
)
def test_attention_matches_torch_sdpa_for_any_shapes(batch, Lq, Lk, d_k, d_v, seed):
    q, k, v = sdpa_inputs(seed, batch, Lq, Lk, d_k, d_v)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (*batch, Lq, d_v)
    assert weights.shape == (*batch, Lq, Lk)
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v))
    torch.testing.assert_close(weights.sum(-1), torch.ones(*batch, Lq, dtype=torch.float64))


@settings(max_examples=40, deadline=None)
@given(
    Lq=st.integers(1, 7),
    Lk=st.integers(1, 7),
    mask_shape=st.sampled_from(["full", "keys_only", "per_query", "per_batch", "2d"]),
    seed=st.integers(0, 2**16),
)
def test_masked_attention_matches_torch_sdpa_with_broadcast_masks(Lq, Lk, mask_shape, seed):
    B, H = 2, 3
    q, k, v = sdpa_inputs(seed, (B, H), Lq, Lk, 4, 5)
    shape = {
        "full": (B, H, Lq, Lk),
        "keys_only": (B, 1, 1, Lk),
        "per_query": (1, 1, Lq, 1),
        "per_batch": (B, 1, Lq, Lk),
        "2d": (Lq, Lk),
    }[mask_shape]
    mask = torch.rand(shape, generator=torch.Generator().manual_seed(seed)) < 0.6
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    assert torch.all(weights[~mask.expand_as(weights)] == 0)


def test_fully_masked_query_gets_zero_weights_and_zero_output(randn):
    q, k, v = randn(2, 4, 3), randn(2, 6, 3), randn(2, 6, 5)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[1] = False
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(output).any()
    assert torch.equal(weights[:, 1], torch.zeros(2, 6, dtype=torch.float64))
    assert torch.equal(output[:, 1], torch.zeros(2, 5, dtype=torch.float64))
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))


# --- additive float masks (SDPA's float attn_mask) -------------------------------------------


def additive_mask(seed, shape, dtype, p_blocked=0.3):
    """A float mask as models use them: a finite bias, with -inf where a key is blocked."""
    g = torch.Generator().manual_seed(seed)
    bias = torch.randn(shape, generator=g, dtype=torch.float64)
    blocked = torch.rand(shape, generator=g) < p_blocked
    return bias.masked_fill(blocked, float("-inf")).to(dtype)


MASK_SHAPES = {  # broadcastable to (B, H, Lq, Lk) with B, H = 2, 3
    "full": lambda Lq, Lk: (2, 3, Lq, Lk),
    "keys_only": lambda Lq, Lk: (2, 1, 1, Lk),
    "per_query": lambda Lq, Lk: (1, 1, Lq, 1),
    "per_batch": lambda Lq, Lk: (2, 1, Lq, Lk),
    "2d": lambda Lq, Lk: (Lq, Lk),
}
TOLERANCE = {torch.float64: 1e-7, torch.float32: 1e-5, torch.float16: 1e-2, torch.bfloat16: 5e-2}


@settings(max_examples=60, deadline=None)
@given(
    Lq=st.integers(1, 7),
    Lk=st.integers(1, 7),
    mask_shape=st.sampled_from(sorted(MASK_SHAPES)),
    dtype=st.sampled_from(sorted(TOLERANCE, key=str)),
    mask_in_float32=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_float_masks_are_added_to_the_scores_as_torch_sdpa_adds_them(
    Lq, Lk, mask_shape, dtype, mask_in_float32, seed
):
    q, k, v = (t.to(dtype) for t in sdpa_inputs(seed, (2, 3), Lq, Lk, 4, 5))
    mask_dtype = torch.float32 if mask_in_float32 else dtype  # SDPA accepts both
    mask = additive_mask(seed, MASK_SHAPES[mask_shape](Lq, Lk), mask_dtype)
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert output.dtype == weights.dtype == dtype
    assert output.shape == (2, 3, Lq, 5) and weights.shape == (2, 3, Lq, Lk)
    tol = TOLERANCE[dtype]
    torch.testing.assert_close(output.double(), expected.double(), atol=tol, rtol=tol)
    blocked = torch.isneginf(mask).expand_as(weights)
    assert torch.all(weights[blocked] == 0)  # -inf entries block exactly
    assert not torch.isnan(output).any()


def test_float_mask_bias_shifts_the_weights_as_expected(randn):
    q, k, v = randn(1, 3, 4), randn(1, 5, 4), randn(1, 5, 2)
    bias = torch.tensor([0.0, 1.0, -2.0, 0.5, 3.0], dtype=torch.float64)
    _, weights = scaled_dot_product_attention(q, k, v, bias)
    scores = q @ k.transpose(-2, -1) / 2.0 + bias  # d_k = 4
    torch.testing.assert_close(weights, torch.softmax(scores, dim=-1))


def test_zero_minus_inf_float_mask_equals_the_bool_mask_it_was_made_from(randn):
    q, k, v = randn(2, 5, 4), randn(2, 6, 4), randn(2, 6, 3)
    allowed = torch.rand(5, 6, generator=torch.Generator().manual_seed(3)) < 0.5
    allowed[2] = False  # one fully masked query
    additive = torch.zeros(5, 6, dtype=torch.float64).masked_fill(~allowed, float("-inf"))
    with_bool = scaled_dot_product_attention(q, k, v, allowed)
    with_float = scaled_dot_product_attention(q, k, v, additive)
    torch.testing.assert_close(with_float, with_bool)
    back = additive == 0  # the conversion back; additive.bool() would be the opposite
    assert torch.equal(back, allowed)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_a_query_whose_float_mask_is_all_minus_inf_gets_zeros_not_nan(dtype):
    q, k, v = (t.to(dtype) for t in sdpa_inputs(5, (2,), 4, 6, 3, 5))
    mask = torch.zeros(4, 6, dtype=dtype)
    mask[1] = float("-inf")
    mask[3, :4] = float("-inf")
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(weights[:, 1].float(), torch.zeros(2, 6))
    assert torch.equal(output[:, 1].float(), torch.zeros(2, 5))
    assert torch.all(weights[:, 3, :4] == 0) and not torch.isnan(output).any()
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(output.float(), expected.float(), atol=2e-2, rtol=2e-2)


def test_integer_masks_are_refused_with_a_message_that_says_what_to_do(randn):
    q = randn(3, 4)
    with pytest.raises(TypeError, match=r"bool .*float.*mask\.bool\(\)"):
        scaled_dot_product_attention(q, q, q, torch.ones(3, 3, dtype=torch.long))


def test_modules_pass_float_masks_through(randn):
    x = randn(2, 4, 6)
    additive = torch.zeros(4, 4, dtype=torch.float64).masked_fill(~causal_mask(4), float("-inf"))
    attention = SelfAttention(6, 4, 5).double()
    torch.testing.assert_close(attention(x, additive), attention(x, causal_mask(4)))
    mha = MultiHeadAttention(6, 2).double()
    torch.testing.assert_close(mha(x, mask=additive), mha(x, mask=causal_mask(4)))


def test_causal_attention_ignores_future_tokens(randn):
    q, k, v = randn(1, 6, 4), randn(1, 6, 4), randn(1, 6, 4)
    mask = causal_mask(6)
    before, _ = scaled_dot_product_attention(q, k, v, mask)
    k2, v2 = k.clone(), v.clone()
    k2[:, 4:], v2[:, 4:] = randn(1, 2, 4), randn(1, 2, 4)  # change the last two tokens
    after, _ = scaled_dot_product_attention(q, k2, v2, mask)
    torch.testing.assert_close(after[:, :4], before[:, :4])  # queries 0..3 never saw them
    assert not torch.allclose(after[:, 4:], before[:, 4:])


@settings(max_examples=20, deadline=None)
@given(L=st.integers(2, 8), seed=st.integers(0, 2**16))
def test_attention_without_positions_is_permutation_equivariant(L, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, L, 6, generator=g, dtype=torch.float64)
    attention = SelfAttention(6, 4, 5).double()
    permutation = torch.randperm(L, generator=g)
    output, _ = attention(x)
    permuted_output, _ = attention(x[:, permutation])
    torch.testing.assert_close(permuted_output, output[:, permutation])


def test_attention_output_is_a_convex_combination_of_values(randn):
    q, k = randn(3, 4), randn(5, 4)
    v = torch.arange(5, dtype=torch.float64)[:, None]  # value j is the number j
    output, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(output[:, 0], weights @ torch.arange(5.0, dtype=torch.float64))
    assert torch.all((output >= 0) & (output <= 4))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_attention_works_in_half_precision_with_masks(dtype):
    q, k, v = sdpa_inputs(0, (2, 2), 5, 7, 8, 4)
    mask = torch.rand(5, 7, generator=torch.Generator().manual_seed(1)) < 0.5
    mask[3] = False
    output, weights = scaled_dot_product_attention(*(t.to(dtype) for t in (q, k, v)), mask)
    assert output.dtype == weights.dtype == dtype
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    tolerance = 1e-2 if dtype == torch.float16 else 5e-2
    torch.testing.assert_close(output.double(), expected, atol=tolerance, rtol=tolerance)
    assert torch.equal(output[..., 3, :].float(), torch.zeros(2, 2, 4))


def test_attention_runs_on_the_meta_device_with_the_right_shapes_and_dtype():
    q = torch.empty(2, 3, 5, 8, device="meta", dtype=torch.bfloat16)
    k = torch.empty(2, 3, 7, 8, device="meta", dtype=torch.bfloat16)
    v = torch.empty(2, 3, 7, 6, device="meta", dtype=torch.bfloat16)
    mask = torch.empty(5, 7, device="meta", dtype=torch.bool)
    output, weights = scaled_dot_product_attention(q, k, v, mask)
    assert output.device.type == weights.device.type == "meta"
    assert output.shape == (2, 3, 5, 6) and weights.shape == (2, 3, 5, 7)
    assert output.dtype == weights.dtype == torch.bfloat16


def test_attention_gradients_flow_to_q_k_and_v(randn):
    q, k, v = (randn(2, 4, 3).requires_grad_() for _ in range(3))
    output, _ = scaled_dot_product_attention(q, k, v, causal_mask(4))
    output.sum().backward()
    assert all(t.grad is not None and torch.isfinite(t.grad).all() for t in (q, k, v))


# --- the loop version (bottom of the ladder) ---------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    batch=st.lists(st.integers(1, 2), min_size=0, max_size=2),
    Lq=st.integers(1, 5),
    Lk=st.integers(1, 5),
    masked=st.sampled_from([None, "bool", "float"]),
    seed=st.integers(0, 2**16),
)
def test_attention_loop_equals_vectorised_attention(batch, Lq, Lk, masked, seed):
    q, k, v = sdpa_inputs(seed, batch, Lq, Lk, 3, 2)
    mask = None
    if masked == "bool":
        mask = torch.rand(Lq, Lk, generator=torch.Generator().manual_seed(seed)) < 0.5
    elif masked == "float":
        mask = additive_mask(seed, (Lq, Lk), torch.float64)
    expected, _ = scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(attention_loop(q, k, v, mask), expected)


# --- SelfAttention ---------------------------------------------------------------------------


def test_self_attention_uses_its_three_linear_projections(randn):
    attention = SelfAttention(6, 4, 3).double()
    x = randn(2, 5, 6)
    output, weights = attention(x, causal_mask(5))
    q, k, v = x @ attention.w_q.weight.T, x @ attention.w_k.weight.T, x @ attention.w_v.weight.T
    scores = (q @ k.transpose(-2, -1) / math.sqrt(4)).masked_fill(~causal_mask(5), float("-inf"))
    torch.testing.assert_close(weights, torch.softmax(scores, -1))
    torch.testing.assert_close(output, torch.softmax(scores, -1) @ v)
    assert attention.w_q.bias is None and attention.w_v.out_features == 3
