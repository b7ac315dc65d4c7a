# Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, class
# PositionwiseFeedForward (w_2(dropout(w_1(x).relu()))).
# Adapted to the contract: w_1/w_2 renamed linear1/linear2; dropout defaults to 0.0 (the contract's default).
# grade: FeedForward
import torch.nn as nn


class FeedForward(nn.Module):
    "Implements FFN equation."

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(self.linear1(x).relu()))
