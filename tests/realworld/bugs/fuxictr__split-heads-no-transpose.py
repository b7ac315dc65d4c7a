# Source: reczoo/FuxiCTR, fuxictr/pytorch/layers/attention.py, MultiHeadAttention.forward; bug report
# https://github.com/reczoo/FuxiCTR/issues/30: `query.view(batch_size * self.num_heads, -1,
# self.attention_dim)` splits heads without the transpose, mixing positions into heads (the fix
# is view(batch_size, seq_len, num_heads, dim).transpose(1, 2)).
# Reproduced in the contract's terms: split_heads views straight to (B, h, L, d_head), the 4-D form
# of FuxiCTR's (B * h, L, d_head) view.
# expect: split-heads-no-transpose
# grade: split_heads
def split_heads(x, num_heads):
    batch_size = x.size(0)
    attention_dim = x.size(-1) // num_heads
    return x.view(batch_size, num_heads, -1, attention_dim)
