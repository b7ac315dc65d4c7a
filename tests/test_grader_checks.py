"""The checks' own machinery: their expected values, their helpers, their registration.

The expected values a check compares with are computed in the judge (float64, no course_lib at
grading time); here they are proved equal to torch's built-ins and to course_lib's reference, and
course_lib's reference, run as a learner's file, passes every check.
"""

from __future__ import annotations

import fnmatch
import pkgutil
import re
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import course_lib
from autograder import contract, kit
from autograder.core import lesson_folders
from autograder.core.judge import judge_source
from autograder.core.mistakes import MISTAKES
from autograder.core.registry import all_exercises
from autograder.kit import calling, compare, expected, online
from autograder.kit.exercise import CheckFailure
from autograder.sandbox.host.replies import LearnerError

CONTRACT = list(contract.NAMES)


def checks_of(lesson: str):
    """``autograder/lessons/<lesson>/checks.py`` (folder names start with a digit)."""
    return lesson_folders.load(lesson, "checks")


l03_scaling = checks_of("03_scaling")
l04_masks = checks_of("04_softmax_masks")
l05_attention = checks_of("05_attention")
l06_multihead = checks_of("06_multihead")
l07_positions = checks_of("07_positions")
l08_blocks = checks_of("08_blocks")
l09_efficient = checks_of("09_efficient")

g = torch.Generator().manual_seed(0)


def randn(*shape):
    return torch.randn(*shape, generator=g, dtype=torch.float64)


# ---- registration --------------------------------------------------------------------------------


def test_every_contract_exercise_is_registered_with_points_and_its_lesson():
    exercises = all_exercises()
    assert list(exercises) == CONTRACT
    for name, ex in exercises.items():
        entry = contract.BY_NAME[name]
        assert ex.points == entry.points and ex.points in (1, 2), name
        assert ex.lesson == entry.lesson, name
        assert ex.check.__module__ == f"autograder.lessons.{entry.lesson}.checks", name


# Checks without the contract's gradient and size-1 rules (kit.gradients.with_rules): no float
# tensor goes in (sizes, lengths, counts), so no gradient can flow and no batch can be squeezed.
WITHOUT_CONTRACT_RULES = {
    "dot_product_variance",
    "causal_mask",
    "padding_mask",
    "mha_num_parameters",
    "sinusoidal_positional_encoding",
    "sliding_window_mask",
}


def test_every_check_ends_with_the_contract_rules():
    """A new exercise's check is wrapped in ``with_rules(check, rules)`` (rules calling
    ``expect_contract_rules``), unless no float tensor goes in: then it is listed above."""
    exercises = all_exercises()
    assert WITHOUT_CONTRACT_RULES <= set(exercises), WITHOUT_CONTRACT_RULES - set(exercises)
    for name, ex in exercises.items():
        wrapped = hasattr(ex.check, "contract_rules")
        assert wrapped != (name in WITHOUT_CONTRACT_RULES), (
            f"{name}: its check is wrapped in with_rules and listed as without the contract rules"
            if wrapped
            else f"{name}: its check is not wrapped in with_rules(check, rules) (see "
            "autograder/lessons/*/checks.py; rules call expect_contract_rules)"
        )


