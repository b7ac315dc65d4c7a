# grade: project_qkv


def project_qkv(x, w_q, w_k, w_v):
    return w_q @ x, w_k @ x, w_v @ x
