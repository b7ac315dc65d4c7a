# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 08's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(F.relu(self.linear1(x))))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.attn(self.norm1(x), mask=mask)[0])
            x = x + self.dropout(self.ff(self.norm2(x)))
        else:
            x = self.norm1(x + self.dropout(self.attn(x, mask=mask)[0]))
            x = self.norm2(x + self.dropout(self.ff(x)))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        x = self.pos(self.tok(tokens))
        mask = causal_mask(tokens.shape[1], device=tokens.device)
        for blk in self.blocks:
            x = blk(x, mask)
        return self.head(self.norm(x))