ATEN_OPS = sorted(
    {"aten." + s.name[6:] for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")}
)


def test_forbidden_names_exist():
    """A dotted name resolves; an ATen name is an op, or a pattern that matches some; a torch
    pattern matches some torch function."""
    functions = ["torch." + n for n in dir(torch) + dir(torch.nn.functional)]
    for ex in all_exercises().values():
        for name in ex.forbid:
            if name.startswith("aten."):
                assert fnmatch.filter(ATEN_OPS, name), name
            elif any(c in name for c in "*?["):
                assert fnmatch.filter(functions, name), name
            else:
                assert pkgutil.resolve_name(name) is not None, name


def test_every_aten_attention_op_is_forbidden_where_attention_is():
    """SDPA's kernels, native multi-head attention, FlexAttention...: whatever this torch calls
    them, an exercise that forbids F.scaled_dot_product_attention forbids them all."""
    family = [op for op in ATEN_OPS if re.search("attention|scaled_dot|flash", op)]
    assert "aten._scaled_dot_product_attention_math" in family
    for name, ex in all_exercises().items():
        if "torch.nn.functional.scaled_dot_product_attention" in ex.forbid:
            loose = [op for op in family if not any(fnmatch.fnmatchcase(op, f) for f in ex.forbid)]
            assert not loose, f"{name} lets these through: {loose}"


def test_a_check_for_a_name_the_contract_lacks_is_an_error(monkeypatch):
    """A check marked in a lesson folder for a name the contract table does not list there."""
    from autograder.core import registry

    module = checks_of("02_qkt")

    @kit.exercise("attention_scores_v2")
    def check_extra(sub) -> None: ...

    check_extra.__module__ = module.__name__
    monkeypatch.setattr(module, "check_extra", check_extra, raising=False)
    registry._exercises.cache_clear()
    try:
        with pytest.raises(LookupError, match="attention_scores_v2"):
            registry.all_exercises()
    finally:
        monkeypatch.undo()
        registry._exercises.cache_clear()
    assert list(registry.all_exercises()) == CONTRACT


def test_lessons_use_the_kit_never_each_other():
    for path in lesson_folders.HERE.glob("*/*.py"):
        imported = re.findall(r"^\s*(?:from|import) (autograder[\w.]*)", path.read_text(), re.M)
        for module in imported:
            assert module.split(".")[:2] == ["autograder", "kit"] or module in (
                "autograder.core.mistakes",
                "autograder.questions",
                "autograder.i18n",  # _() for the checks' sentences
            ), (
                f"{path.parent.name}/{path.name} imports {module}: use autograder.kit (move a "
                "helper that a second lesson needs into the kit)"
            )


def test_meta_sections_are_counted_per_thread():
    """grade runs checks in a thread pool: one check's on_meta() section is not another's."""
    import threading

    inside, outside = threading.Event(), threading.Event()
    seen = {}

    def in_section():
        with kit.on_meta():
            inside.set()
            outside.wait(5)

    def elsewhere():
        inside.wait(5)
        seen["other thread"] = calling._META_SECTIONS.get()
        outside.set()

    threads = [threading.Thread(target=in_section), threading.Thread(target=elsewhere)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"other thread": 0}
    with kit.on_meta(), kit.on_meta():
        assert calling._META_SECTIONS.get() == 2
    assert calling._META_SECTIONS.get() == 0


def test_builtins_are_forbidden_where_they_are_the_exercise():
    ex = all_exercises()
    assert {"torch.softmax", "torch.nn.functional.softmax", "aten._softmax"} <= set(
        ex["softmax"].forbid
    )
    for name in ("scaled_dot_product_attention", "SelfAttention", "tiled_attention"):
        assert "torch.nn.functional.scaled_dot_product_attention" in ex[name].forbid
    assert "torch.nn.MultiheadAttention" in ex["MultiHeadAttention"].forbid
    assert "torch.nn.TransformerEncoderLayer" in ex["TransformerBlock"].forbid


def _module_mutants():
    """Every (id, fn) mutant table the check modules define, tables built by factories too."""
    state = {f"w_{n}.weight": torch.zeros(4, 4) for n in "qkvo"}
    tables = [
        l04_masks.SOFTMAX_MUTANTS,
        l04_masks.CAUSAL_MUTANTS,
        l04_masks.PADDING_MUTANTS,
        l04_masks.MASKED_MUTANTS,
        l03_scaling.SCALED_MUTANTS,
        l03_scaling.ENTROPY_MUTANTS,
        l05_attention.SDPA_MUTANTS,
        l05_attention.self_attention_mutants(state),
        l06_multihead.SPLIT_MUTANTS,
        l06_multihead.MERGE_MUTANTS,
        l06_multihead.PARAM_MUTANTS,
        l06_multihead.mha_mutants(state, 2),
        l07_positions.SINUSOID_MUTANTS,
        l07_positions.ROPE_MUTANTS,
        l08_blocks.block_mutants(state, 2, True),
        l09_efficient.WINDOW_MUTANTS,
        l09_efficient.TILED_MUTANTS,
        l09_efficient.cache_mutants([], torch.zeros(1), torch.zeros(1)),
    ]
    return [m for table in tables for m in table]


def test_every_mutant_names_a_catalogue_entry():
    for mistake, fn in _module_mutants():
        assert mistake in MISTAKES, mistake
        assert callable(fn)


def test_every_mistake_named_in_a_check_is_in_the_catalogue():
    autograder_dir = Path(kit.__file__).parent.parent
    files = [*(autograder_dir / "kit").glob("*.py"), *(autograder_dir / "lessons").glob("*/*.py")]
    source = "\n".join(p.read_text() for p in files)
    named = set(re.findall(r'(?:mistake=|fail\([^)]*?,\s*)"([a-z0-9-]+)"', source, re.S))
    named |= set(re.findall(r'"([a-z0-9]+(?:-[a-z0-9]+)+)",\s*\n?\s*\)', source))
    assert named, "the pattern found nothing"
    assert named <= set(MISTAKES), named - set(MISTAKES)


# ---- the expected values agree with torch and course_lib -----------------------------------------


def test_reference_attention_is_sdpa_with_zero_rows_for_fully_masked_queries():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 6)
    mask = torch.rand(2, 3, 5, generator=g) < 0.6
    mask[0, 1] = False
    out, w = expected.ref_attention64(q, k, v, mask)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    assert torch.equal(w[0, 1], torch.zeros(5)) and not w.isnan().any()
    assert torch.allclose(w.sum(-1)[mask.any(-1)], torch.ones(()).double())


