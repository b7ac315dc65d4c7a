# A learner who writes explicit loops, bmm/baddbmm and in-place ops.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def project_qkv(x, w_q, w_k, w_v):
    outs = []
    for w in (w_q, w_k, w_v):
        flat = x.reshape(-1, x.shape[-1])
        outs.append(torch.mm(flat, w).reshape(*x.shape[:-1], w.shape[-1]))
    return tuple(outs)


class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x):
        return F.linear(x, self.w_q.weight), F.linear(x, self.w_k.weight), F.linear(x, self.w_v.weight)


def _bmm_scores(q, k, scale=1.0):
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    q3 = q.expand(*batch, *q.shape[-2:]).reshape(-1, *q.shape[-2:])
    k3 = k.expand(*batch, *k.shape[-2:]).reshape(-1, *k.shape[-2:])
    out = torch.baddbmm(
        torch.zeros(q3.shape[0], q3.shape[1], k3.shape[1], dtype=q.dtype, device=q.device),
        q3, k3.transpose(1, 2), beta=0.0, alpha=scale,
    )
    return out.reshape(*batch, q.shape[-2], k.shape[-2])


def attention_scores(q, k):
    if q.dim() == 2:
        return torch.mm(q, k.t())
    return _bmm_scores(q, k)


def scaled_attention_scores(q, k):
    return _bmm_scores(q, k, scale=1.0 / math.sqrt(q.shape[-1]))


def dot_product_variance(d_k, num_samples=100_000, generator=None):
    total = torch.zeros(num_samples)
    for _ in range(d_k):
        total += torch.randn(num_samples, generator=generator) * torch.randn(num_samples, generator=generator)
    return torch.var(total).item()


def softmax_entropy(weights, dim=-1):
    w = weights.movedim(dim, -1)
    out = torch.zeros(w.shape[:-1], dtype=w.dtype, device=w.device)
    for i in range(w.shape[-1]):
        p = w[..., i]
        out -= torch.where(p > 0, p * torch.log(torch.where(p > 0, p, torch.ones_like(p))), torch.zeros_like(p))
    return out


def softmax(x, dim=-1):
    x = x.movedim(dim, -1)
    m = x[..., 0].clone()
    for i in range(1, x.shape[-1]):
        m = torch.maximum(m, x[..., i])
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(x - m.unsqueeze(-1))
    total = e.sum(-1, keepdim=True)
    out = e / total.masked_fill(total == 0, 1.0)
    return out.movedim(-1, dim)


def causal_mask(seq_len, device=None):
    mask = torch.zeros(seq_len, seq_len, dtype=torch.bool, device=device)
    for i in range(seq_len):
        mask[i, : i + 1] = True
    return mask


def padding_mask(lengths, max_len):
    mask = torch.zeros(lengths.shape[0], max_len, dtype=torch.bool, device=lengths.device)
    for b, n in enumerate(lengths.tolist()):
        mask[b, :n] = True
    return mask


def masked_scores(scores, mask):
    out = scores.clone()
    out.masked_fill_(~mask.expand_as(scores), float("-inf"))
    return out


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.is_floating_point():
            scores = scores + mask.type_as(scores)
        else:
            scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, mask=None):
        q = self.w_q(x)
        k = self.w_k(x)
        v = self.w_v(x)
        return scaled_dot_product_attention(q, k, v, mask)


def split_heads(x, num_heads):
    d_head = x.shape[-1] // num_heads
    heads = [x[:, :, i * d_head : (i + 1) * d_head] for i in range(num_heads)]
    return torch.stack(heads, dim=1)


