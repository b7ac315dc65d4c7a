# Source: karpathy/ng-video-lecture, gpt.py (commit 4c8e9028cc4fe417100e1e27db077fca0e0477f2),
# class Head: three bias-free nn.Linear(n_embd, head_size) named key, query, value.
# Adapted to the contract: the projections renamed w_q/w_k/w_v and built from the constructor's
# d_model, d_k, d_v (Head reads the globals n_embd and head_size, and its value width equals the
# key width); forward returns (q, k, v) instead of going on to the masked attention.
# Kept: nn.Linear(..., bias=False), one call per projection, key created first.
# grade: QKVProjection
import torch.nn as nn


class QKVProjection(nn.Module):
    """the three projections of one head of self-attention"""

    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x):
        # input of size (batch, time-step, channels)
        k = self.w_k(x)  # (B,T,hs)
        q = self.w_q(x)  # (B,T,hs)
        v = self.w_v(x)  # (B,T,hs)
        return q, k, v
