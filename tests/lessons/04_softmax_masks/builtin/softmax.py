# grade: softmax
import torch.nn.functional as F


def softmax(x, dim=-1):
    return F.softmax(x, dim=dim)
