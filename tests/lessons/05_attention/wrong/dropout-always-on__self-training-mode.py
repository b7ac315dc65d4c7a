# grade: SelfAttention
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = F.dropout(weights, 0.1, self.training)  # a dropout SelfAttention does not have
        return weights @ v, weights
