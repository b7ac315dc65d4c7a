# grade: TinyTransformer
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.max_len = max_len
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)
        )
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        L = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(L, device=tokens.device))
        mask = causal_mask(self.max_len, device=tokens.device)  # max_len, not L
        for block in self.blocks:
            x = block(x, mask=mask)
        return self.head(self.ln_f(x))
