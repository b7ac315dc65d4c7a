"""course_lib.projections: Q = X W_Q, K = X W_K, V = X W_V."""

import torch

from course_lib import QKVProjection, project_qkv


def test_project_qkv_multiplies_by_each_matrix(randn):
    x = randn(2, 5, 6)
    w_q, w_k, w_v = randn(6, 4), randn(6, 4), randn(6, 3)
    q, k, v = project_qkv(x, w_q, w_k, w_v)
    torch.testing.assert_close(q, torch.einsum("blm,mk->blk", x, w_q))
    torch.testing.assert_close(k, torch.einsum("blm,mk->blk", x, w_k))
    torch.testing.assert_close(v, torch.einsum("blm,mk->blk", x, w_v))
    assert v.shape == (2, 5, 3)


def test_qkv_projection_matches_project_qkv_with_transposed_linear_weights(randn):
    projection = QKVProjection(6, 4, 3).double()
    x = randn(5, 6)
    expected = project_qkv(
        x, projection.w_q.weight.T, projection.w_k.weight.T, projection.w_v.weight.T
    )
    for got, want in zip(projection(x), expected, strict=True):
        torch.testing.assert_close(got, want)


def test_qkv_projection_has_bias_free_linears_of_the_right_sizes():
    projection = QKVProjection(8, 5, 7)
    for name, out_features in [("w_q", 5), ("w_k", 5), ("w_v", 7)]:
        layer = getattr(projection, name)
        assert isinstance(layer, torch.nn.Linear)
        assert layer.bias is None
        assert (layer.in_features, layer.out_features) == (8, out_features)
