"""course_lib.scaling: the variance of q·k grows like d_k; entropy of attention weights."""

import math

import pytest
import torch

from course_lib import dot_product_variance, softmax_entropy


@pytest.mark.parametrize("d_k", [1, 4, 16, 64])
def test_dot_product_variance_is_about_d_k(d_k):
    variance = dot_product_variance(
        d_k, num_samples=50_000, generator=torch.Generator().manual_seed(0)
    )
    assert isinstance(variance, float)
    # Var of a sample variance of 50k draws is small: 5% is many standard errors.
    assert variance == pytest.approx(d_k, rel=0.05)


def test_dot_product_variance_is_reproducible_with_a_generator():
    a = dot_product_variance(8, 1000, generator=torch.Generator().manual_seed(3))
    b = dot_product_variance(8, 1000, generator=torch.Generator().manual_seed(3))
    assert a == b


def test_entropy_of_uniform_is_log_n_and_of_one_hot_is_zero():
    weights = torch.tensor([[0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0]], dtype=torch.float64)
    entropy = softmax_entropy(weights)
    torch.testing.assert_close(entropy, torch.tensor([math.log(4), 0.0], dtype=torch.float64))


def test_entropy_treats_0_log_0_as_0_without_nan():
    weights = torch.tensor([0.5, 0.5, 0.0])
    entropy = softmax_entropy(weights)
    assert not torch.isnan(entropy)
    torch.testing.assert_close(entropy, torch.tensor(math.log(2)))


def test_entropy_along_another_dim_matches_the_definition():
    weights = torch.softmax(torch.randn(3, 5, generator=torch.Generator().manual_seed(0)), dim=0)
    expected = -(weights * weights.log()).sum(dim=0)
    torch.testing.assert_close(softmax_entropy(weights, dim=0), expected)
    assert softmax_entropy(weights, dim=0).shape == (5,)


def test_unscaled_scores_have_lower_entropy_than_scaled_ones():
    g = torch.Generator().manual_seed(0)
    d_k = 256
    q, k = torch.randn(64, d_k, generator=g), torch.randn(64, d_k, generator=g)
    unscaled = softmax_entropy(torch.softmax(q @ k.T, -1)).mean()
    scaled = softmax_entropy(torch.softmax(q @ k.T / math.sqrt(d_k), -1)).mean()
    assert unscaled < 0.5 * scaled  # without scaling softmax is close to one-hot
