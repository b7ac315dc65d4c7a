# Source: pyg-team/pytorch_geometric, torch_geometric/utils/softmax.py (commit 83b451f), softmax:
# `out = src.exp()`, then divided by its scatter_add per group, with no max subtracted; bug report
# https://github.com/pyg-team/pytorch_geometric/issues/53 ("On the use of GatConv, it produce
# 'nan' frequently ... this line doing exp straightly cause overflow, should it be better to sub
# the max beforehand"; fixed in master with scatter_max).
# Reproduced in the contract's terms: softmax(x, dim) with the group sum as a sum along dim:
# exp(x) / sum(exp(x)), which overflows to inf / inf = NaN for large scores.
# expect: softmax-unstable
# grade: softmax
def softmax(src, dim=-1):
    out = src.exp()
    out = out / out.sum(dim=dim, keepdim=True)
    return out
