# grade: TinyTransformer
# Trial 49: blocks built and never called, the positions mixed by a running mean alone; the order
# probe (blind to swapping two tokens) named it [positions-after-blocks] first.
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = LearnedPositionalEmbedding(max_len, d_model)
        self.blocks = nn.ModuleList(
            TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)
        )
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        L = tokens.size(1)
        x = self.pos(self.tok(tokens))
        x = x.cumsum(1) / torch.arange(1, L + 1, device=tokens.device)[None, :, None]
        return self.head(self.norm(x))
