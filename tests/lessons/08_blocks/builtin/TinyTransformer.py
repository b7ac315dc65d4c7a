# grade: TinyTransformer
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, num_heads, d_ff, 0.0, batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        L = tokens.shape[1]
        x = self.tok(tokens) + self.pos(torch.arange(L, device=tokens.device))
        mask = nn.Transformer.generate_square_subsequent_mask(L, device=tokens.device)
        return self.head(self.norm(self.encoder(x, mask=mask, is_causal=True)))
