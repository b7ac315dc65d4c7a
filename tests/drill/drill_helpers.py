"""What the drill tests share besides fixtures (conftest.py): a moment to date a history from,
a correct answer to the sdpa-mask drill, and writing a body into a started drill file."""

from __future__ import annotations

import inspect
from datetime import datetime, timezone
from pathlib import Path

from autograder.drill.extra import references

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _sdpa_from_the_reference() -> str:
    """The drills' own attention reference (``references._attend``: the model answers of gqa,
    cross-attention, greedy-kv build on it) as the course's ``scaled_dot_product_attention``,
    which returns ``(output, weights)``: a bool mask (True = may attend) or a float one, zeros
    for a query whose keys are all masked."""
    source = inspect.getsource(references._attend)
    renamed = source.replace("def _attend(", "def scaled_dot_product_attention(")
    both = renamed.replace("    return weights @ v\n", "    return weights @ v, weights\n")
    assert both.count("def scaled_dot_product_attention(") == 1 and both.endswith(
        "return weights @ v, weights\n"
    ), "references._attend changed: write the test's answer again"
    assert "~mask" in both and "mask.to(scores.dtype)" in both  # what the tests break in it
    return "import math\n\nimport torch\n\n\n" + both


CORRECT_SDPA = _sdpa_from_the_reference()


def solve(path: Path, body: str) -> None:
    """Replace a started drill file's stubs by ``body``, keeping its header comment."""
    header = path.read_text().split("\nimport math")[0]
    path.write_text(header + "\n" + body)
