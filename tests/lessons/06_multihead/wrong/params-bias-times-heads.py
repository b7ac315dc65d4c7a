# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    weights = 4 * d_model * d_model
    biases = 4 * d_model * num_heads if bias else 0  # a bias for each head
    return weights + biases
