# Source: karpathy/nanoGPT, model.py, class Block (x = x + attn(ln_1(x)); x = x + mlp(ln_2(x))).
# Adapted to the contract: ln_1/ln_2/mlp renamed norm1/norm2/ff; the learner's own
# MultiHeadAttention (bias=True) and FeedForward; a Post-LN branch for norm_first=False; the
# sublayer dropout (nanoGPT's resid_dropout) applied to each sublayer's output in the block.
# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff)
        self.resid_dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.resid_dropout(self.attn(self.norm1(x), mask=mask)[0])
            x = x + self.resid_dropout(self.ff(self.norm2(x)))
        else:
            x = self.norm1(x + self.resid_dropout(self.attn(x, mask=mask)[0]))
            x = self.norm2(x + self.resid_dropout(self.ff(x)))
        return x
