"""The greedy-kv drill's probe: run in the sandbox after the candidate's code, it notes how many
tokens each ``decode_step`` call processes; the judge reads that note back, as plain ints only."""

from __future__ import annotations

from autograder.drill.extra.judging import fail
from autograder.i18n import _

# Run in the sandbox after the candidate's code (the drill's probe): decode_step, wrapped, notes
# how many tokens each call processes; nothing else changes. It replaces the function's own code,
# so a reference kept earlier (`_raw_step = decode_step`) is counted too (red team round 10).
PROBE = """
def _drill_probe(step, log):
    def _count(args, kwargs):
        given = list(args[1:2]) + [v for k, v in kwargs.items() if k != "cache"]
        sizes = [int(t.shape[1]) for t in given if hasattr(t, "shape") and t.dim() == 2]
        log.append(sizes[0] if sizes else -1)

    def decode_step(*args, _drill_probe_of=None, **kwargs):
        original, count = _drill_probe_of
        count(args, kwargs)
        return original(*args, **kwargs)

    try:
        import types
        original = types.FunctionType(step.__code__, step.__globals__, step.__name__,
                                      step.__defaults__, step.__closure__)
        original.__kwdefaults__ = step.__kwdefaults__
        if step.__closure__:
            raise ValueError("a closure: the code cannot be replaced")
        step.__code__ = decode_step.__code__
        step.__kwdefaults__ = {"_drill_probe_of": (original, _count)}
        return step
    except (AttributeError, TypeError, ValueError):  # not a plain function: the name is rebound
        def wrapped(*args, **kwargs):
            _count(args, kwargs)
            return step(*args, **kwargs)
        return wrapped
if callable(globals().get("decode_step")):
    _drill_decode_steps = []
    decode_step = _drill_probe(decode_step, _drill_decode_steps)
"""


MAX_LOGGED = 1000  # decode_step calls the probe may have noted (the checks make a few dozen)


def decode_log(sub, c) -> list[int]:
    """The probe's note of the tokens each decode_step call processed: a list of small ints, or
    the candidate's code rebound the name, which fails the check before the judge does anything
    with it (red team round 26: three tensors there, summed here, broadcast to 1024³ floats)."""
    log = sub.get("_drill_decode_steps")
    if log is None:
        return []
    if (
        type(log) is not list
        or len(log) > MAX_LOGGED
        or any(type(n) is not int or not -1 <= n <= 2**20 for n in log)
    ):
        raise fail(
            _(
                "{call}: _drill_decode_steps is the drill's note of the decode_step calls, and "
                "it holds something its probe did not write: leave that name to the drill."
            ).format(call=c),
            "kv-cache-not-used",
        )
    return log


def expect_cache_used(sub, c, before: int, prompt_len: int, n: int) -> None:
    """Behaviour, not the tokens: after the prompt, each decode_step call processes one token."""
    steps = decode_log(sub, c)[before:]
    if not steps:
        raise fail(
            _("{call} never called decode_step: decode with it and its cache.").format(call=c),
            "kv-cache-not-used",
        )
    if sum(steps) > prompt_len + n:
        raise fail(
            _(
                "{call} gave decode_step {steps} tokens in its {n} calls: after the prompt "
                "({prompt} tokens) each call should process only the new token, with the cache "
                "of the ones before."
            ).format(call=c, steps=", ".join(map(str, steps)), n=len(steps), prompt=prompt_len),
            "kv-cache-not-used",
        )
