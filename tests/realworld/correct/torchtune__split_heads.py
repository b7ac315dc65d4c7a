# Source: pytorch/torchtune, torchtune/modules/attention.py (v0.3), MultiHeadAttention.forward:
# `q = q.view(b, s_x, -1, self.head_dim)` ... `q = q.transpose(1, 2)` for the heads, and
# `output = output.transpose(1, 2).contiguous().view(b, s_y, -1)` to merge them.
# Adapted to the contract: functions split_heads(x, num_heads) and merge_heads(x); torchtune
# knows head_dim, the exercise knows num_heads, so head_dim = x.shape[-1] // num_heads.
# Kept: view with -1 for the heads, transpose(1, 2), contiguous().view(b, s, -1).
# grade: split_heads merge_heads
def split_heads(x, num_heads):
    b, s_x, _ = x.shape
    head_dim = x.shape[-1] // num_heads
    q = x.view(b, s_x, -1, head_dim)
    return q.transpose(1, 2)


def merge_heads(output):
    b, _, s_y, _ = output.shape
    return output.transpose(1, 2).contiguous().view(b, s_y, -1)
