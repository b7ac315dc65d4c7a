# grade: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Parameter(torch.zeros(1, max_len, d_model))
        nn.init.trunc_normal_(self.embedding, std=0.02)

    def forward(self, x):
        L = x.size(1)
        if L > self.max_len:
            raise ValueError("L > max_len")
        return x + self.embedding[:, :L]

