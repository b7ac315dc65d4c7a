# Source: NVIDIA/Megatron-LM, megatron/core/transformer/utils.py (core_r0.9.0),
#   def attention_mask_func(attention_scores, attention_mask):
#       attention_scores.masked_fill_(attention_mask, -10000.0)
#       return attention_scores
# (Megatron's mask is True = masked out; FusedScaleMaskSoftmax calls it on the scores it has just
# computed, which nobody else holds.)
# Adapted to the contract: the mask is COURSE_SPEC's (True = may attend), so the fill takes
# ~attention_mask; the fill is -inf, not -10000.0 (finite: a fully masked row would get uniform
# weights and exp(-10000 - max) is not 0 for every float dtype [finite-fill-value]).
# Kept: masked_fill_ in place on the scores it is given, which it returns.
# grade: masked_scores
def masked_scores(attention_scores, attention_mask):
    attention_scores.masked_fill_(~attention_mask, float("-inf"))
    return attention_scores
