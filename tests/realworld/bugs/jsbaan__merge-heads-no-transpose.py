# Source: jsbaan/transformer-from-scratch, multi_head_attention.py; bug report
# https://github.com/jsbaan/transformer-from-scratch/pull/6 (fixes #4): after attention, values
# of shape (batch, heads, seq_len, qkv_dim) were reshaped to (batch, seq_len, hidden) without the
# permute(0, 2, 1, 3), scrambling token representations.
# Reproduced in the contract's terms: merge_heads reshapes without moving the head dim back.
# expect: merge-heads-no-transpose
# grade: merge_heads
def merge_heads(values):
    batch_size, num_heads, seq_len, qkv_dim = values.size()
    return values.reshape(batch_size, seq_len, num_heads * qkv_dim)
