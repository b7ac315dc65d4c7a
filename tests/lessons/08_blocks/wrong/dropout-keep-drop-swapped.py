# grade: FeedForward
import torch.nn as nn
import torch.nn.functional as F


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(1 - dropout)  # the keep probability passed as the drop rate

    def forward(self, x):
        return self.linear2(self.dropout(F.relu(self.linear1(x))))
