# grade: tiled_attention
# Red team round 7 (notes/redteam7, row_loop_untiled.py): one query at a time, one sequence at a
# time, the row of scores over ALL keys in one reused buffer, an ordinary softmax; block_size never
# read. Each temporary is one row (Lk), so no memory check sees it: the op trace of few queries
# against many keys does.
import itertools
import math

import torch


def tiled_attention(q, k, v, block_size=64, causal=False):
    """NOT tiled: no key blocks, no online softmax, block_size ignored. One query at a time, the
    whole row of scores over every key, an ordinary softmax. Each temporary is one row (Lk)."""
    scale = 1 / math.sqrt(q.size(-1))
    dtype = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    q = q.expand(*batch, *q.shape[-2:])
    k = k.expand(*batch, *k.shape[-2:])
    v = v.expand(*batch, *v.shape[-2:])
    Lq, Lk = q.size(-2), k.size(-2)
    keys = torch.arange(Lk, device=q.device)
    flat_q = q.reshape(-1, Lq, q.size(-1))
    outs, bufs = [], []
    for b, idx in enumerate(itertools.product(*(range(n) for n in batch))):
        kb, vb = k[idx], v[idx]
        if not (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad)):
            # no autograd: one reusable (Lk,) buffer for the row, written in place
            out_b = torch.empty(Lq, v.size(-1), device=q.device)
            if not bufs:  # allocated once per call, reused for every sequence (no heap churn)
                bufs += [torch.empty(Lk, device=q.device),
                         torch.empty(Lk, dtype=torch.float64, device=q.device),
                         torch.empty(Lk, v.size(-1), dtype=torch.float64, device=q.device),
                         torch.empty(v.size(-1), dtype=torch.float64, device=q.device),
                         torch.empty(Lk, k.size(-1), device=q.device)]
            s, s64, vb64, row, kbuf = bufs
            vb64.copy_(vb)
            kbuf.copy_(kb)
            kb = kbuf
            for i in range(Lq):
                torch.matmul(kb, flat_q[b, i], out=s)  # (Lk,): one full row of scores
                s.mul_(scale)
                if causal:
                    s[i + 1:] = float("-inf")
                s.sub_(s.max()).exp_()
                s64.copy_(s)
                torch.matmul(s64, vb64, out=row)
                out_b[i].copy_(row / s64.sum())
            outs.append(out_b)
            continue
        rows = []
        for i in range(Lq):
            s = (kb @ flat_q[b, i]) * scale  # (Lk,): one full row of scores
            if causal:
                s = s.masked_fill(keys > i, float("-inf"))
            rows.append(torch.softmax(s, -1) @ vb)
        outs.append(torch.stack(rows))
    out = torch.stack(outs).reshape(*batch, Lq, v.size(-1)) if batch else outs[0]
    return out.to(dtype)
