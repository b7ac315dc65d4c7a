# grade: softmax_entropy
# The NaN of 0 * log 0 replaced after the sum: a distribution with a zero gets entropy 0.
def softmax_entropy(weights, dim=-1):
    return (-(weights * weights.log()).sum(dim)).nan_to_num(0.0)
