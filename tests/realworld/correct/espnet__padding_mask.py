# Source: espnet/espnet, espnet/nets/pytorch_backend/nets_utils.py (v202402), make_pad_mask
# (True at padded positions) and make_non_pad_mask (`return ~make_pad_mask(lengths, xs,
# length_dim, maxlen)`): `lengths = lengths.long().tolist()`, `seq_range = torch.arange(0, maxlen,
# dtype=torch.int64)`, `seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)`,
# `seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)`, `mask = seq_range_expand >=
# seq_length_expand`.
# Adapted to the contract: padding_mask(lengths, max_len) is make_non_pad_mask with maxlen given
# and no xs; ESPnet moves the mask to xs.device only when xs is given, so here it is moved to
# lengths' device (COURSE_SPEC: made on the input's device).
# Kept: lengths read with .tolist(), arange on the CPU expanded to (bs, maxlen), `.new(lengths)`,
# the `>=` pad mask inverted with `~`.
# grade: padding_mask
import torch


def make_pad_mask(lengths, xs=None, length_dim=-1, maxlen=None):
    if not isinstance(lengths, list):
        lengths = lengths.long().tolist()
    bs = int(len(lengths))
    if maxlen is None:
        maxlen = int(max(lengths))
    seq_range = torch.arange(0, maxlen, dtype=torch.int64)
    seq_range_expand = seq_range.unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range_expand.new(lengths).unsqueeze(-1)
    mask = seq_range_expand >= seq_length_expand
    return mask


def padding_mask(lengths, max_len):
    return ~make_pad_mask(lengths, maxlen=max_len).to(lengths.device)
