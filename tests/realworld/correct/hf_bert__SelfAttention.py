# Source: huggingface/transformers, src/transformers/models/bert/modeling_bert.py (v4.40),
# BertSelfAttention.forward (the eager path): query/key/value nn.Linear, transpose_for_scores,
# `attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))`,
# `attention_scores = attention_scores / math.sqrt(self.attention_head_size)`, the extended
# attention mask added (get_extended_attention_mask: `(1.0 - mask) * torch.finfo(dtype).min`),
# `nn.functional.softmax(attention_scores, dim=-1)`, `torch.matmul(attention_probs, value_layer)`.
# Adapted to the contract: one head of widths d_k/d_v, so transpose_for_scores and the head
# merge go; query/key/value renamed w_q/w_k/w_v with bias=False; the bool mask (True = attend) is
# made BERT's additive mask in the scores' dtype, a float mask is added as it is; a row whose keys
# are all masked gets zeros, which BERT's finfo.min bias (uniform weights there) does not give and
# COURSE_SPEC asks for, so the probabilities are multiplied by "this row has a key"; dropout and
# head_mask dropped (no such arguments); returns (context, probs) as output_attentions does.
# grade: SelfAttention
import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.attention_head_size = d_k
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, hidden_states, mask=None):
        query_layer = self.w_q(hidden_states)
        key_layer = self.w_k(hidden_states)
        value_layer = self.w_v(hidden_states)

        # Take the dot product between "query" and "key" to get the raw attention scores.
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        has_key = None
        if mask is not None and mask.dtype == torch.bool:
            dtype = attention_scores.dtype
            extended = (1.0 - mask.to(dtype)) * torch.finfo(dtype).min
            attention_scores = attention_scores + extended
            has_key = mask.any(dim=-1, keepdim=True)
        elif mask is not None:
            attention_scores = attention_scores + mask
            has_key = ~torch.isneginf(mask).all(dim=-1, keepdim=True)

        # Normalize the attention scores to probabilities.
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        if has_key is not None:
            attention_probs = attention_probs * has_key
            attention_probs = attention_probs.nan_to_num(0.0)

        context_layer = torch.matmul(attention_probs, value_layer)
        return context_layer, attention_probs