@pytest.mark.parametrize("bias", [False, True])
def test_reference_mha_matches_nn_multihead_attention(bias):
    d, h = 8, 2
    ref = nn.MultiheadAttention(d, h, bias=bias, batch_first=True).double()
    w_q, w_k, w_v = ref.in_proj_weight.detach().chunk(3)
    state = {"w_q.weight": w_q, "w_k.weight": w_k, "w_v.weight": w_v}
    state["w_o.weight"] = ref.out_proj.weight.detach()
    if bias:
        for n, b in zip("qkv", ref.in_proj_bias.detach().chunk(3), strict=True):
            state[f"w_{n}.bias"] = b
        state["w_o.bias"] = ref.out_proj.bias.detach()
    query, kv = randn(2, 3, d), randn(2, 5, d)
    mask = torch.rand(3, 5, generator=g) < 0.7
    mask[:, 0] = True
    want, want_w = ref(query, kv, kv, attn_mask=~mask, average_attn_weights=False)
    out, w = expected.mha(state, h, query, kv, kv, mask)
    assert torch.allclose(out, want.detach()) and torch.allclose(w, want_w.detach())


@pytest.mark.parametrize("norm_first", [True, False])
def test_reference_block_matches_transformer_encoder_layer(norm_first):
    d, h, d_ff = 8, 2, 16
    layer = nn.TransformerEncoderLayer(
        d, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first
    ).double()
    layer.eval()
    state = l08_blocks.block_state(torch.Generator().manual_seed(1), d, d_ff)
    w = {k: t.double() for k, t in state.items()}
    with torch.no_grad():
        attn = layer.self_attn
        attn.in_proj_weight.copy_(torch.cat([w[f"attn.w_{n}.weight"] for n in "qkv"]))
        attn.in_proj_bias.copy_(torch.cat([w[f"attn.w_{n}.bias"] for n in "qkv"]))
        attn.out_proj.weight.copy_(w["attn.w_o.weight"])
        attn.out_proj.bias.copy_(w["attn.w_o.bias"])
        for ours, theirs in (("ff.linear1", layer.linear1), ("ff.linear2", layer.linear2)):
            theirs.weight.copy_(w[f"{ours}.weight"])
            theirs.bias.copy_(w[f"{ours}.bias"])
        for n in ("norm1", "norm2"):
            getattr(layer, n).weight.copy_(w[f"{n}.weight"])
            getattr(layer, n).bias.copy_(w[f"{n}.bias"])
    x = randn(2, 4, d)
    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    want = layer(x, src_mask=~mask)
    got = expected.block(state, h, x, mask, norm_first)
    assert torch.allclose(got, want.detach(), atol=1e-10)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("block", [1, 3, 64])
