# Source: rasbt/LLMs-from-scratch, ch03/01_main-chapter-code/ch03.ipynb, class SelfAttention_v1
# (keys = x @ self.W_key; queries = x @ self.W_query; values = x @ self.W_value) and
# SelfAttention_v2 (self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)).
# Adapted to the contract: v1's products as project_qkv with the weights passed in; v2's
# Linears (qkv_bias=False) as QKVProjection with W_* renamed w_* and d_k/d_v.
# grade: project_qkv QKVProjection
import torch.nn as nn


def project_qkv(x, W_query, W_key, W_value):
    keys = x @ W_key
    queries = x @ W_query
    values = x @ W_value
    return queries, keys, values


class QKVProjection(nn.Module):
    def __init__(self, d_in, d_k, d_v, qkv_bias=False):
        super().__init__()
        self.w_q = nn.Linear(d_in, d_k, bias=qkv_bias)
        self.w_k = nn.Linear(d_in, d_k, bias=qkv_bias)
        self.w_v = nn.Linear(d_in, d_v, bias=qkv_bias)

    def forward(self, x):
        keys = self.w_k(x)
        queries = self.w_q(x)
        values = self.w_v(x)
        return queries, keys, values
