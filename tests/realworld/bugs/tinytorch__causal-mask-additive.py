# Source: harvard-edge/cs249r_book, TinyTorch module 13 (13_transformers.py),
# GPT._create_causal_mask before PR #1785: an additive mask (`np.triu(np.ones(...), k=1) *
# -np.inf`: -inf above the diagonal, 0 elsewhere) handed to module 12's _apply_mask, which expects
# a binary lower-triangular mask (1 = allow, 0 = block); bug report
# https://github.com/harvard-edge/cs249r_book/pull/1785 ("every allowed position (value 0)
# received (1-0)*MASK_VALUE = -1e9 ... blocking all attention including valid past/present
# positions").
# Reproduced in the contract's terms (torch instead of NumPy): causal_mask returns the additive
# float mask where COURSE_SPEC's causal_mask is bool, True = may attend.
# expect: additive-float-mask
# grade: causal_mask
import torch


def causal_mask(seq_len, device=None):
    return torch.triu(torch.ones(seq_len, seq_len, device=device), diagonal=1) * -torch.inf
