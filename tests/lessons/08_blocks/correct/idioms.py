# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
# Lesson 08's exercises in this style. The whole style is every lesson's idioms.py, in lesson order:
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
        self.dropout = dropout

    def forward(self, x):
        return self.linear2(F.dropout(F.relu(self.linear1(x)), self.dropout, self.training))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.norm_first = norm_first
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        sublayers = ((self.norm1, lambda t: self.attn(t, mask=mask)[0]), (self.norm2, self.ff))
        for norm, f in sublayers:
            x = x + self.drop(f(norm(x))) if self.norm_first else norm(x + self.drop(f(x)))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, d_model)
        self.wpe = nn.Parameter(torch.zeros(1, max_len, d_model))  # minGPT (2020): learned from 0
        self.h = nn.ModuleList(TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def forward(self, tokens):
        T = tokens.size(1)
        x = self.wte(tokens) + self.wpe[:, :T]
        for block in self.h:
            x = block(x, self.mask[:T, :T])
        return self.lm_head(self.ln_f(x))
