# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    per_head = 4 * d_model * d_model
    if bias:
        per_head += 4 * d_model
    return num_heads * per_head
