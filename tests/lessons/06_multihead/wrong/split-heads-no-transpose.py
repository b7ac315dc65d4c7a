# grade: split_heads
def split_heads(x, num_heads):
    batch, seq_len, d_model = x.shape
    return x.view(batch, num_heads, seq_len, d_model // num_heads)
