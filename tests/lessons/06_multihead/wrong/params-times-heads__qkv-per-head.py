# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    # each head its own d_model x d_model q, k and v projections, then one output projection
    per_head = 3 * d_model * d_model + (3 * d_model if bias else 0)
    return num_heads * per_head + d_model * d_model + (d_model if bias else 0)
