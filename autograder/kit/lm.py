"""A language model must use attention: a task the current token and its position cannot solve,
and blocks that see the order of the earlier tokens."""

from __future__ import annotations

import math
import random
import re

import torch

from autograder.i18n import _, enumeration
from autograder.kit.calling import Call, fail
from autograder.kit.compare import expect_tensor
from autograder.kit.gradients import missing_gradients
from autograder.kit.inputs import generator, randn
from autograder.kit.modules import construct
from autograder.kit.repeat import paused
from autograder.kit.text import fmt_num
from autograder.sandbox.host.replies import LearnerError

COPY_BACK = 3  # the token to predict is the one 3 positions back
# The ablation: every block's attn.w_v or attn.w_o weight (which, drawn per run) multiplied by a
# factor drawn per run from ABLATION_SCALE: attention then carries that much of what it carried
# between positions, and in the GPT-2 layout it is the only path between them. ABLATED_MAX bounds
# how much the later logits may still move when the first tokens change, as a share of how much
# they moved before. Measured (150 steps): the course's model, every correct style and the
# real-world models keep 0.03-0.19% (1.2-3.8 times the scale), a path beside real blocks (a
# causal running mean into the residual stream) keeps 65-88%.
ABLATION_SCALE = (1e-4, 1e-3)
ABLATED_MAX = 0.05


def construct_lm(sub, *args) -> tuple:
    """``construct(sub, "TinyTransformer", *args)``, with every parameter of two or more dims
    that starts all zero given small random values (GPT-2's 0.02): a table that training fills
    in from zero, as minGPT's first ``pos_emb = nn.Parameter(torch.zeros(1, block_size,
    n_embd))``, is judged as learned positions, not as none."""
    obj, label = construct(sub, "TinyTransformer", *args)
    try:
        names = obj.apply("describe").get("parameters", {})
        state = dict(obj.method("state_dict"))
        g = generator(132)
        zero = {
            n: 0.02 * randn(g, *t.shape)
            for n, t in state.items()
            if n in names
            and isinstance(t, torch.Tensor)
            and t.is_floating_point()
            and t.dim() >= 2
            and not bool(t.any())
        }
        if zero:
            obj.apply("load_state_dict", state | zero)
    except (LearnerError, AttributeError, TypeError):  # judged as it is by what comes next
        pass
    return obj, label


