"""course_lib.efficient: tiled attention equals SDPA without ever holding (Lq, Lk); KV cache."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from course_lib import KVCache, MemoryTracker, scaled_dot_product_attention, tiled_attention


class OutputShapeWatcher(TorchDispatchMode):
    """Records the shape of every tensor any aten op produces inside the ``with`` block."""

    def __init__(self):
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.shapes += [tuple(t.shape) for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        return out


def qkv(seed, batch, Lq, Lk, d_k, d_v, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(*batch, Lq, d_k, generator=g, dtype=dtype),
        torch.randn(*batch, Lk, d_k, generator=g, dtype=dtype),
        torch.randn(*batch, Lk, d_v, generator=g, dtype=dtype),
    )


@settings(max_examples=40, deadline=None)
@given(
    batch=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    Lq=st.integers(1, 40),
    Lk=st.integers(1, 40),
    d_k=st.integers(1, 8),
    d_v=st.integers(1, 8),
    block_size=st.integers(1, 16),
    causal=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_tiled_attention_equals_torch_sdpa(batch, Lq, Lk, d_k, d_v, block_size, causal, seed):
    q, k, v = qkv(seed, batch, Lq, Lk, d_k, d_v)
    output = tiled_attention(q, k, v, block_size=block_size, causal=causal)
    assert output.shape == (*batch, Lq, d_v)
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v, is_causal=causal))


def test_causal_tiled_attention_aligns_top_left_like_torch_when_lq_differs_from_lk():
    q, k, v = qkv(0, (2,), 10, 23, 4, 3)
    top_left = torch.ones(10, 23, dtype=torch.bool).tril()  # key j allowed iff j <= i
    expected, _ = scaled_dot_product_attention(q, k, v, top_left)
    torch.testing.assert_close(tiled_attention(q, k, v, block_size=4, causal=True), expected)


@pytest.mark.parametrize("causal", [False, True])
def test_tiled_attention_never_materialises_an_lq_by_lk_matrix(causal):
    Lq, Lk, block = 200, 300, 32
    q, k, v = qkv(0, (2,), Lq, Lk, 16, 8, dtype=torch.float32)
    with OutputShapeWatcher() as watcher:
        tiled_attention(q, k, v, block_size=block, causal=causal)
    assert watcher.shapes, "the watcher saw no ops"
    largest = max(torch.Size(s).numel() for s in watcher.shapes)
    # The biggest things allowed: the scores of all queries against one key block (2, 200, 32).
    assert largest <= 2 * Lq * block < Lq * Lk
    assert not any(s[-2:] == (Lq, Lk) for s in watcher.shapes if len(s) >= 2)


def test_tiled_attention_peak_memory_is_a_small_fraction_of_naive_attention():
    q, k, v = qkv(0, (1,), 1024, 1024, 32, 32, dtype=torch.float32)
    with torch.no_grad():
        with MemoryTracker() as naive:
            scaled_dot_product_attention(q, k, v)
        with MemoryTracker() as tiled:
            tiled_attention(q, k, v, block_size=32)
    assert naive.peak_bytes >= 1024 * 1024 * 4  # at least one float32 (L, L) matrix
    assert tiled.peak_bytes < 8 * 1024 * 32 * 4  # a few (L, block) tiles at most
    assert tiled.peak_bytes < 0.1 * naive.peak_bytes


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_tiled_attention_works_in_half_precision(dtype):
    q, k, v = qkv(0, (2,), 33, 47, 8, 8)
    output = tiled_attention(q.to(dtype), k.to(dtype), v.to(dtype), block_size=16, causal=True)
    assert output.dtype == dtype
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    tolerance = 1e-2 if dtype == torch.float16 else 5e-2
    torch.testing.assert_close(output.double(), expected, atol=tolerance, rtol=tolerance)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_tiled_attention_accumulates_half_precision_in_float32(dtype):
    # 2048 keys in 32 blocks: running sums kept in float16/bfloat16 would drift by many ulps.
    q, k, v = (t.to(dtype) for t in qkv(1, (2,), 64, 2048, 16, 16, dtype=torch.float32))
    output = tiled_attention(q, k, v, block_size=64)
    assert output.dtype == dtype
    in_float32 = F.scaled_dot_product_attention(q.float(), k.float(), v.float())
    torch.testing.assert_close(output, in_float32.to(dtype))  # within rounding of the output


@pytest.mark.parametrize("causal", [False, True])
def test_tiled_attention_is_differentiable_despite_its_in_place_updates(causal):
    q, k, v = (t.requires_grad_() for t in qkv(2, (2,), 9, 11, 4, 3))
    assert torch.autograd.gradcheck(
        lambda q, k, v: tiled_attention(q, k, v, block_size=4, causal=causal), (q, k, v)
    )


def test_tiled_attention_runs_on_meta_with_the_right_shape_and_dtype():
    q = torch.empty(2, 3, 70, 8, device="meta", dtype=torch.float16)
    k = torch.empty(2, 3, 50, 8, device="meta", dtype=torch.float16)
    v = torch.empty(2, 3, 50, 5, device="meta", dtype=torch.float16)
    output = tiled_attention(q, k, v, block_size=16, causal=True)
    assert output.device.type == "meta" and output.dtype == torch.float16
    assert output.shape == (2, 3, 70, 5)


def test_kv_cache_concatenates_along_the_sequence_dim(randn):
    cache = KVCache()
    assert len(cache) == 0
    k1, v1 = randn(2, 4, 3, 8), randn(2, 4, 3, 6)
    k_all, v_all = cache.append(k1, v1)
    assert torch.equal(k_all, k1) and torch.equal(v_all, v1)
    k2, v2 = randn(2, 4, 1, 8), randn(2, 4, 1, 6)
    k_all, v_all = cache.append(k2, v2)
    assert torch.equal(k_all, torch.cat([k1, k2], dim=-2))
    assert torch.equal(v_all, torch.cat([v1, v2], dim=-2))
    assert len(cache) == 4
