# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    weights = 3 * d_model * d_model  # W_q, W_k, W_v
    biases = 3 * d_model if bias else 0
    return weights + biases
