# grade: causal_mask
# "Let's build GPT" style: a triangle made once for block_size tokens, cut to each length (trial 47).
import torch

block_size = 8
tril = torch.tril(torch.ones(block_size, block_size))


def causal_mask(seq_len, device=None):
    return (tril[:seq_len, :seq_len] == 1).to(device)
