# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        if self.k is None:  # the first tokens: nothing to concatenate with yet
            self.k, self.v = v, k
        else:
            self.k = torch.cat([self.k, k], dim=-2)
            self.v = torch.cat([self.v, v], dim=-2)
        return self.k, self.v
