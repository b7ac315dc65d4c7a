"""Diagnoses the learner trials found wrong (issue 9, section 3): each learner-style version here
must get exactly the id named, through the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from lesson_files import BASE, BUILTIN

from autograder.core.judge import judge_source
from autograder.core.mistakes import MISTAKES

ROOT = Path(__file__).resolve().parents[1]

DTYPE = {  # (exercise, learner code): a dtype mismatch is a dtype mistake, checked before values
    "softmax upcasts float16 to float32": (
        "softmax",
        "def softmax(x, dim=-1):\n"
        "    x = x.float()\n"
        "    m = x.amax(dim, keepdim=True)\n"
        "    e = (x - torch.where(m.isneginf(), 0.0, m)).exp()\n"
        "    s = e.sum(dim, keepdim=True)\n"
        "    return e / torch.where(s == 0, 1.0, s)\n",
    ),
    "softmax returns float64": (
        "softmax",
        "def softmax(x, dim=-1):\n"
        "    x = x.double()\n"
        "    m = x.amax(dim, keepdim=True)\n"
        "    e = (x - torch.where(m.isneginf(), 0.0, m)).exp()\n"
        "    s = e.sum(dim, keepdim=True)\n"
        "    return e / torch.where(s == 0, 1.0, s)\n",
    ),
    "softmax_entropy in float64": (
        "softmax_entropy",
        "def softmax_entropy(weights, dim=-1):\n"
        "    p = weights.double()\n"
        "    return -torch.where(p > 0, p * p.clamp_min(1e-300).log(), 0.0).sum(dim)\n",
    ),
    "sinusoidal encoding in float64": (
        "sinusoidal_positional_encoding",
        "def sinusoidal_positional_encoding(max_len, d_model):\n"
        "    if d_model % 2:\n"
        "        raise ValueError('d_model must be even')\n"
        "    pos = torch.arange(max_len, dtype=torch.float64)[:, None]\n"
        "    freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)\n"
        "    pe = torch.zeros(max_len, d_model, dtype=torch.float64)\n"
        "    pe[:, 0::2], pe[:, 1::2] = (pos * freq).sin(), (pos * freq).cos()\n"
        "    return pe\n",
    ),
}


@pytest.mark.parametrize("case", sorted(DTYPE))
def test_a_dtype_mismatch_is_named_wrong_dtype(case):
    name, code = DTYPE[case]
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + code, only=[name])
    assert (result.passed, result.mistake) == (False, "wrong-dtype"), result.message
    assert "dtype" in result.message


def test_causal_mask_on_the_wrong_device_is_told_to_use_its_device_argument():
    code = (
        "def causal_mask(seq_len, device=None):\n"
        "    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril()\n"
    )
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + code, only=["causal_mask"])
    assert result.mistake == "created-on-cpu"
    assert "the device it is given" in result.message and "x.device" not in result.message
    assert "given no tensor uses its own device argument" in MISTAKES["created-on-cpu"].hint


def test_hints_point_at_the_fix_of_the_exercise_that_names_them():
    assert "dim=dim" in MISTAKES["ignores-dim-argument"].hint  # softmax_entropy divides nothing
    assert "MultiHeadAttention" not in MISTAKES["projection-has-bias"].hint  # cited in lesson 01


def test_dot_product_variance_drawn_in_an_unusual_order_passes_on_its_spread():
    """Box-Muller from torch.rand matches no usual draw order exactly: the precision check judges
    the spread of its estimates, and correct code passes it (false failure < 1e-7)."""
    code = (
        "def dot_product_variance(d_k, num_samples=100_000, generator=None):\n"
        "    u = torch.rand(2, 2, num_samples, d_k, generator=generator, dtype=torch.float64)\n"
        "    r = (-2 * (1 - u[0]).log()).sqrt()\n"
        "    q, k = r * (2 * torch.pi * u[1]).cos(), r * (2 * torch.pi * u[1]).sin()\n"
        "    return (q * k).sum(-1).var().item()\n"
    )
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + code, only=["dot_product_variance"])
    assert result.passed, f"[{result.mistake}] {result.message}"


def test_logsumexp_in_softmax_is_told_why_it_is_forbidden():
    [path] = [p for p in BUILTIN if p.stem == "softmax__logsumexp"]
    code = path.read_text()
    [result] = judge_source(BASE + "\n\n" + code, only=["softmax"])
    assert result.mistake == "uses-builtin"
    assert "max-subtraction" in result.message and "asks you to build" not in result.message


MOVED = {  # made on the CPU, then moved to the inputs' device before use: correct (one copy)
    "padding_mask": (
        "def padding_mask(lengths, max_len):\n"
        "    positions = torch.arange(max_len).to(lengths.device)\n"
        "    return positions[None, :] < lengths[:, None]\n"
    ),
    "masked_scores": (
        "def masked_scores(scores, mask):\n"
        "    fill = torch.full(scores.shape, float('-inf'), dtype=scores.dtype).to(scores.device)\n"
        "    return torch.where(mask, scores, fill)\n"
    ),
    "causal_mask": (
        "def causal_mask(seq_len, device=None):\n"
        "    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril().to(device)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_a_tensor_made_on_the_cpu_and_moved_before_use_passes(name):
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + MOVED[name], only=[name])
    assert result.passed, f"[{result.mistake}] {result.message}"


def test_an_unknown_name_is_told_the_closest_names_or_its_lessons_exercises():
    from autograder.core.extract import from_sources
    from autograder.core.judge import NothingToGrade, judge_code

    code = from_sources("this notebook", [("cell [1]", "f = lambda x: x\n")])
    with pytest.raises(NothingToGrade) as close:
        judge_code(code, only=["casual_mask"], lesson="04_softmax_masks")
    assert "did you mean causal_mask?" in str(close.value)
    with pytest.raises(NothingToGrade) as lesson:
        judge_code(code, only=["<lambda>"], lesson="04_softmax_masks")
    message = str(lesson.value)
    assert (
        "this lesson's exercises are: softmax, causal_mask, padding_mask, masked_scores" in message
    )
    assert "attention_scores" not in message


def test_dot_product_variance_of_the_wrong_quantity_is_not_blamed_on_num_samples():
    code = (
        "def dot_product_variance(d_k, num_samples=100_000, generator=None):\n"
        "    q = torch.randn(num_samples, d_k, generator=generator)\n"
        "    return (q * q).sum(-1).var().item()  # q · q, whose variance is 2 d_k\n"
    )
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + code, only=["dot_product_variance"])
    assert not result.passed and result.mistake is None, result.message
    assert "expected about 16" in result.message


def test_dot_product_variance_rounded_to_an_int_fails_as_not_a_float():
    code = (
        "def dot_product_variance(d_k, num_samples=100_000, generator=None):\n"
        "    q = torch.randn(num_samples, d_k, generator=generator)\n"
        "    k = torch.randn(num_samples, d_k, generator=generator)\n"
        "    return round((q * k).sum(-1).var().item())\n"
    )
    [result] = judge_source(BASE + "\n\nimport torch\n\n" + code, only=["dot_product_variance"])
    assert (result.passed, result.mistake) == (False, None), result.message
    assert "returned the int 16" in result.message


def test_an_unknown_answer_name_is_told_the_closest_question():
    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_sources
    from autograder.core.judge import NothingToGrade, judge_code

    code = from_sources("06_multihead.ipynb", [("cell [1]", "answer_6_1 = 'a'\n")])
    with pytest.raises(NothingToGrade) as close:
        judge_code(code, only=["answer_6_1"])
    assert "no question named answer_6_1; did you mean answer_06_1" in str(close.value)
    _, notes = judge_assignment(code, assignment("06"))
    assert "`answer_6_1` answers no question of the course: did you mean `answer_06_1`?" in notes


def test_a_helper_function_named_answer_is_no_answer():
    """Lesson 08's own answer_entropy(maps), a function, was told it "answers no question" in
    every lesson-08 notebook, and offered six times as the answer to each blank question (trial
    41): an answer is a value, a function or class named answer_... is not one."""
    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_sources

    helper = "def answer_entropy(maps):\n    return maps\n\nclass answer_box:\n    pass\n"
    code = from_sources("08_blocks.ipynb", [("cell [1]", helper + "answer_8_1 = 3\n")])
    results, notes = judge_assignment(code, assignment("08"))
    assert not [n for n in notes if "answer_entropy" in n or "answer_box" in n], notes
    assert "`answer_8_1` answers no question" in " ".join(notes), notes  # a value still is
    asked = [r.message for r in results if r.exercise.startswith("answer_")]
    assert asked and not [m for m in asked if "answer_entropy" in m or "answer_box" in m], asked


def test_the_notes_name_the_cells_that_were_not_read_whatever_the_score():
    """A cell skipped (a syntax error) is named in the notes, not only where an exercise it held
    is then missing (round 30's note: a notebook that passed said nothing of it)."""
    from autograder.core.assignment import SAID, assignment, judge_assignment
    from autograder.core.extract import from_sources

    broken = [(f"cell [{i}]", "def broken(:\n") for i in range(SAID + 2)]
    code = from_sources("02_qkt.ipynb", [*broken, ("cell [9]", "x = 1\n")])
    results, notes = judge_assignment(code, assignment("02"))
    said = [n for n in notes if "syntax error" in n]
    # the cell named as the learner finds it: JupyterLab shows no cell numbers, its first line
    syntax = 'cell [0] ("def broken(:") has a syntax error on line 1: invalid syntax'
    assert said[0] == f"{syntax}; skipped it"
    assert len(said) == SAID and "and 2 more cells skipped" in notes
    # what is missing may be in a cell not read: its result says so, not only "define it"
    unread = 'Not read: cell [0] ("def broken(:") has a syntax error on line 1: invalid syntax; '
    unread += "skipped it (and 6 more); fix it and try again."
    assert results and all(unread in r.message for r in results), [r.message for r in results]


def test_a_skipped_cell_is_quoted_by_its_first_line_on_one_line_and_short():
    """A skipped notebook cell is named with its first line (JupyterLab shows no cell numbers),
    cut at QUOTED characters, its control characters escaped (it reaches terminals); a file is
    named by its line numbers alone."""
    from autograder.core.extract import QUOTED, from_sources

    long_line = "def f(" + "a, " * 30 + "\x1b[2J\u202e):"
    code = from_sources("mine.ipynb", [("cell 3", "\n\n" + long_line + "\n"), ("b.py", "x = (\n")])
    quoted, plain = code.problems
    start = long_line[:QUOTED]
    assert quoted.startswith(f'cell 3 ("{start}…") has a syntax error on line 3'), quoted
    escaped = from_sources("m.ipynb", [("cell 1", "\x1b[2Jdef (:")]).problems[0]
    assert "\x1b" not in escaped and "\\x1b[2Jdef (:" in escaped, escaped
    assert plain.startswith("b.py has a syntax error on line 1"), plain


def test_an_item_in_a_cell_not_read_is_named_with_that_cell_and_counted_as_attempted():
    """The syntax error in the cell of `padding_mask`: its result names that cell (not the first
    cell not read), and the class report counts it as attempted work that failed, not as work
    not attempted (an instructor's trial)."""
    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_sources
    from autograder.grade.outputs.class_report import mistakes, unread_failures
    from autograder.grade.results import Graded

    cells = [
        ("cell 1", "x = (\n"),  # another cell not read, first
        ("cell 4", "import torch\n\ndef padding_mask(lengths, max_len=None):\n    return (\n"),
        ("cell 6", "answer_04_1 = [\n"),
    ]
    results, _ = judge_assignment(from_sources("04.ipynb", cells), assignment("04"))
    got = {r.exercise: r for r in results}
    mask, answer, causal = got["padding_mask"], got["answer_04_1"], got["causal_mask"]
    assert mask.message.startswith('padding_mask is in a cell the grader could not read: cell 4 ("')
    assert "syntax error on line 4" in mask.message and mask.attempted and mask.mistake is None
    assert answer.attempted and 'cell 6 ("answer_04_1 = [")' in answer.message, answer.message
    assert not causal.attempted and causal.mistake == "not-defined"  # in no cell: not attempted
    row = Graded("ada", "04_softmax_masks", "graded", 0.0, "04.ipynb", results)
    _, unnamed, unattempted, _ = mistakes([row])
    # attempted work whose root is a cell not read: counted once, under that cell, not as 2
    # failures that named no mistake
    assert unnamed == 0 and unattempted == len(results) - 2
    assert unread_failures([row]) == [(row, 2)]


def test_a_name_error_from_a_cell_not_read_says_which_cell():
    """The import cell not read (a syntax error): the exercise fails with NameError: torch, and
    its result names the cell, not only a note below (an instructor's trial)."""
    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_sources

    cells = [
        ("cell 2", "import torch,\n"),
        (
            "cell 3",
            "def attention_scores(q, k):\n    return torch.matmul(q, k.transpose(-2, -1))\n",
        ),
    ]
    results, _ = judge_assignment(from_sources("02_qkt.ipynb", cells), assignment("02"))
    [scores] = [r for r in results if r.exercise == "attention_scores"]
    assert not scores.passed and "NameError" in scores.message, scores.message
    # on a line of its own: after the traceback's code line it read as the learner's comment
    assert '\nNot read: cell 2 ("import torch,") has a syntax error on line 1' in scores.message


_SDPA_READS = (
    "def scaled_dot_product_attention(q, k, v, mask=None):\n"
    "    scores = scaled_attention_scores(q, k)\n"
    "    if mask is not None and mask.dtype == torch.bool:\n"
    "        scores = masked_scores(scores, mask)\n"
    "    elif mask is not None:\n"
    "        scores = scores + mask.to(scores.dtype)\n"
    "    {read}\n"
    "    weights = softmax(scores, dim=-1)\n"
    "    return weights @ v, weights\n"
)
DATA_DEPENDENT_READS = {  # learner trial 6's correct variants: a debug read whose shape is data
    "boolean index": "assert not torch.isnan(scores[torch.isfinite(scores)]).any()",
    "masked_select": "_kept = torch.masked_select(scores, scores > 0)",
    "nonzero": "_rows = scores.isneginf().all(-1).nonzero()",
}


@pytest.mark.parametrize("read", DATA_DEPENDENT_READS.values(), ids=list(DATA_DEPENDENT_READS))
def test_a_read_with_a_data_dependent_shape_is_correct_code(read):
    """Meta tensors (the device checks) have no values, so such an op cannot run there; whatever
    torch's message says, the rest of that section is skipped and nothing is a mistake."""
    code = _SDPA_READS.format(read=read)
    [result] = judge_source(BASE + "\n\n" + code, only=["scaled_dot_product_attention"])
    assert result.passed, result.message


def test_a_definition_that_raised_while_loading_says_why_it_is_not_defined():
    code = (
        "from course_lib.blocks import TinyTransformer as Reference\n\n\n"
        "class TinyTransformer(Reference):  # a subclass of the course's reference\n"
        "    pass\n"
    )
    [result] = judge_source(code, only=["TinyTransformer"])
    assert result.mistake == "not-defined"
    assert "line 4: ImportError: course_lib.TinyTransformer is the course's reference" in (
        result.message
    )


def test_a_window_of_0_refused_is_told_what_the_contract_asks():
    """Trial 38: a sliding_window_mask that raises for window < 1 lost its point with only its
    own error shown; the failure now says what the mask is for a window of 0."""
    code = (
        "def sliding_window_mask(seq_len, window):\n"
        "    if window < 1:\n"
        "        raise ValueError('window must be at least 1')\n"
        "    i = torch.arange(seq_len)\n"
        "    d = i[:, None] - i[None, :]\n"
        "    return (d >= 0) & (d < window)\n"
    )
    [result] = judge_source(BASE + "\n\n" + code, only=["sliding_window_mask"])
    assert not result.passed and "window must be at least 1" in result.message
    assert "a window of 0 is a valid input" in result.message, result.message


def test_a_time_limit_names_the_call_it_stopped():
    """Trial 38: a correct but slow tiled_attention ran out of time at full size, and the failure
    named no call; the small calls before it had passed."""
    code = (
        "import time\n\n"
        "def softmax(x, dim=-1):\n"
        "    if x.dim() >= 3:  # slow on batches only\n"
        "        start = time.process_time()\n"
        "        while time.process_time() - start < 60:\n"
        "            pass\n"
        "    e = (x - x.amax(dim, keepdim=True)).exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n"
    )
    [result] = judge_source(BASE + "\n\n" + code, only=["softmax"], time_limit=1.0)
    assert (result.passed, result.mistake) == (False, "timeout"), result.message
    assert "It was stopped in softmax(" in result.message, result.message


def test_a_failing_append_says_what_the_cache_held_before():
    """Trial 38: 'KVCache().append(k: (1, 2, 3, 4), ...): k_all has shape (1, 2, 3, 4), expected
    (1, 2, 6, 4)' left unsaid the first append of 3 positions that makes 6 expected."""
    from lesson_files import LESSONS

    wrong = LESSONS / "09_efficient" / "wrong" / "kv-cache-returns-new-only.py"
    [result] = judge_source(BASE + "\n\n" + wrong.read_text(), only=["KVCache"])
    assert result.mistake == "kv-cache-returns-new-only", result.message
    assert "KVCache() (holding " in result.message and " positions).append(" in result.message


def test_a_softmax_that_moves_dim_back_the_wrong_way_fails_on_dim_0_of_three():
    """movedim(dim, -1) twice is a swap for 2-D inputs and for dim 1 of three, the cases checked
    before (trial 39's softmax passed); for dim 0 of three it rotates the dims."""
    code = (
        "def softmax(x, dim=-1):\n"
        "    y = x.movedim(dim, -1)\n"
        "    m = y.amax(-1, keepdim=True)\n"
        "    e = (y - torch.where(m.isneginf(), 0.0, m)).exp()\n"
        "    s = e.sum(-1, keepdim=True)\n"
        "    return (e / torch.where(s == 0, 1.0, s)).movedim(dim, -1)\n"
    )
    [result] = judge_source(BASE + "\n\n" + code, only=["softmax"])
    assert not result.passed and "dim=0" in result.message and "shape" in result.message


@pytest.mark.parametrize(
    "lesson, name, said",
    [
        ("05_attention", "SelfAttention", ".w_q is a tensor (an nn.Parameter?), not a layer"),
        ("07_positions", "LearnedPositionalEmbedding", "asks for an nn.Embedding named"),
    ],
)
def test_layers_as_parameters_are_told_they_are_no_layers(lesson, name, said):
    """nn.Parameter matrices named w_q, w_k, w_v were told 'SelfAttention has no layer named
    'w_q' (its layers: none)' of a module that has a w_q (trial 39); a ViT-style parameter table
    named embedding was told the contract asks for an nn.Linear (trial 40)."""
    folder = ROOT / "tests" / "lessons" / lesson / "wrong"
    [path] = folder.glob("module-attribute-names__parameter*.py")
    [result] = judge_source(BASE + "\n\n" + path.read_text(encoding="utf-8"), only=[name])
    assert result.mistake == "module-attribute-names"
    assert said in result.message, result.message


def test_a_sinusoid_table_of_a_fixed_length_is_told_its_shape_not_its_frequencies():
    """The Annotated Transformer's table of 5000 rows, sliced to max_len (trial 40): right
    frequencies, too few rows for 40000 positions; it was named [pe-wrong-frequencies]."""
    code = (
        "_PE = {}\n"
        "def sinusoidal_positional_encoding(max_len, d_model):\n"
        "    if d_model % 2:\n"
        "        raise ValueError('d_model must be even')\n"
        "    if d_model not in _PE:\n"
        "        position = torch.arange(0, 5000).unsqueeze(1)\n"
        "        div = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))\n"
        "        pe = torch.zeros(5000, d_model)\n"
        "        pe[:, 0::2] = torch.sin(position * div)\n"
        "        pe[:, 1::2] = torch.cos(position * div)\n"
        "        _PE[d_model] = pe\n"
        "    return _PE[d_model][:max_len]\n"
    )
    source = BASE + "\n\nimport math\nimport torch\n\n" + code
    [result] = judge_source(source, only=["sinusoidal_positional_encoding"])
    assert not result.passed
    assert result.mistake != "pe-wrong-frequencies", result.message
    assert "(5000, 2)" in result.message and "(40000, 2)" in result.message, result.message


def test_what_failed_while_loading_is_said_only_where_it_may_explain_a_missing_name():
    """`check lesson07.ipynb --only softmax` said 'softmax is not defined', then blamed the
    learner for the lesson's own cell using course_lib's SelfAttention (trial 40): code that never
    names softmax cannot have lost it while loading. Code that does still hears why."""
    lesson = (
        "import torch\nfrom course_lib.attention import SelfAttention\n"
        "attention = SelfAttention(4, 4, 4)\nweights = torch.softmax(torch.zeros(3), -1)\n"
    )  # torch.softmax is not the learner's softmax
    [result] = judge_source(lesson, only=["softmax"])
    assert result.message.startswith("softmax is not defined")
    assert "While loading" not in result.message, result.message
    lost = "softmax = make_softmax()\n"  # make_softmax: a NameError
    [result] = judge_source(lesson + lost, only=["softmax"])
    assert "While loading your code" in result.message and "make_softmax" in result.message


def test_a_wrong_value_is_said_before_a_tensor_made_on_the_cpu():
    """Trial 43: a square-only score matrix made with torch.zeros (no device=) was told to make
    its tensors on the input's device; its real bug, the shape, came second. A call's device
    problem now waits until the check has judged what the call computed, and is said when
    nothing else is wrong."""
    wrong_shape = (
        "import torch\n"
        "def attention_scores(q, k):\n"
        "    L = q.shape[-2]\n"
        "    s = torch.zeros(*q.shape[:-2], L, L, dtype=q.dtype)\n"
        "    return s + q @ k[..., :L, :].transpose(-2, -1)\n"
    )
    [result] = judge_source(wrong_shape, only=["attention_scores"])
    assert not result.passed and result.mistake != "created-on-cpu", result.message
    assert "has shape (3, 3), expected (3, 5)" in result.message, result.message
    device_only = (
        "import torch\n"
        "def attention_scores(q, k):\n"
        "    s = torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)\n"
        "    return s + q @ k.transpose(-2, -1)\n"
    )
    [result] = judge_source(device_only, only=["attention_scores"])
    assert not result.passed and result.mistake == "created-on-cpu", result.message


SUBCLASSED_ATTENTION = """

class SelfAttentionLayer(MultiHeadAttention):
    \"\"\"The learner's own MultiHeadAttention under another name.\"\"\"


class TransformerBlock(TransformerBlock):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.attn = SelfAttentionLayer(d_model, num_heads, bias=True)
"""


def test_a_layer_of_a_subclass_of_the_contracts_class_passes():
    """Trial 49: a block whose attn is a subclass of the learner's MultiHeadAttention was told
    "attn is a __main__.SelfAttentionLayer, expected a MultiHeadAttention"."""
    [result] = judge_source(BASE + SUBCLASSED_ATTENTION, only=["TransformerBlock"])
    assert result.passed, result.message


@pytest.mark.parametrize("mistake", ["transpose-batch-dims", "forgot-transpose-k"])
def test_an_error_a_mistake_explains_shows_its_title_once(mistake):
    """An error a known mistake raises too is named on the report's "Looks like: <title> [id]"
    line; the message led with the same title as well (a candidate trial: "prints its title
    twice")."""
    from lesson_files import wrong_file

    from autograder.check.report import human

    entry = MISTAKES[mistake]
    path = wrong_file(mistake)
    results = judge_source(BASE + path.read_text(), [entry.exercises[0]], label=path.name)
    report = human(path.name, results)
    [failed] = results
    assert failed.mistake == mistake and "raised" in failed.message, report
    assert " ".join(report.split()).count(entry.title) == 1, report
