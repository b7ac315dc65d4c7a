# grade: split_heads
def split_heads(x, num_heads):
    B, L, D = x.shape
    return x.transpose(1, 2).reshape(B, num_heads, L, D // num_heads)  # (B, D, L) reshaped
