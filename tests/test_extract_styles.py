"""A .py file runs as Python imports it; a notebook keeps the statements its definitions need.

Issue 19: helpers defined under a top-level ``if``/``try``, constants built in a top-level loop
and augmented assignments were dropped by the extraction, so correct code failed with NameError.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from autograder.core.extract import from_file, from_sources
from autograder.core.judge import judge_file

STYLE = Path(__file__).parent / "styles" / "module_level_code.py"


def test_a_module_style_file_passes_its_exercises():
    results = judge_file(STYLE)
    assert [r.exercise for r in results] == [
        "attention_scores",
        "scaled_attention_scores",
        "masked_scores",
    ]
    assert all(r.passed for r in results), [(r.exercise, r.message) for r in results]


def test_a_module_keeps_every_statement_but_the_main_guard_and_check_calls(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("X = 1\nX += 1\nprint(X)\ncheck(X)\nif __name__ == '__main__':\n    X = 99\n")
    [cell] = from_file(path).cells
    assert "X += 1" in cell.source and "print(X)" in cell.source
    assert "check(X)" not in cell.source and "99" not in cell.source


def test_a_notebook_keeps_what_definitions_read_and_skips_demos():
    cells = [
        ("cell 1", "NEG = -1.0\nNEG *= float('inf')\nT = {}\nfor d in (1, 2):\n    T[d] = d\n"),
        ("cell 2", "try:\n    from math import sqrt\nexcept ImportError:\n    sqrt = None\n"),
        ("cell 3", "def f(x):\n    y = x * T[1] / sqrt(4)\n    return max(y, NEG)\n"),
        ("cell 4", "for x in range(3):\n    y = f(x)\nfor step in range(9):\n    loss = step\n"),
    ]
    code = from_sources("nb.ipynb", cells)
    kept = "\n".join(c.source for c in code.cells)
    assert "NEG *= " in kept and "T[d] = d" in kept and "from math import sqrt" in kept
    assert "y = f(x)" not in kept and "loss = step" not in kept


def _kept(cells: list[tuple[str, str]]) -> str:
    return "\n".join(c.source for c in from_sources("nb.ipynb", cells).cells)


def test_a_method_call_on_a_module_mutates_no_name_the_definitions_read():
    """``torch.manual_seed(0)`` or ``copy.deepcopy(m)`` in a demo made the extraction
    think the demo changed ``torch`` or ``copy``, which the functions read: it ran every demo."""
    cells = [
        ("cell 1", "import copy\nimport numpy as np\nimport torch\n"),
        ("cell 2", "def f(m):\n    return copy.deepcopy(torch.as_tensor(np.ones(2)) * m)\n"),
        ("cell 3", "with torch.no_grad():\n    torch.manual_seed(0)\n    model = f(2)\n"),
        (
            "cell 4",
            "for seed in range(3):\n    np.random.seed(seed)\n    other = copy.deepcopy(model)\n",
        ),
        ("cell 5", "if True:\n    torch.backends.cudnn.deterministic = True\n"),
    ]
    kept = _kept(cells)
    assert "def f(m):" in kept and "import copy" in kept
    assert "model = f(2)" not in kept and "deepcopy(model)" not in kept and "cudnn" not in kept


def test_a_local_variable_that_a_lambda_reads_is_not_a_global():
    """lesson 08's ``attention_maps`` appends to its local ``maps`` in a hook lambda;
    ``maps`` looked like a global, so every demo that set ``maps`` was kept."""
    cells = [
        (
            "cell 1",
            "def attention_maps(model):\n    maps = []\n"
            "    hooks = [model.hook(lambda out: maps.append(out)) for _ in range(2)]\n"
            "    squares = [n * n for n in range(3)]\n    return maps, hooks, squares\n",
        ),
        ("cell 2", "with open('x') as model:\n    maps = attention_maps(model)\n"),
        ("cell 3", "for n in range(3):\n    squares = n\n"),
    ]
    kept = _kept(cells)
    assert "def attention_maps" in kept
    assert "maps = attention_maps(model)" not in kept and "squares = n" not in kept


def test_a_notebook_keeps_blocks_that_build_what_the_definitions_read():
    """What real notebooks need: a table built after seeding, a learner list appended to in a
    loop, what a kept block itself reads (transitively), what a lambda exercise reads."""
    cells = [
        ("cell 1", "import torch\nTABLE_ROWS = []\nif True:\n    DIMS = (1, 2)\n"),
        ("cell 2", "with torch.no_grad():\n    torch.manual_seed(0)\n    W = torch.randn(2, 2)\n"),
        ("cell 3", "for d in DIMS:\n    TABLE_ROWS.append(d)\n"),
        ("cell 4", "if W is not None:\n    SCALE = 2.0\nfor k in range(2):\n    OFFSET = k\n"),
        ("cell 5", "def f(x):\n    return x @ W + len(TABLE_ROWS)\n\n\ng = lambda x: x * SCALE\n"),
        ("cell 6", "for _ in range(5):\n    W.add_(1)\n    demo = f(W)\n"),
    ]
    kept = _kept(cells)
    assert "torch.manual_seed(0)" in kept and "W = torch.randn" in kept  # f reads W
    assert "TABLE_ROWS.append(d)" in kept and "DIMS = (1, 2)" in kept  # and so DIMS
    assert "SCALE = 2.0" in kept  # the lambda g reads SCALE
    assert "OFFSET = k" not in kept
    assert "W.add_(1)" in kept  # mutates W, which f reads: a learner's name, not a module


def test_what_an_assignment_the_definitions_read_needs_is_kept():
    """Red team round 28's notes: ``SHIFT = torch.tensor(EPS)`` is always kept, but the ``if``
    block that sets ``EPS`` was dropped (its reads were not followed: NameError, 0 points); and
    a loop that rebinds ``SCALE`` from its own value lost the ``if`` that set it first. A demo
    that only sets names the definitions never read is still skipped, and so is what only it
    reads, and a temporary a block sets before it reads it."""
    cells = [
        (
            "cell 1",
            "import torch\nif torch.get_default_dtype() == torch.float32:\n    EPS = 1e-6\n",
        ),
        ("cell 2", "SHIFT = torch.tensor(EPS)\n"),
        ("cell 3", "if SHIFT > 0:\n    SCALE = 2.0\nfor _ in range(2):\n    SCALE = SCALE * 1.0\n"),
        ("cell 4", "if True:\n    LIMIT = 3\nLIMIT += 1\n"),
        ("cell 5", "def f(x):\n    return x * SCALE + SHIFT + LIMIT\n"),
        ("cell 6", "for step in range(9):\n    loss = step\nsummary = loss * 2\n"),
        ("cell 7", "for i in range(2):\n    tmp = i\n    TOTAL = tmp\n"),
        ("cell 8", "def g():\n    return TOTAL\n"),
        ("cell 9", "for tmp in range(5):\n    demo = tmp\n"),
    ]
    kept = _kept(cells)
    assert "EPS = 1e-6" in kept and "SCALE = 2.0" in kept and "LIMIT = 3" in kept
    assert "summary = loss * 2" in kept  # a plain assignment: always kept
    assert "loss = step" not in kept  # the definitions never read summary
    assert "TOTAL = tmp" in kept and "demo = tmp" not in kept  # tmp: set before it is read
    namespace = {}
    for cell in from_sources("nb.ipynb", cells).cells:
        try:
            exec(compile(cell.source, cell.label, "exec"), namespace)
        except NameError:  # summary = loss * 2: a demo's line, as before
            pass
    assert float(namespace["f"](1.0)) == pytest.approx(2.0 + 1e-6 + 4)


@pytest.mark.parametrize("edition", ["", "zh-CN"])
def test_lesson_08s_solution_is_graded_without_its_training_demos(edition):
    """``check`` of lesson 08 re-ran every ``with needs(...)`` demo, training models,
    against the exercise's CPU limit. The kept code defines things and builds small tables; it
    builds no model and calls none of the notebook's own functions (no training)."""
    import nbformat

    path = Path(__file__).parents[1] / edition / "solutions" / "08_blocks" / "08_blocks.ipynb"
    nb = nbformat.read(path, as_version=4)
    ids = {f"cell {i}": cell.get("id") for i, cell in enumerate(nb.cells, start=1)}
    code = from_file(path)
    kept = {ids[c.label]: ast.parse(c.source).body for c in code.cells}
    for cell_id in ("code-11", "code-18", "code-26", "code-30", "code-32", "code-45", "eed47137"):
        assert cell_id not in kept, f"{cell_id} is a demo: it defines nothing the exercises read"
    for cell_id in ("code-02", "code-08", "code-13", "code-22", "code-25", "code-43", "code-56"):
        assert cell_id in kept
    statements = [node for body in kept.values() for node in body]
    assert not [ast.unparse(n)[:60] for n in statements if isinstance(n, ast.With | ast.For)]
    assert {
        "FeedForward",
        "TransformerBlock",
        "TinyTransformer",
        "attention_maps",
    } <= code.callables
    calls = {
        n.func.id
        for node in statements
        if not isinstance(node, ast.FunctionDef | ast.ClassDef)
        for n in ast.walk(node)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    assert not calls & code.callables, (
        f"module-level code runs the notebook's {calls & code.callables}"
    )


def test_a_black_formatted_comparison_or_modulo_is_not_taken_for_a_magic():
    """black puts a long expression's operator at the start of its line: ``!= 0`` and ``% V``
    begin lines inside brackets, which are not IPython's ``!cmd`` or ``%magic`` (red team round
    28's note: the lines were blanked and the cell dropped as a syntax error)."""
    cell = (
        "%matplotlib inline\n"
        "!pip list\n"
        "def nonzero(x, V):\n"
        "    return (\n"
        "        x\n"
        "        != 0\n"
        "    ), (\n"
        "        x\n"
        "        % V\n"
        "    )\n"
    )
    code = from_sources("mine.ipynb", [("cell 1", cell)])
    assert code.defined == {"nonzero"} and not code.problems, code.problems
    namespace = {}
    exec(compile(code.cells[0].source, "cell", "exec"), namespace)
    assert namespace["nonzero"](7, 4) == (True, 3)
