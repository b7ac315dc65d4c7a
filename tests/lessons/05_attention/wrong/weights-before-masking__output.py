# grade: scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    unmasked = softmax(scores, dim=-1)
    if mask is not None:
        scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return unmasked @ v, weights  # the output from the weights before masking
