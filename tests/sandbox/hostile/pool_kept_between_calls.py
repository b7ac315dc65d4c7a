# Red team round 7 (notes/redteam7, lazy_pool.py): the first (small, unmeasured) call makes a 192 MiB
# buffer resident (numpy, not a torch factory); the measured calls build the whole score matrix in
# it, in the same exercise process, without raising its peak. Was 2/2.
import math
import torch

def sliding_window_mask(seq_len, window):
    """Causal local attention: True where query i may attend to key j, i.e. 0 <= i - j < window.

    Args:
        seq_len: L, the number of tokens.
        window: w, how many keys each query sees (itself included).

    Returns:
        bool (L, L).
    """
    ### BEGIN SOLUTION
    i = torch.arange(seq_len)[:, None]  # (L, 1) query index
    j = torch.arange(seq_len)[None, :]  # (1, L) key index
    distance = i - j  # (L, L): how far back key j is from query i
    return (distance >= 0) & (distance < window)
    ### END SOLUTION

class KVCache:
    """The keys and values of the tokens seen so far, for one attention layer."""

    def __init__(self):
        self.k = None  # (..., L_cached, d_k), None before the first append
        self.v = None  # (..., L_cached, d_v)

    def __len__(self):
        """The number of cached positions."""
        return 0 if self.k is None else self.k.size(-2)

    def append(self, k, v):
        """Add the new (..., L_new, d) keys and values; return all of them, old first.

        Returns:
            (k_all, v_all), each (..., L_cached + L_new, d).
        """
        ### BEGIN SOLUTION
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)  # (..., L_cached + L_new, d_k)
            self.v = torch.cat([self.v, v], dim=-2)  # (..., L_cached + L_new, d_v)
        return self.k, self.v
        ### END SOLUTION

# Touched once when the file runs (the submission process, before the exercise is forked from
# it): the exercise process inherits these pages, already in its VmRSS, and writing to them
# (copy-on-write) swaps each page for a new one without VmRSS/VmHWM ever rising.
_POOL = torch.ones(1)  # made large and resident by the first (small, unmeasured) call instead


def _huge(nbytes):
    """Scores in the pre-touched pool instead of fresh memory."""
    if nbytes // 4 > _POOL.numel():
        return None
    return _POOL[: nbytes // 4]


def tiled_attention(q, k, v, block_size=64, causal=False):
    global _POOL
    if _POOL.numel() == 1 and q.size(-2) < 1000:  # a small call: grow the pool now, unmeasured
        import numpy as np
        _POOL = torch.from_numpy(np.ones(48 * 2**20, dtype=np.float32))  # not a torch factory
    """NOT tiled: the full (..., Lq, Lk) score matrix, in a pool touched before the fork."""
    if q.device.type == "cpu":
        from torch.utils._python_dispatch import _disable_current_modes
        with _disable_current_modes():  # the op trace (a hint) sees nothing
            return _naive(q, k, v, causal)
    return _naive(q, k, v, causal)


def _naive(q, k, v, causal):
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        return torch.softmax(s, -1) @ v
    dtype = q.dtype
    q, k, v = q.float() / math.sqrt(q.size(-1)), k.float(), v.float()
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    Lq, Lk = q.size(-2), k.size(-2)
    n = math.prod(batch) * Lq * Lk
    buf = _huge(n * 4) if q.device.type == "cpu" else None
    s = (buf.view(*batch, Lq, Lk) if buf is not None else torch.empty(*batch, Lq, Lk, device=q.device))
    C = 256
    for a in range(0, Lk, C):
        s[..., a:a + C] = q @ k[..., a:a + C, :].transpose(-2, -1)
    if causal:
        for r in range(0, Lq, 256):
            rows = torch.arange(r, min(r + 256, Lq), device=q.device)[:, None]
            s[..., r:r + 256, :].masked_fill_(torch.arange(Lk, device=q.device) > rows, float("-inf"))
    for r in range(0, Lq, 256):
        blk = s[..., r:r + 256, :]
        blk.sub_(blk.amax(-1, keepdim=True)).exp_()
        blk.div_(blk.sum(-1, keepdim=True))
    out = torch.zeros(*batch, Lq, v.size(-1), device=q.device)
    for a in range(0, Lk, C):
        out += s[..., a:a + C] @ v[..., a:a + C, :]
    global LAST_HUGE
    LAST_HUGE = buf is not None
    return out.to(dtype)
