"""The drills beyond the course's exercises (``autograder/drill/extra``): every model answer
passes its checks, real code written as public projects write it passes, every mistake the checks
know is caught and named (each a learner-style edit of the model answer), and the references
agree with torch's own modules."""

from __future__ import annotations

import inspect
import re

import pytest
import torch
import torch.nn.functional as F

from autograder.core.mistakes import MISTAKES as COURSE
from autograder.drill.extra import drills, grading, references
from autograder.drill.extra.base import resolve
from autograder.drill.extra.mistakes import MISTAKES as OWN

HEAD = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def answer(name: str) -> str:
    return HEAD + "\n\n".join(inspect.getsource(resolve(o)) for o in drills.BY_NAME[name].answer)


def judged(tmp_path, name: str, source: str):
    path = tmp_path / f"drill_{name}.py"
    path.write_text(f"# drill: {name}\n" + source)
    return grading.judge(path, drills.BY_NAME[name])


def test_at_least_15_new_drills_with_5_find_the_bug():
    assert len(drills.DRILLS) >= 15
    bugs = [d for d in drills.DRILLS if d.bug]
    assert len(bugs) >= 5
    for d in drills.DRILLS:
        assert d.statement and d.interface and d.hints and d.explanation and d.stubs, d.name
        compile(HEAD + d.stubs, d.name, "exec")


def test_the_course_mistakes_a_new_drill_names_exist_and_its_hints_list_them(home):
    from autograder.drill.verbs import hints

    for d in drills.DRILLS:
        assert set(d.course_mistakes) <= set(COURSE), d.name
        last = hints(d)[-1]
        for m in d.course_mistakes:
            assert f"[{m}]" in last, (d.name, m)
    covered = {m for _, m, _, _ in MUTATIONS}
    for d in drills.DRILLS:  # each is shown named on this drill by a mutation
        for m in d.course_mistakes:
            if m != "no-value-error":
                assert any(n == d.name and i == m for n, i, _, _ in MUTATIONS) or m in covered, m


def test_own_mistake_ids_are_new_kebab_case_with_title_and_hint():
    assert not set(OWN) & set(COURSE)
    for m in OWN.values():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.id), m.id
        assert m.title and not m.title.endswith(".") and m.hint.endswith("."), m.id


