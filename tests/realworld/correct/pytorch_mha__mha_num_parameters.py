# Source: pytorch/pytorch, torch/nn/modules/activation.py (v2.3), MultiheadAttention.__init__
# with kdim == vdim == embed_dim: `self.in_proj_weight = Parameter(torch.empty((3 * embed_dim,
# embed_dim)))`, `self.in_proj_bias = Parameter(torch.empty(3 * embed_dim))` when bias,
# `self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)`.
# Adapted to the contract: the count of those parameters as a function mha_num_parameters(d_model,
# num_heads, bias) (COURSE_SPEC's module has the same four d_model x d_model projections: the
# fused in_proj is q, k, v); num_heads does not change the count (head_dim * num_heads ==
# embed_dim, as nn.MultiheadAttention asserts).
# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    embed_dim = d_model
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"
    in_proj_weight = 3 * embed_dim * embed_dim
    in_proj_bias = 3 * embed_dim if bias else 0
    out_proj = embed_dim * embed_dim + (embed_dim if bias else 0)
    return in_proj_weight + in_proj_bias + out_proj
