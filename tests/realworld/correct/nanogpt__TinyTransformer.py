# Source: karpathy/nanoGPT, model.py, class GPT (wte + wpe, blocks, ln_f, lm_head with tied
# weights; `assert t <= self.config.block_size`).
# Adapted to the contract: the config object replaced by the constructor's arguments; the
# learner's own TransformerBlock (Pre-LN) under the learner's causal_mask; nanoGPT's weight tying
# (lm_head.weight = wte.weight) kept.
# grade: TinyTransformer
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.block_size = max_len
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(vocab_size, d_model),
                wpe=nn.Embedding(max_len, d_model),
                h=nn.ModuleList([TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)]),
                ln_f=nn.LayerNorm(d_model),
            )
        )
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx):
        device = idx.device
        b, t = idx.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)
        tok_emb = self.transformer.wte(idx)  # token embeddings of shape (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # position embeddings of shape (t, n_embd)
        x = tok_emb + pos_emb
        mask = causal_mask(t, device=device)
        for block in self.transformer.h:
            x = block(x, mask)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)
