# grade: TransformerBlock
# GPT-2's MLP (dropout after linear2) inside a block with the encoder layer's dropout2: the
# feed-forward output is dropped twice
import torch.nn as nn


class FeedForward(nn.Module):
    # nanoGPT MLP layout: c_fc -> act -> c_proj -> dropout (named linear1/linear2)
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.act = nn.ReLU()
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.linear2(self.act(self.linear1(x))))


class TransformerBlock(nn.Module):
    """FF drops after linear2 AND block drops again: two dropouts in series on the FFN output"""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.norm1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.resid_dropout = nn.Dropout(dropout)
        self.norm2 = nn.LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.drop2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.resid_dropout(self.attn(self.norm1(x), mask=mask)[0])
            x = x + self.drop2(self.ff(self.norm2(x)))
        else:
            x = self.norm1(x + self.resid_dropout(self.attn(x, mask=mask)[0]))
            x = self.norm2(x + self.drop2(self.ff(x)))
        return x
