"""Lesson 03's known mistakes (scaling) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

_ATTN = ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention")

MISTAKES = (
    Mistake(
        "no-scaling",
        ("scaled_attention_scores", "tiled_attention") + _ATTN,
        "Scores are not divided by sqrt(d_k)",
        "Divide q @ k^T by sqrt(d_k), where d_k is the size of the last dimension of q.",
    ),
    Mistake(
        "scaled-by-dk",
        ("scaled_attention_scores", "tiled_attention") + _ATTN,
        "Scores divided by d_k instead of sqrt(d_k)",
        "The variance of q·k grows like d_k, so its standard deviation grows like sqrt(d_k): "
        "divide by d_k ** 0.5.",
    ),
    Mistake(
        "multiplied-by-sqrt-dk",
        ("scaled_attention_scores", "scaled_dot_product_attention"),
        "Scores multiplied by sqrt(d_k) instead of divided",
        "Scaling must shrink the scores: q @ k^T / sqrt(d_k) (or * d_k ** -0.5).",
    ),
    Mistake(
        "scale-uses-seq-len",
        ("scaled_attention_scores", "scaled_dot_product_attention", "SelfAttention"),
        "Scale computed from a sequence length instead of d_k",
        "d_k is the last dimension of q and k: q.shape[-1]. A length (q.shape[1] of a batch, "
        "or the scores' last dimension, which is Lk) is not d_k.",
    ),
    Mistake(
        "scale-rounded-sqrt",
        ("scaled_attention_scores", "scaled_dot_product_attention"),
        "The scale uses a whole-number square root of d_k",
        "Divide by math.sqrt(d_k), not math.isqrt(d_k) or round(math.sqrt(d_k)): the whole "
        "number is the square root only when d_k is a perfect square, such as 4, 9 or 64.",
    ),
    Mistake(
        "scale-not-from-dk",
        ("scaled_attention_scores",),
        "Scores divided by a fixed number (such as sqrt(d_model)), not by sqrt(d_k)",
        "The scale must come from the inputs: d_k = q.shape[-1] (the last dim of q and k), "
        "so that it follows d_k when the head size changes; sqrt(512) or sqrt(d_model) does not.",
    ),
    Mistake(
        "variance-elementwise",
        ("dot_product_variance",),
        "Variance of the products q_i·k_i, not of their sum q·k",
        "Sum the products over the d_k dimension first: dots = (q * k).sum(-1), then dots.var().",
    ),
    Mistake(
        "variance-returns-std",
        ("dot_product_variance",),
        "Returns the standard deviation, not the variance",
        "The variance is the square of the standard deviation: use .var(), not .std().",
    ),
    Mistake(
        "num-samples-ignored",
        ("dot_product_variance",),
        "The num_samples argument is ignored",
        "Draw exactly num_samples pairs (torch.randn(num_samples, d_k, generator=generator)) "
        "and use every one of them: more samples must give a more precise estimate.",
    ),
    Mistake(
        "generator-ignored",
        ("dot_product_variance",),
        "The generator argument is ignored",
        "Pass generator=generator to torch.randn, so that a seeded generator gives the same "
        "samples (and the same estimate) every time.",
    ),
    Mistake(
        "returns-tensor-not-number",
        ("dot_product_variance", "mha_num_parameters"),
        "Returns a tensor where a plain Python number is asked for",
        "Convert a one-element tensor with .item() (int(...) for a count).",
    ),
    Mistake(
        "entropy-log2",
        ("softmax_entropy",),
        "Entropy in another base (log2's bits, or log10) instead of nats (natural log)",
        "Use torch.log: the course measures entropy in nats.",
    ),
    Mistake(
        "entropy-mean-not-sum",
        ("softmax_entropy",),
        "Averaged over the outcomes (mean) instead of summed",
        "H(p) = -sum p log p: sum over dim; .mean(dim) divides the entropy by the number of "
        "outcomes.",
    ),
    Mistake(
        "entropy-nan-at-zero",
        ("softmax_entropy",),
        "NaN where a probability is 0 (0 · log 0)",
        "By convention 0 · log 0 = 0: use torch.xlogy(p, p) or torch.where(p > 0, p * p.log(), 0).",
    ),
    Mistake(
        "entropy-sign",
        ("softmax_entropy",),
        "Entropy has the wrong sign",
        "H(p) = -sum p log p is never negative: don't forget the minus sign.",
    ),
    Mistake(
        "ignores-dim-argument",
        ("softmax", "softmax_entropy"),
        "The dim argument is ignored (always the last dimension)",
        "Reduce over the dim you are given: .sum(dim=dim) (in softmax, also the max, with "
        "keepdim=True so that the division lines up).",
    ),
    Mistake(
        "variance-returns-d-k",
        ("dot_product_variance",),
        "Returns d_k instead of measuring the variance",
        "Draw q and k of shape (num_samples, d_k) from the generator, take the dot products "
        "(q * k).sum(-1) and return their variance as a float.",
    ),
)
