# Source: karpathy/minGPT, mingpt/model.py, class GPT (transformer = nn.ModuleDict(wte, wpe,
# drop, h, ln_f); lm_head = nn.Linear(n_embd, vocab_size, bias=False); forward: pos =
# torch.arange(0, t).unsqueeze(0); x = self.transformer.drop(tok_emb + pos_emb); blocks; ln_f;
# lm_head) with `assert t <= self.block_size`.
# Adapted to the contract: the config replaced by the constructor's arguments; embd_pdrop = 0;
# the learner's own TransformerBlock under the learner's causal_mask; no loss/targets.
# grade: TinyTransformer
import torch
import torch.nn as nn


class TinyTransformer(nn.Module):
    """GPT Language Model"""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.block_size = max_len
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(vocab_size, d_model),
                wpe=nn.Embedding(max_len, d_model),
                drop=nn.Dropout(0.0),
                h=nn.ModuleList([TransformerBlock(d_model, num_heads, d_ff) for _ in range(num_layers)]),
                ln_f=nn.LayerNorm(d_model),
            )
        )
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx):
        device = idx.device
        b, t = idx.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device).unsqueeze(0)  # shape (1, t)

        # forward the GPT model itself
        tok_emb = self.transformer.wte(idx)  # token embeddings of shape (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # position embeddings of shape (1, t, n_embd)
        x = self.transformer.drop(tok_emb + pos_emb)
        mask = causal_mask(t, device=device)
        for block in self.transformer.h:
            x = block(x, mask)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)
        return logits
