# Source: pytorch/pytorch, the docstring reference of F.scaled_dot_product_attention
# (`attn_weight = torch.dropout(attn_weight, dropout_p, train=True)`); bug report
# https://github.com/pytorch/pytorch/issues/124464 ("SDPA does not switch off dropout during
# evaluation"; also huggingface/pytorch-image-models PR #1978, "a recurring bug").
# Reproduced in the contract's terms: the exercise with a dropout argument, FeedForward, drops
# the ReLU's output with train=True whatever the module's mode.
# expect: dropout-always-on
# grade: FeedForward
import torch
import torch.nn as nn


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout_p = dropout

    def forward(self, x):
        h = torch.relu(self.linear1(x))
        h = torch.dropout(h, self.dropout_p, train=True)
        return self.linear2(h)
