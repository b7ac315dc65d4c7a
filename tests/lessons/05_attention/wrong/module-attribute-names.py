# grade: SelfAttention
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.query = nn.Linear(d_model, d_k, bias=False)
        self.key = nn.Linear(d_model, d_k, bias=False)
        self.value = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.query(x), self.key(x), self.value(x), mask)
