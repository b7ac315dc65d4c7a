"""A language model must use attention: a task the current token and its position cannot solve."""

from __future__ import annotations

import torch

from autograder.kit.calling import Call, fail
from autograder.kit.compare import expect_tensor
from autograder.kit.modules import construct
from autograder.kit.text import fmt_num

COPY_BACK = 3  # the token to predict is the one 3 positions back


def _periodic(g, n, length, vocab):
    """n sequences of COPY_BACK random tokens repeated: each later token is the one COPY_BACK
    back, which only attention to earlier positions can find (its predecessor says nothing)."""
    start = torch.randint(0, vocab, (n, COPY_BACK), generator=g)
    return start.repeat(1, -(-length // COPY_BACK))[:, :length]


def expect_copies(sub, g, args) -> None:
    """The model must use attention: trained on sequences where each token repeats the one
    COPY_BACK positions back, it must predict new such sequences. A model of the current token
    and its position alone (a bigram table plus positions, no attention) stays near chance, 1/V
    (measured: 6-10%, against 85-97% for the course's model and 34-56% for one with sinusoidal
    positions, 150 AdamW steps)."""
    vocab, max_len = args[0], args[-1]
    obj, label = construct(sub, "TinyTransformer", *args)
    losses = obj.apply("fit", _periodic(g, 64, max_len, vocab), 150, 1e-2)
    obj.eval()
    test = _periodic(g, 64, max_len, vocab)
    c = Call(label, test, params="lm.forward")
    logits = expect_tensor(c.run(obj, devices=False), c, shape=(64, max_len, vocab), what="logits")
    hits = logits.argmax(-1)[:, COPY_BACK - 1 : -1] == test[:, COPY_BACK:]
    accuracy = float(hits.double().mean())
    if accuracy < 0.25:  # chance is 1/V = 9%; course models reach 34-97%
        shown = " → ".join(fmt_num(v) for v in (losses[:1] + losses[-1:])) if losses else "?"
        raise fail(
            f"{label}, trained 150 steps on sequences where each token repeats the one "
            f"{COPY_BACK} positions back (loss {shown}), predicts {accuracy:.0%} of such new "
            f"sequences' repeated tokens; attention to earlier tokens gets most of them.",
            "lm-ignores-context",
        )
