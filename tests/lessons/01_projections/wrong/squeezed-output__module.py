# grade: QKVProjection
# A bare .squeeze() drops a batch or a sequence of length 1.
import torch
import torch.nn as nn


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)
    def forward(self, x):
        return self.w_q(x).squeeze(), self.w_k(x).squeeze(), self.w_v(x).squeeze()
