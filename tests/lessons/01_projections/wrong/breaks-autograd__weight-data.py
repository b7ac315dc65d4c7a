# grade: QKVProjection
# Each layer's weight.data used: the layers' weights get no gradient.
import torch
import torch.nn as nn


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)
    def forward(self, x):
        return x @ self.w_q.weight.data.T, x @ self.w_k.weight.data.T, x @ self.w_v.weight.data.T
