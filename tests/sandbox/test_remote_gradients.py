"""The sandbox's one ``gradients`` helper serves both callers: the drills compare its gradients
with float64 ones, the course's checks read which inputs and parameters got none."""

import torch

from autograder.sandbox.inside.remote import gradients


def test_gradients_are_those_of_the_weighted_output_of_the_chosen_item():
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
    weights = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
    got = gradients(lambda a, scale: (a * scale, a), (x,), {"scale": 2}, weights, 0)
    assert got["output_has_grad"]
    assert torch.allclose(got["args"][0], 2 * weights)
    assert got["kwargs"] == {"scale": None} and got["params"] == {}


def test_a_parameter_cut_from_the_graph_gets_none_and_grads_are_cleared_after():
    lin, cut = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
    model = torch.nn.ModuleDict({"lin": lin, "cut": cut})
    model.forward = lambda x: lin(x) + cut(x).detach()
    x = torch.randn(2, 4)
    got = gradients(model, (x,), {})
    assert got["output_has_grad"] and got["args"][0] is not None
    assert got["params"]["lin.weight"] is not None and got["params"]["cut.weight"] is None
    assert all(p.grad is None for p in model.parameters())


def test_an_output_without_a_gradient_path_is_said_and_nothing_raises():
    def frozen(x, positions):
        with torch.no_grad():
            return x * 2

    got = gradients(frozen, (torch.randn(2, 3), torch.arange(3)), {})
    assert not got["output_has_grad"]
    assert got["args"] == [None, None]
