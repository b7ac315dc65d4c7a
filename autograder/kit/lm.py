"""A language model must use attention: a task the current token and its position cannot solve,
and blocks that see the order of the earlier tokens."""

from __future__ import annotations

import torch

from autograder.i18n import _
from autograder.kit.calling import Call, fail
from autograder.kit.compare import expect_tensor
from autograder.kit.modules import construct
from autograder.kit.text import fmt_num

COPY_BACK = 3  # the token to predict is the one 3 positions back
# With every block's attn.w_o at zero, the share of copies a model may still get. Measured
# (150 steps): the course's model and every correct style and real-world model fall from 49-99%
# to 8-10% (chance, 1/V = 9%); models that copy by a running mean beside blocks whose attention
# sees no earlier token keep 43-48%.
ABLATED_MAX = 0.2


def _periodic(g, n, length, vocab):
    """n sequences of COPY_BACK random tokens repeated: each later token is the one COPY_BACK
    back, which only attention to earlier positions can find (its predecessor says nothing)."""
    start = torch.randint(0, vocab, (n, COPY_BACK), generator=g)
    return start.repeat(1, -(-length // COPY_BACK))[:, :length]


def _copy_accuracy(obj, label, test, vocab) -> float:
    """The share of ``test``'s repeated tokens (each the one COPY_BACK back) that the model's
    logits predict, judged here from the logits it returns."""
    c = Call(label, test, params="lm.forward")
    logits = expect_tensor(c.run(obj, devices=False), c, shape=(*test.shape, vocab), what="logits")
    hits = logits.argmax(-1)[:, COPY_BACK - 1 : -1] == test[:, COPY_BACK:]
    return float(hits.double().mean())


def expect_copies(sub, g, args) -> None:
    """The model must use attention: trained on sequences where each token repeats the one
    COPY_BACK positions back, it must predict new such sequences. A model of the current token
    and its position alone (a bigram table plus positions, no attention) stays near chance, 1/V
    (measured: 6-10%, against 85-97% for the course's model and 34-56% for one with sinusoidal
    positions, 150 AdamW steps).

    Then, on the trained model, an ablation: the model must be num_layers TransformerBlocks that
    forward calls, and with every block's attention output projection (attn.w_o) at zero it must
    lose the task. A model that mixes the earlier tokens another way (a cumulative mean, beside
    or instead of its blocks) keeps it (``ABLATED_MAX``). Accuracies are judged here, from the
    logits the model returns; the ablation and the count of block calls are sandbox helpers."""
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
    calls = obj.apply("block_calls", test[:2])
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
    obj.apply("ablate_attention")
    ablated = _copy_accuracy(obj, label, test, vocab)
    if ablated > ABLATED_MAX:
        raise fail(
            _(
                "{model} predicts {accuracy:.0%} of the repeated tokens, and still {ablated:.0%} "
                "with every block's attn.w_o set to zero (chance is {chance:.0%}): it finds the "
                "earlier token without its blocks' attention."
            ).format(model=label, accuracy=accuracy, ablated=ablated, chance=1 / vocab),
            "lm-ignores-attention",
        )


def expect_order_seen(sub, args, tokens) -> None:
    """One layer of causal attention without positions sees the earlier tokens as a set:
    swapping two of them leaves the later logits unchanged. Positions that go into the blocks
    make the order count. (With two layers the causal mask itself tells positions 0 and 1 apart.)"""
    obj, label = construct(sub, "TinyTransformer", *args)
    obj.eval()
    c = Call(label + ".eval()", tokens, params="lm.forward")
    logits = expect_tensor(c.run(obj, devices=False), c, shape=(*tokens.shape, args[0]))
    keep = tokens[:, 0] != tokens[:, 1]
    if not bool(keep.any()):
        return

    def later_logits_change(changed) -> bool:
        c = Call(label, changed, params="lm.forward")
        other = expect_tensor(c.run(obj, devices=False), c, shape=logits.shape, what="logits")
        return float((other[keep, 2:] - logits[keep, 2:]).abs().max()) >= 1e-5

    other_first = tokens.clone()
    other_first[:, 0] = (tokens[:, 0] + 1) % args[0]
    if not later_logits_change(other_first):
        return  # blind to the earlier tokens altogether: the copy task names that
    swapped = tokens.clone()
    swapped[:, [0, 1]] = tokens[:, [1, 0]]
    c = Call(label, swapped, params="lm.forward")
    if not later_logits_change(swapped):
        raise fail(
            _(
                "{call}: swapping the first two tokens left the logits at positions 2-6 "
                "unchanged: the blocks see the earlier tokens without their order."
            ).format(call=c),
            "positions-after-blocks",
        )
