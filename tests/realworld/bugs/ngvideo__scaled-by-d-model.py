# Source: karpathy/ng-video-lecture, gpt.py, class Head before
# https://github.com/karpathy/ng-video-lecture/pull/6 ("We should scale attention by head size"):
# wei = q @ k.transpose(-2, -1) * C**-0.5 with C = n_embd, the input's width, not head_size.
# Reproduced in the contract's terms: SelfAttention(d_model, d_k, d_v) with key/query/value
# renamed w_*, the mask argument (True = attend), scaled by the input width d_model.
# expect: scaled-by-d-model
# grade: SelfAttention
import torch.nn as nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        k = self.w_k(x)
        q = self.w_q(x)
        wei = q @ k.transpose(-2, -1) * C**-0.5
        if mask is not None:
            wei = wei.masked_fill(mask == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1).nan_to_num(0.0)
        v = self.w_v(x)
        return wei @ v, wei
