"""The drills beyond the course's exercises (``autograder/drill/extra``): every model answer
passes its checks, real code written as public projects write it passes, every mistake the checks
know is caught and named (each a learner-style edit of the model answer), and the references
agree with torch's own modules."""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F

from autograder.drill import extra
from autograder.drill.extra import grading, references
from autograder.drill.extra.mistakes import MISTAKES as OWN
from autograder.mistakes import MISTAKES as COURSE

HEAD = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def answer(name: str) -> str:
    return HEAD + "\n\n".join(extra.source_of(o) for o in extra.BY_NAME[name].answer)


def judged(tmp_path, name: str, source: str):
    path = tmp_path / f"drill_{name}.py"
    path.write_text(f"# drill: {name}\n" + source)
    return grading.judge(path, extra.BY_NAME[name])


def test_at_least_15_new_drills_with_5_find_the_bug():
    assert len(extra.DRILLS) >= 15
    bugs = [d for d in extra.DRILLS if d.bug]
    assert len(bugs) >= 5
    for d in extra.DRILLS:
        assert d.statement and d.interface and d.hints and d.explanation and d.stubs, d.name
        compile(HEAD + d.stubs, d.name, "exec")


def test_own_mistake_ids_are_new_kebab_case_with_title_and_hint():
    assert not set(OWN) & set(COURSE)
    for m in OWN.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.id), m.id
        assert m.title and not m.title.endswith(".") and m.hint.endswith("."), m.id


@pytest.mark.parametrize("name", [d.name for d in extra.DRILLS if d.checks])
def test_the_model_answer_passes(tmp_path, name):
    results = judged(tmp_path, name, answer(name))
    assert [r.passed for r in results] == [True] * len(results), grading.human(name, results)


