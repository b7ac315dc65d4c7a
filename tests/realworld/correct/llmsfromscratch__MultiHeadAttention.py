# Source: rasbt/LLMs-from-scratch, ch03/01_main-chapter-code/ch03.ipynb (and
# ch04/01_main-chapter-code/gpt.py), class MultiHeadAttention: `assert d_out % num_heads == 0`,
# W_query/W_key/W_value/out_proj, view(b, num_tokens, num_heads, head_dim).transpose(1, 2),
# attn_scores.masked_fill_(mask_bool, -torch.inf), softmax(attn_scores / keys.shape[-1]**0.5),
# context_vec.contiguous().view(b, num_tokens, d_out).
# Adapted to the contract: W_* and out_proj renamed w_q/w_k/w_v/w_o (d_in = d_out = d_model,
# bias=bias); forward's x named query (the contract's keyword); the registered causal buffer replaced by the `mask` argument, inverted once since
# the book's mask_bool is True where masked; a float mask added after the scaling, as SDPA adds
# it (the book's masks are bool only); key/value arguments; zero rows where no key is allowed;
# dropout dropped.
# grade: MultiHeadAttention
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        d_in = d_out = d_model
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.w_q = nn.Linear(d_in, d_out, bias=bias)
        self.w_k = nn.Linear(d_in, d_out, bias=bias)
        self.w_v = nn.Linear(d_in, d_out, bias=bias)
        self.w_o = nn.Linear(d_out, d_out, bias=bias)  # Linear layer to combine head outputs

    def forward(self, query, key=None, value=None, mask=None):
        x = query
        key = x if key is None else key
        value = key if value is None else value
        b, num_tokens, d_in = x.shape
        num_kv = key.shape[1]

        keys = self.w_k(key)  # Shape: (b, num_kv, d_out)
        queries = self.w_q(x)
        values = self.w_v(value)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_kv, self.num_heads, self.head_dim)
        values = values.view(b, num_kv, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        if mask is not None and mask.dtype == torch.bool:
            mask_bool = ~mask  # the book's mask is True where a key is hidden
            # Use the mask to fill attention scores
            attn_scores = attn_scores.masked_fill(mask_bool, -torch.inf)
        attn_scores = attn_scores / keys.shape[-1] ** 0.5
        if mask is not None and mask.dtype != torch.bool:  # the contract's float mask, as SDPA
            attn_scores = attn_scores + mask.to(attn_scores.dtype)

        attn_weights = torch.softmax(attn_scores, dim=-1)
        attn_weights = torch.where(attn_weights.isnan(), 0.0, attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.w_o(context_vec)  # optional projection

        return context_vec, attn_weights
