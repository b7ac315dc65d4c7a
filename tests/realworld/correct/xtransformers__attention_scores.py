# Source: lucidrains/x-transformers, x_transformers/attend.py, Attend.forward
# (scale = default(self.scale, q.shape[-1] ** -0.5); sim = einsum('b h i d, b h j d -> b h i j',
# q, k) * scale).
# Adapted to the contract: '...' for any leading dims; the unscaled scores as attention_scores
# and the scaled ones as scaled_attention_scores.
# grade: attention_scores scaled_attention_scores
from torch import einsum


def attention_scores(q, k):
    return einsum("... i d, ... j d -> ... i j", q, k)


def scaled_attention_scores(q, k):
    scale = q.shape[-1] ** -0.5
    return einsum("... i d, ... j d -> ... i j", q, k) * scale
