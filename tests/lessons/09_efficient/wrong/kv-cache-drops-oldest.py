# grade: KVCache
import torch


class KVCache:
    def __init__(self, max_len=1024):
        self.max_len = max_len
        self.k = None
        self.v = None

    def __len__(self):
        return 0 if self.k is None else self.k.size(-2)

    def append(self, k, v):
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)
            self.v = torch.cat([self.v, v], dim=-2)
        # a sliding cache left in: only the last max_len positions are kept
        self.k, self.v = self.k[..., -self.max_len :, :], self.v[..., -self.max_len :, :]
        return self.k, self.v
