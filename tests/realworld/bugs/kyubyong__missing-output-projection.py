# Source: Kyubyong/transformer, modules.py, def multihead_attention (TensorFlow: Q_ =
# tf.concat(tf.split(Q, num_heads, axis=2), axis=0); ...; outputs = tf.concat(tf.split(outputs,
# num_heads, axis=0), axis=2) then straight to the residual); bug report
# https://github.com/Kyubyong/transformer/issues/117 (also PR #17): the linear projection W^O
# after concatenating the heads is missing.
# Reproduced in the contract's terms, in PyTorch: MultiHeadAttention with the split/concat head
# layout; w_o exists (the contract's attribute) but is never applied.
# expect: missing-output-projection
# grade: MultiHeadAttention
import math

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("num_units must be divisible by num_heads")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        queries = query
        keys = queries if key is None else key
        values = keys if value is None else value
        Q, K, V = self.w_q(queries), self.w_k(keys), self.w_v(values)
        # Split and concat: (h*N, T, C/h)
        Q_ = torch.cat(torch.split(Q, Q.shape[-1] // self.num_heads, dim=2), dim=0)
        K_ = torch.cat(torch.split(K, K.shape[-1] // self.num_heads, dim=2), dim=0)
        V_ = torch.cat(torch.split(V, V.shape[-1] // self.num_heads, dim=2), dim=0)
        outputs = Q_ @ K_.transpose(-2, -1) / math.sqrt(K_.shape[-1])
        if mask is not None:
            m = torch.broadcast_to(mask, (queries.shape[0], self.num_heads, *outputs.shape[-2:]))
            m = torch.cat(m.unbind(1), dim=0)
            outputs = outputs.masked_fill(~m, float("-inf"))
        weights = torch.softmax(outputs, dim=-1).nan_to_num(0.0)
        outputs = weights @ V_
        # Restore shape: (N, T_q, C)
        outputs = torch.cat(torch.split(outputs, queries.shape[0], dim=0), dim=2)
        weights = torch.stack(torch.split(weights, queries.shape[0], dim=0), dim=1)
        return outputs, weights
