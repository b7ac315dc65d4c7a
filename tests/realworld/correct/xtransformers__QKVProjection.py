# Source: lucidrains/x-transformers, x_transformers/x_transformers.py (v1.27), class Attention:
# `self.to_q = nn.Linear(dim, q_dim, bias = False)`, `self.to_k = nn.Linear(dim_kv, k_dim,
# bias = False)`, `self.to_v = nn.Linear(dim_kv, v_dim, bias = False)` (v_dim from
# value_dim_head, which may differ from dim_head), and in forward `q = self.to_q(q_input)`,
# `k = self.to_k(k_input)`, `v = self.to_v(v_input)`.
# Adapted to the contract: to_q/to_k/to_v renamed w_q/w_k/w_v; one head, so q_dim = k_dim = d_k
# and v_dim = d_v; dim_kv is d_model (self-attention); forward(x) returns (q, k, v).
# Kept: three bias-free projections, the key and value ones built from dim_kv.
# grade: QKVProjection
from torch import nn


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v, dim_context=None):
        super().__init__()
        dim, dim_kv = d_model, dim_context if dim_context is not None else d_model
        q_dim = k_dim = d_k
        v_dim = d_v
        self.w_q = nn.Linear(dim, q_dim, bias=False)
        self.w_k = nn.Linear(dim_kv, k_dim, bias=False)
        self.w_v = nn.Linear(dim_kv, v_dim, bias=False)

    def forward(self, x, context=None):
        kv_input = context if context is not None else x
        q_input, k_input, v_input = x, kv_input, kv_input
        q = self.w_q(q_input)
        k = self.w_k(k_input)
        v = self.w_v(v_input)
        return q, k, v
