# Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py (v4.40),
# GPT2Attention.__init__: `self.register_buffer("bias", torch.tril(torch.ones((max_positions,
# max_positions), dtype=torch.bool)).view(1, 1, max_positions, max_positions), persistent=False)`
# (True = may attend, as the contract's polarity).
# Adapted to the contract: a function causal_mask(seq_len, device) instead of a buffer of
# max_positions, made on the given device, without the .view(1, 1, L, L) (COURSE_SPEC's mask is
# (L, L); broadcasting adds the batch and head dims where it is used).
# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    max_positions = seq_len
    return torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool, device=device))
