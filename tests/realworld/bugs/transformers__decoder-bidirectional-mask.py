# Source: huggingface/transformers, src/transformers/models/roformer/modeling_roformer.py (and
# BigBird, RemBert, MegatronBert); bug report https://github.com/huggingface/transformers/issues/48745
# (fixed by PR #48760): with is_decoder=True these models built their mask with
# create_bidirectional_mask, so every position attended to later tokens and causal-LM training
# collapsed.
# Reproduced in the contract's terms: a GPT-style TinyTransformer (token and position embeddings,
# the learner's Pre-LN blocks, final LayerNorm, head) whose blocks get an all-True
# (bidirectional) mask instead of the causal one.
# expect: not-causal
# grade: TinyTransformer
import torch
import torch.nn as nn


def create_bidirectional_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device)


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.is_decoder = True
        self.embeddings = nn.Embedding(vocab_size, d_model)
        self.position_embeddings = nn.Embedding(max_len, d_model)
        self.layer = nn.ModuleList(TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers))
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, input_ids):
        seq_len = input_ids.shape[1]
        positions = torch.arange(seq_len, device=input_ids.device)
        hidden_states = self.embeddings(input_ids) + self.position_embeddings(positions)
        attention_mask = create_bidirectional_mask(seq_len, device=input_ids.device)
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, attention_mask)
        return self.lm_head(self.norm(hidden_states))
