# grade: SelfAttention
# torch's FlexAttention, which runs (slowly) without torch.compile on the CPU too.
import torch.nn as nn
from torch.nn.attention.flex_attention import flex_attention


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        out = flex_attention(q[:, None], k[:, None], v[:, None])[:, 0]
        return out, None
