# A learner who likes einsum, torch.where and building things from scratch.
# Lesson 08's exercises in this style. The whole style is every lesson's einsum.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.clamp(self.linear1(x), min=0)))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout=dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm_first = norm_first
        self.drop = nn.Dropout(dropout)

    def _sa(self, x, mask):
        return self.drop(self.attn(x, x, x, mask=mask)[0])

    def forward(self, x, mask=None):
        if not self.norm_first:
            x = self.norm1(x + self._sa(x, mask))
            return self.norm2(x + self.ff(x))
        h = x + self._sa(self.norm1(x), mask)
        return h + self.ff(self.norm2(h))


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.layers = nn.Sequential(*[TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens):
        L = tokens.shape[-1]
        x = self.embed(tokens) * math.sqrt(self.embed.embedding_dim) + self.pe[:L]
        mask = causal_mask(L, device=tokens.device)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return self.norm(x) @ self.embed.weight.T  # tied weights
