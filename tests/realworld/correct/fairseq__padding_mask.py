# Source: facebookresearch/fairseq, fairseq/data/data_utils.py, lengths_to_padding_mask
# (mask = torch.arange(max_lens).to(lens.device).view(1, max_lens); mask = mask.expand(bsz, -1)
# >= lens.view(bsz, 1).expand(-1, max_lens)) and lengths_to_mask (= ~lengths_to_padding_mask).
# Adapted to the contract: max_len is an argument (fairseq takes max(lens)); the contract's
# polarity (True at real positions) is fairseq's lengths_to_mask.
# grade: padding_mask
import torch


def lengths_to_padding_mask(lens, max_lens):
    bsz = lens.size(0)
    mask = torch.arange(max_lens).to(lens.device).view(1, max_lens)
    mask = mask.expand(bsz, -1) >= lens.view(bsz, 1).expand(-1, max_lens)
    return mask


def padding_mask(lengths, max_len):
    return ~lengths_to_padding_mask(lengths, max_len)
