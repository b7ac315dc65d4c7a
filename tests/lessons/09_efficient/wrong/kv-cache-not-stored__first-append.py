# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def __len__(self):
        return 0 if self.k is None else self.k.size(-2)

    def append(self, k, v):
        if self.k is None:
            self.k, self.v = k, v
            return k, v
        return torch.cat([self.k, k], dim=-2), torch.cat([self.v, v], dim=-2)  # not kept
