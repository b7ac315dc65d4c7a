# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 01's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def project_qkv(x, w_q, w_k, w_v):
    fused = torch.cat([w_q, w_k, w_v], dim=1)  # (d_model, 2 d_k + d_v)
    return (x @ fused).split([w_q.shape[1], w_k.shape[1], w_v.shape[1]], dim=-1)


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)
        self.sizes = [d_k, d_k, d_v]

    def forward(self, x):
        w = torch.cat([self.w_q.weight, self.w_k.weight, self.w_v.weight])
        return tuple(F.linear(x, w).split(self.sizes, dim=-1))
