# Source: meta-llama/llama, llama/model.py, precompute_freqs_cis (freqs = 1.0 / (theta **
# (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim)); torch.polar(torch.ones_like(freqs),
# freqs)) and apply_rotary_emb (torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2));
# torch.view_as_real(xq_ * freqs_cis).flatten(3); .type_as(xq)): complex multiplication of
# adjacent pairs, i.e. RoFormer's interleaved pairs as the contract asks.
# Adapted to the contract: one tensor x instead of (xq, xk); the table built for `positions`
# (default 0..L-1) instead of sliced from a precomputed one; flatten(-2) for any leading dims.
# grade: apply_rope
import torch


def precompute_freqs_cis(dim, positions, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, device=positions.device)[: (dim // 2)].float() / dim))
    t = positions.to(freqs.dtype)
    freqs = torch.outer(t, freqs).float()  # type: ignore
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return freqs_cis


def apply_rope(x, positions=None, base=10000.0):
    if positions is None:
        positions = torch.arange(x.shape[-2], device=x.device)
    freqs_cis = precompute_freqs_cis(x.shape[-1], positions, base)
    x_ = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    x_out = torch.view_as_real(x_ * freqs_cis).flatten(-2)
    return x_out.type_as(x)
