# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    return int(4 * d_model**2 * (1 + int(bias) / d_model))
