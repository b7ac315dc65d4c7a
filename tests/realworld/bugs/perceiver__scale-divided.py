# Source: esceptico/perceiver-io, src/perceiver_io/attention.py (commit 6b65073), MultiHeadAttention:
# `self.scale = self.qk_head_dim ** -0.5` and then `attention = (q @ k.transpose(-2, -1) /
# self.scale)`; bug report https://github.com/esceptico/perceiver-io/issues/9 ("self.scale should
# be multiplied instead of the divide, since it's defined as self.scale = self.qk_head_dim **
# -0.5"; the author: "Nice catch! Sorry for such a dumb mistake").
# Reproduced in the contract's terms: scaled_attention_scores divides q @ k^T by d_k ** -0.5,
# which multiplies it by sqrt(d_k).
# expect: multiplied-by-sqrt-dk
# grade: scaled_attention_scores
def scaled_attention_scores(q, k):
    qk_head_dim = q.shape[-1]
    scale = qk_head_dim**-0.5
    attention = q @ k.transpose(-2, -1) / scale
    return attention
