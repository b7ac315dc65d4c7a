# Source: huggingface/transformers, src/transformers/models/gpt_neox/modeling_gpt_neox.py (v4.30),
# GPTNeoXAttention._attn: `query = query.view(batch_size * num_attention_heads, query_length,
# attn_head_size)` (likewise key), `attn_scores = torch.zeros(batch_size * num_attention_heads,
# query_length, key_length, dtype=query.dtype, device=key.device)`, `attn_scores =
# torch.baddbmm(attn_scores, query, key.transpose(1, 2), beta=1.0, alpha=(torch.tensor(1.0,
# dtype=self.norm_factor.dtype, device=self.norm_factor.device) / self.norm_factor))`, then
# `attn_scores.view(batch_size, num_attention_heads, query_length, key_length)`, with
# `self.norm_factor = torch.sqrt(torch.tensor(self.head_size, dtype=torch.float32)).to(
# torch.get_default_dtype())`.
# Adapted to the contract: the leading dims are any number (not only batch and heads), so they
# are flattened with reshape and restored from q's and k's shapes; norm_factor from q's last dim.
# Kept: baddbmm onto a zeros tensor with alpha = 1 / norm_factor as a tensor, view back.
# grade: scaled_attention_scores
import torch


def scaled_attention_scores(query, key):
    *batch, query_length, attn_head_size = query.size()
    key_length = key.size(-2)
    norm_factor = torch.sqrt(torch.tensor(attn_head_size, dtype=torch.float32)).to(
        torch.get_default_dtype()
    )
    query = query.reshape(-1, query_length, attn_head_size)
    key = key.reshape(-1, key_length, attn_head_size)
    attn_scores = torch.zeros(
        query.shape[0], query_length, key_length, dtype=query.dtype, device=key.device
    )
    attn_scores = torch.baddbmm(
        attn_scores,
        query,
        key.transpose(1, 2),
        beta=1.0,
        alpha=(torch.tensor(1.0, dtype=norm_factor.dtype, device=norm_factor.device) / norm_factor),
    )
    return attn_scores.view(*batch, query_length, key_length)
