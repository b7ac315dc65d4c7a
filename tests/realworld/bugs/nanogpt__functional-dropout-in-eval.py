# Source: karpathy/nanoGPT, model.py, CausalSelfAttention.forward before PR #240
# (`torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None,
# dropout_p=self.dropout, is_causal=True)`: a functional call that drops whatever the module's
# mode); bug report https://github.com/karpathy/nanoGPT/pull/240 ("don't dropout in eval mode";
# karpathy: "this is an actual bug ... we are applying dropout at evaluation time? ... calling
# functional directly considered dangerous").
# Reproduced in the contract's terms: a TransformerBlock whose sublayer-output dropout is the
# functional F.dropout(x, p) (training=True by default) instead of an nn.Dropout module, so it
# drops in eval mode too.
# expect: dropout-always-on
# grade: TransformerBlock
import torch.nn as nn
import torch.nn.functional as F


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = dropout
        self.norm_first = norm_first

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + F.dropout(self.attn(h, mask=mask)[0], p=self.dropout)
            x = x + F.dropout(self.ff(self.norm2(x)), p=self.dropout)
        else:
            x = self.norm1(x + F.dropout(self.attn(x, mask=mask)[0], p=self.dropout))
            x = self.norm2(x + F.dropout(self.ff(x), p=self.dropout))
        return x
