"""course_lib.op_count: counts matrix products and the longest chain of dependent ones."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.op_count import CountMatrixProducts


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 12))
def test_a_chain_of_dependent_products_is_as_long_as_it_has_products(n):
    x, w = torch.randn(2, 3), torch.randn(3, 3)
    with CountMatrixProducts() as counter:
        for _ in range(n):
            x = torch.tanh(x @ w)  # each product needs the one before
    assert (counter.count, counter.chain) == (n, n)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 12))
def test_independent_products_count_but_do_not_chain(n):
    x, w = torch.randn(2, 3), torch.randn(3, 3)
    with CountMatrixProducts() as counter:
        outs = [torch.matmul(x + i, w) for i in range(n)]  # none needs another's result
    assert len(outs) == n
    assert (counter.count, counter.chain) == (n, 1)


def test_every_product_spelling_is_counted_and_elementwise_ops_are_not():
    a, b = torch.randn(2, 3, 3), torch.randn(2, 3, 3)
    with CountMatrixProducts() as counter:
        y = torch.bmm(a, b)  # 1
        y = torch.nn.functional.linear(y, b[0])  # 2
        y = torch.einsum("bij,bjk->bik", y, b)  # 3
        y = (y.exp() + 1).sum()  # no product
    assert torch.isfinite(y)
    assert (counter.count, counter.chain) == (3, 3)


def test_nothing_is_counted_outside_the_block():
    x = torch.randn(3, 3)
    with CountMatrixProducts() as counter:
        pass
    _ = x @ x
    assert (counter.count, counter.chain) == (0, 0)
