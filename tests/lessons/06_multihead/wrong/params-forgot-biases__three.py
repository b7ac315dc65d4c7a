# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    weights = 4 * d_model * d_model
    return weights + (3 * d_model if bias else 0)  # biases of w_q, w_k, w_v; w_o's forgotten
