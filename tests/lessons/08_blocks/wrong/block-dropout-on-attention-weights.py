# grade: TransformerBlock
# the attention weights dropped (as nn.TransformerEncoderLayer and nanoGPT do) besides the sublayer outputs
import torch
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

        self.p = dropout

    def _attn(self, x, mask):
        a = self.attn
        q = split_heads(a.w_q(x), a.num_heads)
        k = split_heads(a.w_k(x), a.num_heads)
        v = split_heads(a.w_v(x), a.num_heads)
        _, w = scaled_dot_product_attention(q, k, v, mask)
        w = F.dropout(w, self.p, self.training)
        return a.w_o(merge_heads(w @ v))

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self._attn(self.norm1(x), mask))
            x = x + self.dropout(self.ff(self.norm2(x)))
        else:
            x = self.norm1(x + self.dropout(self._attn(x, mask)))
            x = self.norm2(x + self.dropout(self.ff(x)))
        return x
