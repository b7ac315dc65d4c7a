# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.keys = None
        self.values = None

    def append(self, k, v):
        if self.keys is None:
            self.keys, self.values = k, v
        else:
            self.keys = torch.cat([k, self.keys], dim=-2)
            self.values = torch.cat([v, self.values], dim=-2)
        return self.keys, self.values
