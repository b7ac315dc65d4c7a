# grade: scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    e = torch.exp(scores - scores.amax(-1, keepdim=True))
    weights = e / e.sum(-1, keepdim=True)
    return (weights @ v).nan_to_num(0.0), weights
