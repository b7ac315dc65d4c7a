# Source: karpathy/nanoGPT, model.py, GPT.forward (wpe lookup of torch.arange(0, t) and
# `assert t <= self.config.block_size`).
# Adapted to the contract: wpe renamed `embedding`, wrapped as the exercise's module that adds
# the position embeddings to its input. The length check stays an assert (COURSE_SPEC accepts it).
# grade: LearnedPositionalEmbedding
import torch
import torch.nn as nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.block_size = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        b, t, _ = x.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=x.device)  # shape (t)
        return x + self.embedding(pos)
