# grade: QKVProjection
from torch import nn


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = self.w_k = self.w_v = nn.Linear(d_model, d_k, bias=False)

    def forward(self, x):
        return self.w_q(x), self.w_k(x), self.w_v(x)