def merge_heads(x):
    return torch.cat([x[:, i] for i in range(x.shape[1])], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None and value is None:
            key = value = query
        elif value is None:
            value = key
        q, k, v = self.w_q(query), self.w_k(key), self.w_v(value)
        d_head = q.shape[-1] // self.num_heads
        if mask is not None:  # (B, h, Lq, Lk): each head takes its own slice
            shape = (q.shape[0], self.num_heads, q.shape[-2], k.shape[-2])
            mask = torch.broadcast_to(mask, shape)
        outs, weights = [], []
        for h in range(self.num_heads):
            sl = slice(h * d_head, (h + 1) * d_head)
            m = None if mask is None else mask[:, h]
            o, w = scaled_dot_product_attention(q[..., sl], k[..., sl], v[..., sl], m)
            outs.append(o)
            weights.append(w)
        return self.w_o(torch.cat(outs, dim=-1)), torch.stack(weights, dim=1)


def mha_num_parameters(d_model, num_heads, bias=False):
    count = 0
    for _ in ("q", "k", "v", "o"):
        count += d_model * d_model
        if bias:
            count += d_model
    return count


def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError(f"d_model={d_model} is odd")
    pe = torch.zeros(max_len, d_model)
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / (10000 ** (i / d_model))
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.max_len:
            raise ValueError(f"sequence of length {seq_len} is longer than max_len={self.max_len}")
        pos = torch.arange(seq_len, device=self.embedding.weight.device)
        return x + self.embedding(pos).unsqueeze(0)


def apply_rope(x, positions=None, base=10000.0):
    seq_len, d = x.shape[-2], x.shape[-1]
    if positions is None:
        positions = torch.arange(seq_len, device=x.device)
    out = x.clone()
    for i in range(d // 2):
        theta = positions.to(torch.float64) * base ** (-2 * i / d)
        c = torch.cos(theta).to(device=x.device, dtype=x.dtype)
        s = torch.sin(theta).to(device=x.device, dtype=x.dtype)
        a, b = x[..., 2 * i], x[..., 2 * i + 1]
        out[..., 2 * i] = a * c - b * s
        out[..., 2 * i + 1] = a * s + b * c
    return out


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        x = self.linear1(x)
        x = self.relu(x)
        x = self.dropout(x)
        return self.linear2(x)


class TransformerBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.drop1 = nn.Dropout(dropout)
        self.drop2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            a, _ = self.attn(self.norm1(x), mask=mask)
            x = x + self.drop1(a)
            x = x + self.drop2(self.ff(self.norm2(x)))
            return x
        a, _ = self.attn(x, mask=mask)
        x = self.norm1(x + self.drop1(a))
        x = self.norm2(x + self.drop2(self.ff(x)))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList()
        for _ in range(num_layers):
            self.blocks.append(TransformerBlock(d_model, num_heads, d_ff, norm_first=True))
        self.final_norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, tokens):
        x = self.position(self.token_embedding(tokens))
        mask = causal_mask(tokens.size(1), device=tokens.device)
        for block in self.blocks:
            x = block(x, mask=mask)
        return self.lm_head(self.final_norm(x))


def sliding_window_mask(seq_len, window):
    mask = torch.zeros(seq_len, seq_len, dtype=torch.bool)
    for i in range(seq_len):
        for j in range(max(0, i - window + 1), i + 1):
            mask[i, j] = True
    return mask


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype  # half inputs: the arithmetic in float32, as FlashAttention
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    Lq, Lk, d = q.shape[-2], k.shape[-2], q.shape[-1]
    out = torch.empty(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
    for qs in range(0, Lq, block_size):  # tile the queries too
        qb = q[..., qs : qs + block_size, :]
        rows = torch.arange(qs, qs + qb.shape[-2], device=q.device)
        m = torch.full((*qb.shape[:-1], 1), -float("inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*qb.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)
        for ks in range(0, Lk, block_size):
            if causal and ks > qs + qb.shape[-2] - 1:
                break  # every later key is in the future
            kb = k[..., ks : ks + block_size, :]
            vb = v[..., ks : ks + block_size, :]
            s = torch.matmul(qb, kb.transpose(-1, -2)) / math.sqrt(d)
            if causal:
                cols = torch.arange(ks, ks + kb.shape[-2], device=q.device)
                s = s.masked_fill(cols[None, :] > rows[:, None], -float("inf"))
            m_new = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
            m_safe = m_new.masked_fill(m_new == -float("inf"), 0.0)
            p = torch.exp(s - m_safe)
            scale = torch.exp(m - m_safe)
            l = l * scale + p.sum(dim=-1, keepdim=True)
            acc = acc * scale + torch.matmul(p, vb)
            m = m_new
        out[..., qs : qs + block_size, :] = acc / l
    return (out).to(dtype)


class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        self.k = k if self.k is None else torch.cat((self.k, k), dim=k.dim() - 2)
        self.v = v if self.v is None else torch.cat((self.v, v), dim=v.dim() - 2)
        return self.k, self.v
