# grade: scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = scaled_attention_scores(q, k)
    if mask is not None and mask.dtype == torch.bool:
        scores = masked_scores(scores, mask)
    elif mask is not None:
        scores = scores + mask.to(scores.dtype)
    weights = softmax(scores, dim=-1)
    return (weights @ v).squeeze(), weights.squeeze()  # "tidy" shapes
