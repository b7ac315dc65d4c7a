# Source: Khaliladib11/Transformer-from-scratch, src/attention.py (commit ee1b17d), MultiHeadAttention
# .forward; bug report https://github.com/Khaliladib11/Transformer-from-scratch/issues/1: its
# corrections ("CHANGE HERE to query.reshape", "CHANGE HERE to value.reshape", "CHANGE HERE to
# self.query", "CHANGE HERE to self.value") show that query and value were reshaped from `key`
# and projected with `self.key`, like the key (fixed by a PR).
# Reproduced in the contract's terms (self-attention, where query, key and value are all x):
# QKVProjection whose q and v go through the key layer w_k: q and v "from the wrong weights" (a
# layer object shared by all three would be [shared-projection-layer]; here w_q and w_v exist,
# unused).
# expect: qkv-order-swapped
# grade: QKVProjection
import torch.nn as nn


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x):
        key = self.w_k(x)
        query = self.w_k(x)
        value = self.w_k(x)
        return query, key, value
