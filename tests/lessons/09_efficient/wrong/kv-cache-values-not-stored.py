# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        self.k = k if self.k is None else torch.cat([self.k, k], dim=-2)
        return self.k, v
