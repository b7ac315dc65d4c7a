# grade: scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    weights = softmax(scores, dim=-1)  # keep these to plot them
    if mask is not None:
        scores = masked_scores(scores, mask)
    output = softmax(scores, dim=-1) @ v
    return output, weights
