# Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py (v4.40),
# GPT2Model: `self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)`; in
# forward, `position_ids = torch.arange(past_length, input_shape[-1] + past_length,
# dtype=torch.long, device=device)`, `position_embeds = self.wpe(position_ids)`,
# `hidden_states = inputs_embeds + position_embeds`.
# Adapted to the contract: the table is the attribute `embedding` (GPT-2's `wpe`), the module
# takes the embedded inputs (B, L, d_model) and returns them plus the positions; past_length is 0
# (no cache here); a length past max_len raises ValueError, as COURSE_SPEC asks (GPT-2 lets
# nn.Embedding raise an IndexError there).
# grade: LearnedPositionalEmbedding
import torch
from torch import nn


class LearnedPositionalEmbedding(nn.Module):
    def __init__(self, max_len, d_model):
        super().__init__()
        self.embedding = nn.Embedding(max_len, d_model)

    def forward(self, inputs_embeds):
        input_shape = inputs_embeds.size()[:-1]
        if input_shape[-1] > self.embedding.num_embeddings:
            raise ValueError(
                f"sequence length {input_shape[-1]} is longer than max_len "
                f"{self.embedding.num_embeddings}"
            )
        past_length = 0
        device = inputs_embeds.device
        position_ids = torch.arange(
            past_length, input_shape[-1] + past_length, dtype=torch.long, device=device
        )
        position_embeds = self.embedding(position_ids)
        hidden_states = inputs_embeds + position_embeds
        return hidden_states
