"""Babel's extractor for the grader (``babel.cfg``; run by ``make i18n``, needs Babel).

Everything Babel's own Python extractor finds (``_()``, ``N_()``, ``ngettext()``), plus the title
and hint of every ``Mistake(id, exercises, title, hint)`` row, which stay unmarked in the
``mistakes.py`` files (the report translates them where it shows them), and what a learner reads
of every ``Question(...)`` row of the ``questions.py`` files (its ``hint``, its ``why`` and each
text of its ``known_wrong``; ``autograder.questions`` translates them in its verdicts): a new row
is extracted as it is written, and the translator sees its id in a ``#.`` comment. A question's
prompt and choices are not extracted: the notebooks show their own (translated) prompt.
"""

from __future__ import annotations

import ast
import io


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def mistake_rows(source: str):
    """``(lineno, id, title, hint)`` for each literal ``Mistake(...)`` row of ``source``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or len(node.args) < 4:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name != "Mistake":
            continue
        mid, title, hint = _text(node.args[0]), _text(node.args[2]), _text(node.args[3])
        if title is not None and hint is not None:
            yield node.lineno, mid, title, hint


def question_rows(source: str):
    """``(lineno, id, field, text)`` for each learner-facing literal text of each ``Question(...)``
    row of ``source``: ``hint``, ``why`` and the values of ``known_wrong``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name != "Question" or not node.args:
            continue
        qid = _text(node.args[0])
        for keyword in node.keywords:
            if keyword.arg in ("hint", "why"):
                text = _text(keyword.value)
                if text:
                    yield keyword.value.lineno, qid, keyword.arg, text
            elif keyword.arg == "known_wrong" and isinstance(keyword.value, ast.Dict):
                for value in keyword.value.values:
                    text = _text(value)
                    if text:
                        yield value.lineno, qid, "known_wrong", text


def extract(fileobj, keywords, comment_tags, options):
    """Babel's extraction method signature: ``(lineno, funcname, message, comments)`` rows."""
    from babel.messages.extract import extract_python

    data = fileobj.read()
    yield from extract_python(io.BytesIO(data), keywords, comment_tags, options)
    source = data.decode(options.get("encoding", "utf-8"))
    for lineno, mid, title, hint in mistake_rows(source):
        yield lineno, None, title, [f"mistake [{mid}]: title"]
        yield lineno, None, hint, [f"mistake [{mid}]: hint"]
    for lineno, qid, what, text in question_rows(source):
        yield lineno, None, text, [f"question {qid}: {what}"]
