# Source: karpathy/nanoGPT, model.py (master), CausalSelfAttention.forward, the manual path:
# `att = att.masked_fill(self.bias[:,:,:T,:T] == 0, float('-inf'))`.
# Adapted to the contract: the mask is the argument (bool, True = may attend) instead of the
# causal `bias` buffer of ones and zeros; nanoGPT's `== 0` test is kept, which on a bool mask
# picks the False positions.
# grade: masked_scores
def masked_scores(att, mask):
    att = att.masked_fill(mask == 0, float("-inf"))
    return att
