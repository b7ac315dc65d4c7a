# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    d_head = d_model // num_heads
    return 4 * d_model * d_model + (4 * d_head if bias else 0)  # one head's share of the biases
