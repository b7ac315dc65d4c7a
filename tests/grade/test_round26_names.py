"""Red team round 26, finding 5: two students never share a feedback folder.

``safe_name`` gave a name that had to change ``-<8 hex of its sha256>`` and left a plain one as it
was, so a student whose id *was* a classmate's changed form (``zo_-2752b886`` for ``zoë``,
``bob_x.org-b752a9a4`` for ``bob@x.org``) shared every per-student file with them (the text
feedback, the HTML page with nbgrader's ``submission_secret.txt`` beside it, Gradescope's
``results.json``), and the later write won silently. Now a name that ends like a changed one is
changed too, the digest is 16 hex digits, and the outputs refuse to write any folder two students
would share (and say so).
"""

from __future__ import annotations

import hashlib
import json
import os
import re

import nbformat
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from test_gradebook import MASKS
from test_gradebook_round12 import solution
from test_report import graded

from autograder.grade import results
from autograder.grade.grading import grade_class
from autograder.grade.outputs import exports, feedback, table
from autograder.grade.outputs.table import read_table
from autograder.grade.outputs.write import write_outputs
from autograder.grade.results import CHANGED, GradeTable, safe_name

FILE_NAME = re.compile(r"\w[\w.-]*")  # letters and digits of any script (张伟)


def round25_safe_name(name: str) -> str:
    """``safe_name`` as it was until round 26 (8 hex digits; a changed form is a plain name)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name).lstrip(".-") or "_"
    if safe != name:
        safe = f"{safe[:64]}-{hashlib.sha256(os.fsencode(name)).hexdigest()[:8]}"
    return safe


# -- safe_name is one-to-one ----------------------------------------------------------------------
# ids built from what changes a name and what a changed name is made of
ids = st.text(st.sampled_from("ab_.-@/ ëZ0123456789abcdef\n"), max_size=30) | st.text(max_size=12)


@st.composite
def pairs(draw) -> tuple[str, str]:
    """Two ids, the second often made from the first's safe form (what an attacker would pick)."""
    a = draw(ids)
    made = [
        safe_name(a),
        round25_safe_name(a),
        safe_name(a)[:-8],  # the first half of its digest
        safe_name(safe_name(a)),
        safe_name(a) + draw(ids),
        draw(ids) + safe_name(a)[-17:],  # its suffix after another name
        safe_name(a).upper(),
    ]
    return a, draw(st.sampled_from(made) | ids)


@given(pairs())
@example(("zoë", "zo_-2752b886"))
@example(("bob@x.org", "bob_x.org-b752a9a4"))
@example(("zoë", safe_name("zoë")))
@example(("bob@x.org", safe_name("bob@x.org")))
def test_two_different_ids_never_have_one_safe_name(pair):
    a, b = pair
    assert (safe_name(a) == safe_name(b)) == (a == b)
    for name in pair:
        assert FILE_NAME.fullmatch(safe_name(name)) and len(safe_name(name)) <= 81


@given(st.from_regex(FILE_NAME, fullmatch=True).filter(lambda n: not CHANGED.search(n)))
@example("ada")
@example("bob.smith_2")
@example("s-1234")
@example("zo_-2752b886")  # a plain id that ends in 8 hex digits (round 25's digest) stays
def test_a_plain_id_keeps_its_folder_name(name):
    assert safe_name(name) == name


def test_a_changed_name_is_changed_again_and_cannot_be_claimed():
    for victim in ("zoe\u0308", "bob@x.org", "a/b", ".hidden", ""):  # a combining mark
        changed = safe_name(victim)
        assert CHANGED.search(changed) and changed != victim
        assert safe_name(changed) != changed  # the changed form, as an id, is changed too
    assert (
        safe_name("x-0123456789abcdef")
        == "x-0123456789abcdef-" + hashlib.sha256(b"x-0123456789abcdef").hexdigest()[:16]
    )
    assert safe_name("x-0123456789ABCDEF") == "x-0123456789ABCDEF"  # ours are lower case


# -- the red team's two classes, graded end to end ------------------------------------------------
def notebook(extra: str | None) -> str:
    """The lesson-04 solution, with ``extra`` (a cell redefining one function) at its end."""
    nb = solution()
    if extra:
        nb.cells.append(nbformat.v4.new_code_cell(extra))
    return nbformat.writes(nb)


