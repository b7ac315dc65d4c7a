# grade: split_heads
def split_heads(x, num_heads):
    B, L, D = x.shape
    d_head = x.size(1) // num_heads  # the head width, from the wrong dim
    return x.view(B, L, num_heads, d_head).transpose(1, 2)
