# Source: facebookresearch/xformers, xformers/ops/fmha/attn_bias.py,
# LowerTriangularFromBottomRightLocalAttentionMask._materialize:
#   tensor = torch.full(shape, dtype=create_as, fill_value=1, device=device)
#   num_queries, num_keys = shape[-2:]
#   mask = torch.tril(tensor, diagonal=num_keys - num_queries).to(dtype)
#   if self._window_size is not None:
#       mask = torch.triu(mask, diagonal=num_keys - num_queries - self._window_size + 1)
#   mask = torch.log(mask)
# Adapted to the contract: a bool (L, L) mask, True = may attend, so the final torch.log (which
# makes xformers' additive 0/-inf bias) is replaced by .bool(); shape is (seq_len, seq_len), so
# num_keys - num_queries is 0; window is the argument.
# Kept: a tensor of ones, tril then triu with window_size - 1 below the diagonal.
# grade: sliding_window_mask
import torch


def sliding_window_mask(seq_len, window, dtype=torch.float32, device="cpu"):
    shape = (seq_len, seq_len)
    tensor = torch.full(shape, dtype=dtype, fill_value=1, device=device)
    num_queries, num_keys = shape[-2:]
    mask = torch.tril(tensor, diagonal=num_keys - num_queries)
    mask = torch.triu(mask, diagonal=num_keys - num_queries - window + 1)
    return mask.bool()
