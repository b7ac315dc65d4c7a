# grade: split_heads
def split_heads(x, num_heads):
    B, L, D = x.shape
    x = x.view(B, L, num_heads, D // num_heads).transpose(1, 3)  # (B, d_head, h, L)
    return x.reshape(B, num_heads, L, D // num_heads)
