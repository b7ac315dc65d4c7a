# grade: scaled_attention_scores
import math


def scaled_attention_scores(q, k):
    q /= math.sqrt(q.shape[-1])
    return q @ k.transpose(-2, -1)
