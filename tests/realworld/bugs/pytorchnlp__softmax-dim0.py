# Source: PetrochukM/PyTorch-NLP, torchnlp/nn/attention.py, class Attention
# (self.softmax = nn.Softmax(dim=0) over the flattened (batch * output_len, query_len) scores);
# bug report https://github.com/PetrochukM/PyTorch-NLP/issues/2: the weights are normalised over
# the batch, not over the keys (always 1 with batch size 1).
# Reproduced in the contract's terms: SDPA with PyTorch-NLP's view/bmm flattening and
# nn.Softmax(dim=0) over the flattened rows.
# expect: softmax-wrong-dim
# grade: scaled_dot_product_attention
import math

import torch
import torch.nn as nn


def scaled_dot_product_attention(query, context, value, mask=None):
    *batch, output_len, dimensions = query.shape
    query_len = context.size(-2)
    attention_scores = torch.matmul(query, context.transpose(-2, -1).contiguous()) / math.sqrt(dimensions)
    if mask is not None:
        attention_scores = attention_scores.masked_fill(~mask, float("-inf"))
    attention_scores = attention_scores.reshape(-1, query_len)
    attention_weights = nn.Softmax(dim=0)(attention_scores)
    attention_weights = attention_weights.view(*batch, output_len, query_len)
    return torch.matmul(attention_weights, value), attention_weights
