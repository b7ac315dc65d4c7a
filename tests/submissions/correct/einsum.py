# A learner who likes einsum, torch.where and building things from scratch.
import math

import torch
from torch import nn


def project_qkv(x, w_q, w_k, w_v):
    q = torch.einsum("...ld,dk->...lk", x, w_q)
    k = torch.einsum("...ld,dk->...lk", x, w_k)
    v = torch.einsum("...ld,dv->...lv", x, w_v)
    return q, k, v


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q, self.w_k, self.w_v = (
            nn.Linear(d_model, d, bias=False) for d in (d_k, d_k, d_v)
        )

    def forward(self, x):
        return tuple(torch.einsum("...d,kd->...k", x, w.weight) for w in (self.w_q, self.w_k, self.w_v))


def attention_scores(q, k):
    return torch.einsum("...qd,...kd->...qk", q, k)


def scaled_attention_scores(q, k):
    return torch.einsum("...qd,...kd->...qk", q * q.shape[-1] ** -0.5, k)


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q, k = torch.randn(2, num_samples, d_k, generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", q, k)
    mean = dots.mean()
    return float(((dots - mean) ** 2).sum() / (num_samples - 1))


def softmax_entropy(weights, dim=-1):
    plogp = torch.where(weights > 0, weights * torch.log(weights.clamp_min(torch.finfo(weights.dtype).tiny)), 0.0)
    return -plogp.sum(dim=dim)


def softmax(x, dim=-1):
    # exp(x - log-sum-exp), the log-sum-exp written out, with a guard for rows that are all -inf
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    lse = m + torch.log(torch.exp(x - m).sum(dim=dim, keepdim=True))
    out = torch.exp(x - lse)
    return torch.where(torch.isneginf(lse), torch.zeros_like(out), out)


def causal_mask(seq_len, device=None):
    idx = torch.arange(seq_len, device=device)
    return idx.unsqueeze(0) <= idx.unsqueeze(1)


def padding_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device).expand(lengths.shape[0], -1) < lengths.unsqueeze(1)


def masked_scores(scores, mask):
    return torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.size(-1))
    if mask is not None and mask.dtype is torch.bool:
        scores = torch.where(mask, scores, float("-inf"))
    elif mask is not None:
        scores = torch.add(scores, mask, alpha=1).to(scores.dtype)
    weights = softmax(scores)
    return torch.einsum("...qk,...kv->...qv", weights, v), weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)
        return scaled_dot_product_attention(q, k, v, mask=mask)


def split_heads(x, num_heads):
    B, L, D = x.shape
    return torch.stack(x.split(D // num_heads, dim=-1), dim=1)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.h, self.d_head = num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.w_q(query).unflatten(-1, (self.h, self.d_head))  # B L H E
        k = self.w_k(key).unflatten(-1, (self.h, self.d_head))
        v = self.w_v(value).unflatten(-1, (self.h, self.d_head))
        scores = torch.einsum("blhe,bmhe->bhlm", q, k) / math.sqrt(self.d_head)
        if mask is not None:
            scores = torch.where(mask, scores, float("-inf"))
        weights = softmax(scores, dim=-1)
        out = torch.einsum("bhlm,bmhe->blhe", weights, v).flatten(-2)
        return self.w_o(out), weights


def mha_num_parameters(d_model, num_heads, bias=False):
    return sum(p.numel() for p in MultiHeadAttention(d_model, num_heads, bias).parameters())


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2:
        raise ValueError("d_model must be even")
    p = torch.arange(max_len, dtype=torch.float64)
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angle = torch.einsum("p,i->pi", p, 1.0 / 10000 ** (2 * i / d_model))
    return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1).float()


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        if x.size(-2) > self.embedding.num_embeddings:
            raise ValueError("too long")
        return x + self.embedding.weight[: x.size(-2)]


def apply_rope(x, positions=None, base=10000.0):
    *_, L, d = x.shape
    pos = torch.arange(L, device=x.device) if positions is None else positions.to(x.device)
    theta = torch.einsum("p,i->pi", pos.double(), base ** (-torch.arange(0, d, 2, device=x.device).double() / d))
    c, s = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    pairs = x.unflatten(-1, (d // 2, 2))
    a, b = pairs[..., 0], pairs[..., 1]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).flatten(-2)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.clamp(self.linear1(x), min=0)))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout=dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm_first = norm_first
        self.drop = nn.Dropout(dropout)

    def _sa(self, x, mask):
        return self.drop(self.attn(x, x, x, mask=mask)[0])

    def forward(self, x, mask=None):
        if not self.norm_first:
            x = self.norm1(x + self._sa(x, mask))
            return self.norm2(x + self.ff(x))
        h = x + self._sa(self.norm1(x), mask)
        return h + self.ff(self.norm2(h))


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.layers = nn.Sequential(*[TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)])
        self.norm = nn.LayerNorm(d_model)

    def forward(self, tokens):
        L = tokens.shape[-1]
        x = self.embed(tokens) * math.sqrt(self.embed.embedding_dim) + self.pe[:L]
        mask = causal_mask(L, device=tokens.device)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return self.norm(x) @ self.embed.weight.T  # tied weights


def sliding_window_mask(seq_len, window):
    d = torch.arange(seq_len)[:, None] - torch.arange(seq_len)[None, :]
    return torch.where((d >= 0) & (d < window), True, False)


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    Lq, Lk = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    denom = torch.zeros(*q.shape[:-1], dtype=q.dtype, device=q.device)
    run_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype, device=q.device)
    qpos = torch.arange(Lq, device=q.device)
    for kb, vb, kpos in zip(k.split(block_size, -2), v.split(block_size, -2), torch.arange(Lk, device=q.device).split(block_size)):
        s = torch.einsum("...qd,...kd->...qk", q, kb)
        if causal:
            s = torch.where(kpos[None, :] <= qpos[:, None], s, float("-inf"))
        new_max = torch.maximum(run_max, s.amax(-1))
        shift = torch.where(torch.isinf(new_max), 0.0, new_max)
        corr = torch.exp(run_max - shift)
        p = torch.exp(s - shift[..., None])
        denom = denom * corr + p.sum(-1)
        out = out * corr[..., None] + torch.einsum("...qk,...kv->...qv", p, vb)
        run_max = new_max
    return (out / denom[..., None]).to(dtype)


class KVCache:
    def __init__(self):
        self.ks, self.vs = [], []

    def append(self, k, v):
        self.ks.append(k)
        self.vs.append(v)
        return torch.cat(self.ks, dim=-2), torch.cat(self.vs, dim=-2)
