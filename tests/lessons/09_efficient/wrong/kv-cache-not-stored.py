# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        k_all = k if self.k is None else torch.cat([self.k, k], dim=-2)
        v_all = v if self.v is None else torch.cat([self.v, v], dim=-2)
        return k_all, v_all
