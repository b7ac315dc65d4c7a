# grade: scaled_attention_scores
import math


def scaled_attention_scores(q, k):
    d_k = q.size(1)
    return q @ k.transpose(-2, -1) / math.sqrt(d_k)
