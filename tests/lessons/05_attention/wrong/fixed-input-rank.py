# grade: SelfAttention
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        B, L, D = x.shape  # only (B, L, d_model): an (L, d_model) input raises
        flat = x.reshape(B * L, D)
        q = self.w_q(flat).view(B, L, -1)
        k = self.w_k(flat).view(B, L, -1)
        v = self.w_v(flat).view(B, L, -1)
        return scaled_dot_product_attention(q, k, v, mask)
