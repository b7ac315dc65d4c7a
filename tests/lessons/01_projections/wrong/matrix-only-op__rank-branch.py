# grade: project_qkv
# torch.mm for (L, d_model), torch.bmm for a batch: x with two leading dims has no branch.
import torch


def project_qkv(x, w_q, w_k, w_v):
    if x.dim() == 2:
        return torch.mm(x, w_q), torch.mm(x, w_k), torch.mm(x, w_v)
    return tuple(torch.bmm(x, w.expand(x.shape[0], *w.shape)) for w in (w_q, w_k, w_v))
