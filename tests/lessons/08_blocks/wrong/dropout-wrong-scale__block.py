# grade: TransformerBlock
import torch
import torch.nn as nn


def drop(t, p, training):
    return t * (torch.rand_like(t) >= p) / p if training and p > 0 else t  # 1/p, not 1/(1-p)


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.p = dropout

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + drop(self.attn(self.norm1(x), mask=mask)[0], self.p, self.training)
            return x + drop(self.ff(self.norm2(x)), self.p, self.training)
        x = self.norm1(x + drop(self.attn(x, mask=mask)[0], self.p, self.training))
        return self.norm2(x + drop(self.ff(x), self.p, self.training))
