"""The red team's breaks in round 11 (notes: rt11) of what formgrader shows, each tried on the
page formgrader serves (its handler's exporter and template: ``formgrader_html``).

1. A student id (the ``submitted/`` folder's name) that is an HTML tag: formgrader prints it
   unescaped; opening the submission ran the student's script as the instructor. ``grade
   --gradebook`` now refuses such an id, saying why and what to do, and writes the others.
2. A markdown parse differential (math, strikethrough) and formgrader's ``strip_files_prefix``
   (``files/javascript:``, found while fixing) let a ``javascript:`` link through: the check now
   reads nbconvert's own rendering, as formgrader's page has it.
7. ``transient.remove_source`` (and JupyterLab's ``source_hidden``) hid the graded code from the
   reviewer: removed.
3. A cell of unknown type, or an unknown key, made formgrader's page fail (nbconvert refuses the
   notebook): dropped; a notebook still invalid gets no autograded notebook, with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
from test_gradebook import MASKS, ROOT, row, table
from test_gradebook_inert import PNG, formgrader_html

from autograder.grade.grading import GRADED
from autograder.grade.inert import id_problem
from autograder.grade.nbgrader_gradebook import CourseGradebook, sanitised

HOSTILE_ID = "<img src=x onerror=alert(1)>"
REAL_NAMES = ["ada", "李小龙", "देवनागरी", "zoë.o-neill_2@uni", "Ǆemal", "مریم"]
REFUSED_NAMES = [HOSTILE_ID, "o'brien", 'a"b', "a&b", "ada lovelace", "tab\there", "a\u202eb"]
# markdown_differential_fuzz.py's forms that passed round 10's check, and strip_files_prefix's
LINKS = [
    "$`$ [a](javascript:alert(1)) `",
    "`$` [a](javascript:alert(1)) $`$",
    "$$`$$ [a](javascript:alert(1)) `",
    "\\begin{equation}`\\end{equation} [a](javascript:alert(1)) `",
    "~~`~~ [a](javascript:alert(1)) `",
    "[a](files/javascript:alert(1))",
    "[a](javascript:alert(1))",
    "[a][r]\n\n[r]: vbscript:x",
    "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
]
ACTIVE = re.compile(r'(href|src)\s*=\s*["\']?\s*(javascript|vbscript|data:text)', re.I)


def course_of(released: Path, tmp_path: Path) -> Path:
    course = tmp_path / "course"
    shutil.copytree(released, course)
    return course


def solution() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "solutions" / MASKS / f"{MASKS}.ipynb", as_version=4)


def autograded(course: Path, nb, name: str = "x") -> Path:
    """``nb`` as ``grade --gradebook`` writes it for formgrader."""
    resources = {"db_url": f"sqlite:///{course / 'gradebook.db'}", "assignment": MASKS}
    released = CourseGradebook.of(course)._released(MASKS, MASKS)  # cells, grade ids, language
    target = course / f"{name}.ipynb"
    text = json.dumps(nb) if isinstance(nb, dict) else nbformat.writes(nb)
    nbformat.write(sanitised(text, resources | {"notebook": MASKS}, *released), target)
    return target


# -- 1. the student id ---------------------------------------------------------------------------
def test_real_names_are_ids_and_html_is_not():
    assert [n for n in REAL_NAMES if id_problem(n)] == []
    assert [n for n in REFUSED_NAMES if not id_problem(n)] == []
    assert "'<'" in id_problem(HOSTILE_ID) and "' '" in id_problem(HOSTILE_ID)


def test_an_id_formgrader_would_print_as_html_is_refused_and_the_classmates_written(
    released, tmp_path
):
    from nbgrader.api import Gradebook

    course = course_of(released, tmp_path)
    submitted = tmp_path / "submitted"
    students = [HOSTILE_ID, "ada", "李小龙"]
    for who in students:
        (submitted / who / MASKS).mkdir(parents=True)
        nbformat.write(solution(), submitted / who / MASKS / f"{MASKS}.ipynb")
    full = {"softmax": 1, "causal_mask": 1}
    rows = [row(who, GRADED, full, notebook=f"{MASKS}.ipynb") for who in students]
    book = CourseGradebook.of(course)
    written = book.write(table(tmp_path, *rows), submitted)

    with Gradebook(book.url, book.course_id) as gb:
        assert {s.id for s in gb.students} == {"ada", "李小龙"}
        assert [s.student.id for s in gb.find_assignment(MASKS).submissions] != []
    assert (written.submissions, written.autograded) == (2, 2)
    made = {p.parent.parent.name for p in (course / "autograded").rglob("*.ipynb")}
    assert made == {"ada", "李小龙"}
    summary = written.summary()
    [line] = [x for x in summary.splitlines() if "onerror" in x]
    assert "'<'" in line and "Rename the student's folder" in line, summary


# -- 2. links: decided on nbconvert's rendering --------------------------------------------------
def test_no_markdown_form_gives_formgrader_s_page_a_live_harmful_link(released, tmp_path):
    course = course_of(released, tmp_path)
    nb = solution()
    image = nbformat.v4.new_markdown_cell("my figure: ![plot](attachment:plot.png)")
    image.attachments = {"plot.png": {"image/png": PNG}}
    missing = nbformat.v4.new_markdown_cell("![gone](attachment:nowhere.png)")
    fine = nbformat.v4.new_markdown_cell("see [the paper](https://arxiv.org/abs/1706.03762)")
    nb.cells[1:1] = [nbformat.v4.new_markdown_cell(s) for s in LINKS] + [image, missing, fine]
    html = formgrader_html(autograded(course, nb))
    assert not ACTIVE.search(html), ACTIVE.search(html)
    # what is harmless is shown as written: an attached image, a link to the web
    assert f'<img alt="plot" src="data:image/png;base64,{PNG}"/>' in html
    assert '<a href="https://arxiv.org/abs/1706.03762">the paper</a>' in html
    assert "javascript:alert(1)" in html  # the harmful ones are on the page, as text


# -- 7. code hidden from the review --------------------------------------------------------------
def test_the_graded_code_is_on_formgrader_s_page_whatever_its_metadata_says(released, tmp_path):
    course = course_of(released, tmp_path)
    nb = solution()
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = f"# REVIEW_ME_{len(cell.source)}\n{cell.source}"
            cell.metadata["transient"] = {"remove_source": True}
            cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
    extra = nbformat.v4.new_code_cell("# REVIEW_ME_extra", metadata={"transient": {"x": 1}})
    extra.metadata["transient"]["remove_source"] = True
    nb.cells.append(extra)
    target = autograded(course, nb)
    markers = {c.source.split("\n")[0] for c in nb.cells if c.source.startswith("# REVIEW_ME")}
    assert len(markers) >= 3
    for cell in nbformat.read(target, as_version=4).cells:
        assert "transient" not in cell.metadata and "jupyter" not in cell.metadata, cell.metadata
    html = formgrader_html(target)
    assert [m for m in markers if m not in html] == []


# -- 3. cells nbconvert refuses ------------------------------------------------------------------
def test_unknown_cells_and_keys_are_dropped_and_the_page_shows(released, tmp_path):
    course = course_of(released, tmp_path)
    shown = solution()
    shown.cells.insert(1, nbformat.v4.new_code_cell("# STILL_SHOWN"))
    nb = json.loads(nbformat.writes(shown))
    weird = {"cell_type": "weird", "type": "<img src=x onerror=alert(1)>", "metadata": {}}
    nb["cells"].insert(1, weird | {"id": "weird1", "source": "hidden?"})
    nb["cells"][2]["extra"] = "<b>key nbformat does not know</b>"
    html = formgrader_html(autograded(course, nb))
    assert "onerror" not in html and "key nbformat does not know" not in html
    assert "STILL_SHOWN" in html


def test_a_notebook_still_invalid_gets_no_autograded_notebook_and_the_summary_says_why(
    released, tmp_path
):
    course = course_of(released, tmp_path)
    nb = json.loads(nbformat.writes(solution()))
    nb["cells"][0]["metadata"]["tags"] = "not a list"
    submitted = tmp_path / "submitted"
    (submitted / "ada" / MASKS).mkdir(parents=True)
    (submitted / "ada" / MASKS / f"{MASKS}.ipynb").write_text(json.dumps(nb))
    rows = [row("ada", GRADED, {"softmax": 1}, notebook=f"{MASKS}.ipynb")]
    written = CourseGradebook.of(course).write(table(tmp_path, *rows), submitted)
    assert (written.submissions, written.autograded) == (1, 0)
    assert "not a valid notebook" in written.summary(), written.summary()
    assert not (course / "autograded" / "ada").exists() or not any(
        (course / "autograded" / "ada").rglob("*.ipynb")
    )