def test_reference_online_softmax_equals_attention(causal, block):
    q, k, v = randn(2, 7, 4), randn(2, 7, 4), randn(2, 7, 3)
    want = expected.tiled_reference(q, k, v, block, causal)
    for local in (None, "both"):
        if local is None or not causal:
            got = online.online(q, k, v, block, causal, local=local)
            assert torch.allclose(got, want)
    sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    assert torch.allclose(want, sdpa)


def test_reference_positions_match_course_lib():
    assert torch.allclose(
        expected.sinusoid(9, 6),
        course_lib.sinusoidal_positional_encoding(9, 6).double(),
        atol=1e-6,
    )
    x, pos = randn(2, 5, 8), torch.tensor([3, 4, 5, 9, 10])
    for kwargs in ({}, {"positions": pos}, {"base": 100.0}):
        assert torch.allclose(expected.rope(x, **kwargs), course_lib.apply_rope(x, **kwargs))


def test_reference_masks_and_counts_match_course_lib():
    assert torch.equal(expected.tril(5), course_lib.causal_mask(5))
    lengths = torch.tensor([2, 0, 4])
    assert torch.equal(expected.padding(lengths, 4), course_lib.padding_mask(lengths, 4))
    for n, w in ((5, 2), (3, 5), (4, 1)):
        assert torch.equal(expected.window_mask(n, w), course_lib.sliding_window_mask(n, w))
    for d, h, bias in ((8, 2, False), (12, 3, True)):
        params = sum(p.numel() for p in nn.MultiheadAttention(d, h, bias=bias).parameters())
        assert expected.num_parameters(d, h, bias) == params
    p = torch.tensor([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5]])
    assert torch.allclose(expected.entropy(p), course_lib.softmax_entropy(p))
    x = randn(2, 3, 8)
    assert torch.equal(expected.split(x, 2), course_lib.split_heads(x, 2))
    assert torch.equal(expected.merge(expected.split(x, 4)), x)


def test_reference_softmax_zeros_fully_masked_rows():
    x = torch.tensor([[float("-inf")] * 3, [0.0, float("-inf"), 1.0]])
    got = expected.ref_softmax(x)
    assert torch.equal(got[0], torch.zeros(3).double())
    assert torch.allclose(got[1], torch.softmax(x[1].double(), -1))


# ---- helpers -------------------------------------------------------------------------------------