@pytest.mark.parametrize("name", [d.name for d in drills.DRILLS if d.checks])
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
    (  # a candidate trial: the extra slopes of 12 heads the first 4 of 16, not every other
        "alibi",
        "alibi-extra-slopes-not-every-other",
        "powers(2 * closest)[0::2][: num_heads - closest]",
        "powers(2 * closest)[: num_heads - closest]",
    ),
    (  # the L2 norm, eps left out (a candidate trial)
        "rmsnorm",
        "rmsnorm-root-of-sum",
        "torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)",
        "1 / x32.norm(dim=-1, keepdim=True)",
    ),
    (
        "rmsnorm",
        "norm-over-wrong-dim",
        "x32.pow(2).mean(-1, keepdim=True)",
        "x32.pow(2).mean(-2, keepdim=True)",
    ),
    (  # the float32 result of an upcast, not cast back to float16
        "rmsnorm",
        "output-dtype-changed",
        "return normed.to(x.dtype) * self.weight",
        "return normed * self.weight",
    ),
    ("layernorm", "layernorm-unbiased-variance", "unbiased=False", "unbiased=True"),
    (
        "layernorm",
        "norm-eps-outside-sqrt",
        "torch.sqrt(var + self.eps)",
        "(torch.sqrt(var) + self.eps)",
    ),
    (
        "layernorm",
        "layernorm-std-plus-eps",
        "torch.sqrt(var + self.eps)",
        "(x.std(-1, keepdim=True) + self.eps)",
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
    ("greedy-kv", "kv-mask-not-offset", ".tril(diagonal=past)", ".tril()"),  # a candidate trial
    (  # a candidate trial: the kept probabilities left in sorted order
        "top-p",
        "top-p-not-scattered-back",
        "kept = torch.zeros_like(probs).scatter(-1, order, sorted_probs)",
        "kept = sorted_probs",
    ),
    (  # a candidate trial: the nucleus cut at temperature 1, the temperature applied after it
        "top-p",
        "temperature-after-the-cut",
        "    probs = torch.softmax(logits / temperature, dim=-1)\n"
        "    sorted_probs, order = probs.sort(dim=-1, descending=True)\n"
        "    before = sorted_probs.cumsum(-1) - sorted_probs"
        "  # the mass of the tokens ranked above\n"
        "    sorted_probs = sorted_probs.masked_fill(before >= p, 0.0)"
        "  # the top token always stays\n"
        "    kept = torch.zeros_like(probs).scatter(-1, order, sorted_probs)\n",
        "    probs = torch.softmax(logits, dim=-1)\n"
        "    sorted_probs, order = probs.sort(dim=-1, descending=True)\n"
        "    before = sorted_probs.cumsum(-1) - sorted_probs\n"
        "    sorted_probs = sorted_probs.masked_fill(before >= p, 0.0)\n"
        "    kept = torch.zeros_like(probs).scatter(-1, order, sorted_probs)\n"
        "    kept = torch.softmax(logits / temperature, dim=-1) * (kept > 0)\n",
    ),
    (
        "greedy-kv",
        "kv-cache-not-stored",
        "return logits, (k, v)",
        "return logits, (k[:, past:], v[:, past:])",
    ),
    (  # no cache at all: the whole sequence again at every step (right tokens, no cache)
        "greedy-kv",
        "kv-cache-not-used",
        "logits, cache = decode_step(params, nxt, cache)",
        "logits, cache = decode_step(params, out, None)",
    ),
    (
        "lm-loss",
        "lm-loss-pad-mask-from-inputs",
        ", ignore_index=pad_id",
        ", reduction='none').reshape(shift_targets.shape)[tokens[:, :-1] != pad_id].mean(",
    ),
    (
        "lm-loss",
        "lm-loss-mean-per-sequence",
        "ignore_index=pad_id\n    )",
        "ignore_index=pad_id, reduction='none'\n    ).reshape(shift_targets.shape).sum(1)"
        ".div((shift_targets != pad_id).sum(1)).mean()",
    ),
    (
        "top-k",
        "temperature-ignored",
        "logits = logits / temperature",
        "logits = logits",
    ),
    ("top-p", "temperature-ignored", "logits / temperature", "logits"),
    (
        "top-p",
        "top-p-drops-the-crossing-token",
        "sorted_probs.masked_fill(before >= p, 0.0)",
        "sorted_probs.masked_fill(sorted_probs.cumsum(-1) > p, 0.0)",
    ),
    (  # the same, keeping the top token (no NaN row when it alone is past p)
        "top-p",
        "top-p-drops-the-crossing-token",
        "sorted_probs.masked_fill(before >= p, 0.0)",
        "sorted_probs.masked_fill((sorted_probs.cumsum(-1) > p) & (before > 0), 0.0)",
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
    (
        "decoder-block",
        "pre-post-ln-swapped",
        "        h = self.norm1(x)\n"
        "        x = x + self.self_attn(h, h, causal)\n"
        "        x = x + self.cross_attn(self.norm2(x), memory, memory_mask)\n"
        "        return x + self.linear2(torch.relu(self.linear1(self.norm3(x))))",
        "        x = self.norm1(x + self.self_attn(x, x, causal))\n"
        "        x = self.norm2(x + self.cross_attn(x, memory, memory_mask))\n"
        "        return self.norm3(x + self.linear2(torch.relu(self.linear1(x))))",
    ),
    (
        "mqa",
        "missing-output-projection",
        "return self.w_o(out.transpose(1, 2).reshape(B, L, -1))",
        "return out.transpose(1, 2).reshape(B, L, -1)",
    ),
    (
        "alibi",
        "alibi-same-slope-every-head",
        "slopes = torch.tensor(alibi_slopes(num_heads))",
        "slopes = torch.full((num_heads,), 2 ** (-8 / num_heads))",
    ),
    (
        "layernorm",
        "layernorm-bias-before-scale",
        "return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias",
        "return ((x - mean) / torch.sqrt(var + self.eps) + self.bias) * self.weight",
    ),
    (
        "cross-attention",
        "cross-attention-queries-from-memory",
        "return super().forward(x, memory, mask)",
        "return super().forward(memory, x, mask)",
    ),
    (
        "lm-loss",
        "lm-loss-summed",
        "ignore_index=pad_id\n",
        "ignore_index=pad_id, reduction='sum'\n",
    ),
    (
        "lm-loss",
        "lm-loss-mean-over-pads",
        "ignore_index=pad_id\n    )",
        "ignore_index=pad_id, reduction='sum'\n    ) / shift_targets.numel()",
    ),
    (
        "top-p",
        "top-p-not-sorted",
        "sorted_probs, order = probs.sort(dim=-1, descending=True)",
        "sorted_probs, order = probs, torch.arange(probs.size(-1), device=probs.device)"
        ".expand_as(probs)",
    ),
]


def test_every_own_mistake_is_shown_caught_by_a_test():
    covered = {m for _, m, _, _ in MUTATIONS}
    covered |= {named for fixes in FIXES.values() for _, _, named in fixes}
    missing = set(OWN) - covered
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


# -- find the bug: the given code fails, naming its first bug; the fixed code passes -----------

COURSE_BUGS = {
    "bug-sdpa": "mask-polarity-inverted",
    "bug-mha": "split-heads-no-transpose",
    "bug-softmax": "ignores-dim-argument",
    "bug-layernorm": "layernorm-unbiased-variance",
    "bug-lm-loss": "lm-loss-shifted-wrong-way",
}


@pytest.mark.parametrize("name", sorted(COURSE_BUGS))
def test_the_broken_code_of_a_find_the_bug_drill_is_caught_and_named(tmp_path, name):
    drill = drills.BY_NAME[name]
    results = judged(tmp_path, name, HEAD + drill.stubs)
    assert not all(r.passed for r in results)
    assert [r.mistake for r in results if not r.passed][0] == COURSE_BUGS[name], grading.human(
        name, results
    )


# Each drill's fixes, one at a time: (text, its fix, the mistake named after it, or None: passes)
FIXES = {
    "bug-sdpa": [
        ("masked_fill(mask", "masked_fill(~mask", "fully-masked-nan"),
        # half a fix: the output's NaN zeroed, the weights' left
        ("return weights @ v", "return (weights @ v).nan_to_num(0.0)", "fully-masked-nan"),
        ("dim=-1)\n", "dim=-1).nan_to_num(0.0)\n", None),
    ],
    "bug-mha": [
        (
            "self.w_q(query).reshape(B, self.h, Lq, self.d_head)",
            "self.w_q(query).view(B, Lq, self.h, self.d_head).transpose(1, 2)",
            None,
        ),
        (
            "self.w_k(key).reshape(B, self.h, Lk, self.d_head)",
            "self.w_k(key).view(B, Lk, self.h, self.d_head).transpose(1, 2)",
            None,
        ),
        (
            "self.w_v(value).reshape(B, self.h, Lk, self.d_head)",
            "self.w_v(value).view(B, Lk, self.h, self.d_head).transpose(1, 2)",
            "value-defaults-to-query",
        ),
        ("value = query if value", "value = key if value", "fully-masked-nan"),
        ("torch.softmax(scores, dim=-1)", "torch.softmax(scores, dim=-1).nan_to_num(0.0)", None),
    ],
    "bug-softmax": [
        ("e.sum(dim=-1", "e.sum(dim=dim", "softmax-unstable"),
        (
            "e = torch.exp(x)",
            "e = torch.exp(x - x.amax(dim=dim, keepdim=True))",
            "fully-masked-nan",
        ),
        (
            "    return e / e.sum(dim=dim, keepdim=True)",
            "    s = e.sum(dim=dim, keepdim=True)\n"
            "    return torch.where(s > 0, e / s, torch.zeros_like(e))",
            None,
        ),
    ],
    "bug-layernorm": [
        (
            "x.var(-1, keepdim=True)",
            "x.var(-1, keepdim=True, unbiased=False)",
            "norm-statistics-detached",
        ),
        (".detach()  # no gradient through the statistics", "", None),
    ],
    "bug-lm-loss": [
        ("logits[:, 1:]", "logits[:, :-1]", None),
        ("tokens[:, :-1]", "tokens[:, 1:]", "lm-loss-pads-counted"),
        (".reshape(-1))", ".reshape(-1), ignore_index=pad_id)", None),
    ],
}


@pytest.mark.parametrize("name", sorted(FIXES))
def test_the_bugs_are_named_one_after_another_as_they_are_fixed(tmp_path, name):
    source = drills.BY_NAME[name].stubs
    for old, new, named in FIXES[name]:
        assert old in source, old
        source = source.replace(old, new)
        if named is None and (old, new, named) != FIXES[name][-1]:
            continue  # a fix that only makes sense with the next one
        results = judged(tmp_path, name, HEAD + source)
        failed = [r for r in results if not r.passed]
        if named is None:
            assert not failed, grading.human(name, results)
        else:
            assert failed and failed[0].mistake == named, grading.human(name, results)


# -- the references agree with torch's own modules -----------------------------------------------


def test_the_decoder_block_matches_nn_transformer_decoder_layer():
    torch.manual_seed(0)
    D, h, d_ff = 8, 2, 12
    ours = references.DecoderBlock(D, h, d_ff).double()
    theirs = torch.nn.TransformerDecoderLayer(
        D, h, d_ff, dropout=0.0, batch_first=True, norm_first=True
    ).double()
    for attn, mine in (
        (theirs.self_attn, ours.self_attn),
        (theirs.multihead_attn, ours.cross_attn),
    ):
        w = torch.cat([mine.w_q.weight, mine.w_k.weight, mine.w_v.weight]).detach()
        b = torch.cat([mine.w_q.bias, mine.w_k.bias, mine.w_v.bias]).detach()
        attn.in_proj_weight.data.copy_(w)
        attn.in_proj_bias.data.copy_(b)
        attn.out_proj.weight.data.copy_(mine.w_o.weight)
        attn.out_proj.bias.data.copy_(mine.w_o.bias)
    for name in ("linear1", "linear2", "norm1", "norm2", "norm3"):
        getattr(theirs, name).load_state_dict(getattr(ours, name).state_dict())
    x, memory = torch.randn(2, 4, D).double(), torch.randn(2, 6, D).double()
    pad = torch.tensor([[True] * 6, [True, True, True, False, False, False]])
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    want = theirs(x, memory, tgt_mask=~causal, memory_key_padding_mask=~pad)
    assert torch.allclose(ours(x, memory, pad), want, atol=1e-10)


def test_the_norms_and_the_loss_match_torch():
    x = torch.randn(3, 5, 8).double()
    ln = references.LayerNorm(8).double()
    assert torch.allclose(ln(x), F.layer_norm(x, (8,), eps=1e-5), atol=1e-12)
    rms = references.RMSNorm(8).double()
    want = x / x.pow(2).mean(-1, keepdim=True).add(1e-6).sqrt()
    assert torch.allclose(rms(x), want, atol=1e-6)
    if hasattr(torch.nn, "RMSNorm"):
        assert torch.allclose(rms(x), torch.nn.RMSNorm(8, eps=1e-6).double()(x), atol=1e-6)
    logits, tokens = torch.randn(2, 5, 7).double(), torch.tensor([[1, 2, 3, 0, 0], [4] * 5])
    per_target = [
        F.cross_entropy(logits[b, t], tokens[b, t + 1])
        for b in range(2)
        for t in range(4)
        if tokens[b, t + 1] != 0
    ]
    want = torch.stack(per_target).mean()
    assert torch.allclose(references.causal_lm_loss(logits, tokens, 0), want)


def test_cached_greedy_decoding_gives_the_tokens_of_uncached_decoding():
    from autograder.drill.extra import checks_decoding as cd
    from autograder.kit import generator

    params = cd.make_params(generator(5))
    prompt = torch.randint(0, 11, (2, 3), generator=generator(6))
    assert torch.equal(references.greedy_decode(params, prompt, 6), cd.greedy(params, prompt, 6))


def test_top_p_matches_hugging_faces_algorithm():
    torch.manual_seed(1)
    logits, p = torch.randn(4, 10).double() * 2, 0.7
    # transformers' TopPLogitsWarper: ascending sort, drop the tokens whose cumulative
    # probability is <= 1 - p, always keep the most likely one
    sorted_logits, order = torch.sort(logits, descending=False)
    cumulative = sorted_logits.softmax(-1).cumsum(-1)
    remove = cumulative <= (1 - p)
    remove[..., -1:] = False
    remove = remove.scatter(1, order, remove)
    want = torch.softmax(logits.masked_fill(remove, float("-inf")), -1)
    assert torch.allclose(references.top_p_probs(logits, p), want)


# -- real code, written as public projects write it, passes --------------------------------------

REAL_CODE = {
    "gqa": '''
def repeat_kv(x, n_rep):
    """LLaMA's: (B, L, n_kv, d) -> (B, L, n_kv * n_rep, d)."""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (
        x[:, :, :, None, :]
        .expand(bs, slen, n_kv_heads, n_rep, head_dim)
        .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
    )


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads):
        super().__init__()
        assert d_model % num_heads == 0
        assert num_heads % num_kv_heads == 0
        self.n_heads, self.n_kv = num_heads, num_kv_heads
        self.head_dim = d_model // num_heads
        self.w_q = nn.Linear(d_model, num_heads * self.head_dim, bias=False)
        self.w_k = nn.Linear(d_model, num_kv_heads * self.head_dim, bias=False)
        self.w_v = nn.Linear(d_model, num_kv_heads * self.head_dim, bias=False)
        self.w_o = nn.Linear(num_heads * self.head_dim, d_model, bias=False)

    def forward(self, x, mask=None):
        bsz, seqlen, _ = x.shape
        xq = self.w_q(x).view(bsz, seqlen, self.n_heads, self.head_dim)
        xk = self.w_k(x).view(bsz, seqlen, self.n_kv, self.head_dim)
        xv = self.w_v(x).view(bsz, seqlen, self.n_kv, self.head_dim)
        keys = repeat_kv(xk, self.n_heads // self.n_kv)
        values = repeat_kv(xv, self.n_heads // self.n_kv)
        scores = torch.einsum("blhd,bmhd->bhlm", xq, keys) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        probs = F.softmax(scores.float(), dim=-1).type_as(xq)
        out = torch.einsum("bhlm,bmhd->blhd", probs, values)
        return self.w_o(out.reshape(bsz, seqlen, -1))
''',
    "rmsnorm": '''
class RMSNorm(nn.Module):
    """T5's: no float32 round trip, the weight first."""

    def __init__(self, d_model, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states
''',
    "layernorm": """
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        return self.weight * (x - mean) / (var + self.eps).sqrt() + self.bias
""",
    "lm-loss": '''
def causal_lm_loss(logits, tokens, pad_id):
    """Hugging Face's shift, with the pads as ignored labels."""
    shift_logits = logits[..., :-1, :].contiguous()
    shift_labels = tokens[..., 1:].contiguous()
    loss_fct = nn.CrossEntropyLoss(ignore_index=pad_id)
    return loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
''',
    "top-k": '''
def top_k_probs(logits, k, temperature=1.0):
    """transformers' TopKLogitsWarper, then softmax."""
    scores = logits / temperature
    top_k = min(k, scores.size(-1))
    indices_to_remove = scores < torch.topk(scores, top_k)[0][..., -1, None]
    return F.softmax(scores.masked_fill(indices_to_remove, -float("Inf")), dim=-1)
''',
    "top-p": '''
def top_p_probs(logits, p, temperature=1.0):
    """transformers' TopPLogitsWarper (ascending sort), then softmax."""
    scores = logits / temperature
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - p)
    sorted_indices_to_remove[..., -1:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(
        -1, sorted_indices, sorted_indices_to_remove
    )
    return F.softmax(scores.masked_fill(indices_to_remove, -float("Inf")), dim=-1)
''',
    "alibi": '''
def alibi_bias(num_heads, seq_len):
    """BLOOM's form: slope * key position (a per-row constant away from -slope * (i - j)),
    and -inf above the diagonal."""
    def get_slopes(n):
        def power_of_2(n):
            start = 2 ** (-(2 ** -(math.log2(n) - 3)))
            return [start * start**i for i in range(n)]

        if math.log2(n).is_integer():
            return power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]

    slopes = torch.tensor(get_slopes(num_heads))
    bias = slopes[:, None, None] * torch.arange(seq_len)[None, None, :]
    future = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)
    return bias.expand(num_heads, seq_len, seq_len).masked_fill(future, float("-inf"))
''',
}


@pytest.mark.parametrize("name", sorted(REAL_CODE))
def test_real_code_passes(tmp_path, name):
    results = judged(tmp_path, name, HEAD + REAL_CODE[name])
    assert all(r.passed for r in results), grading.human(name, results)


def test_the_model_answers_are_not_in_the_sandbox(tmp_path):
    source = HEAD + "from autograder.drill.extra.references import RMSNorm  # noqa: F401\n"
    (result,) = judged(tmp_path, "rmsnorm", source)
    assert not result.passed
    assert "not defined" in result.message or "No module named" in result.message, result.message


def test_a_greedy_failure_shows_the_params_by_shape_and_agrees_in_number(tmp_path):
    source = answer("greedy-kv").replace("    return out\n", "    return out[:, prompt.size(1):]\n")
    (failed,) = [r for r in judged(tmp_path, "greedy-kv", source) if not r.passed]
    assert "embed: (11, 6)" in failed.message and "tensor(" not in failed.message.split(":")[0]
    assert len(failed.message.splitlines()) < 15, failed.message
    assert "the tokens have shape (2, 5)" in failed.message  # agrees in number


@pytest.mark.parametrize(
    "note",
    [
        "[torch.ones(64, 1, 1), torch.ones(1, 64, 1), torch.ones(1, 1, 64)]",  # broadcast: 64³
        "[1] * 5000",
        "[2**40]",
        "'3, 1, 1'",
    ],
)
def test_a_rebound_decode_note_fails_before_the_judge_uses_it(tmp_path, note):
    """Red team round 26: greedy_decode rebound the probe's note of decode_step calls to three
    tensors, which the judge summed (1024 each: 5.5 GB of broadcast floats in the judge). The
    note is read as a short list of small ints, or the check fails, with nothing computed."""
    source = answer("greedy-kv").replace(
        "    return out\n", f"    globals()['_drill_decode_steps'] = {note}\n    return out\n"
    )
    assert source != answer("greedy-kv")
    (failed,) = [r for r in judged(tmp_path, "greedy-kv", source) if not r.passed]
    assert failed.mistake == "kv-cache-not-used", failed.message
    assert "_drill_decode_steps" in failed.message and "leave that name" in failed.message


def test_an_lm_loss_failure_shows_the_tokens_and_the_padded_targets(tmp_path):
    source = answer("lm-loss").replace(", ignore_index=pad_id", "")
    (failed,) = [r for r in judged(tmp_path, "lm-loss", source) if not r.passed]
    assert (
        "tensor([[" in failed.message and "padded targets, tokens[:, 1:] at: [1, " in failed.message
    )


def test_the_dtype_advice_allows_upcasting_inside():
    hint = OWN["output-dtype-changed"].hint
    assert "return the input's dtype" in hint.lower() and "no .float()" not in hint


def test_an_assert_where_the_drill_raises_value_error_passes_with_the_note_check_shows(tmp_path):
    """Hugging Face and nanoGPT check their sizes with assert: accepted with a note, as COURSE_SPEC
    says; `drill check` printed only PASS (a candidate trial), `check` the note too."""
    source = answer("gqa")
    refused = (
        "        if d_model % num_heads or num_heads % num_kv_heads:\n"
        '            raise ValueError("d_model must divide by num_heads, '
        'num_heads by num_kv_heads")\n'
    )
    assert refused in source, "the model answer changed: write the test's assert again"
    asserted = "        assert d_model % num_heads == 0 and num_heads % num_kv_heads == 0\n"
    results = judged(tmp_path, "gqa", source.replace(refused, asserted))
    report = grading.human("drill_gqa.py", results)
    assert all(r.passed for r in results), report
    assert "raised AssertionError, accepted; the course raises ValueError" in report, report


def test_a_decode_step_returning_only_the_new_keys_is_told_to_return_the_whole_cache(tmp_path):
    """The course's hint for [kv-cache-not-stored] is its KVCache class's ("store them on self");
    greedy-kv's cache is the returned pair, and its hint says so (a candidate trial)."""
    kept = "return logits, (k, v)"
    assert kept in answer("greedy-kv"), "the model answer changed: write the test's mistake again"
    source = answer("greedy-kv").replace(kept, "return logits, (k[:, past:], v[:, past:])")
    report = grading.human("drill_greedy-kv.py", judged(tmp_path, "greedy-kv", source))
    assert "[kv-cache-not-stored]" in report, report
    assert "Return the whole cache" in report and "on self" not in report, report
