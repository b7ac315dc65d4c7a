# grade: split_heads
def split_heads(x, num_heads):
    B, L, D = x.shape
    return x.view(B, L, D // num_heads, num_heads).permute(0, 3, 1, 2)
