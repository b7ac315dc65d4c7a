# grade: KVCache
import torch


class KVCache:
    """The keys are appended, the values never: v stays the first append's."""

    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)
        return self.k, self.v
