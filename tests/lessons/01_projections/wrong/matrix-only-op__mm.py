# grade: project_qkv
import torch


def project_qkv(x, w_q, w_k, w_v):
    return torch.mm(x, w_q), torch.mm(x, w_k), torch.mm(x, w_v)
