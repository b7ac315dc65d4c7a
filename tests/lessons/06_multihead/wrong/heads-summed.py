# grade: merge_heads
def merge_heads(x):
    B, h, L, dh = x.shape
    return x.sum(dim=1).repeat(1, 1, h)  # the heads added up, tiled back to d_model
