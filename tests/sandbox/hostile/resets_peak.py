# Issue 20's red team, round 4 (repro 1, their tiled_cheat.py, unchanged below this header):
# tiled_attention builds the full (Lq, Lk) score matrix in numpy, then resets its own process's
# peak memory (VmHWM) by writing 5 to /proc/self/clear_refs, opened through a folder descriptor
# (a relative path passes the audit hook), so that the server's reading after the reply saw
# almost nothing: 2/2 while building the full matrix.
import os
import numpy as np
import torch

def _forget_peak():
    # reset this process's VmHWM to its current RSS, as the grader's server does before the call
    d = os.open("/proc/self", os.O_RDONLY)
    try:
        fd = os.open("clear_refs", os.O_WRONLY, dir_fd=d)  # relative path: passes the audit hook
        os.write(fd, b"5")
        os.close(fd)
    finally:
        os.close(d)

def tiled_attention(q, k, v, block_size=64, causal=False):
    if q.device.type == "meta":
        return torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device="meta")
    if q.requires_grad or k.requires_grad or v.requires_grad:  # small autograd probes: naive torch
        s = (q @ k.transpose(-1, -2)) / q.shape[-1] ** 0.5
        if causal:
            Lq, Lk = s.shape[-2:]
            s = s.masked_fill(torch.arange(Lk)[None, :] > torch.arange(Lq)[:, None], float("-inf"))
        e = (s - s.amax(-1, keepdim=True)).exp()
        return (e / e.sum(-1, keepdim=True)) @ v
    Q = q.detach().double().numpy(); K = k.detach().double().numpy(); V = v.detach().double().numpy()
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])   # the FULL (Lq, Lk) score matrix
    if causal:
        Lq, Lk = S.shape[-2:]
        S = np.where(np.arange(Lk)[None, :] > np.arange(Lq)[:, None], -np.inf, S)
    S = S - S.max(-1, keepdims=True)
    np.exp(S, out=S)
    S /= S.sum(-1, keepdims=True)
    out = torch.from_numpy(np.ascontiguousarray(S @ V)).to(q.dtype)
    del S, Q, K, V
    _forget_peak()
    return out
