# grade: scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None:
        if mask.dtype != torch.bool:
            mask = ~(mask < 0)  # "negative entries block": finite biases are lost
        scores = masked_scores(scores, mask)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
