"""Babel's extractor for the grader (``babel.cfg``; run by ``make i18n``, needs Babel).

Everything Babel's own Python extractor finds (``_()``, ``N_()``, ``ngettext()``), plus the title
and hint of every ``Mistake(id, exercises, title, hint)`` row, which stay unmarked in the
``mistakes.py`` files (the report translates them where it shows them), and what a learner reads
of every ``Question(...)`` row of the ``questions.py`` files (its ``hint``, its ``why`` and each
text of its ``known_wrong``; ``autograder.questions`` translates them in its verdicts): a new row
is extracted as it is written, and the translator sees its id in a ``#.`` comment. A question's
prompt is extracted for the questions ``drill quiz`` asks (:data:`QUIZ`; the notebooks show their
own translated prompts), and what a drill shows a candidate (:func:`drill_rows`): the title,
statement, hints and explanation (and a new drill's interface and pitfalls) of each ``Drill(...)``
and ``NewDrill(...)`` row, each contract ``Exercise(...)`` row's spec, and each of the drills'
``CONVENTIONS``; a text kept in a named constant is marked ``N_()`` where it is written.
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
        if qid and qid.startswith(QUIZ) and len(node.args) > 1 and _text(node.args[1]):
            # "15-20% over" reads as a printf placeholder to gettext's tools: a % is written %%
            # (autograder.drill.quiz.prompt looks it up so)
            yield node.args[1].lineno, qid, "prompt", _text(node.args[1]).replace("%", "%%")
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


# The questions ``drill quiz`` asks (autograder/drill/quiz.py: lesson 10's and the new drills').
QUIZ = ("10_", "x_")
# What a drill shows, by the positions (and keyword names) of its row's arguments.
DRILL_TEXTS = {
    "Drill": {1: "title", 5: "statement", 6: "hints", 7: "explanation"},
    "NewDrill": {
        1: "title",
        5: "statement",
        6: "interface",
        7: "pitfalls",
        9: "hints",
        10: "explanation",
    },
    "Exercise": {7: "spec"},
}


def _texts(node: ast.expr):
    """The literal texts of an argument: a str, or each str of a tuple or list."""
    if _text(node) is not None:
        yield node
    elif isinstance(node, ast.Tuple | ast.List):
        for element in node.elts:
            if _text(element) is not None:
                yield element


def drill_rows(source: str):
    """``(lineno, name, field, text)`` for each text a drill shows a candidate: the title,
    statement, hints... of each ``Drill``/``NewDrill`` row, each ``Exercise`` row's spec, and
    each text of a ``CONVENTIONS = ((text, exercises), ...)`` table."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            kind = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            fields = DRILL_TEXTS.get(kind)
            if not fields or not node.args:
                continue
            name = _text(node.args[0])
            arguments = [(fields.get(i), a) for i, a in enumerate(node.args)]
            arguments += [(k.arg, k.value) for k in node.keywords if k.arg in fields.values()]
            for what, argument in arguments:
                if what:
                    for text in _texts(argument):
                        yield text.lineno, name, what, text.value
        elif isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Tuple):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", None) == "CONVENTIONS" for t in targets):
                for row in node.value.elts:
                    if isinstance(row, ast.Tuple) and row.elts and _text(row.elts[0]):
                        yield row.elts[0].lineno, "conventions", "convention", row.elts[0].value


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
    for lineno, name, what, text in drill_rows(source):
        yield lineno, None, text, [f"drill {name}: {what}"]
