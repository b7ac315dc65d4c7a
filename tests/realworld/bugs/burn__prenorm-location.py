# Source: tracel-ai/burn, crates/burn-core/src/nn/transformer/encoder.rs (norm_first branch);
# bug report https://github.com/tracel-ai/burn/issues/1056 (fixed by PR #1054): with norm_first
# it did `x = norm(x); x += FF(x)`, so the residual stream is the normalised x
# (Pre-LN is x += FF(norm(x))).
# Reproduced in the contract's terms, in PyTorch: TransformerBlock whose Pre-LN path normalises x
# in place before each residual sum.
# expect: residual-from-normed-input
# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, mask=None):
        if self.norm_first:
            x = self.norm1(x)
            x = x + self.dropout1(self.attn(x, mask=mask)[0])
            x = self.norm2(x)
            x = x + self.dropout2(self.ff(x))
        else:
            x = self.norm1(x + self.dropout1(self.attn(x, mask=mask)[0]))
            x = self.norm2(x + self.dropout2(self.ff(x)))
        return x
