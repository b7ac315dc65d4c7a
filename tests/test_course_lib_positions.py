"""course_lib.positions: sinusoidal and learned encodings, and RoPE."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import LearnedPositionalEmbedding, apply_rope, sinusoidal_positional_encoding


def test_sinusoidal_encoding_follows_the_formula():
    pe = sinusoidal_positional_encoding(50, 16)
    assert pe.shape == (50, 16) and pe.dtype == torch.float32
    for p in [0, 1, 7, 49]:
        for i in range(8):
            angle = p / 10000 ** (2 * i / 16)
            assert pe[p, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
            assert pe[p, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_sinusoidal_encoding_of_odd_d_model_raises_value_error():
    with pytest.raises(ValueError):
        sinusoidal_positional_encoding(10, 7)


def test_sinusoidal_encoding_respects_device_and_dtype():
    pe = sinusoidal_positional_encoding(4, 6, device="meta", dtype=torch.bfloat16)
    assert pe.device.type == "meta" and pe.dtype == torch.bfloat16 and pe.shape == (4, 6)


def test_learned_positions_add_the_embedding_of_each_position(randn):
    module = LearnedPositionalEmbedding(10, 4).double()
    x = randn(2, 6, 4)
    torch.testing.assert_close(module(x), x + module.embedding.weight[:6])
    torch.testing.assert_close(module(x, offset=3), x + module.embedding.weight[3:9])
    assert isinstance(module.embedding, torch.nn.Embedding)


def test_learned_positions_longer_than_max_len_raise_value_error():
    module = LearnedPositionalEmbedding(5, 4)
    module(torch.zeros(1, 5, 4))  # exactly max_len is fine
    with pytest.raises(ValueError):
        module(torch.zeros(1, 6, 4))


def test_rope_rotates_each_pair_by_position_times_frequency():
    x = torch.randn(1, 3, 4, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    out = apply_rope(x)
    for p in range(3):
        for i in range(2):
            theta = p * 10000.0 ** (-2 * i / 4)
            a, b = x[0, p, 2 * i], x[0, p, 2 * i + 1]
            torch.testing.assert_close(out[0, p, 2 * i], a * math.cos(theta) - b * math.sin(theta))
            torch.testing.assert_close(
                out[0, p, 2 * i + 1], a * math.sin(theta) + b * math.cos(theta)
            )


def test_rope_keeps_norms_and_leaves_position_zero_alone(randn):
    x = randn(2, 5, 8)
    out = apply_rope(x)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(out[:, 0], x[:, 0])


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(0, 500),
    s=st.integers(0, 500),
    shift=st.integers(0, 500),
    seed=st.integers(0, 2**16),
)
def test_rope_scores_depend_only_on_relative_position(p, s, shift, seed):
    g = torch.Generator().manual_seed(seed)
    q, k = (
        torch.randn(16, generator=g, dtype=torch.float64),
        torch.randn(16, generator=g, dtype=torch.float64),
    )

    def score(query_pos, key_pos):
        rq = apply_rope(q[None], torch.tensor([query_pos]))
        rk = apply_rope(k[None], torch.tensor([key_pos]))
        return (rq * rk).sum()

    torch.testing.assert_close(score(p, s), score(p + shift, s + shift))


def test_rope_accepts_explicit_positions_and_batch_dims(randn):
    x = randn(2, 3, 5, 8)
    positions = torch.arange(10, 15)
    shifted = apply_rope(x, positions)
    full = apply_rope(torch.cat([randn(2, 3, 10, 8), x], dim=-2))
    torch.testing.assert_close(shifted, full[..., 10:, :])


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rope_keeps_half_precision_dtypes(dtype):
    x = torch.randn(2, 4, 8).to(dtype)
    assert apply_rope(x).dtype == dtype
    assert apply_rope(x.to("meta")).device.type == "meta"


def test_rope_of_odd_dim_raises_value_error():
    with pytest.raises(ValueError):
        apply_rope(torch.zeros(3, 5))
