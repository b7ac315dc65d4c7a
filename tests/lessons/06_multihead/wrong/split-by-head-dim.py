# grade: split_heads


def split_heads(x, num_heads):
    B, L, D = x.shape
    return x.view(B, L, -1, num_heads).transpose(1, 2)  # num_heads used as each head's width
