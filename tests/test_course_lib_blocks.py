"""course_lib.blocks: the block matches torch's encoder layer; the tiny LM learns and decodes."""

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib import (
    FeedForward,
    KVCache,
    MultiHeadAttention,
    TinyTransformer,
    TransformerBlock,
    causal_mask,
    generate,
    toy_task_batch,
    toy_task_sequences,
)
from course_lib.data import IGNORE_INDEX


def load_encoder_layer_weights(
    ours: TransformerBlock, theirs: nn.TransformerEncoderLayer, load_mha
):
    load_mha(ours.attn, theirs.self_attn)
    ours.ff.load_state_dict(
        {
            "linear1.weight": theirs.linear1.weight,
            "linear1.bias": theirs.linear1.bias,
            "linear2.weight": theirs.linear2.weight,
            "linear2.bias": theirs.linear2.bias,
        }
    )
    ours.norm1.load_state_dict(theirs.norm1.state_dict())
    ours.norm2.load_state_dict(theirs.norm2.state_dict())


def test_feed_forward_is_linear_relu_linear(randn):
    ff = FeedForward(6, 10).double()
    x = randn(2, 3, 6)
    expected = ff.linear2(torch.relu(ff.linear1(x)))
    torch.testing.assert_close(ff(x), expected)
    assert (ff.linear1.in_features, ff.linear1.out_features) == (6, 10)
    assert ff.linear1.bias is not None and ff.linear2.bias is not None


@pytest.mark.parametrize("norm_first", [True, False], ids=["pre_ln", "post_ln"])
@pytest.mark.parametrize("masked", [False, True])
def test_transformer_block_matches_torch_encoder_layer(norm_first, masked, randn, load_mha_weights):
    theirs = nn.TransformerEncoderLayer(
        16, 4, 32, dropout=0.0, batch_first=True, norm_first=norm_first
    ).double()
    with torch.no_grad():  # make the LayerNorms non-trivial so that copying them matters
        for norm in (theirs.norm1, theirs.norm2):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.5, 0.5)
    ours = TransformerBlock(16, 4, 32, norm_first=norm_first).double()
    load_encoder_layer_weights(ours, theirs, load_mha_weights)
    theirs.eval()
    x = randn(3, 6, 16)
    mask = causal_mask(6) if masked else None
    # torch's src_mask: True = blocked (the opposite polarity).
    expected = theirs(x, src_mask=None if mask is None else ~mask)
    torch.testing.assert_close(ours(x, mask), expected)


def test_transformer_block_has_the_contract_attributes():
    block = TransformerBlock(8, 2, 16)
    assert isinstance(block.attn, MultiHeadAttention) and block.attn.w_q.bias is not None
    assert isinstance(block.ff, FeedForward)
    assert isinstance(block.norm1, nn.LayerNorm) and isinstance(block.norm2, nn.LayerNorm)
    assert block.norm_first


def test_transformer_block_runs_on_meta_in_half_precision():
    block = TransformerBlock(8, 2, 16).to(device="meta", dtype=torch.bfloat16)
    x = torch.empty(2, 5, 8, device="meta", dtype=torch.bfloat16)
    out = block(x, causal_mask(5, device="meta"))
    assert out.shape == (2, 5, 8) and out.dtype == torch.bfloat16 and out.device.type == "meta"


def tiny_model(seed=0, vocab_size=9, max_len=16):
    torch.manual_seed(seed)
    return TinyTransformer(
        vocab_size, d_model=32, num_heads=2, num_layers=2, d_ff=64, max_len=max_len
    )


def test_tiny_transformer_returns_logits_over_the_vocabulary():
    model = tiny_model()
    tokens = torch.randint(0, 9, (3, 7))
    assert model(tokens).shape == (3, 7, 9)


def test_tiny_transformer_runs_on_meta_with_the_right_shape():
    model = tiny_model().to("meta")
    logits = model(torch.zeros(2, 7, dtype=torch.long, device="meta"))
    assert logits.device.type == "meta" and logits.shape == (2, 7, 9)


def test_tiny_transformer_is_causal():
    model = tiny_model().eval()
    tokens = torch.randint(0, 9, (2, 8), generator=torch.Generator().manual_seed(0))
    changed = tokens.clone()
    changed[:, 5:] = (changed[:, 5:] + 1) % 9
    with torch.no_grad():
        torch.testing.assert_close(model(changed)[:, :5], model(tokens)[:, :5])


def test_tiny_transformer_learns_to_reverse_within_a_few_dozen_steps():
    model = tiny_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    generator = torch.Generator().manual_seed(0)
    losses = []
    for _ in range(40):
        inputs, targets = toy_task_batch("reverse", 64, length=5, generator=generator)
        logits = model(inputs)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=IGNORE_INDEX)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    first, last = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert first > 1.5  # near log(8): guessing among 8 symbols
    assert last < 0.1 * first, f"loss went from {first:.2f} to only {last:.2f}"

    puzzles = toy_task_sequences("reverse", 100, length=5, generator=generator)  # (B, 11)
    answers = generate(model.eval(), puzzles[:, :6], max_new_tokens=5)[:, 6:]
    accuracy = (answers == puzzles[:, 6:]).all(dim=1).float().mean().item()
    assert accuracy >= 0.9, f"only {accuracy:.0%} of the held-out sequences reversed exactly"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kv_cached_greedy_decoding_equals_uncached(seed):
    model = tiny_model(seed, max_len=24).eval()
    prompt = torch.randint(0, 9, (4, 5), generator=torch.Generator().manual_seed(seed))
    cached = generate(model, prompt, max_new_tokens=12, cache=True)
    uncached = generate(model, prompt, max_new_tokens=12, cache=False)
    assert cached.shape == (4, 17)
    assert torch.equal(cached[:, :5], prompt)
    assert torch.equal(cached, uncached)


def test_cached_logits_equal_full_sequence_logits():
    model = tiny_model().eval()
    tokens = torch.randint(0, 9, (2, 9), generator=torch.Generator().manual_seed(0))
    caches = [KVCache() for _ in model.blocks]
    with torch.no_grad():
        full = model(tokens)
        pieces = [
            model(tokens[:, :4], caches),
            model(tokens[:, 4:5], caches),
            model(tokens[:, 5:], caches),
        ]
    torch.testing.assert_close(torch.cat(pieces, dim=1), full)
    assert len(caches[0]) == 9


def test_generation_beyond_max_len_raises_value_error():
    model = tiny_model(max_len=8).eval()
    with pytest.raises(ValueError):
        generate(model, torch.zeros(1, 4, dtype=torch.long), max_new_tokens=6)