def _periodic(g, n, length, vocab):
    """n sequences of COPY_BACK random tokens repeated: each later token is the one COPY_BACK
    back, which only attention to earlier positions can find (its predecessor says nothing)."""
    start = torch.randint(0, vocab, (n, COPY_BACK), generator=g)
    return start.repeat(1, -(-length // COPY_BACK))[:, :length]


def _copy_accuracy(obj, label, test, vocab) -> float:
    """The share of ``test``'s repeated tokens (each the one COPY_BACK back) that the model's
    logits predict, judged here from the logits it returns."""
    c = Call(label, test, params="lm.forward")
    logits = expect_tensor(
        c.run(obj, devices=False), c, shape=(*test.shape, vocab), what="the logits"
    )
    hits = logits.argmax(-1)[:, COPY_BACK - 1 : -1] == test[:, COPY_BACK:]
    return float(hits.double().mean())


def expect_copies(sub, g, args) -> None:
    """The model must use attention: trained on sequences where each token repeats the one
    COPY_BACK positions back, it must predict new such sequences. A model of the current token
    and its position alone (a bigram table plus positions, no attention) stays near chance, 1/V
    (measured: 6-10%, against 85-97% for the course's model and 34-56% for one with sinusoidal
    positions, 150 AdamW steps).

    Then, on the trained model, an ablation: the model must be num_layers TransformerBlocks that
    forward calls, and with every block's attention made a thousand-odd times weaker its later
    logits must (almost) stop depending on the earlier tokens (``ABLATED_MAX``): a model that
    mixes the earlier tokens another way (a cumulative mean, beside or instead of its blocks)
    keeps that dependence. The logits are judged here; the ablation (scale and layer drawn here,
    per run) and the count of block calls are sandbox helpers."""
    vocab, layers, max_len = args[0], args[3], args[-1]
    obj, label = construct(sub, "TinyTransformer", *args)
    losses = obj.apply("fit", _periodic(g, 64, max_len, vocab), 150, 1e-2)
    obj.eval()
    test = _periodic(g, 64, max_len, vocab)
    accuracy = _copy_accuracy(obj, label, test, vocab)
    if accuracy < 0.25:  # chance is 1/V = 9%; course models reach 34-97%
        shown = " → ".join(fmt_num(v) for v in (losses[:1] + losses[-1:])) if losses else "?"
        raise fail(
            _(
                "{model}, trained 150 steps on sequences where each token repeats the one "
                "{back} positions back (loss {loss}), predicts {accuracy:.0%} of such new "
                "sequences' repeated tokens; attention to earlier tokens gets most of them."
            ).format(model=label, back=COPY_BACK, loss=shown, accuracy=accuracy),
            "lm-ignores-context",
        )
    _expect_built_from_blocks(obj, label, test[:2], layers)
    changed = test.clone()  # every one of the first COPY_BACK tokens replaced by another
    changed[:, :COPY_BACK] += torch.randint(1, vocab, (len(test), COPY_BACK), generator=g)
    changed[:, :COPY_BACK] %= vocab
    before = _logits(obj, label, (test, changed), vocab)
    chance = random.SystemRandom()  # a draw the learner's code cannot know ahead
    layer = chance.choice(("w_v", "w_o"))
    scale = math.exp(chance.uniform(*(math.log(b) for b in ABLATION_SCALE)))
    obj.apply("ablate_attention", layer, scale)
    after = _logits(obj, label, (test, changed), vocab)
    reach, ablated = (float((b - a)[:, COPY_BACK:].abs().max()) for a, b in (before, after))
    if ablated > ABLATED_MAX * reach:
        raise fail(
            _(
                "{model}: with every block's attention made {weaker:.0f} times weaker "
                "(attn.{layer} scaled), changing the first {n} tokens still moves the later "
                "logits by up to {ablated}, {share:.0%} of the {reach} before: the model finds "
                "earlier tokens without its blocks' attention."
            ).format(
                model=label,
                weaker=1 / scale,
                layer=layer,
                n=COPY_BACK,
                ablated=fmt_num(ablated),
                share=ablated / max(reach, 1e-12),
                reach=fmt_num(reach),
            ),
            "lm-ignores-attention",
        )


def expect_self_seen(sub, args, tokens) -> None:
    """Each token attends to itself: position 1 sees keys 0 and 1, so its attention weights
    depend on the queries, and scaling every block's attn.w_q moves its logits. A causal mask
    that hides each token from itself leaves position 1 one key (weight 1 whatever the query;
    position 0 none, or itself where the mask lets it): its logits do not move, later ones do."""
    obj, label = construct_lm(sub, *args)
    obj.eval()
    before = _logits(obj, label, (tokens,), args[0])[0]
    obj.apply("ablate_attention", "w_q", 3.0)  # sandbox/inside/remote.py
    with paused():  # the same call on changed weights: no state kept between calls
        moved = (_logits(obj, label, (tokens,), args[0])[0] - before).abs().amax((0, 2))
    if float(moved[1]) == 0 and float(moved[2:].max()) > 0:
        raise fail(
            _(
                "{model}: scaling every block's attn.w_q leaves the logits at position 1 exactly "
                "as they were: position 1 attends to one key only, so the causal mask hides each "
                "token from itself (causal_mask(L): j <= i)."
            ).format(model=label),
            "causal-off-by-one",
        )


def _expect_built_from_blocks(obj, label, tokens, layers) -> None:
    """The model must be num_layers TransformerBlocks that forward calls (counted in the
    sandbox, on ``tokens``)."""
    calls = obj.apply("block_calls", tokens)
    used = [name for name, n in calls.items() if n]
    if len(calls) != layers or len(used) != layers:
        raise fail(
            _(
                "{model} with num_layers={layers} has {blocks} TransformerBlock(s) (a block "
                "has attn.w_o), {used} of them called by forward: the model must run its "
                "tokens through num_layers of the lesson's TransformerBlocks."
            ).format(model=label, layers=layers, blocks=len(calls), used=len(used)),
            "lm-not-built-from-blocks",
        )


def _logits(obj, label, batches, vocab) -> list[torch.Tensor]:
    """The model's logits for each batch of tokens."""
    out = []
    for t in batches:
        c = Call(label, t, params="lm.forward")
        out.append(expect_tensor(c.run(obj, devices=False), c, shape=(*t.shape, vocab)))
    return out


def expect_order_seen(sub, args, tokens) -> None:
    """One layer of causal attention without positions sees the earlier tokens as a set:
    swapping two of them leaves the later logits unchanged. Positions that go into the blocks
    make the order count. (With two layers the causal mask itself tells positions 0 and 1 apart.)"""
    obj, label = construct_lm(sub, *args)
    obj.eval()
    c = Call(label + ".eval()", tokens, params="lm.forward")
    logits = expect_tensor(c.run(obj, devices=False), c, shape=(*tokens.shape, args[0]))
    keep = tokens[:, 0] != tokens[:, 1]
    if not bool(keep.any()):
        return

    def later_logits_change(changed) -> bool:
        c = Call(label, changed, params="lm.forward")
        other = expect_tensor(c.run(obj, devices=False), c, shape=logits.shape, what="the logits")
        return float((other[keep, 2:] - logits[keep, 2:]).abs().max()) >= 1e-5

    other_first = tokens.clone()
    other_first[:, 0] = (tokens[:, 0] + 1) % args[0]
    if not later_logits_change(other_first):
        return  # blind to the earlier tokens altogether: the copy task names that
    swapped = tokens.clone()
    swapped[:, [0, 1]] = tokens[:, [1, 0]]
    c = Call(label, swapped, params="lm.forward")
    if not later_logits_change(swapped):  # blocks never called mix no order either (trial 49)
        _expect_built_from_blocks(obj, label, tokens, args[3])
        raise fail(
            _(
                "{call}: swapping the first two tokens left the logits at positions 2-6 "
                "unchanged: the blocks see the earlier tokens without their order."
            ).format(call=c),
            "positions-after-blocks",
        )


def expect_scores_used(obj, c) -> None:
    """Attention weighs the values by softmax(q kᵀ / √d): when a gradient reaches nothing but the
    attn.w_q and attn.w_k layers, its weights do not depend on the queries and keys at all."""
    missing = [str(n) for n in missing_gradients(obj, c)]
    if missing and all(re.search(r"(^|\.)attn\.w_[qk]\.", n) for n in missing):
        raise fail(
            _(
                "{call}: no gradient reaches {names}: the attention's weights do not depend on "
                "its queries and keys, or are made where no gradient is kept (torch.no_grad(), "
                ".detach()); they must be softmax(q kᵀ / √d_head), differentiable."
            ).format(call=c, names=enumeration(missing[:2])),
            "attention-ignores-scores",
        )
