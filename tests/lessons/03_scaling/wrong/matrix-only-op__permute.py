# grade: scaled_attention_scores
import math


def scaled_attention_scores(q, k):
    return q @ k.permute(0, 2, 1) / math.sqrt(q.shape[-1])
