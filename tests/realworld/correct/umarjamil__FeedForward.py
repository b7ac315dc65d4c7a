# Source: hkproj/pytorch-transformer (Umar Jamil, "Coding a Transformer from scratch"), model.py,
# class FeedForwardBlock: `self.linear_1 = nn.Linear(d_model, d_ff) # w1 and b1`,
# `self.dropout = nn.Dropout(dropout)`, `self.linear_2 = nn.Linear(d_ff, d_model) # w2 and b2`,
# forward `return self.linear_2(self.dropout(torch.relu(self.linear_1(x))))`.
# Adapted to the contract: the class is FeedForward, linear_1/linear_2 renamed linear1/linear2,
# dropout defaults to 0.0.
# Kept: dropout on the ReLU's output, torch.relu, one nested expression.
# grade: FeedForward
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)  # w1 and b1
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)  # w2 and b2

    def forward(self, x):
        # (batch, seq_len, d_model) --> (batch, seq_len, d_ff) --> (batch, seq_len, d_model)
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))
