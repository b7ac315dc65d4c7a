# Source: karpathy/ng-video-lecture, gpt.py, class Head (key/query/value nn.Linear(n_embd,
# head_size, bias=False); wei = q @ k.transpose(-2, -1) * k.shape[-1]**-0.5 (as fixed by PR #6);
# wei.masked_fill(self.tril[:T, :T] == 0, float('-inf')); F.softmax(wei, dim=-1); out = wei @ v).
# Adapted to the contract: key/query/value renamed w_k/w_q/w_v with the contract's d_k/d_v; the
# tril buffer replaced by the `mask` argument (True = attend) plus the float mask; rows with
# every key masked set to zero; dropout dropped; the weights returned.
# grade: SelfAttention
import torch
import torch.nn as nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    """one head of self-attention"""

    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        k = self.w_k(x)  # (B,T,hs)
        q = self.w_q(x)  # (B,T,hs)
        # compute attention scores ("affinities")
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, hs) @ (B, hs, T) -> (B, T, T)
        if mask is not None and mask.dtype == torch.bool:
            wei = wei.masked_fill(mask == 0, float("-inf"))  # (B, T, T)
        elif mask is not None:
            wei = wei + mask.to(wei.dtype)
        wei = F.softmax(wei, dim=-1).nan_to_num(nan=0.0)  # (B, T, T)
        # perform the weighted aggregation of the values
        v = self.w_v(x)  # (B,T,hs)
        out = wei @ v  # (B, T, T) @ (B, T, hs) -> (B, T, hs)
        return out, wei
