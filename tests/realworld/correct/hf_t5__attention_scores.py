# Source: huggingface/transformers, src/transformers/models/t5/modeling_t5.py (v4.40),
# T5Attention.forward: `scores = torch.matmul(query_states, key_states.transpose(3, 2))`,
# "equivalent of torch.einsum("bnqd,bnkd->bnqk", query_states, key_states), compatible with onnx
# op>9". T5 does not scale its scores (Mesh TensorFlow folds 1/sqrt(d_k) into the init).
# Adapted to the contract: written as the exercise's attention_scores(q, k); transpose(3, 2)
# assumes 4-D (batch, heads, length, d) tensors, so the last two dims are named as -1, -2 to take
# any number of leading batch dims, as COURSE_SPEC asks.
# grade: attention_scores
import torch


def attention_scores(q, k):
    # equivalent of torch.einsum("...qd,...kd->...qk", q, k), compatible with onnx op>9
    scores = torch.matmul(q, k.transpose(-1, -2))
    return scores
