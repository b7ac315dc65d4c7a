# Source: Howuhh/faster-trajectory-transformer, trajectory/models/gpt/gpt.py, TransformerBlock;
# bug report https://github.com/Howuhh/faster-trajectory-transformer/issues/3: `norm_x = norm(x);
# norm_x + attn(norm_x)`, the residual taken from the normalised input instead of x (minGPT's
# x + attn(norm(x))).
# Reproduced in the contract's terms: a Pre-LN TransformerBlock (norm1/attn/norm2/ff, the
# learner's modules) with the residual from the normed input; Post-LN kept correct.
# expect: residual-from-normed-input
# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.drop = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, mask=None):
        if not self.norm_first:
            x = self.norm1(x + self.drop(self.attn(x, mask=mask)[0]))
            return self.norm2(x + self.drop(self.ff(x)))
        norm_x = self.norm1(x)
        x = norm_x + self.drop(self.attn(norm_x, mask=mask)[0])
        norm_x = self.norm2(x)
        x = norm_x + self.drop(self.ff(norm_x))
        return x
