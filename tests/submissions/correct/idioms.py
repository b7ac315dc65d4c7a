# A learner who copies idioms from popular codebases: LLaMA's complex RoPE, a fused QKV matmul,
# F.linear, nan_to_num for empty rows, register_buffer, torch.triu masks, in-place updates.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def project_qkv(x, w_q, w_k, w_v):
    fused = torch.cat([w_q, w_k, w_v], dim=1)  # (d_model, 2 d_k + d_v)
    return (x @ fused).split([w_q.shape[1], w_k.shape[1], w_v.shape[1]], dim=-1)


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)
        self.sizes = [d_k, d_k, d_v]

    def forward(self, x):
        w = torch.cat([self.w_q.weight, self.w_k.weight, self.w_v.weight])
        return tuple(F.linear(x, w).split(self.sizes, dim=-1))


def attention_scores(q, k):
    return torch.matmul(q, k.mT)


def scaled_attention_scores(q, k):
    return torch.matmul(q, k.mT).div(q.size(-1) ** 0.5)


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    q = torch.empty(num_samples, d_k).normal_(generator=generator)
    k = torch.empty(num_samples, d_k).normal_(generator=generator)
    return torch.var_mean((q * k).sum(1))[0].item()


def softmax_entropy(weights, dim=-1):
    return torch.special.xlogy(weights, weights).sum(dim).neg()


def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim, keepdim=True))
    return torch.nan_to_num(e / e.sum(dim, keepdim=True), nan=0.0)


def causal_mask(seq_len, device=None):
    return ~torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=1)


def padding_mask(lengths, max_len):
    return torch.lt(torch.arange(max_len, device=lengths.device), lengths.unsqueeze(-1))


def masked_scores(scores, mask):
    return scores.masked_fill(mask.logical_not(), -math.inf)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        # a bool mask (True = may attend) becomes additive: 0 where allowed, -inf where not
        if mask.dtype == torch.bool:
            mask = torch.zeros_like(mask, dtype=scores.dtype).masked_fill(~mask, float("-inf"))
        scores = scores + mask.to(scores.dtype)
    weights = torch.softmax(scores.float(), dim=-1).to(q.dtype)  # softmax in float32
    weights = weights.nan_to_num(0.0)
    return weights @ v, weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        return scaled_dot_product_attention(self.w_q(x), self.w_k(x), self.w_v(x), mask=mask)


def split_heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).permute(0, 2, 1, 3).contiguous()


def merge_heads(x):
    return x.permute(0, 2, 1, 3).flatten(2)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("num_heads must divide d_model")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q, k, v = (split_heads(lin(t), self.num_heads) for lin, t in ((self.w_q, query), (self.w_k, key), (self.w_v, value)))
        out, weights = scaled_dot_product_attention(q, k, v, mask=mask)
        return self.w_o(merge_heads(out)), weights


def mha_num_parameters(d_model, num_heads, bias=False):
    return 4 * d_model * (d_model + int(bias))


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model & 1:
        raise ValueError("d_model must be even")
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d_model, 2).float() / d_model))
    angles = torch.outer(torch.arange(max_len).float(), inv_freq)
    pe = torch.empty(max_len, d_model)
    pe[:, 0::2], pe[:, 1::2] = angles.sin(), angles.cos()
    return pe


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        self.register_buffer("positions", torch.arange(max_len), persistent=False)

    def forward(self, x):
        if x.size(1) > self.positions.numel():
            raise ValueError("input longer than max_len")
        return x + self.embedding(self.positions[: x.size(1)])


def apply_rope(x, positions=None, base=10000.0):
    L, d = x.shape[-2:]
    if positions is None:
        positions = torch.arange(L, device=x.device)
    freqs = 1.0 / base ** (torch.arange(0, d, 2, device=x.device).float() / d)
    angles = torch.outer(positions.float(), freqs)
    rot = torch.polar(torch.ones_like(angles), angles)  # e^{i theta}, (L, d/2)
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * rot).flatten(-2).type_as(x)


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = dropout

    def forward(self, x):
        return self.linear2(F.dropout(F.relu(self.linear1(x)), self.dropout, self.training))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.norm_first = norm_first
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        sublayers = ((self.norm1, lambda t: self.attn(t, mask=mask)[0]), (self.norm2, self.ff))
        for norm, f in sublayers:
            x = x + self.drop(f(norm(x))) if self.norm_first else norm(x + self.drop(f(x)))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, d_model)
        self.wpe = nn.Embedding(max_len, d_model)
        self.h = nn.ModuleList(TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def forward(self, tokens):
        T = tokens.size(1)
        x = self.wte(tokens) + self.wpe(torch.arange(T, device=tokens.device))
        for block in self.h:
            x = block(x, self.mask[:T, :T])
        return self.lm_head(self.ln_f(x))


def sliding_window_mask(seq_len, window):
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool)
    return torch.tril(ones) & torch.triu(ones, diagonal=1 - window)


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    *batch, Lq, d = q.shape
    Lk = k.shape[-2]
    o = q.new_zeros(*batch, Lq, v.shape[-1])
    l = q.new_zeros(*batch, Lq, 1)
    m = q.new_full((*batch, Lq, 1), -math.inf)
    i = torch.arange(Lq, device=q.device).unsqueeze(-1)
    for j0 in range(0, Lk, block_size):
        j1 = min(j0 + block_size, Lk)
        s = torch.matmul(q, k[..., j0:j1, :].mT) / math.sqrt(d)
        if causal:
            j = torch.arange(j0, j1, device=q.device)
            s = torch.where(j <= i, s, -math.inf)
        m_blk = s.amax(-1, keepdim=True)
        m_new = torch.maximum(m, m_blk).nan_to_num(neginf=0.0)
        p = (s - m_new).exp()
        corr = (m - m_new).exp()
        l.mul_(corr).add_(p.sum(-1, keepdim=True))
        o.mul_(corr).add_(p @ v[..., j0:j1, :])
        m = torch.maximum(m, m_blk)
    return (o / l).to(dtype)


class KVCache:
    def __init__(self):
        self.cache = {}

    def append(self, k, v):
        if not self.cache:
            self.cache = {"k": k, "v": v}
        else:
            self.cache = {name: torch.cat([self.cache[name], new], dim=-2) for name, new in (("k", k), ("v", v))}
        return self.cache["k"], self.cache["v"]
