# grade: split_heads
def split_heads(x, num_heads):
    B, L, D = x.shape
    return x.view(B, L, num_heads, D // num_heads).transpose(2, 3)  # (B, L, d_head, h)
