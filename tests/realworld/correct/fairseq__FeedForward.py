# Source: facebookresearch/fairseq, fairseq/modules/transformer_layer.py (v0.12.2),
# TransformerEncoderLayerBase: `self.fc1 = self.build_fc1(...)`, `self.fc2 = ...`, and in
# forward `x = self.activation_fn(self.fc1(x))`, `x = self.activation_dropout_module(x)`,
# `x = self.fc2(x)`, `x = self.dropout_module(x)` (activation_fn "relu" by default,
# activation_dropout 0 by default, dropout on fc2's output).
# Adapted to the contract: the feed-forward part only (no residual or layer norm, which the block
# adds), fc1/fc2 renamed linear1/linear2; the one `dropout` argument is fairseq's `dropout` (on
# fc2's output, as GPT-2's MLP, one of COURSE_SPEC's two places) with activation_dropout left at
# its default 0; FairseqDropout is nn.Dropout here.
# grade: FeedForward
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, activation_dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.activation_fn = F.relu
        self.activation_dropout_module = nn.Dropout(activation_dropout)
        self.dropout_module = nn.Dropout(dropout)

    def forward(self, x):
        x = self.activation_fn(self.linear1(x))
        x = self.activation_dropout_module(x)
        x = self.linear2(x)
        x = self.dropout_module(x)
        return x
