# Source: EleutherAI/gpt-neox, megatron/model/positional_embeddings.py, rotate_half
# (x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]; cat((-x2, x1))) with
# apply_rotary_pos_emb (emb = cat((freqs, freqs), dim=-1)); bug report
# https://github.com/EleutherAI/gpt-neox/issues/834: this pairs x[i] with x[i + d/2], not the
# interleaved (2i, 2i+1) pairs of RoFormer (GPT-NeoX's first version used rotate_every_two).
# Reproduced in the contract's terms, whose RoPE is RoFormer's interleaved pairs.
# expect: rope-half-split
# grade: apply_rope
import torch


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=x1.ndim - 1)  # dim=-1 triggers a bug in earlier torch versions


def apply_rope(x, positions=None, base=10000.0):
    dim = x.shape[-1]
    if positions is None:
        positions = torch.arange(x.shape[-2], device=x.device)
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, device=x.device).float() / dim))
    freqs = torch.einsum("i,j->ij", positions.float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    return (x * cos) + (rotate_half(x) * sin)
