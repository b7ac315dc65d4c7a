# Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py (v4.40),
# GPT2Attention._split_heads and _merge_heads:
#   new_shape = tensor.size()[:-1] + (num_heads, attn_head_size); tensor = tensor.view(new_shape)
#   return tensor.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)
#   tensor = tensor.permute(0, 2, 1, 3).contiguous()
#   new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,); return tensor.view(new_shape)
# Adapted to the contract: functions split_heads(x, num_heads) and merge_heads(x) instead of
# methods taking (tensor, num_heads, attn_head_size): the head size is computed from the last dim
# in split_heads, and num_heads/head size are read from the shape in merge_heads.
# grade: split_heads merge_heads
def split_heads(tensor, num_heads):
    """
    Splits hidden_size dim into attn_head_size and num_heads
    """
    attn_head_size = tensor.size(-1) // num_heads
    new_shape = tensor.size()[:-1] + (num_heads, attn_head_size)
    tensor = tensor.view(new_shape)
    return tensor.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)


def merge_heads(tensor):
    """
    Merges attn_head_size dim and num_attn_heads dim into hidden_size
    """
    num_heads, attn_head_size = tensor.size(1), tensor.size(-1)
    tensor = tensor.permute(0, 2, 1, 3).contiguous()
    new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,)
    return tensor.view(new_shape)
