# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None
        self.appends = 0

    def __len__(self):
        return self.appends  # counts the appends, not the cached positions

    def append(self, k, v):
        self.appends += 1
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)
            self.v = torch.cat([self.v, v], dim=-2)
        return self.k, self.v
