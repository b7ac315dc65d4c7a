"""The grader parses learner code from several threads at once (``grade --workers``, the warm
grader's requests): ``autograder.core.syntax`` must give every thread its tree. Plain
``ast.parse`` there failed about one parse in twenty on CPython 3.11 ("SystemError: AST
constructor recursion depth mismatch"), which graded a correct notebook "unreadable"."""

import ast
import threading
import warnings
from pathlib import Path

import nbformat

from autograder.core import syntax

ROOT = Path(__file__).resolve().parents[1]


class _Finalised:  # garbage whose finalizer runs Python code: a collection can switch threads
    def __del__(self):
        pass


def test_parsing_from_four_threads_at_once_gives_every_thread_its_tree():
    notebook = next((ROOT / "solutions" / "04_softmax_masks").glob("*.ipynb"))
    cells = nbformat.read(notebook, as_version=4).cells
    source = "\n".join(
        c.source for c in cells if c.cell_type == "code" and not c.source.lstrip().startswith("%")
    )
    want = ast.dump(ast.parse(source))
    errors, wrong = [], []

    def work():
        for _ in range(20):
            garbage = [_Finalised() for _ in range(50)]
            garbage.append(garbage)  # a cycle: only the collector frees it
            del garbage
            try:
                if ast.dump(syntax.parse(source)) != want:
                    wrong.append(1)
            except SystemError as e:
                errors.append(str(e))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and wrong == []


def test_literal_eval_reads_what_ast_literal_eval_reads():
    for text in ("(2, 7, 8)", "  -1.5", "'a'", "[1, {'k': None}]"):
        assert syntax.literal_eval(text) == ast.literal_eval(text)
    for text in ("x + 1", "(2, 7"):
        for read in (syntax.literal_eval, ast.literal_eval):
            try:
                read(text)
            except (ValueError, SyntaxError) as e:
                kind = type(e)
            assert kind in (ValueError, SyntaxError)


def test_what_the_parser_warns_of_in_learner_code_stays_off_the_graders_stderr():
    """A cell with `1if x else 2` made Python's parser print "SyntaxWarning: invalid decimal
    literal" on the judge's stderr, once per parse (red team round 31's note): in the parse of
    a short cell here, and of a long one (read by the child first, then here)."""
    source = "x = 1if True else 2\n"
    short, long = source, source + "# padding\n" * (syntax.RISKY_CHARS // 10 + 1)
    assert len(long) > syntax.RISKY_CHARS
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")  # every warning shown, as a fresh process shows it
        assert all(isinstance(tree, ast.Module) for tree in syntax.parse_all([short, long]))
        assert [str(w.message) for w in said] == []
        ast.parse(source)  # the same parse under another name warns as before: the filter is narrow
        assert [str(w.message) for w in said] == ["invalid decimal literal"]


def test_the_judge_parses_only_through_this_module():
    """A judge module that called ``ast.parse`` itself (the sandbox's check of which course
    modules load matplotlib, run as each grading thread asked for its first learner process)
    turned a correct notebook of a CI run's class "unreadable" with that SystemError: the judge
    parses through ``autograder.core.syntax`` only. The sandbox's own modules (they run alone in
    each learner process) and the translators' extractor (a command) may parse as they like."""
    package = ROOT / "autograder"
    exempt = {package / "core" / "syntax.py", package / "i18n_extract.py"}
    calls = []
    for path in sorted(package.rglob("*.py")):
        if path in exempt or (package / "sandbox" / "inside") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "parse"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "ast"
            ):
                calls.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert calls == [], f"ast.parse outside autograder/core/syntax.py: {calls}"


def _long(text: str) -> str:
    return text + "# padding\n" * (syntax.RISKY_CHARS // 10 + 1)


def test_long_sources_read_quickly_are_not_read_again_but_only_as_the_same_set(monkeypatch):
    """A warm grader is sent a notebook's every cell at each check: the child that reads long
    sources first runs again only for sources it has not read together before. Read one by one,
    two long cells are read again together (their trees' memory counts together). A source read
    quickly under other limits is read again (red team round 28's tests lower them), and what
    the child refused is read by it each time."""
    read = []
    child = syntax._read_in_child

    def counted(sources, mode):
        if sources:  # (no long source: no child)
            read.append(len(sources))
        return child(sources, mode)

    monkeypatch.setattr(syntax, "_read_in_child", counted)
    monkeypatch.setattr(syntax, "READ_QUICKLY", {})
    a, b, short = _long("a = 1\n"), _long("b = 2\n"), "c = 3\n"
    for sources in ([a, short], [short, a], [a], [b], [a, b], [b, a], [a, b]):
        trees = syntax.parse_all(sources)
        assert [ast.dump(t) for t in trees] == [ast.dump(ast.parse(s)) for s in sources]
    assert read == [1, 1, 2, 2]  # [a] once, [b] once, [a, b] and [b, a] once each
    monkeypatch.setattr(syntax, "SOURCE_CPU", -1.0)  # the child refuses whatever it reads
    for _ in range(2):  # read under other limits: read again, and refused each time
        [tree] = syntax.parse_all([a])
        assert isinstance(tree, syntax.TooSlowToParse)
    assert read[-2:] == [1, 1]
