# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
# Lesson 08's exercises in this style. The whole style is every lesson's loops.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        x = self.linear1(x)
        x = self.relu(x)
        x = self.dropout(x)
        return self.linear2(x)


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.drop1 = nn.Dropout(dropout)
        self.drop2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            a, _ = self.attn(self.norm1(x), mask=mask)
            x = x + self.drop1(a)
            x = x + self.drop2(self.ff(self.norm2(x)))
            return x
        a, _ = self.attn(x, mask=mask)
        x = self.norm1(x + self.drop1(a))
        x = self.norm2(x + self.drop2(self.ff(x)))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList()
        for _ in range(num_layers):
            self.blocks.append(TransformerBlock(d_model, num_heads, d_ff, norm_first=True))
        # a LayerNorm without weight and bias (as OLMo's): still the final LayerNorm
        self.final_norm = nn.LayerNorm(d_model, elementwise_affine=False)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, tokens):
        x = self.position(self.token_embedding(tokens))
        mask = causal_mask(tokens.size(1), device=tokens.device)
        for block in self.blocks:
            x = block(x, mask=mask)
        return self.lm_head(self.final_norm(x))
