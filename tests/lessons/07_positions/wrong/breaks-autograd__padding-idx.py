# grade: LearnedPositionalEmbedding
import torch
import torch.nn as nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model, padding_idx=0)  # copied from a token table

    def forward(self, x):
        L = x.shape[-2]
        if L > self.max_len:
            raise ValueError(f"sequence length {L} exceeds max_len {self.max_len}")
        positions = torch.arange(L, device=x.device)
        return x + self.embedding(positions).to(x.dtype)
