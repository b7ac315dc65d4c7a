# Source: meta-llama/llama, llama/model.py (commit 8580eb9a896bdb82d376b7040d18a2e7b402b10f),
# Attention: a preallocated cache written in place and read back as a slice,
#   self.cache_k = torch.zeros((args.max_batch_size, args.max_seq_len, self.n_local_kv_heads,
#                               self.head_dim)).cuda()
#   self.cache_k = self.cache_k.to(xq)
#   self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
#   keys = self.cache_k[:bsz, : start_pos + seqlen]
# Adapted to the contract: KVCache() has no batch size, head count or max_seq_len, so the buffer
# is allocated at the first append from that append's shape (max_seq_len=2048 slots by default)
# and doubled when it is full (llama's is fixed); the sequence dim is -2 (llama's is 1); the
# start_pos that llama's caller passes is kept in the cache; .cuda() is the input's device, by
# the `.to(...)` llama does on every call (.to(xq) there; .to(xk) here, a cache has no query).
# len() is the number of cached positions.
# Kept: zeros buffer, `.to(x)` on each call, slice assignment in place, a slice of the buffer
# returned (a view, not a copy).
# grade: KVCache
import torch


class KVCache:
    def __init__(self, max_seq_len=2048):
        self.max_seq_len = max_seq_len
        self.cache_k = None
        self.cache_v = None
        self.start_pos = 0

    def __len__(self):
        return self.start_pos

    def _grow(self, cache, needed):
        size = cache.shape[-2]
        while size < needed:
            size *= 2
        bigger = torch.zeros((*cache.shape[:-2], size, cache.shape[-1])).to(cache)
        bigger[..., : self.start_pos, :] = cache[..., : self.start_pos, :]
        return bigger

    def append(self, xk, xv):
        seqlen = xk.shape[-2]
        start_pos = self.start_pos
        if self.cache_k is None:
            self.cache_k = torch.zeros((*xk.shape[:-2], self.max_seq_len, xk.shape[-1]))
            self.cache_v = torch.zeros((*xv.shape[:-2], self.max_seq_len, xv.shape[-1]))
        self.cache_k = self.cache_k.to(xk)
        self.cache_v = self.cache_v.to(xv)
        if start_pos + seqlen > self.cache_k.shape[-2]:
            self.cache_k = self._grow(self.cache_k, start_pos + seqlen)
            self.cache_v = self._grow(self.cache_v, start_pos + seqlen)

        self.cache_k[..., start_pos : start_pos + seqlen, :] = xk
        self.cache_v[..., start_pos : start_pos + seqlen, :] = xv

        keys = self.cache_k[..., : start_pos + seqlen, :]
        values = self.cache_v[..., : start_pos + seqlen, :]
        self.start_pos = start_pos + seqlen
        return keys, values
