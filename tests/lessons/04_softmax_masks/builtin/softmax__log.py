# grade: softmax
import torch


def softmax(x, dim=-1):
    return torch.log_softmax(x, dim).exp()
