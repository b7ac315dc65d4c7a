# grade: LearnedPositionalEmbedding
# Trial 48: F.dropout(..., training=True) in forward fails in eval mode first, where the output
# was only "wrong"; the same dropout as an nn.Dropout was named (in training mode).
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
            raise ValueError(f"sequence length {L} exceeds max_len {self.max_len}")
        positions = torch.arange(L, device=x.device)
        return F.dropout(x + self.embedding(positions), 0.1, training=True)
