# grade: project_qkv


def project_qkv(x, w_q, w_k, w_v):
    return (w_q.T @ x.T).T, (w_k.T @ x.T).T, (w_v.T @ x.T).T
