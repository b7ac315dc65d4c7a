# grade: LearnedPositionalEmbedding
# Trial 48: positions made in x's dtype, then .long(): half inputs past 2048 tokens (256 in
# bfloat16) pick wrong rows; no check ran the module in half on that many tokens.
import torch
import torch.nn as nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        L = x.size(1)
        if L > self.max_len:
            raise ValueError(f"sequence length {L} exceeds max_len {self.max_len}")
        positions = torch.arange(L, dtype=x.dtype, device=x.device)
        return x + self.embedding(positions.long())
