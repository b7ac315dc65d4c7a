# Red team round 8 (notes/redteam8, shared_pool_parent.py): the same pool, written at the top level
# (the learner process) and mapped again by the exercise process in its first call. No fork, no
# hook switched off. Was flaky: 2/2 in 3 of 4 runs.
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


import os as _os, mmap as _mmap

POOL_BYTES = 160 << 20  # > the largest score tensor a check asks for (128 MiB)
_POOL = None


def _make_pool():
    """Called at module level (the submission process) AND again in the first (small, unmeasured)
    call (the exercise process forked from it): a MAP_SHARED anonymous pool, written by the
    submission process, then mapped (read) by the exercise process. Each page is mapped by two
    processes: Shared_Dirty, no process's Private_Dirty, already in the exercise process's VmRSS.
    No fork, no hook switched off: plain Python."""
    import numpy as np
    global _POOL
    if _POOL is None:
        _POOL = _mmap.mmap(-1, POOL_BYTES)
        np.frombuffer(_POOL, np.uint8)[::4096] = 1  # written here, in the submission process
    else:
        int(np.frombuffer(_POOL, np.uint8)[::4096].sum())  # map every page in this process too


_make_pool()  # module level
_MAPPED_PID = None


def _naive(q, k, v, causal):
    dtype = q.dtype
    work = torch.promote_types(dtype, torch.float32)
    s = (q.to(work) @ k.to(work).transpose(-2, -1)) / math.sqrt(q.size(-1))
    if causal:
        qp = torch.arange(q.size(-2), device=q.device)[:, None]
        kp = torch.arange(k.size(-2), device=q.device)[None, :]
        s = s.masked_fill(kp > qp, float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    p = torch.exp(s - m)
    return ((p @ v.to(work)) / p.sum(dim=-1, keepdim=True)).to(dtype)


def tiled_attention(q, k, v, block_size=64, causal=False):
    """NOT tiled: the whole (..., Lq, Lk) score tensor, always. Large calls build it in a pool
    made resident by an earlier call and shared with a sleeping child."""
    from torch.utils._python_dispatch import _disable_current_modes
    global _MAPPED_PID
    if _MAPPED_PID != _os.getpid():
        _make_pool()
        _MAPPED_PID = _os.getpid()
    Lq, Lk = q.size(-2), k.size(-2)
    lead = q.shape[:-2]
    nb = max(1, math.prod(lead))
    big = Lq * Lk * nb * 4 >= (16 << 20)
    if not big or q.requires_grad or k.requires_grad or v.requires_grad:
        with _disable_current_modes():
            return _naive(q, k, v, causal)
    with _disable_current_modes():
        S = torch.frombuffer(_POOL, dtype=torch.float32, count=nb * Lq * Lk).view(nb, Lq, Lk)
        qf = q.reshape(nb, Lq, q.size(-1)).float() / math.sqrt(q.size(-1))
        kf = k.expand(*lead, Lk, k.size(-1)).reshape(nb, Lk, k.size(-1)) if k.dim() == q.dim() else k
        vf = v.expand(*lead, Lk, v.size(-1)).reshape(nb, Lk, v.size(-1)) if v.dim() == q.dim() else v
        R = max(1, (1 << 18) // Lk)
        out = torch.empty(nb, Lq, vf.size(-1), dtype=torch.float32, device=q.device)
        for b in range(nb):
            kb = kf[b].float()
            for r0 in range(0, Lq, R):  # the whole matrix first, slab by slab into the pool
                torch.matmul(qf[b, r0 : r0 + R], kb.T, out=S[b, r0 : r0 + R])
            if causal:
                for r0 in range(0, Lq, R):
                    qp = torch.arange(r0, min(Lq, r0 + R), device=q.device)[:, None]
                    S[b, r0 : r0 + R].masked_fill_(torch.arange(Lk, device=q.device)[None, :] > qp, float("-inf"))
            for r0 in range(0, Lq, R):  # ordinary softmax of whole rows, in place
                s = S[b, r0 : r0 + R]
                s -= s.amax(dim=-1, keepdim=True)
                s.exp_()
                s /= s.double().sum(dim=-1, keepdim=True).float()
            vb = vf[b].double() if Lk > 8192 else vf[b].float()
            for r0 in range(0, Lq, R):
                out[b, r0 : r0 + R] = (S[b, r0 : r0 + R].to(vb.dtype) @ vb).float()
        return out.reshape(*lead, Lq, vf.size(-1)).to(q.dtype)

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