def test_ranges_compress_indices():
    assert kit.ranges([]) == "none"
    assert kit.ranges([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"


def test_mask_message_names_the_first_wrong_query():
    want = expected.tril(4)
    message = compare.mask_row_message(expected.triu(4, 1), want)
    assert message == "query 0 may attend to key 0, yours allows keys 1-3"
    message = compare.mask_row_message(expected.tril(4, -1), want)  # strictly below the diagonal
    assert message == "query 0 may attend to key 0, yours allows no key"
    lengths = torch.tensor([2, 4, 1])
    mask = torch.arange(4) < lengths[:, None]
    message = compare.mask_row_message(torch.arange(4) <= lengths[:, None], mask, "sequence")
    assert message == "sequence 0 has real tokens at positions 0-1, yours marks positions 0-2"
    message = compare.mask_row_message(torch.arange(4) < lengths[:, None] - 1, mask, "sequence")
    assert message == "sequence 0 has real tokens at positions 0-1, yours marks position 0"


def test_same_treats_nan_and_inf_as_values_and_checks_shapes():
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([1.0, nan, -inf])
    assert compare.same(a, a.double())
    assert not compare.same(a, torch.tensor([1.0, 0.0, -inf]).double())
    assert not compare.same(a, a[:2])
    assert compare.same((a, 3), (a.double(), 3)) and not compare.same((a,), (a, a))
    assert not compare.same(True, 1) and compare.same(2.0, 2)


def test_diagnose_names_the_first_matching_mutant_and_skips_failing_ones():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    c = calling.Call("softmax", x)

    def broken(*_):
        raise RuntimeError("cannot")

    mutants = (("softmax-unstable", broken), ("entropy-sign", lambda x: -x), ("no-scaling", -x))
    assert compare.diagnose(-x, c, mutants) == "entropy-sign"
    assert compare.diagnose(x, c, mutants) is None


def test_errors_are_diagnosed_by_device_message_and_mutant():
    meta = torch.empty(2, 3, device="meta")
    c = calling.Call("softmax", meta)
    err = LearnerError("RuntimeError", "Tensor on device cpu is not on the expected device meta!")
    assert calling.diagnose_error(c, err) == "created-on-cpu"
    overflow = LearnerError(
        "RuntimeError", "value cannot be converted to type at::Half without overflow"
    )
    assert (
        calling.diagnose_error(calling.Call("masked_scores", 1), overflow) == "fill-overflows-fp16"
    )
    q, k = torch.zeros(2, 3, 4), torch.zeros(2, 5, 4)
    c = calling.Call("attention_scores", q, k)
    try:
        q @ k
    except RuntimeError as e:
        err = LearnerError("RuntimeError", str(e))
    mutants = (("forgot-transpose-k", lambda q, k: q @ k),)
    assert calling.diagnose_error(c, err, mutants) == "forgot-transpose-k"


def test_fail_carries_a_known_mistake_and_rejects_unknown_ids():
    failure = calling.fail("causal_mask(4): query 0 ...", "causal-mask-inverted")
    assert isinstance(failure, CheckFailure)
    assert (failure.message, failure.mistake) == (
        "causal_mask(4): query 0 ...",
        "causal-mask-inverted",
    )
    with pytest.raises(KeyError):
        calling.fail("...", "no-such-mistake")


def test_call_reads_like_the_call():
    c = calling.Call("softmax", torch.zeros(2, 3, dtype=torch.float16), dim=0)
    assert str(c) == "softmax(x: (2, 3) float16, dim=0)"
    c = calling.Call("padding_mask", torch.tensor([2, 4]), 5)
    assert str(c) == "padding_mask(lengths: tensor([2, 4]), 5)"


def test_a_mask_argument_shows_its_dtype_float32_included():
    c = calling.Call("scaled_dot_product_attention", *(torch.zeros(3, 4),) * 3, torch.zeros(3, 3))
    assert str(c).endswith("mask: (3, 3) float32)")
    c = calling.Call("forward", torch.zeros(2, 3, 4), mask=torch.zeros(3, 3, dtype=torch.bool))
    assert str(c) == "forward(x: (2, 3, 4), mask=(3, 3) bool)"


def test_excerpt_is_short_and_shows_yours_and_expected():
    yours = torch.tensor([[0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.0, 0.0]])
    want = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]).double()
    text = compare.excerpt(yours, want)
    assert len(text.splitlines()) == 3
    assert "yours" in text and "expected" in text and "[0, 0]" in text
    # the element and its row are indexed from the same name
    assert text.startswith("first difference at output[0, 0]:")
    assert text.splitlines()[1].strip().startswith("output[0] yours")
    flat = compare.excerpt(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]).double(), None, "k")
    assert flat.startswith("first difference at k[1]:") and "k yours" in flat


# ---- course_lib's reference passes every check, run as a learner's file --------------------------


