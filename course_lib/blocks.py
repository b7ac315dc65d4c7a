"""Lesson 08: the Transformer block, and a tiny decoder-only language model built from it.

A block is attention (tokens exchange information) followed by a feed-forward network (each
token thinks on its own), each wrapped in a residual connection and a LayerNorm::

    Pre-LN  (GPT-2, norm_first=True):   x = x + Attn(LN1(x));    x = x + FF(LN2(x))
    Post-LN (original, norm_first=False): x = LN1(x + Attn(x));  x = LN2(x + FF(x))

Shape legend: B batch, L sequence length, M d_model, F d_ff, N vocab size.
"""

import torch
from torch import nn

from course_lib.efficient import KVCache
from course_lib.masks import causal_mask
from course_lib.multihead import MultiHeadAttention
from course_lib.positions import LearnedPositionalEmbedding

__all__ = ["FeedForward", "TransformerBlock", "TinyTransformer", "generate"]


class FeedForward(nn.Module):
    """Position-wise feed-forward network: ``linear2(dropout(relu(linear1(x))))``."""

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.linear1(x))  # (B, L, M) -> (B, L, F)
        return self.linear2(self.dropout(h))  # (B, L, F) -> (B, L, M)


class TransformerBlock(nn.Module):
    """Multi-head self-attention and a feed-forward network, with residuals and LayerNorms.

    With the weights of ``nn.TransformerEncoderLayer(d_model, num_heads, d_ff, dropout=0,
    batch_first=True, norm_first=...)`` copied in, it computes the same thing (ReLU, LayerNorm
    eps 1e-5, as torch's defaults).  Mask: True = may attend (torch's ``src_mask`` is the
    opposite).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = True,
    ):
        super().__init__()
        self.norm_first = norm_first
        self.attn = MultiHeadAttention(d_model, num_heads, bias=True)
        self.ff = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, cache: KVCache | None = None
    ) -> torch.Tensor:
        """``x: (B, L, M)`` -> ``(B, L, M)``.  ``cache``: see :class:`MultiHeadAttention`."""
        if self.norm_first:  # Pre-LN: normalise the input of each sublayer
            attended, _ = self.attn(self.norm1(x), mask=mask, cache=cache)  # (B, L, M)
            x = x + self.dropout1(attended)
            x = x + self.dropout2(self.ff(self.norm2(x)))
        else:  # Post-LN: normalise after each residual sum
            attended, _ = self.attn(x, mask=mask, cache=cache)  # (B, L, M)
            x = self.norm1(x + self.dropout1(attended))
            x = self.norm2(x + self.dropout2(self.ff(x)))
        return x


class TinyTransformer(nn.Module):
    """A causal decoder-only language model (a miniature GPT).

    tokens -> token embedding + learned position embedding -> ``num_layers`` Pre-LN blocks with a
    causal mask -> final LayerNorm -> linear layer to vocabulary logits.  Learned positions
    (as GPT-2) because the toy tasks are about exact positions and ``max_len`` is small.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_heads: int,
        num_layers: int,
        d_ff: int,
        max_len: int,
    ):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.position_embedding = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, num_heads, d_ff, norm_first=True) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens: torch.Tensor, caches: list[KVCache] | None = None) -> torch.Tensor:
        """``tokens: (B, L)`` long -> logits ``(B, L, N)``.

        With ``caches`` (one :class:`KVCache` per block), ``tokens`` are the *new* tokens that
        follow the cached ones: they get positions ``start .. start + L - 1`` and attend to all
        cached tokens as well.
        """
        start = 0 if caches is None else len(caches[0])
        L = tokens.size(1)
        x = self.token_embedding(tokens)  # (B, L) -> (B, L, M)
        x = self.position_embedding(x, offset=start)  # (B, L, M)
        mask = causal_mask(start + L, device=tokens.device)[start:]  # (L, start + L)
        for i, block in enumerate(self.blocks):
            x = block(x, mask=mask, cache=None if caches is None else caches[i])  # (B, L, M)
        return self.lm_head(self.norm(x))  # (B, L, M) -> (B, L, N)


@torch.no_grad()
def generate(
    model: TinyTransformer, prompt: torch.Tensor, max_new_tokens: int, cache: bool = True
) -> torch.Tensor:
    """Greedy decoding: append the most likely next token, ``max_new_tokens`` times.

    Without a cache every step runs the model on the whole sequence so far; with one, the first
    step runs on the prompt and each later step only on the token just generated.  Both compute the
    same logits up to rounding (about 1e-7 in float32), so they give the same tokens unless two
    logits are that close to a tie.

    Args:
        prompt: ``(B, L)`` long.

    Returns:
        ``(B, L + max_new_tokens)``: the prompt followed by the generated tokens.
    """
    caches = [KVCache() for _ in model.blocks] if cache else None
    tokens = prompt  # (B, L)
    new_tokens = prompt  # what the model has not seen yet
    for _ in range(max_new_tokens):
        if cache:
            logits = model(new_tokens, caches=caches)  # (B, L_new, N)
        else:
            logits = model(tokens)  # (B, L_so_far, N)
        next_token = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, N) -> (B, 1)
        tokens = torch.cat([tokens, next_token], dim=1)  # (B, L_so_far + 1)
        new_tokens = next_token
    return tokens
