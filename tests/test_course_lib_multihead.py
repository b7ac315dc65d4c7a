"""course_lib.multihead: heads are slices, and the module matches nn.MultiheadAttention."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from course_lib import (
    KVCache,
    MultiHeadAttention,
    causal_mask,
    merge_heads,
    mha_num_parameters,
    padding_mask,
    scaled_dot_product_attention,
    split_heads,
)


def test_split_heads_gives_head_i_the_features_i_times_d_head_onwards():
    x = torch.arange(2 * 3 * 8).reshape(2, 3, 8)
    heads = split_heads(x, num_heads=4)
    assert heads.shape == (2, 4, 3, 2)
    for i in range(4):
        assert torch.equal(heads[:, i], x[..., 2 * i : 2 * i + 2])


@settings(max_examples=20, deadline=None)
@given(B=st.integers(1, 3), L=st.integers(1, 5), h=st.integers(1, 4), d_head=st.integers(1, 4))
def test_merge_heads_inverts_split_heads(B, L, h, d_head):
    x = torch.randn(B, L, h * d_head)
    assert torch.equal(merge_heads(split_heads(x, h)), x)
    heads = torch.randn(B, h, L, d_head)
    assert torch.equal(split_heads(merge_heads(heads), h), heads)


def test_split_heads_rejects_indivisible_widths():
    with pytest.raises(ValueError, match="divisible"):
        split_heads(torch.zeros(1, 2, 10), 4)


def test_multi_head_attention_has_the_contract_attributes():
    mha = MultiHeadAttention(12, 3)
    for name in ["w_q", "w_k", "w_v", "w_o"]:
        layer = getattr(mha, name)
        assert isinstance(layer, nn.Linear)
        assert (layer.in_features, layer.out_features) == (12, 12)
        assert layer.bias is None
    assert MultiHeadAttention(12, 3, bias=True).w_o.bias is not None


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_multi_head_self_attention_matches_torch(bias, masked, randn, load_mha_weights):
    theirs = nn.MultiheadAttention(16, 4, bias=bias, batch_first=True).double()
    ours = MultiHeadAttention(16, 4, bias=bias).double()
    load_mha_weights(ours, theirs)
    x = randn(2, 7, 16)
    mask = causal_mask(7) if masked else None
    # nn.MultiheadAttention's bool mask means "blocked": the opposite polarity.
    expected, expected_weights = theirs(
        x, x, x, attn_mask=None if mask is None else ~mask, average_attn_weights=False
    )
    output, weights = ours(x, mask=mask)
    torch.testing.assert_close(output, expected)
    torch.testing.assert_close(weights, expected_weights)


def test_multi_head_cross_attention_with_key_padding_matches_torch(randn, load_mha_weights):
    theirs = nn.MultiheadAttention(12, 3, bias=True, batch_first=True).double()
    ours = MultiHeadAttention(12, 3, bias=True).double()
    load_mha_weights(ours, theirs)
    query, key, value = randn(2, 4, 12), randn(2, 6, 12), randn(2, 6, 12)
    keep = padding_mask(torch.tensor([6, 3]), 6)  # (B, S), True = real token
    expected, _ = theirs(query, key, value, key_padding_mask=~keep)
    output, weights = ours(query, key, value, mask=keep[:, None, None, :])
    assert weights.shape == (2, 3, 4, 6)
    torch.testing.assert_close(output, expected)


def test_multi_head_attention_equals_separate_heads_concatenated(randn):
    mha = MultiHeadAttention(8, 2).double()
    x = randn(1, 5, 8)
    q, k, v = mha.w_q(x), mha.w_k(x), mha.w_v(x)
    heads = [
        scaled_dot_product_attention(q[..., s], k[..., s], v[..., s])[0]
        for s in (slice(0, 4), slice(4, 8))
    ]
    torch.testing.assert_close(mha(x)[0], mha.w_o(torch.cat(heads, dim=-1)))


def test_multi_head_attention_with_a_cache_equals_attention_over_the_whole_sequence(randn):
    mha = MultiHeadAttention(8, 2).double()
    x = randn(2, 6, 8)
    full, _ = mha(x, mask=causal_mask(6))
    cache = KVCache()
    first, _ = mha(x[:, :4], mask=causal_mask(4), cache=cache)
    last, _ = mha(x[:, 4:], mask=causal_mask(6)[4:], cache=cache)
    torch.testing.assert_close(torch.cat([first, last], dim=1), full)


def test_multi_head_attention_runs_on_meta_with_the_right_shapes():
    mha = MultiHeadAttention(16, 4, bias=True).to(device="meta", dtype=torch.float16)
    query = torch.empty(2, 3, 16, device="meta", dtype=torch.float16)
    key = torch.empty(2, 9, 16, device="meta", dtype=torch.float16)
    output, weights = mha(query, key)
    assert output.device.type == "meta" and output.dtype == torch.float16
    assert output.shape == (2, 3, 16) and weights.shape == (2, 4, 3, 9)


@pytest.mark.parametrize("d_model, num_heads", [(8, 1), (8, 2), (64, 8), (30, 5)])
@pytest.mark.parametrize("bias", [False, True])
def test_mha_num_parameters_counts_the_modules_parameters(d_model, num_heads, bias):
    module = MultiHeadAttention(d_model, num_heads, bias=bias)
    expected = sum(p.numel() for p in module.parameters())
    assert mha_num_parameters(d_model, num_heads, bias=bias) == expected
    torch_module = nn.MultiheadAttention(d_model, num_heads, bias=bias)
    assert expected == sum(p.numel() for p in torch_module.parameters())
