# grade: scaled_attention_scores
def scaled_attention_scores(q, k):
    d_k = q.shape[-1]
    return (q @ k.transpose(-2, -1)) / d_k
