# grade: TinyTransformer
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList(
            [TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)]
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        B, L = tokens.shape
        x = self.embed(tokens) + self.pos(torch.arange(L, device=tokens.device))
        mask = torch.ones(L, L, dtype=torch.bool)
        for layer in self.layers:
            x = layer(x, mask=mask)
        return self.lm_head(self.ln_f(x))
