"""An autograded notebook made inert for formgrader's page (``grade --gradebook``).

formgrader renders ``autograded/<student>/<assignment>/<notebook>.ipynb`` with nbconvert, into
the instructor's Jupyter origin, without a sanitiser of its own: whatever of the learner's would
run there (HTML, a ``javascript:`` link, an ``onerror``) runs as the instructor. What decides is
nbconvert's own rendering: a markdown cell is rendered as formgrader renders it, and the HTML
that comes out is what is checked, so no second markdown parser can disagree with it (round 11:
math and strikethrough made a code span of a live link for one parser, not the other).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from html.parser import HTMLParser

from autograder.i18n import _

RASTER = {"image/png", "image/jpeg", "image/gif"}  # the attachments formgrader's page keeps
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
# What a learner's rendered markdown may hold: links to the web and mail, images from the web or
# embedded (an image never runs script), relative ones; nothing else is left to run.
LINK_SCHEMES = {"http", "https", "mailto"}
IMAGE_SCHEMES = {"http", "https", "data"}
_URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "xlink:href", "poster", "data"}
_ACTIVE_TAGS = {"script", "iframe", "frame", "object", "embed", "form", "base", "meta", "link"}
_ACTIVE_TAGS |= {"style", "svg", "math", "template", "applet", "noscript"}
# Cell keys of nbformat 4 (any other makes nbconvert refuse the notebook: formgrader's page fails)
CELL_KEYS = {
    "code": {"id", "cell_type", "metadata", "source", "outputs", "execution_count"},
    "markdown": {"id", "cell_type", "metadata", "source", "attachments"},
    "raw": {"id", "cell_type", "metadata", "source", "attachments"},
}
ID_PUNCTUATION = "_.-@"  # besides letters (with their marks) and digits of any script
# How much of the learner's markdown and raw text formgrader's page shows (characters): what
# renders it (nbconvert's strip_files_prefix, red team round 22) is quadratic in a line's length.
MAX_SHOWN, MAX_SHOWN_TOTAL = 8000, 32000
# A line of spaces only: pygments's Python lexer tries a docstring at each line start across every
# such line below it, quadratic in a run of them (20000: 21 s per view of formgrader's page, round
# 23); emptied in the page's copy of the code, which reads the same.
_SPACES_ONLY = re.compile(r"^[^\S\n]+$", re.MULTILINE)
# Line ends as Python and pygments read them: a lone \r too (round 27: lines of " \r" were one
# line to _SPACES_ONLY and thousands to the lexer; 40 KB 22.6 s per view of the page).
_LINE_END = re.compile(r"\r\n?")
# How much of the learner's code the page shows: pygments's Python lexer is quadratic in a line's
# length on some shapes (round 31: a line of "\N{" repeated, 120 KB: 32 s per view), and
# formgrader colours every view anew. Course cells: under 3400 characters, lines under 100.
MAX_CODE_SHOWN, MAX_CODE_LINE, MAX_CODE_TOTAL = 20000, 1000, 200000
NOT_SHOWN = "(a {kind} cell of {n} characters, not shown here: it is in the submitted notebook)"
_locked = lambda meta: bool(meta.get("locked") and meta.get("grade_id"))  # noqa: E731


def inert(nb, trusted: set[str] = frozenset()):
    """Nothing of the learner's that formgrader's page would run or hide: markdown and raw cells
    but the course's own (locked, or ``trusted`` word for word) pass nbconvert's sanitiser
    (bleach), and a markdown cell whose rendering would still hold something active (a
    ``javascript:`` link...) is shown as text; attachments keep raster images, outputs streams
    (ClearOutput left none; the verdicts are streams). Cells of no known type and keys nbformat
    does not know are dropped, the metadata that hides a cell's source or outputs from the page
    (``transient``, ``jupyter.source_hidden``...) removed; a notebook still not valid is refused
    (ValueError, saying why): nbconvert would refuse to show it."""
    import nbformat
    from nbconvert.preprocessors.sanitize import SanitizeHTML

    clean = SanitizeHTML(strip=True)
    nb.cells = [c for c in nb.cells if c.get("cell_type") in CELL_KEYS]
    shown_total = code_total = 0
    for cell in nb.cells:
        for key in set(cell) - CELL_KEYS[cell.cell_type]:
            del cell[key]
        shown(cell.metadata)
        for name, data in cell.get("attachments", {}).items():  # a name, or nbconvert fails
            kept = {k: v for k, v in data.items() if k in RASTER and _base64(v)}
            cell.attachments[name] = kept or {"text/plain": ""}
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.output_type == "stream"]
            code = _LINE_END.sub("\n", cell.source)
            longest = max(map(len, code.split("\n")), default=0)
            if (
                len(code) > MAX_CODE_SHOWN
                or longest > MAX_CODE_LINE
                or (code_total + len(code) > MAX_CODE_TOTAL)
            ):
                cell.source = NOT_SHOWN.format(kind="code", n=len(code))
                continue
            code_total += len(code)
            cell.source = _SPACES_ONLY.sub("", code)  # shown the same, linear to colour
        elif not (cell.source in trusted or _locked(cell.metadata.get("nbgrader", {}))):
            if len(cell.source) > MAX_SHOWN or shown_total + len(cell.source) > MAX_SHOWN_TOTAL:
                cell.source = NOT_SHOWN.format(kind=cell.cell_type, n=len(cell.source))
                continue
            shown_total += len(cell.source)
            cell.source = clean.sanitize_html_tags(cell.source)
            if cell.cell_type == "markdown" and harmful_link(cell.source, cell):
                fence = "`" * max(3, 1 + max(map(len, re.findall("`+", cell.source)), default=0))
                cell.source = f"{fence}text\n{cell.source}\n{fence}"  # shown, never a link
                if harmful_link(cell.source, cell):
                    cell.source = "(a markdown cell that cannot be shown safely)"
    # nbformat's fast validator only: nbformat.validate falls back to jsonschema's pure-Python one
    # on an invalid notebook (5 s of CPU per MB, red team round 24), to say more of why
    validator = nbformat.validator.get_validator(4, nb.get("nbformat_minor"), name="fastjsonschema")
    try:
        validator.validate(nb)
    except nbformat.ValidationError as e:
        raise ValueError(f"not a valid notebook: {e.message[:300]}") from None
    return nb


def shown(metadata) -> None:
    """Remove from a cell's metadata what hides its source or outputs: nbconvert's templates skip
    the source of a ``transient.remove_source`` cell; JupyterLab folds ``jupyter.source_hidden``
    and ``jupyter.outputs_hidden`` ones (the graded code must be on the reviewer's page)."""
    metadata.pop("transient", None)
    jupyter = metadata.get("jupyter")
    if isinstance(jupyter, dict):
        jupyter.pop("source_hidden", None)
        jupyter.pop("outputs_hidden", None)
        if not jupyter:
            del metadata["jupyter"]
    elif jupyter is not None:
        del metadata["jupyter"]


def _base64(data) -> bool:
    return isinstance(data, str) and bool(_BASE64.fullmatch(data))


def rendered(markdown: str, cell=None) -> str:
    """A markdown cell's HTML as formgrader's page has it: nbconvert's HTMLExporter's own
    ``markdown2html`` (math, strikethrough, the cell's attachments), then ``strip_files_prefix``
    (formgrade's template: ``cell.source | markdown2html | strip_files_prefix``); but a fenced
    block that names a language is not highlighted: it raises :class:`Highlighted` (pygments's
    lexers run the learner's text through grammars that can take exponential time, round 22)."""
    from nbconvert.filters.markdown_mistune import MarkdownWithMath
    from nbconvert.filters.strings import strip_files_prefix

    exporter = _exporter()  # its markdown2html, with a renderer that does not highlight
    renderer = _renderer()(
        escape=False,
        attachments=(cell if cell is not None else {}).get("attachments", {}),
        embed_images=exporter.embed_images,
        path="",
        anchor_link_text=exporter.anchor_link_text,
        exclude_anchor_links=exporter.exclude_anchor_links,
        **exporter.lexer_options,
    )
    return strip_files_prefix(MarkdownWithMath(renderer=renderer).render(markdown))


class Highlighted(Exception):
    """A learner's fenced block names a language pygments would highlight it in."""


@functools.cache
def _renderer():
    from nbconvert.filters.markdown_mistune import IPythonRenderer
    from pygments.lexers import get_lexer_by_name
    from pygments.lexers.special import TextLexer
    from pygments.util import ClassNotFound

    class Unhighlighted(IPythonRenderer):
        def block_code(self, code, info=None):
            words = (info or "").split(None, 1)
            if words and not words[0].startswith("mermaid"):
                try:
                    lexer = get_lexer_by_name(words[0], **self.lexer_options)
                except ClassNotFound:
                    lexer = None
                if lexer is not None and type(lexer) is not TextLexer:
                    raise Highlighted(words[0])
            return super().block_code(code, info)

    return Unhighlighted


@functools.cache
def _exporter():
    from nbconvert.exporters import HTMLExporter

    return HTMLExporter()


def harmful_link(markdown: str, cell=None) -> bool:
    """Whether formgrader's rendering of a markdown cell holds something that runs: a link or an
    image whose URL is not one of :data:`LINK_SCHEMES` / :data:`IMAGE_SCHEMES` (or relative), an
    event handler, an active element; or cannot be rendered at all (a missing attachment makes
    nbconvert fail the whole page)."""
    try:
        html = rendered(markdown, cell)
    except Exception:  # Highlighted, nbconvert's InvalidNotebook, its own failure: not as is
        return True
    finder = _Active()
    finder.feed(html)
    finder.close()
    return finder.found


class _Active(HTMLParser):
    """Finds, in rendered HTML, what a browser would run (HTMLParser decodes entities in
    attribute values, as the browser does)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = False

    def handle_starttag(self, tag, attrs):
        self.found |= tag in _ACTIVE_TAGS
        for name, value in attrs:
            if name.startswith("on"):
                self.found = True
            elif name in _URL_ATTRIBUTES and value is not None:
                allowed = IMAGE_SCHEMES if (tag, name) == ("img", "src") else LINK_SCHEMES
                scheme = url_scheme(value)
                self.found |= scheme is not None and scheme not in allowed

    handle_startendtag = handle_starttag


def url_scheme(url: str) -> str | None:
    """The scheme a browser reads in ``url`` (it drops tabs and newlines anywhere, and leading
    and trailing spaces and control characters), lower case; None for a relative URL."""
    url = re.sub(r"[\t\n\r]", "", url).strip("".join(map(chr, range(0x21))))
    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    return found.group(1).lower() if found else None


def id_problem(student: str) -> str | None:
    """Why a student's id (their ``submitted/`` folder's name) cannot go into the gradebook, or
    None: formgrader prints it as HTML, unescaped (``{{ resources.student }}``). Real names'
    characters pass: letters of any script with their marks, digits, and ``_ . - @``."""
    bad = sorted({c for c in student if not _id_character(c)})
    if not bad:
        return None
    shown = [ascii(c) if not c.isprintable() else repr(c) for c in bad]
    # TRANSLATORS: why a student folder's name cannot go into the gradebook: "it holds '<', ' '"
    return _("it holds {characters}").format(characters=_(", ").join(shown))


def _id_character(c: str) -> bool:
    return c in ID_PUNCTUATION or unicodedata.category(c)[0] in "LMN"
