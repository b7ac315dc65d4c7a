"""A blank exercise (``raise NotImplementedError()``, nbgrader's stub) is 'not written yet'; an
exercise that is written but calls a blank earlier one (lesson 05's tools cell left empty) is told
which one, and counts as attempted (trial 39: 'scaled_dot_product_attention 还没有写' of code that
was written)."""

from pathlib import Path

from autograder.core.judge import judge_source

ROOT = Path(__file__).resolve().parents[2]
TOOLS = "tools_from_03_04"  # lesson 05's tools cell (nbgrader's grade_id)

BLANK_SOFTMAX = "def softmax(x, dim=-1):\n    raise NotImplementedError()\n"
SDPA = """
import math


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
"""
BLANK = """
import torch.nn as nn


def scaled_dot_product_attention(q, k, v, mask=None):
    raise NotImplementedError()


class SelfAttention(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        raise NotImplementedError()
"""


def test_a_written_exercise_calling_a_blank_earlier_one_names_it():
    [result] = judge_source(BLANK_SOFTMAX + SDPA, only=["scaled_dot_product_attention"])
    assert not result.passed and result.attempted
    assert "calls softmax, which is not written yet" in result.message


def test_a_written_exercise_constructing_a_blank_earlier_class_names_it():
    """Lesson 08's tools cell left blank (trial 41): TransformerBlock, written, builds the blank
    MultiHeadAttention, whose __init__ raises; it was told it 'is not written yet' itself."""
    blank_mha = (
        "import torch.nn as nn\n\n\nclass MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, num_heads, bias=False):\n"
        "        super().__init__()\n        raise NotImplementedError()\n"
    )
    block = (ROOT / "tests/lessons/08_blocks/correct/plain.py").read_text(encoding="utf-8")
    block = block[block.index("class FeedForward") : block.index("class TinyTransformer")]
    [result] = judge_source(blank_mha + "\n\n" + block, only=["TransformerBlock"])
    assert not result.passed and result.attempted
    assert "TransformerBlock calls MultiHeadAttention, which is not written yet" in result.message


def test_a_blank_exercise_is_not_written_yet_whatever_raises_inside_it():
    results = {r.exercise: r for r in judge_source(BLANK)}
    for name in ("scaled_dot_product_attention", "SelfAttention"):
        assert not results[name].attempted
        assert results[name].message.startswith(f"{name} is not written yet"), results[name]


def test_a_failing_pasted_tool_is_named_where_what_calls_it_fails(tmp_path):
    """A lesson 05 notebook whose tools cell carries a softmax without the fully-masked guard:
    its exercises fail as [fully-masked-nan], and a note says the fault is the carried softmax,
    which is not graded here (trial 39: nothing said so). A notebook whose exercises pass pays
    nothing for it: its tools are not judged."""
    import nbformat

    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_file

    source = ROOT / "solutions" / "05_attention" / "05_attention.ipynb"
    nb = nbformat.read(source, as_version=4)
    [tools] = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == TOOLS]
    guard = "torch.where(torch.isfinite(m), m, torch.zeros_like(m))"
    assert guard in tools.source
    tools.source = tools.source.replace(guard, "m")  # a row of -inf shifted by -inf: NaN
    path = tmp_path / "05_attention.ipynb"
    nbformat.write(nb, path)
    results, notes = judge_assignment(from_file(path), assignment("05"))
    failed = {r.exercise: r.mistake for r in results if not r.passed}
    assert failed == {
        "scaled_dot_product_attention": "fully-masked-nan",
        "SelfAttention": "fully-masked-nan",
    }
    [note] = [n for n in notes if "carried here" in n]
    assert note.startswith("softmax (lesson 04's exercise, carried here) fails its own check")
    assert "[fully-masked-nan]" in note
    _results, notes = judge_assignment(from_file(source), assignment("05"))
    assert not [n for n in notes if "carried here" in n]


def test_a_failing_drill_of_the_interview_lesson_is_not_sent_back_to_an_earlier_lesson(tmp_path):
    """Trial 45: lesson 10's Drill 1 is scaled_dot_product_attention written from a blank page
    in that notebook; with its mask inverted (and a question wrong), the note said "fix it in
    lesson 05 and paste it again", sending a candidate to another notebook."""
    import nbformat

    from autograder.core.assignment import assignment, judge_assignment
    from autograder.core.extract import from_file

    source = ROOT / "solutions" / "10_interview" / "10_interview.ipynb"
    nb = nbformat.read(source, as_version=4)
    [drill] = [c for c in nb.cells if "def scaled_dot_product_attention" in c.source]
    assert "masked_fill(~mask," in drill.source
    drill.source = drill.source.replace("masked_fill(~mask,", "masked_fill(mask,")
    [answer] = [c for c in nb.cells if "answer_10_1 = 'b'" in c.source]
    answer.source = answer.source.replace("answer_10_1 = 'b'", "answer_10_1 = 'a'")
    path = tmp_path / "10_interview.ipynb"
    nbformat.write(nb, path)
    _results, notes = judge_assignment(from_file(path), assignment("10"))
    said = [n for n in notes if "fails its own check" in n]
    [note] = [n for n in said if n.startswith("scaled_dot_product_attention ")]
    assert note.startswith("scaled_dot_product_attention (lesson 05's exercise, written here as")
    assert "--only scaled_dot_product_attention" in note
    assert not [n for n in said if "paste it again" in n], said
