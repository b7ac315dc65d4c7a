"""The autograded notebook formgrader renders holds nothing of the learner's that would run.

formgrader renders ``autograded/<student>/<assignment>/<notebook>.ipynb`` with nbconvert
unsanitised, into the instructor's Jupyter origin (issue 20: a student's ``<img onerror>`` read
the ``_xsrf`` cookie, wrote a file and started a kernel as the instructor).
"""

from __future__ import annotations

import base64
from pathlib import Path

import nbformat
from test_gradebook import MASKS, ROOT

from autograder.grade.nbgrader_gradebook import CourseGradebook, sanitised

SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(4)"><circle r="5"/></svg>'
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nnot really").decode()
HOSTILE = [
    "Notes <script>alert(1)</script>",
    "<img src=\"x\" onerror=\"fetch('/api/kernels',{method:'POST'})\">",
    '<a href="javascript:alert(2)">click</a> and [md link](javascript:alert(3))',
    SVG,
    '<iframe src="data:text/html,<script>alert(5)</script>"></iframe>',
]
DANGER = ["<script", "onerror", "javascript:", "<svg", "onload", "<iframe", "alert(6)", "alert(7)"]


def hostile_submission() -> str:
    nb = nbformat.read(ROOT / "solutions" / MASKS / f"{MASKS}.ipynb", as_version=4)
    cells = [nbformat.v4.new_markdown_cell(s) for s in HOSTILE]
    cells.append(nbformat.v4.new_raw_cell(HOSTILE[0], metadata={"raw_mimetype": "text/html"}))
    md = nbformat.v4.new_markdown_cell("![a](attachment:a.svg) ![b](attachment:b.png)")
    md.attachments = {"a.svg": {"image/svg+xml": SVG}, "b.png": {"image/png": PNG}}
    cells.append(md)
    code = nbformat.v4.new_code_cell("1")
    code.outputs = [
        nbformat.v4.new_output("display_data", {"text/html": "<b onmouseover='alert(6)'>x</b>"}),
        nbformat.v4.new_output("display_data", {"application/javascript": "alert(7)"}),
        nbformat.v4.new_output("display_data", {"image/svg+xml": SVG}),
    ]
    cells.append(code)
    nb.cells[1:1] = cells
    return nbformat.writes(nb)


def formgrader_html(path: Path) -> str:
    """The page formgrader serves for a submission (its handler's exporter and template)."""
    import nbgrader.server_extensions.formgrader.handlers as handlers
    from nbconvert.exporters import HTMLExporter
    from traitlets.config import Config

    c = Config()
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"assignment_id": MASKS, "notebook_id": MASKS, "submission_id": "x", "index": 0}
    resources |= {"total": 1, "base_url": "/", "student": "mallory", "notebook_path": "/x"}
    resources |= {"last_name": None, "first_name": None}
    html, _ = HTMLExporter(config=c).from_filename(str(path), resources=resources)
    return html


def test_learner_html_and_outputs_are_made_inert_in_the_autograded_notebook(
    tmp_path, released_copy
):
    course = released_copy  # nbgrader generate_assignment: the release's cells
    url = f"sqlite:///{course / 'gradebook.db'}"
    text = hostile_submission()
    resources = {"db_url": url, "assignment": MASKS, "notebook": MASKS}
    target = tmp_path / "autograded.ipynb"
    released = CourseGradebook.of(course)._released(MASKS, MASKS)  # the course's own cells...
    trusted = released[0]
    nbformat.write(sanitised(text, resources, *released), target)

    written = target.read_text()
    nb = nbformat.read(target, as_version=4)
    learner = "".join(c.source for c in nb.cells if c.cell_type in ("markdown", "raw"))
    for bad in ["<script", "onerror", 'href="javascript:', "<svg", "onload", "<iframe"]:
        assert bad not in learner, bad
    assert "Notes" in learner and "click" in learner  # the words stay, for the instructor
    details = [c.source for c in nb.cells if c.source.startswith("<details>")]
    assert details and details[0] in trusted  # the course's own HTML is left as it wrote it
    attached = [c.attachments for c in nb.cells if c.get("attachments")]
    assert attached == [{"a.svg": {"text/plain": ""}, "b.png": {"image/png": PNG}}]
    mimes = {
        k for c in nb.cells if c.cell_type == "code" for o in c.outputs for k in o.get("data", {})
    }
    assert not mimes & {"text/html", "application/javascript", "image/svg+xml"}
    assert "alert(6)" not in written and "alert(7)" not in written

    html = formgrader_html(target)  # what the instructor's browser gets
    for bad in ["<script>alert", "onerror=", 'href="javascript:', "onload=", "<iframe", "alert(6)"]:
        assert bad not in html, bad
