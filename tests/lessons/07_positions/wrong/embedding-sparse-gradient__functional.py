# grade: LearnedPositionalEmbedding
# the table built plainly, but looked up with F.embedding(..., sparse=True) in forward: the
# gradient is sparse all the same, and lesson 08's AdamW refuses it
import torch
import torch.nn as nn
import torch.nn.functional as F


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        L = x.size(1)
        if L > self.max_len:
            raise ValueError(f"sequence of length {L} is longer than max_len={self.max_len}")
        positions = torch.arange(L, device=x.device)
        return x + F.embedding(positions, self.embedding.weight, sparse=True)
