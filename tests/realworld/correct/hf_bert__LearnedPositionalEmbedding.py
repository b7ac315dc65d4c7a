# Source: huggingface/transformers, src/transformers/models/bert/modeling_bert.py (v4.40),
# BertEmbeddings: `self.position_embeddings = nn.Embedding(config.max_position_embeddings,
# config.hidden_size)`, `self.register_buffer("position_ids",
# torch.arange(config.max_position_embeddings).expand((1, -1)), persistent=False)`, and in forward
# `position_ids = self.position_ids[:, past_key_values_length : seq_length +
# past_key_values_length]`, `position_embeddings = self.position_embeddings(position_ids)`,
# `embeddings += position_embeddings`.
# Adapted to the contract: the table is the attribute `embedding` (BERT's position_embeddings),
# the module takes the token embeddings and returns them plus the positions (BERT also adds token
# type embeddings, then LayerNorm and dropout: not this exercise); past_key_values_length is 0; a
# length past max_len raises ValueError (BERT's slice would silently come back short); BERT's
# `embeddings += position_embeddings` acts on the sum it has just made (inputs_embeds +
# token_type_embeddings), so without token types it is `inputs_embeds + position_embeddings`
# (`+=` on inputs_embeds itself would overwrite the caller's tensor [modifies-input]).
# Kept: the persistent=False position_ids buffer sliced to the sequence.
# grade: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)
        self.register_buffer("position_ids", torch.arange(max_len).expand((1, -1)), persistent=False)

    def forward(self, inputs_embeds, past_key_values_length=0):
        seq_length = inputs_embeds.size(1)
        if seq_length + past_key_values_length > self.position_ids.shape[1]:
            raise ValueError(f"sequence length {seq_length} is longer than max_len")
        position_ids = self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]
        position_embeddings = self.embedding(position_ids)
        embeddings = inputs_embeds + position_embeddings
        return embeddings
