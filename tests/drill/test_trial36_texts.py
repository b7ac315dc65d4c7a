"""Trial 36's findings on the drill texts and checks: what the checks grade is stated in the text
that grades it (bare included), the texts teach nothing false, and each mistake the trial made
is shown on the case it is about and named."""

from __future__ import annotations

import re

import pytest
import torch

from autograder.drill import catalogue, files, levels
from autograder.drill.extra import drills, grading
from autograder.i18n import use

HEAD = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"


def _flat(text: str) -> str:
    return " ".join(line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#"))


def _text(name: str, bare: bool) -> str:
    return re.sub(r"\s+", " ", _flat(files.blank(catalogue.find(name), "f.py", bare=bare)))


def _judged(tmp_path, name: str, source: str):
    path = tmp_path / f"drill_{name}.py"
    path.write_text(f"# drill: {name}\n" + HEAD + source)
    results = grading.judge(path, catalogue.find(name))
    return results, grading.human(name, results)


FULLY_MASKED = "all-zero weights and an all-zero output"


# -- (2) a fully masked query: zeros, stated wherever it is graded, and nn.MHA does not match ----


@pytest.mark.parametrize("bare", [True, False])
@pytest.mark.parametrize("name", ["mha", "sdpa-mask", "bug-mha", "bug-sdpa", "masks", "softmax"])
def test_every_text_that_grades_a_fully_masked_query_states_the_zeros(name, bare):
    text = _text(name, bare)
    assert (
        FULLY_MASKED in text
        or "zero weights and a zero output" in text
        or (name == "softmax" and "a row of all -inf gives zeros" in text)
    ), text


@pytest.mark.parametrize("bare", [True, False])
@pytest.mark.parametrize("name", ["mha", "bug-mha"])
def test_no_text_claims_nn_multihead_attention_matches_on_a_fully_masked_query(name, bare):
    text = _text(name, bare)
    assert "it matches it." not in text and "it matches it;" not in text
    assert "nn.MultiheadAttention gives NaN there" in text
    assert "it matches it wherever a query has a key left to attend to" in text


def test_nn_multihead_attention_does_give_nan_for_a_fully_masked_query():
    """What the texts say of it (torch 2.13); the checks want zeros there."""
    m = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(1, 4, 8)
    allowed = torch.ones(4, 4, dtype=torch.bool).tril()
    allowed[1] = False
    with torch.no_grad():
        out, _ = m(x, x, x, attn_mask=~allowed)
    assert out[0, 1].isnan().all() and not out[0, 0].isnan().any()


# -- (8) sdpa-mask: the float mask with half inputs, stated in the bare file too -----------------


def test_sdpa_mask_states_the_output_dtype_bare_and_names_the_cast_guided():
    bare, guided = _text("sdpa-mask", True), _text("sdpa-mask", False)
    rule = "The output keeps the inputs' dtype, also when a float32 mask comes with half-precision"
    assert rule in bare and rule in guided
    assert "mask.to(scores.dtype)" in guided and "mask.to(scores.dtype)" not in bare
    assert not levels.gives_away(bare)


# -- (3) ALiBi: the row-constant form is +slope * j ---------------------------------------------


ALIBI = """
def powers(n):
    return [2 ** (-8 * (h + 1) / n) for h in range(n)]


def alibi_bias(num_heads, seq_len):
    m = 2 ** math.floor(math.log2(num_heads))
    slopes = torch.tensor(powers(m) + powers(2 * m)[0::2][: num_heads - m])
    j = torch.arange(seq_len, dtype=torch.float32)
    return SIGN * slopes[:, None, None] * j.expand(num_heads, seq_len, seq_len)
"""


def test_the_alibi_text_gives_the_row_constant_form_with_its_right_sign(tmp_path):
    text = _text("alibi", False)
    assert "-slope * j works too" not in text
    assert "+slope * j (BLOOM's form) works too" in text
    results, report = _judged(tmp_path, "alibi", ALIBI.replace("SIGN", "1.0"))
    assert all(r.passed for r in results), report
    results, report = _judged(tmp_path, "alibi", ALIBI.replace("SIGN", "-1.0"))
    assert results[0].mistake == "alibi-sign-flipped", report


def test_no_drill_or_lesson_text_says_minus_slope_times_j_works():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in [*root.glob("autograder/**/*.py"), *root.glob("autograder/locale/**/*.po")]:
        assert "-slope * j works" not in re.sub(r'"\s*"', "", path.read_text()), path


# -- (10) ALiBi's failure shows the row as returned and says what was normalised ------------------


def test_an_alibi_failure_says_how_the_rows_shown_were_normalised(tmp_path):
    results, report = _judged(tmp_path, "alibi", ALIBI.replace("SIGN", "-1.0"))
    flat = " ".join(report.split())
    assert "each row minus its diagonal entry" in flat
    assert "your output[0, 1] as returned is [0, -0.5, -1, -1.5, -2]" in flat, report


def test_an_alibi_failure_is_chinese_under_a_chinese_locale(tmp_path):
    with use("zh-CN"):
        results, report = _judged(tmp_path, "alibi", ALIBI.replace("SIGN", "-1.0"))
    assert results[0].mistake == "alibi-sign-flipped", report
    flat = "".join(report.split())
    assert "alibi_bias(8,5)：输出不对" in flat, report
    assert "上面两行显示的是因果softmax看到的值：每一行减去它的对角线元素" in flat, report
    assert "你的output[0,1]原样返回的是[0,-0.5,-1,-1.5,-2]。" in flat, report
    for english in ("Both rows", "as returned", "diagonal", "is wrong"):
        assert english not in report, english


# -- (5) tiled: half inputs are accumulated in float32 ------------------------------------------


def test_the_tiled_text_says_half_inputs_accumulate_in_float32():
    guided = _text("tiled", False)
    assert "accumulate in float32" in guided
    assert "return the output in the input's dtype" in guided
    assert "Create every tensor on the input's device with the input's dtype" not in guided
    for name in ("sdpa-mask", "rope"):  # the others keep the general rule
        assert "Create every tensor on the input's device with the input's dtype" in _text(
            name, False
        )


# -- (13) the bare rope statement is a whole sentence ---------------------------------------------


def test_a_dot_product_is_not_a_full_stop():
    assert _text("rope", True).count("so that q_m . k_n depends only on m - n.") == 1
    assert levels.first_sentence("A b. C d.") == "A b."
    assert levels.first_sentence("so that q_m . k_n depends on m - n. More.") == (
        "so that q_m . k_n depends on m - n."
    )
    assert levels.first_sentence("As nn.Module. Then") == "As nn.Module."
    assert levels.first_sentence("No full stop") == "No full stop."


# -- (12) masks: -1e9 is shown failing on float16, the case the mistake is about ----------------


MASKS = """
def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def padding_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device) < lengths[:, None]


def masked_scores(scores, mask):
    return scores.masked_fill(~mask, -1e9)
"""


def test_a_minus_1e9_fill_is_shown_on_float16_where_it_fails(tmp_path):
    results, report = _judged(tmp_path, "masks", MASKS)
    failed = [r for r in results if not r.passed]
    assert [r.exercise for r in failed] == ["masked_scores"], report
    assert failed[0].mistake == "fill-overflows-fp16"
    assert "float16, mask: (3, 4) bool) raised RuntimeError" in failed[0].message, report


# -- (9) bug-softmax: the sum over the last dim is named once the max is fixed ------------------


def test_bug_softmax_with_only_the_max_fixed_names_the_sum_over_the_last_dim(tmp_path):
    source = drills.BY_NAME["bug-softmax"].stubs.replace(
        "e = torch.exp(x)", "e = torch.exp(x - x.amax(dim=dim, keepdim=True))"
    )
    assert "e.sum(dim=-1" in source
    results, report = _judged(tmp_path, "bug-softmax", source)
    assert results[0].mistake == "ignores-dim-argument", report


# -- (11) layernorm: the Annotated Transformer's LayerNorm is named -------------------------------


ANNOTATED = """
class LayerNorm(nn.Module):
    "Construct a layernorm module (See citation for details)."

    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.weight * (x - mean) / (std + self.eps) + self.bias
"""


def test_the_annotated_transformers_layernorm_is_named(tmp_path):
    results, report = _judged(tmp_path, "layernorm", ANNOTATED)
    assert results[0].mistake == "layernorm-std-plus-eps", report
    assert "Annotated Transformer" in report
