# grade: FeedForward
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout, inplace=True)  # saves memory, but relu's output is saved

    def forward(self, x):
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))
