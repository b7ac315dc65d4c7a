# grade: masked_scores
def masked_scores(scores, mask):
    # True = masked out, like nn.MultiheadAttention's attn_mask
    return scores.masked_fill(mask, float("-inf"))
