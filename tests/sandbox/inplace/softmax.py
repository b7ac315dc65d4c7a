# grade: softmax
def softmax(x, dim=-1):
    e = x.sub_(x.amax(dim=dim, keepdim=True)).exp_()
    return e / e.sum(dim=dim, keepdim=True)