def reference_source() -> str:
    """course_lib's exercise modules as one learner file (their course_lib imports removed)."""
    parts = ["from __future__ import annotations"]
    for module in contract.REFERENCE_MODULES:
        text = (Path(course_lib.__file__).parent / f"{module.split('.')[-1]}.py").read_text()
        text = re.sub(r"^from __future__ import annotations\n", "", text, flags=re.M)
        text = re.sub(r"^from course_lib[\w.]* import \([^)]*\)\n", "", text, flags=re.M)
        text = re.sub(r"^from course_lib[\w.]* import .*\n", "", text, flags=re.M)
        parts.append(text)
    return "\n\n".join(parts)


def test_course_lib_reference_passes_every_check():
    results = judge_source(reference_source(), label="course_lib_reference.py")
    failed = {r.exercise: f"[{r.mistake}] {r.message}" for r in results if not r.passed}
    assert not failed, failed
    assert {r.exercise for r in results} == set(CONTRACT)


def test_dot_product_variances_precision_limit_is_the_chi_square_quantile():
    """The precision check fails correct code with probability 1e-7: P(chi2_256 > limit)."""
    import importlib

    checks = importlib.import_module("autograder.lessons.03_scaling.checks")
    dof = torch.tensor(checks.PRECISION_SEEDS / 2, dtype=torch.float64)
    limit = torch.tensor(checks.PRECISION_LIMIT / 2, dtype=torch.float64)
    assert float(torch.special.gammaincc(dof, limit)) == pytest.approx(1e-7, rel=1e-3)
    half = torch.tensor(checks.PRECISION_LIMIT / 4, dtype=torch.float64)  # half the samples used
    assert float(torch.special.gammainc(dof, half)) < 3e-3


def test_a_check_that_crashes_fails_its_exercise_only_in_one_line(monkeypatch):
    """A bug in a check (not in the learner's code) is that exercise's result, with no traceback;
    the other exercises are still graded."""
    from dataclasses import replace

    from autograder.core import judge

    exercises = dict(all_exercises())

    def crashing_check(sub) -> None:
        raise RuntimeError("expected scalar type Double but found Float\nsecond line")

    exercises["project_qkv"] = replace(exercises["project_qkv"], check=crashing_check)
    monkeypatch.setattr(judge, "all_exercises", lambda: exercises)
    source = "def project_qkv(x, w_q, w_k, w_v):\n    return x @ w_q, x @ w_k, x @ w_v\n\n"
    source += "def attention_scores(q, k):\n    return q @ k.transpose(-2, -1)\n"
    crashed, other = judge_source(source)
    assert (crashed.exercise, crashed.passed, crashed.attempted) == ("project_qkv", False, True)
    assert "the grader failed on this exercise: RuntimeError: expected scalar type" in (
        crashed.message
    )
    assert "please report it" in crashed.message
    assert "Traceback" not in crashed.message and "second line" not in crashed.message
    assert "\n" not in crashed.message and "test_grader_checks.py:" in crashed.message
    assert (other.exercise, other.passed) == ("attention_scores", True)


def test_a_cache_that_changes_the_dtype_it_was_given_is_wrong_dtype():
    """A KVCache storing k.float() keeps float32 float32 and turns the decoding check's float64
    into float32: named [wrong-dtype], where the check once crashed on the mixed dtypes."""
    from lesson_files import BASE

    cache = """
class KVCache:
    def __init__(self):
        self.k = None
        self.v = None

    def append(self, k, v):
        k, v = k.float(), v.float()
        if self.k is not None:
            k, v = torch.cat([self.k, k], dim=-2), torch.cat([self.v, v], dim=-2)
        self.k, self.v = k, v
        return self.k, self.v
"""
    [result] = judge_source(BASE + "\n\n" + cache, only=["KVCache"])
    assert (result.passed, result.mistake) == (False, "wrong-dtype"), result.message
    assert "float64" in result.message and "float32" in result.message
