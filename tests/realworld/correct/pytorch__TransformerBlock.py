# Source: pytorch/pytorch, torch/nn/modules/transformer.py, class TransformerEncoderLayer
# (forward: if self.norm_first: x = x + self._sa_block(self.norm1(x), ...); x = x +
# self._ff_block(self.norm2(x)) else: x = self.norm1(x + self._sa_block(x, ...)); x =
# self.norm2(x + self._ff_block(x)); _sa_block returns self.dropout1(x), _ff_block
# self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))).
# Adapted to the contract: self_attn is the learner's MultiHeadAttention (bias=True) named attn,
# called with the contract's mask (True = attend) instead of attn_mask/key_padding_mask;
# linear1/dropout/linear2 are the learner's FeedForward named ff; batch_first only.
# grade: TransformerBlock
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm_first = norm_first
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, src, mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    # self-attention block
    def _sa_block(self, x, attn_mask):
        x = self.attn(x, x, x, mask=attn_mask)[0]
        return self.dropout1(x)

    # feed forward block
    def _ff_block(self, x):
        return self.dropout2(self.ff(x))
