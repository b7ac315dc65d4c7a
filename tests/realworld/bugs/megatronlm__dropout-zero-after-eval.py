# Source: NVIDIA/Megatron-LM, megatron/model/transformer.py, FlashSelfAttention.forward before
# PR #411 (in eval mode it sets `self.dropout_p = 0` and then passes self.dropout_p to the
# kernel); bug report https://github.com/NVIDIA/Megatron-LM/pull/411 ("Once you run `forward` in
# eval mode, `dropout_p` will become 0 forever, even you turn back to training mode"; the same
# fix in deepspeedai/Megatron-DeepSpeed PR #295).
# Reproduced in the contract's terms: a FeedForward whose forward zeroes its own dropout rate the
# first time it runs in eval mode, so training after an evaluation has no dropout.
# expect: ffn-dropout-ignored
# grade: FeedForward
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout_p = dropout

    def forward(self, x):
        if not self.training:
            self.dropout_p = 0
        h = F.relu(self.linear1(x))
        h = F.dropout(h, p=self.dropout_p, training=self.training)
        return self.linear2(h)
