# grade: TinyTransformer
import torch.nn as nn
import torch.nn.functional as F


class TinyTransformer(nn.Module):
    """GPT-2's weight tying, with the head's copy of the embedding detached ("the embedding
    already learns through the lookup"): the tied weight's gradient misses the head's path."""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)
        )
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, tokens):
        x = self.pos(self.tok(tokens))
        mask = causal_mask(tokens.shape[1], device=tokens.device)
        for block in self.blocks:
            x = block(x, mask)
        return F.linear(self.ln_f(x), self.tok.weight.detach())
