# grade: KVCache
import torch


class KVCache:
    """Stores detached copies: a cache is for inference, so no graph is kept."""

    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        k, v = k.detach(), v.detach()
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)
            self.v = torch.cat([self.v, v], dim=-2)
        return self.k, self.v