# (drill, mistake id, text of the model answer, what a learner wrote instead: everywhere)
MUTATIONS = [
    (
        "gqa",
        "gqa-kv-heads-tiled",
        "repeat_interleave(self.h // self.g, dim=1)",
        "repeat(1, self.h // self.g, 1, 1)",
    ),
    ("gqa", "scaled-by-d-model", "math.sqrt(q.size(-1))", "math.sqrt(q.size(-1) * q.size(1))"),
    ("gqa", "mask-polarity-inverted", "masked_fill(~mask", "masked_fill(mask"),
    (
        "gqa",
        "missing-output-projection",
        "return self.w_o(out.transpose(1, 2).reshape(B, L, -1))",
        "return out.transpose(1, 2).reshape(B, L, -1)",
    ),
    ("mqa", "scaled-by-d-model", "math.sqrt(q.size(-1))", "math.sqrt(q.size(-1) * q.size(1))"),
    (
        "cross-attention",
        "cross-attention-kv-from-queries",
        "return super().forward(x, memory, mask)",
        "return super().forward(x, x, mask)",
    ),
    (
        "cross-attention",
        "memory-mask-ignored",
        "return super().forward(x, memory, mask)",
        "return super().forward(x, memory, None)",
    ),
    (
        "cross-attention",
        "memory-mask-on-queries",
        "memory_mask[:, None, None, :]",
        "memory_mask[:, None, :, None]",
    ),
    ("cross-attention", "mask-polarity-inverted", "masked_fill(~mask", "masked_fill(mask"),
    (
        "decoder-block",
        "decoder-self-attention-not-causal",
        "x = x + self.self_attn(h, h, causal)",
        "x = x + self.self_attn(h, h, None)",
    ),
    (
        "decoder-block",
        "cross-attention-kv-from-queries",
        "self.cross_attn(self.norm2(x), memory, memory_mask)",
        "self.cross_attn(self.norm2(x), self.norm2(x), None)",
    ),
    (
        "decoder-block",
        "memory-mask-ignored",
        "self.cross_attn(self.norm2(x), memory, memory_mask)",
        "self.cross_attn(self.norm2(x), memory, None)",
    ),
    (
        "alibi",
        "alibi-sign-flipped",
        "return -slopes[:, None, None] * distance",
        "return slopes[:, None, None] * distance",
    ),
    (
        "alibi",
        "alibi-slopes-reversed",
        "slopes = torch.tensor(alibi_slopes(num_heads))",
        "slopes = torch.tensor(alibi_slopes(num_heads)[::-1])",
    ),
    ("alibi", "alibi-slopes-off-by-one", "start ** (i + 1)", "start ** i"),
    ("alibi", "alibi-slopes-not-interleaved", "if math.log2(num_heads).is_integer():", "if True:"),
    (
        "rmsnorm",
        "rmsnorm-subtracts-mean",
        "normed = x32 *",
        "x32 = x32 - x32.mean(-1, keepdim=True)\n        normed = x32 *",
    ),
    (
        "rmsnorm",
        "norm-eps-outside-sqrt",
        "torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)",
        "1 / (x32.pow(2).mean(-1, keepdim=True).sqrt() + self.eps)",
    ),
    (
        "rmsnorm",
        "norm-weight-ignored",
        "return normed.to(x.dtype) * self.weight",
        "return normed.to(x.dtype)",
    ),
    (
        "rmsnorm",
        "rmsnorm-root-of-sum",
        "x32.pow(2).mean(-1, keepdim=True)",
        "x32.pow(2).sum(-1, keepdim=True)",
    ),
    (
        "rmsnorm",
        "norm-over-wrong-dim",
        "x32.pow(2).mean(-1, keepdim=True)",
        "x32.pow(2).mean(-2, keepdim=True)",
    ),
    ("layernorm", "layernorm-unbiased-variance", "unbiased=False", "unbiased=True"),
    (
        "layernorm",
        "norm-eps-outside-sqrt",
        "torch.sqrt(var + self.eps)",
        "(torch.sqrt(var) + self.eps)",
    ),
    ("layernorm", "layernorm-bias-ignored", " * self.weight + self.bias", " * self.weight"),
    ("layernorm", "layernorm-no-centring", "return (x - mean) /", "return x /"),
    (
        "lm-loss",
        "lm-loss-not-shifted",
        "shift_targets = tokens[:, 1:]",
        "shift_targets = tokens\n    shift_logits = logits",
    ),
    (
        "lm-loss",
        "lm-loss-shifted-wrong-way",
        "shift_logits = logits[:, :-1, :]\n    shift_targets = tokens[:, 1:]",
        "shift_logits = logits[:, 1:, :]\n    shift_targets = tokens[:, :-1]",
    ),
    ("lm-loss", "lm-loss-pads-counted", ", ignore_index=pad_id", ""),
    ("greedy-kv", "kv-prefill-not-causal", "a = _attend(q, k, v, mask)", "a = _attend(q, k, v)"),
    ("greedy-kv", "kv-positions-restart", "torch.arange(past, past + T,", "torch.arange(0, T,"),
    (
        "greedy-kv",
        "kv-cache-not-stored",
        "return logits, (k, v)",
        "return logits, (k[:, past:], v[:, past:])",
    ),
    (
        "greedy-kv",
        "greedy-drops-the-prompt",
        "    return out\n",
        "    return out[:, prompt.size(1):]\n",
    ),
    (
        "top-k",
        "sampling-not-renormalised",
        'return torch.softmax(logits.masked_fill(logits < kth, float("-inf")), dim=-1)',
        "return torch.softmax(logits, dim=-1).masked_fill(logits < kth, 0.0)",
    ),
    (
        "top-k",
        "top-k-keeps-the-smallest",
        "torch.topk(logits, k, dim=-1).values[..., -1, None]\n    "
        "return torch.softmax(logits.masked_fill(logits < kth",
        "torch.topk(logits, k, dim=-1, largest=False).values[..., -1, None]\n    "
        "return torch.softmax(logits.masked_fill(logits > kth",
    ),
    ("top-k", "top-k-off-by-one", "logits < kth", "logits <= kth"),
    (
        "top-k",
        "temperature-multiplied",
        "logits = logits / temperature",
        "logits = logits * temperature",
    ),
    (
        "top-p",
        "top-p-drops-the-crossing-token",
        "sorted_probs.masked_fill(before >= p, 0.0)",
        "sorted_probs.masked_fill(before + sorted_probs > p, 0.0)",
    ),
    (
        "top-p",
        "sampling-not-renormalised",
        "return kept / kept.sum(-1, keepdim=True)",
        "return kept",
    ),
    ("top-p", "temperature-multiplied", "logits / temperature", "logits * temperature"),
]


def test_every_own_mistake_has_a_mutation():
    covered = {m for _, m, _, _ in MUTATIONS}
    own_used = {m for m in OWN}
    missing = (
        own_used
        - covered
        - {
            "alibi-same-slope-every-head",  # no one-line edit of the model answer gives it
            "layernorm-bias-before-scale",
            "cross-attention-queries-from-memory",
            "lm-loss-mean-over-pads",
            "lm-loss-summed",
            "lm-loss-pad-id-ignored",
            "top-p-not-sorted",
        }
    )
    assert not missing, missing


@pytest.mark.parametrize(
    ("name", "mistake", "old", "new"), MUTATIONS, ids=[f"{n}:{m}" for n, m, _, _ in MUTATIONS]
)
def test_each_mistake_is_caught_and_named(tmp_path, name, mistake, old, new):
    source = answer(name)
    assert old in source, "the mutation no longer applies to the model answer"
    results = judged(tmp_path, name, source.replace(old, new))
    failed = [r for r in results if not r.passed]
    assert failed, f"{mistake} passed"
    assert failed[0].mistake == mistake, grading.human(name, results)