MALLORY = (
    "def causal_mask(seq_len, device=None):\n    raise ValueError('this is MALLORY s feedback')"
)
ZOE = (
    "def padding_mask(lengths, seq_len):\n"
    "    secret_of_zoe = 'ZOE-PRIVATE-42'\n"
    "    raise ValueError(secret_of_zoe)"
)
CLASSES = {  # student -> (the cell added to the solution, total, what only their feedback says)
    "bob": {"bob@x.org": (None, "8", None), "bob_x.org-b752a9a4": (MALLORY, "7", "MALLORY")},
    "zoe": {"zoë": (ZOE, "7", "ZOE-PRIVATE-42"), "zo_-2752b886": (None, "8", None)},
}


@pytest.mark.parametrize("name", CLASSES)
def test_each_student_of_the_red_teams_classes_gets_their_own_feedback(tmp_path, name):
    students = CLASSES[name]
    root = tmp_path / "submitted"
    for student, (extra, _, _) in students.items():
        (root / student / MASKS).mkdir(parents=True)
        (root / student / MASKS / f"{MASKS}.ipynb").write_text(notebook(extra))
    out = tmp_path / "grades.csv"
    graded_class = grade_class(root, out, workers=1, config=None, assignments=[MASKS])

    assert {r["student"]: r["total"] for r in read_table(out)} == {
        s: total for s, (_, total, _) in students.items()
    }
    folders = {safe_name(s) for s in students}
    assert len(folders) == 2
    assert {p.name for p in graded_class.feedback_dir.iterdir()} == folders
    assert {p.name for p in (tmp_path / "grades_gradescope").iterdir()} == folders
    secrets = {secret for _, _, secret in students.values() if secret}
    for student, (_, total, secret) in students.items():
        folder = graded_class.feedback_dir / safe_name(student)
        text = (folder / f"{MASKS}.txt").read_text()
        page = (folder / MASKS / f"{MASKS}.html").read_text()
        gradescope = tmp_path / "grades_gradescope" / safe_name(student) / MASKS / "results.json"
        assert f"Score: {total}/8" in text
        assert json.loads(gradescope.read_text())["extra_data"]["student"] == student
        for other in secrets - {secret}:  # no one's feedback shows a classmate's
            assert other not in text and other not in page
        if secret:
            assert secret in text and secret in page
    assert "would share" not in graded_class.summary()


# -- a folder two students would share is written for neither --------------------------------------
@pytest.fixture
def round25_names(monkeypatch):
    """``safe_name`` as it was, everywhere the outputs use it: ``bob_x.org-b752a9a4`` is
    ``bob@x.org``'s folder again."""
    for module in (results, table, feedback, exports):
        monkeypatch.setattr(module, "safe_name", round25_safe_name)


def test_students_who_would_share_a_folder_get_none_and_the_instructor_is_told(
    tmp_path, round25_names
):
    rows = [graded("bob@x.org"), graded("bob_x.org-b752a9a4", failed={"causal_mask": None})]
    rows.append(graded("ada"))
    graded_table = GradeTable(rows, tmp_path / "grades.csv", tmp_path / "fb")
    write_outputs(graded_table, [], regrading=False)

    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == ["ada"]
    assert sorted(p.name for p in (tmp_path / "grades_gradescope").iterdir()) == ["ada"]
    assert {r["student"]: r["total"] for r in read_table(tmp_path / "grades.csv")} == {
        "ada": "8",
        "bob@x.org": "8",
        "bob_x.org-b752a9a4": "7",
    }
    [note] = [line for line in graded_table.summary().split("\n") if "would share" in line]
    assert "'bob@x.org', 'bob_x.org-b752a9a4'" in note and "bob_x.org-b752a9a4)" in note
    assert "none of their feedback" in note and "grades are in the table" in note


def test_a_student_who_would_share_the_folder_of_one_graded_before_is_caught_too(
    tmp_path, round25_names
):
    out, fb = tmp_path / "grades.csv", tmp_path / "fb"
    write_outputs(GradeTable([graded("bob@x.org")], out, fb), [], regrading=False)
    before = (fb / "bob_x.org-b752a9a4" / f"{MASKS}.txt").read_text()
    assert "Score: 8/8" in before

    later = GradeTable([graded("bob_x.org-b752a9a4", failed={"causal_mask": None})], out, fb)
    write_outputs(later, read_table(out), regrading=True)
    assert (fb / "bob_x.org-b752a9a4" / f"{MASKS}.txt").read_text() == before  # not replaced
    assert "'bob@x.org', 'bob_x.org-b752a9a4'" in later.summary()
