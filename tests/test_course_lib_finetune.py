"""course_lib.finetune: LoRA adapters start as the identity update, train alone, and merge."""

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from course_lib.blocks import TinyTransformer
from course_lib.data import toy_task_batch
from course_lib.finetune import LoRALinear, add_lora, count_parameters


def tiny_model(seed: int = 0) -> TinyTransformer:
    torch.manual_seed(seed)
    return TinyTransformer(vocab_size=7, d_model=16, num_heads=2, num_layers=2, d_ff=32, max_len=12)


def scramble(lora: LoRALinear, seed: int) -> None:
    """Give B non-zero values, as training would."""
    with torch.no_grad():
        lora.lora_b.copy_(
            torch.randn(lora.lora_b.shape, generator=torch.Generator().manual_seed(seed))
        )


@settings(max_examples=25, deadline=None)
@given(
    in_features=st.integers(1, 12),
    out_features=st.integers(1, 12),
    r=st.integers(1, 6),
    bias=st.booleans(),
    lead=st.lists(st.integers(1, 3), max_size=2),
)
def test_lora_linear_equals_its_base_at_initialisation_for_any_shape(
    in_features, out_features, r, bias, lead
):
    base = nn.Linear(in_features, out_features, bias=bias).double()
    lora = LoRALinear(base, r=r)
    x = torch.randn(*lead, in_features, dtype=torch.float64)
    assert lora.lora_a.shape == (r, in_features) and lora.lora_b.shape == (out_features, r)
    assert torch.equal(lora(x), base(x))  # B = 0: the update is exactly zero
    assert lora.lora_a.abs().sum() > 0, "A is random, or B would get no gradient either"


def test_lora_linear_adds_the_scaled_low_rank_update():
    base = nn.Linear(5, 4).double()
    lora = LoRALinear(base, r=2, alpha=6.0)
    scramble(lora, 1)
    x = torch.randn(3, 5, dtype=torch.float64)
    expected = base(x) + 3.0 * x @ (lora.lora_b @ lora.lora_a).T  # alpha / r = 3
    assert lora.scaling == 3.0
    torch.testing.assert_close(lora(x), expected)


def test_only_the_adapters_get_gradients_and_the_frozen_base_is_untouched():
    base = nn.Linear(6, 6)
    before = {k: v.clone() for k, v in base.state_dict().items()}
    lora = LoRALinear(base, r=2)
    optimizer = torch.optim.SGD([p for p in lora.parameters() if p.requires_grad], lr=0.1)
    for _ in range(3):
        loss = lora(torch.randn(4, 6)).square().sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert base.weight.grad is None and base.bias.grad is None
    assert lora.lora_a.grad is not None and lora.lora_b.grad is not None
    assert lora.lora_b.abs().sum() > 0, "B moved away from zero"
    for key, value in base.state_dict().items():
        assert torch.equal(value, before[key]), f"the frozen {key} changed"


def test_merged_layer_computes_what_the_adapted_layer_computes():
    for bias in (True, False):
        lora = LoRALinear(nn.Linear(5, 3, bias=bias).double(), r=2, alpha=4.0)
        scramble(lora, 2)
        merged = lora.merged()
        assert isinstance(merged, nn.Linear) and (merged.bias is not None) == bias
        assert merged.weight.dtype == torch.float64
        x = torch.randn(2, 5, dtype=torch.float64)
        torch.testing.assert_close(merged(x), lora(x))


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="adapts an nn.Linear"):
        LoRALinear(nn.Conv1d(2, 2, 1))
    for r in (0, -1, 2.5):
        with pytest.raises(ValueError, match="rank r must be a positive int"):
            LoRALinear(nn.Linear(2, 2), r=r)


def test_add_lora_adapts_w_q_and_w_v_of_every_layer_and_freezes_the_rest():
    model = tiny_model()
    total_before = count_parameters(model)[1]
    paths = add_lora(model, r=4)
    assert paths == [f"blocks.{i}.attn.{n}" for i in range(2) for n in ("w_q", "w_v")]
    trainable, total = count_parameters(model)
    assert trainable == 4 * 4 * (16 + 16), "four adapters of r * (in + out)"
    assert total == total_before + trainable
    named = {n for n, p in model.named_parameters() if p.requires_grad}
    assert named and all(n.endswith(("lora_a", "lora_b")) for n in named)
    assert isinstance(model.blocks[0].attn.w_k, nn.Linear)  # not in names: left alone


def test_the_adapted_model_starts_as_the_base_and_trains_without_changing_it():
    model = tiny_model()
    tokens, targets = toy_task_batch("reverse", 8, length=5, num_symbols=6)
    with torch.no_grad():
        before = model(tokens)
    frozen = {k: v.clone() for k, v in model.state_dict().items()}
    add_lora(model, r=2)
    with torch.no_grad():
        assert torch.equal(model(tokens), before), "at initialisation, adapted == base"
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(5):
        loss = F.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for name, p in model.named_parameters():
        assert (p.grad is not None) == p.requires_grad, name
    with torch.no_grad():
        assert not torch.allclose(model(tokens), before), "the adapters learned something"
    state = {k.replace(".base.", "."): v for k, v in model.state_dict().items() if "lora_" not in k}
    assert state.keys() == frozen.keys()
    for key, value in frozen.items():
        assert torch.equal(state[key], value), f"the frozen {key} changed"


def test_add_lora_names_the_linear_layers_when_none_matches():
    model = nn.Sequential(nn.Linear(2, 2))
    with pytest.raises(ValueError, match=r"named \['0'\]"):
        add_lora(model, names=("w_q",))


def test_count_parameters_counts_trainable_and_total():
    layer = nn.Linear(3, 2)  # 6 weights, 2 biases
    assert count_parameters(layer) == (8, 8)
    layer.bias.requires_grad_(False)
    assert count_parameters(layer) == (6, 8)
