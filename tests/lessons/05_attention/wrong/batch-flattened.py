# grade: SelfAttention
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        flat = x.reshape(-1, x.shape[-1])  # every token of the batch in one (B*L, d_model) matrix
        out, weights = scaled_dot_product_attention(self.w_q(flat), self.w_k(flat), self.w_v(flat), mask)
        return out.reshape(*x.shape[:-1], -1), weights
