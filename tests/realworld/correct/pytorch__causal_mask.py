# Source: pytorch/pytorch, torch/nn/modules/transformer.py (v2.3),
# _generate_square_subsequent_mask: `return torch.triu(torch.full((sz, sz), float("-inf"),
# dtype=dtype, device=device), diagonal=1)` (a float mask: -inf above the diagonal, 0 elsewhere).
# Adapted to the contract: COURSE_SPEC's causal mask is bool with True = may attend, so the float
# mask is compared with 0 (the positions nn.Transformer leaves at 0 are the ones a query may see).
# Kept: the -inf upper triangle built with torch.full and triu(diagonal=1).
# grade: causal_mask
import torch


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    if dtype is None:
        dtype = torch.float32
    return torch.triu(
        torch.full((sz, sz), float("-inf"), dtype=dtype, device=device),
        diagonal=1,
    )


def causal_mask(seq_len, device=None):
    return _generate_square_subsequent_mask(seq_len, device=device) == 0
