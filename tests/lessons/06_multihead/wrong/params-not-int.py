# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    d_head = d_model / num_heads
    per_projection = d_model * d_head * num_heads + (d_model if bias else 0)
    return 4 * per_projection
