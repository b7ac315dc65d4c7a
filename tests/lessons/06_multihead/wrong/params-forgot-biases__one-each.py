# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    return 4 * d_model * d_model + (4 if bias else 0)
