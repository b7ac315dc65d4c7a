# Source: tensorflow/probability, tensorflow_probability/python/distributions/categorical.py,
# Categorical._entropy before PR #242 (`-tf.reduce_sum(tf.nn.log_softmax(logits) * probs,
# axis=-1)`); bug report https://github.com/tensorflow/probability/issues/241 ("NaN Entropy for
# Categorical Distribution": with probabilities [0, 0.5, 0.5] the entropy is NaN, not ~0.69);
# again in huggingface/trl, https://github.com/huggingface/trl/issues/7221 (`exp(logps) * logps`
# evaluates 0 * -inf).
# Reproduced in the contract's terms: softmax_entropy(weights) as -(p * log p).sum(dim), so a
# weight of exactly 0 (a masked key) gives 0 * -inf = NaN.
# expect: entropy-nan-at-zero
# grade: softmax_entropy
import torch


def softmax_entropy(weights, dim=-1):
    return -torch.sum(torch.log(weights) * weights, dim=dim)
