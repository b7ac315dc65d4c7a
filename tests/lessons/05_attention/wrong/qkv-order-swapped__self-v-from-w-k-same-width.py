# grade: SelfAttention
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        same_width = self.w_k.out_features == self.w_v.out_features
        v = self.w_k(x) if same_width else self.w_v(x)  # v from w_k when the widths agree
        return scaled_dot_product_attention(self.w_q(x), self.w_k(x), v, mask)
