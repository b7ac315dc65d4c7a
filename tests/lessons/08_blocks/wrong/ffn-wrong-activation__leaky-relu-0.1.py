# grade: FeedForward
# Trial 49: a slope of 0.1 (F.leaky_relu's default is 0.01) was left unnamed.
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(F.leaky_relu(self.linear1(x), 0.1)))  # not ReLU
