# Source: rasbt/LLMs-from-scratch, ch04/01_main-chapter-code/ch04.ipynb, the parameter count of
# the GPT model (total_params = sum(p.numel() for p in model.parameters())).
# Adapted to the contract: the count taken over the learner's own MultiHeadAttention built with
# the given arguments, returned as an int.
# grade: mha_num_parameters
def mha_num_parameters(d_model, num_heads, bias=False):
    model = MultiHeadAttention(d_model, num_heads, bias=bias)
    total_params = sum(p.numel() for p in model.parameters())
    return total_params
