# grade: softmax
def softmax(x, dim=-1):
    return x.softmax(dim)
