# grade: TransformerBlock
import torch.nn as nn
import torch.nn.functional as F


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def _norm(self, norm, x):  # normalised over the tokens (dim 1), not the features
        mu = x.mean(dim=1, keepdim=True)
        var = x.var(dim=1, keepdim=True, unbiased=False)
        return (x - mu) / (var + norm.eps).sqrt() * norm.weight + norm.bias

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.attn(self._norm(self.norm1, x), mask=mask)[0])
            x = x + self.dropout(self.ff(self._norm(self.norm2, x)))
        else:
            x = self._norm(self.norm1, x + self.dropout(self.attn(x, mask=mask)[0]))
            x = self._norm(self.norm2, x + self.dropout(self.ff(x)))
        return x
