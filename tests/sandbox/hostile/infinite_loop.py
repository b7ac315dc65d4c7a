import torch


def causal_mask(seq_len, device=None):
    while True:
        pass


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
