# grade: project_qkv
import torch


def project_qkv(x, w_q, w_k, w_v):
    # nn.Linear keeps its weight as (out, in), so transpose like it does
    return x @ w_q.T, x @ w_k.T, x @ w_v.T
