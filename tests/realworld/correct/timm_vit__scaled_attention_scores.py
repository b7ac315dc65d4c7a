# Source: huggingface/pytorch-image-models, timm/layers/attention.py
# (commit 02bb6b3e3e423554c211eaa0c6b419461336f94e), class Attention, the non-fused path:
# `self.scale = head_dim ** -0.5`; `q = q * self.scale`; `attn = q @ k.transpose(-2, -1)`.
# Adapted to the contract: the two lines as scaled_attention_scores(q, k), head_dim read from
# q's last dim instead of the module's constructor arguments.
# Kept: the scale folded into q before the product (not into the scores after it).
# grade: scaled_attention_scores
def scaled_attention_scores(q, k):
    head_dim = q.shape[-1]
    scale = head_dim**-0.5
    q = q * scale
    attn = q @ k.transpose(-2, -1)
    return attn
