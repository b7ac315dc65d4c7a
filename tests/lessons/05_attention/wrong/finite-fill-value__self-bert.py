# grade: SelfAttention
# BERT's extended attention mask, (1.0 - mask) * -10000.0, added to the scores: a fully masked
# query attends by its raw scores instead of to nothing.
import math
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if mask is not None:
            if mask.dtype == torch.bool:
                mask = (1.0 - mask.to(scores.dtype)) * -10000.0
            scores = scores + mask.to(scores.dtype)
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights
