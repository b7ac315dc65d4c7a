# Source: karpathy's "Let's build GPT" lecture notebook gpt-dev.ipynb (linked from
# karpathy/ng-video-lecture's README), the "Scaled attention" cell:
#   k = torch.randn(B,T,head_size); q = torch.randn(B,T,head_size)
#   wei = q @ k.transpose(-2, -1) * head_size**-0.5  # without this the variance of wei will be
#   of the order of headsize ... print(wei.var())
# Adapted to the contract: the unscaled product (the exercise measures the variance the scale
# then removes); B = num_samples pairs, T = 1, head_size = d_k; the generator is passed to
# torch.randn; the variance returned as a float (.item()).
# Kept: (B, T, head_size) tensors, q @ k.transpose(-2, -1), Tensor.var().
# grade: dot_product_variance
import torch


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    B, T, head_size = num_samples, 1, d_k
    k = torch.randn(B, T, head_size, generator=generator)
    q = torch.randn(B, T, head_size, generator=generator)
    wei = q @ k.transpose(-2, -1)  # (B, T, T): the variance is of the order of head_size
    return wei.var().item()
