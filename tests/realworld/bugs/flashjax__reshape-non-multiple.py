# Source: lucidrains/flash-attention-jax, flash_attention_jax/flash_attention.py and
# causal_flash_attention.py (keys and values reshaped into whole chunks, `k.reshape(...,
# k_len // KEY_CHUNK_SIZE, KEY_CHUNK_SIZE, ...)`, then a scan over the chunks); bug report
# https://github.com/lucidrains/flash-attention-jax/issues/14 ("Reshape error in
# causal_flash_attention when sequence length is not a multiple of 1024": 1025 tokens raise
# `reshape total size must be unchanged`).
# Reproduced in the contract's terms: tiled_attention splits k and v into whole blocks with
# reshape (Lk // block_size of them), which raises when block_size does not divide Lk.
# expect: partial-block-dropped
# grade: tiled_attention
import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    acc_dtype = torch.promote_types(q.dtype, torch.float32)
    q, k, v = q.to(acc_dtype), k.to(acc_dtype), v.to(acc_dtype)
    scale = q.shape[-1] ** -0.5
    lq, lk = q.shape[-2], k.shape[-2]
    n_chunks = max(lk // block_size, 1)
    k_chunks = k.reshape(*k.shape[:-2], n_chunks, block_size, k.shape[-1])
    v_chunks = v.reshape(*v.shape[:-2], n_chunks, block_size, v.shape[-1])
    m_i = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=acc_dtype, device=q.device)
    l_i = torch.zeros_like(m_i)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=acc_dtype, device=q.device)
    q_idx = torch.arange(lq, device=q.device)[:, None]
    for j in range(n_chunks):
        kb, vb = k_chunks[..., j, :, :], v_chunks[..., j, :, :]
        s = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            k_idx = torch.arange(j * block_size, (j + 1) * block_size, device=q.device)[None, :]
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
