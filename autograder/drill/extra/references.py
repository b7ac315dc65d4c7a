"""Model answers of the drills beyond the course's exercises (``drill reveal`` shows them).

They live under ``autograder/drill/``, which the grader's sandbox does not hold (of the grader,
only ``autograder/sandbox/inside/`` and the protocol are mounted there:
``autograder.sandbox.host.bwrap.SANDBOX_FILES``), so a drill file cannot import them while it is
graded, as ``course_lib``'s references are hidden. Each is written as public
projects write it (LLaMA's ``repeat_kv``, Hugging Face's loss shift and logits warpers,
``nn.TransformerDecoderLayer``'s Pre-LN order), and the checks compare with float64 runs of them.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def _attend(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d) + mask) v; a bool mask is True = may attend; all-masked rows -> 0."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, float("-inf"))
        else:
            scores = scores + mask.to(scores.dtype)
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return weights @ v


class GroupedQueryAttention(nn.Module):
    """Grouped-query attention (Ainslie et al., 2023): num_heads query heads share num_kv_heads
    key/value heads; query head i uses key/value head i // (num_heads // num_kv_heads)."""

    def __init__(self, d_model, num_heads, num_kv_heads):
        super().__init__()
        if d_model % num_heads or num_heads % num_kv_heads:
            raise ValueError("d_model must divide by num_heads, num_heads by num_kv_heads")
        self.h, self.g, self.d_head = num_heads, num_kv_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, num_kv_heads * self.d_head, bias=False)
        self.w_v = nn.Linear(d_model, num_kv_heads * self.d_head, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.w_q(x).view(B, L, self.h, self.d_head).transpose(1, 2)
        k = self.w_k(x).view(B, L, self.g, self.d_head).transpose(1, 2)
        v = self.w_v(x).view(B, L, self.g, self.d_head).transpose(1, 2)
        k = k.repeat_interleave(self.h // self.g, dim=1)  # LLaMA's repeat_kv
        v = v.repeat_interleave(self.h // self.g, dim=1)
        out = _attend(q, k, v, mask)
        return self.w_o(out.transpose(1, 2).reshape(B, L, -1))


class MultiQueryAttention(GroupedQueryAttention):
    """Multi-query attention (Shazeer, 2019): one key/value head shared by every query head."""

    def __init__(self, d_model, num_heads):
        super().__init__(d_model, num_heads, 1)


class Attention(nn.Module):
    """Multi-head attention, w_q, w_k, w_v, w_o with biases; mask broadcasts to (B, h, Lq, Lk)."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must divide by num_heads")
        self.h, self.d_head = num_heads, d_model // num_heads
        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, query, kv, mask=None):
        B, Lq, D = query.shape
        Lk = kv.size(1)
        q = self.w_q(query).view(B, Lq, self.h, self.d_head).transpose(1, 2)
        k = self.w_k(kv).view(B, Lk, self.h, self.d_head).transpose(1, 2)
        v = self.w_v(kv).view(B, Lk, self.h, self.d_head).transpose(1, 2)
        return self.w_o(_attend(q, k, v, mask).transpose(1, 2).reshape(B, Lq, D))


class CrossAttention(Attention):
    """Queries from x, keys and values from memory; memory_mask (B, Lk) is True at real tokens."""

    def forward(self, x, memory, memory_mask=None):
        mask = None if memory_mask is None else memory_mask[:, None, None, :]  # (B, 1, 1, Lk)
        return super().forward(x, memory, mask)


def alibi_slopes(num_heads):
    """ALiBi's head slopes (Press et al., 2022): 2^(-8/n), 2^(-16/n), ... for n = num_heads a
    power of 2; otherwise those of the closest smaller power of 2, then every other slope of the
    next one (the paper's code)."""

    def powers(n):
        start = 2 ** (-8 / n)
        return [start ** (i + 1) for i in range(n)]

    if math.log2(num_heads).is_integer():
        return powers(num_heads)
    closest = 2 ** math.floor(math.log2(num_heads))
    return powers(closest) + powers(2 * closest)[0::2][: num_heads - closest]


def alibi_bias(num_heads, seq_len):
    """(num_heads, L, L): bias[h, i, j] = -slope_h * (i - j), added to the causal scores."""
    slopes = torch.tensor(alibi_slopes(num_heads))
    pos = torch.arange(seq_len)
    distance = (pos[:, None] - pos[None, :]).float()  # i - j
    return -slopes[:, None, None] * distance


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight, over the last dim (Zhang & Sennrich, 2019; LLaMA)."""

    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.to(x.dtype) * self.weight


class LayerNorm(nn.Module):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dim, the biased variance."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


def causal_lm_loss(logits, tokens, pad_id):
    """Mean cross-entropy of predicting tokens[:, t + 1] from logits[:, t], pad targets ignored."""
    shift_logits = logits[:, :-1, :]
    shift_targets = tokens[:, 1:]
    return F.cross_entropy(
        shift_logits.reshape(-1, logits.size(-1)), shift_targets.reshape(-1), ignore_index=pad_id
    )


def decode_step(params, tokens, cache=None):
    """Run the tiny one-layer model on new tokens (B, T), after the cached positions.

    Returns (logits (B, T, V), cache), the cache being (k_all, v_all), each (B, P + T, d)."""
    past = 0 if cache is None else cache[0].size(1)
    T = tokens.size(1)
    positions = torch.arange(past, past + T, device=tokens.device)
    h = params["embed"][tokens] + params["pos"][positions]
    q, k, v = h @ params["w_q"], h @ params["w_k"], h @ params["w_v"]
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    # new query t (at position past + t) sees keys 0..past + t
    mask = torch.ones(T, past + T, dtype=torch.bool, device=tokens.device).tril(diagonal=past)
    a = _attend(q, k, v, mask)
    logits = (h + a @ params["w_o"]) @ params["unembed"]
    return logits, (k, v)


def greedy_decode(params, prompt, max_new_tokens):
    """The prompt followed by max_new_tokens greedy tokens, computed with the KV cache."""
    logits, cache = decode_step(params, prompt)
    out = prompt
    for _ in range(max_new_tokens):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out = torch.cat([out, nxt], dim=1)
        logits, cache = decode_step(params, nxt, cache)
    return out


def top_k_probs(logits, k, temperature=1.0):
    """Sampling probabilities over the k most likely tokens (the rest 0), renormalised."""
    logits = logits / temperature
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1, None]
    return torch.softmax(logits.masked_fill(logits < kth, float("-inf")), dim=-1)


def top_p_probs(logits, p, temperature=1.0):
    """Nucleus sampling (Holtzman et al., 2020): the smallest set of most likely tokens whose
    probability reaches p (the token that crosses p included), renormalised; the rest 0."""
    probs = torch.softmax(logits / temperature, dim=-1)
    sorted_probs, order = probs.sort(dim=-1, descending=True)
    before = sorted_probs.cumsum(-1) - sorted_probs  # the mass of the tokens ranked above
    sorted_probs = sorted_probs.masked_fill(before >= p, 0.0)  # the top token always stays
    kept = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
    return kept / kept.sum(-1, keepdim=True)


class DecoderBlock(nn.Module):
    """The decoder block of an encoder-decoder Transformer, Pre-LN (nn.TransformerDecoderLayer
    with norm_first=True): causal self-attention, cross-attention to the encoder's memory, a
    feed-forward layer, each on a LayerNorm'd input and added to the residual stream."""

    def __init__(self, d_model, num_heads, d_ff):
        super().__init__()
        self.self_attn = Attention(d_model, num_heads)
        self.cross_attn = CrossAttention(d_model, num_heads)
        self.linear1, self.linear2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))

    def forward(self, x, memory, memory_mask=None):
        L = x.size(1)
        causal = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        h = self.norm1(x)
        x = x + self.self_attn(h, h, causal)
        x = x + self.cross_attn(self.norm2(x), memory, memory_mask)
        return x + self.linear2(torch.relu(self.linear1(self.norm3(x))))
