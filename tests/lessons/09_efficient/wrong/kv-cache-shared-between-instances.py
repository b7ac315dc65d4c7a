# grade: KVCache
import torch


class KVCache:
    ks = []
    vs = []

    def append(self, k, v):
        self.ks.append(k)
        self.vs.append(v)
        return torch.cat(self.ks, dim=-2), torch.cat(self.vs, dim=-2)
