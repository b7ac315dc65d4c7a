# grade: scaled_attention_scores
import math


def scaled_attention_scores(q, k):
    d_k = q.shape[-1]
    return q @ k.transpose(0, 1) / math.sqrt(d_k)
