# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, classes EncoderLayer and
# SublayerConnection (x + dropout(sublayer(norm(x))), a Pre-LN residual).
# Adapted to the contract: the two SublayerConnections' norms named norm1/norm2, self_attn and
# feed_forward named attn/ff (the learner's own modules, attn with bias=True); a Post-LN branch
# for norm_first=False (norm(x + dropout(sublayer(x))), the paper's order).
# grade: TransformerBlock
import torch.nn as nn


class SublayerConnection(nn.Module):
    """A residual connection followed by a layer norm (here: Pre-LN unless norm_first=False)."""

    def __init__(self, norm, dropout, norm_first):
        super().__init__()
        self.norm = norm
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, sublayer):
        "Apply residual connection to any sublayer with the same size."
        if self.norm_first:
            return x + self.dropout(sublayer(self.norm(x)))
        return self.norm(x + self.dropout(sublayer(x)))


class TransformerBlock(nn.Module):
    "Encoder is made up of self-attn and feed forward (defined below)"

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.sublayer = [
            SublayerConnection(self.norm1, dropout, norm_first),
            SublayerConnection(self.norm2, dropout, norm_first),
        ]
        self.drop1 = self.sublayer[0].dropout
        self.drop2 = self.sublayer[1].dropout

    def forward(self, x, mask=None):
        "Follow Figure 1 (left) for connections."
        x = self.sublayer[0](x, lambda x: self.attn(x, x, x, mask)[0])
        return self.sublayer[1](x, self.ff)
