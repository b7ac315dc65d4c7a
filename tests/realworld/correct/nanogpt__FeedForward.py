# Source: karpathy/nanoGPT, model.py, class MLP (c_fc -> gelu -> c_proj -> dropout).
# Adapted to the contract: c_fc/c_proj renamed linear1/linear2, GELU replaced by the contract's
# ReLU, d_ff given instead of 4 * n_embd. Kept: dropout on c_proj's output (GPT-2's placement,
# which COURSE_SPEC accepts).
# grade: FeedForward
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.relu = nn.ReLU()
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.linear1(x)
        x = self.relu(x)
        x = self.linear2(x)
        x = self.dropout(x)
        return x
