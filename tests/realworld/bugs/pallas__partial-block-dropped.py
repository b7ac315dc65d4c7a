# Source: jax-ml/jax, jax/experimental/pallas/ops/gpu/attention.py, mha forward kernel (a loop
# over `pl.cdiv`-less `kv_seq_len // block_k` key blocks, each block loaded whole); bug report
# https://github.com/jax-ml/jax/issues/27224 ("Pallas GPU FlashAttention forward only works when
# sequence lengths are multiples of block size": with 192 keys and blocks of 128 the output is
# not close to mha_reference).
# Reproduced in the contract's terms: tiled_attention's online softmax loops over
# Lk // block_size whole key blocks, so the keys of a last, partial block are never seen.
# expect: partial-block-dropped
# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    acc_dtype = torch.promote_types(q.dtype, torch.float32)
    q, k, v = q.to(acc_dtype), k.to(acc_dtype), v.to(acc_dtype)
    scale = q.shape[-1] ** -0.5
    lq, lk = q.shape[-2], k.shape[-2]
    m_i = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=acc_dtype, device=q.device)
    l_i = torch.zeros_like(m_i)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=acc_dtype, device=q.device)
    q_idx = torch.arange(lq, device=q.device)[:, None]
    for j in range(lk // block_size):
        start = j * block_size
        kb, vb = k[..., start : start + block_size, :], v[..., start : start + block_size, :]
        s = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            k_idx = torch.arange(start, start + kb.shape[-2], device=q.device)[None, :]
            s = s.masked_fill(k_idx > q_idx, float("-inf"))
        m_new = torch.maximum(m_i, s.amax(-1, keepdim=True))
        m_safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - m_safe)
        alpha = torch.exp(m_i - m_safe)
        l_i = l_i * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p @ vb
        m_i = m_new
    out = acc / torch.where(l_i == 0, torch.ones_like(l_i), l_i)
    return out.to(v.dtype if v.dtype != acc_dtype else acc_dtype)
