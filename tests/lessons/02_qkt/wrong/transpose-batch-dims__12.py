# grade: attention_scores


def attention_scores(q, k):
    return q @ k.transpose(1, 2)  # (batch, L, d) -> (batch, d, L)
