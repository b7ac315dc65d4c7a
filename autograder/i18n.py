"""The grader's languages: English (the source text) and Simplified Chinese (``zh-CN``).

Every text a person reads (mistake titles and hints, ``check``'s report, ``check()`` in a
notebook, ``progress``, ``drill``, feedback pages, the class report) goes through :func:`_` or
:func:`ngettext`, which look it up in the gettext catalog ``autograder/locale/<ll_CC>/LC_MESSAGES/
autograder.mo`` (Babel: ``make i18n`` extracts and merges, ``make install`` compiles; see
``autograder/locale/README.md``). Ids, JSON keys, CSV columns and ``--json`` stay English.

The language, first that applies:

1. an explicit choice: ``--lang zh-CN`` on the command line (:func:`split_lang`), or
   :func:`use` for one request (the warm grader sets the caller's);
2. ``AUTOGRADER_LANG`` (``zh-CN``, ``zh``, ``en``...);
3. the notebook's folder: a kernel (``JPY_SESSION_NAME``) or working folder inside a ``zh-CN``
   folder (the Chinese notebooks, ``zh-CN/notebooks/<L>/``, ``zh-CN/solutions/<L>/``) is Chinese;
4. the locale: the first of ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set
   (``zh_CN.UTF-8``, ``zh_TW``... any ``zh`` is Chinese);
5. English.

It is read at each call (never cached): the warm grader runs each request with the caller's
working folder and environment. Imports nothing of the grader (the service client uses it).
"""

from __future__ import annotations

import argparse
import contextlib
import gettext
import os
import re
import textwrap
import unicodedata
from contextvars import ContextVar
from functools import cache
from pathlib import Path

DOMAIN = "autograder"
LOCALE_DIR = Path(__file__).parent / "locale"
ENV = "AUTOGRADER_LANG"
ENGLISH, CHINESE = "en", "zh-CN"
LANGUAGES = {ENGLISH: None, CHINESE: "zh_CN"}  # the course's tag -> gettext's catalog folder
ZH_FOLDER = "zh-CN"  # the Chinese edition's root folder
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_chosen: ContextVar[str | None] = ContextVar("autograder_language", default=None)


def normalise(tag: str | None) -> str | None:
    """The course's language for a tag (``zh_CN.UTF-8``, ``zh-Hans``, ``en_US``, ``C``...);
    None for an empty or unknown one."""
    if not tag:
        return None
    base = tag.split(":")[0].split(".")[0].split("@")[0].replace("_", "-").strip().lower()
    if base.startswith("zh"):
        return CHINESE
    if base.startswith("en") or base in ("c", "posix"):
        return ENGLISH
    return None


def _from_folder() -> str | None:
    places = [os.environ.get("JPY_SESSION_NAME", "")]
    with contextlib.suppress(OSError):
        places.append(os.getcwd())
    for place in places:
        if place and ZH_FOLDER in Path(place).parts:
            return CHINESE
    return None


def edition_of(path: str) -> str | None:
    """Chinese for a file or folder under the Chinese edition's folder (``zh-CN/``) where no
    language was chosen (``--lang``, ``AUTOGRADER_LANG``): ``check zh-CN/notebooks/...`` from the
    course's root speaks as a kernel in that folder does. None otherwise (no change)."""
    if _chosen.get() or normalise(os.environ.get(ENV)):
        return None
    with contextlib.suppress(OSError, ValueError):
        if ZH_FOLDER in Path(path).resolve().parts:
            return CHINESE
    return None


def _from_locale() -> str | None:
    for name in LOCALE_VARIABLES:
        value = os.environ.get(name)
        if value:  # the first one set decides, as gettext does (LANGUAGE may list several)
            return normalise(value)
    return None


def language() -> str:
    """``"zh-CN"`` or ``"en"``: what the grader speaks now (the module's docstring says how)."""
    explicit = _chosen.get()
    if explicit:
        return explicit
    return normalise(os.environ.get(ENV)) or _from_folder() or _from_locale() or ENGLISH


def choose(tag: str) -> str:
    """The course's language for ``tag``; ValueError naming the choices for an unknown one."""
    lang = normalise(tag)
    if lang is None:
        raise ValueError(f"unknown language {tag!r}: choose zh-CN or en")
    return lang


@contextlib.contextmanager
def use(tag: str | None):
    """Speak ``tag``'s language inside the block (None: no explicit choice)."""
    token = _chosen.set(choose(tag) if tag else None)
    try:
        yield
    finally:
        _chosen.reset(token)


def speaking_for(path: str):
    """A block that speaks as for ``path``: Chinese for one of the Chinese edition
    (:func:`edition_of`), else as it would anyway."""
    lang = edition_of(path)
    return use(lang) if lang else contextlib.nullcontext()


def split_lang(argv: list[str]) -> tuple[str | None, list[str]]:
    """``--lang TAG`` / ``--lang=TAG`` taken out of a command line (anywhere in it): the tag (or
    None) and the other arguments. A missing tag raises ValueError."""
    rest, tag, args = [], None, iter(argv)
    for arg in args:
        if arg == "--lang":
            tag = next(args, None)
            if tag is None:
                raise ValueError("--lang needs a language: zh-CN or en")
        elif arg.startswith("--lang="):
            tag = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return tag, rest


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang`` (English, or a catalog not compiled yet: the source text)."""
    folder = LANGUAGES.get(lang)
    if folder is None:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[folder], fallback=True)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the current language."""
    return translations(language()).ngettext(singular, plural, n)


def noun(message: str) -> str:
    """``message`` (a noun such as "the output") in the current language, to fill a sentence's
    field: a name in Latin letters (``k_all``, ``logits``) gets a space after it in Chinese, where
    the sentence goes on without one ("k_all 的形状")."""
    shown = _(message)
    if language() == CHINESE and cells(shown) == len(shown):
        return shown + " "
    return shown


def sentences(parts: list[str]) -> str:
    """Translated sentences as one paragraph: a space between them in English, none in Chinese
    (whose full stop is wide)."""
    return ("" if language() == CHINESE else " ").join(parts)


def enumeration(items) -> str:
    """Names listed inside a sentence: "a, b, c" in English, "a、b、c" in Chinese (an ASCII
    comma reads wrong in a Chinese sentence). ``grade``'s own lists of counts and names, for an
    instructor, keep ``grade.results.listed`` ("4 graded, 1 late")."""
    return ("、" if language() == CHINESE else ", ").join(items)


def cell(label: str) -> str:
    """A notebook cell's label as the grader makes it (``cell 7``, the sandbox's file name for
    it), in the current language; any other label (a file's name) as it is."""
    found = re.fullmatch(r"cell (\d+)", label)
    return _("cell {number}").format(number=found[1]) if found else label


# A frame of a learner's traceback as the sandbox writes it (sandbox/inside/plain.py), one a line
_FRAME = re.compile(r"(?m)^  (cell \d+|[^,\n]*\.py), line (\d+), in ([^:\n]*): ")


def frames(traceback: str) -> str:
    """The sandbox's traceback lines (``  cell 7, line 13, in softmax: <code>``) with their
    words in the current language (the code quoted after them as it is)."""
    if language() == ENGLISH:
        return traceback
    said = _("{place}, line {line}, in {function}: ")
    return _FRAME.sub(
        lambda m: "  " + said.format(place=cell(m[1]), line=m[2], function=m[3]), traceback
    )


def N_(message: str) -> str:
    """Marks ``message`` for extraction only; :func:`_` translates it where it is shown."""
    return message


class _HelpFormatter(argparse.HelpFormatter):
    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)

    def format_help(self):
        """argparse ends each section's title with an ASCII colon: a Chinese title gets the wide
        one ("选项：", as "用法：")."""
        text = super().format_help()
        if language() != CHINESE:
            return text
        return re.sub(r"^(\s*\S.*[\u4e00-\u9fff].*):$", r"\1：", text, flags=re.M)


def localise(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` and its verbs' parsers with argparse's own words (usage, the sections' titles,
    -h's help) in the current language; their help texts are marked where they are written."""
    parser.formatter_class = _HelpFormatter
    parser._positionals.title = _("positional arguments")
    parser._optionals.title = _("options")
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            action.help = _("show this help message and exit")
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                localise(sub)
    return parser


# Text layout: a Chinese character takes two terminal columns, and a line may break between two
# of them (never before closing punctuation); English keeps textwrap's layout exactly.
_WIDE = "WF"
_CLOSING = set("，。；：、！？）》」』”’")
_TOKENS = re.compile(
    r"\s+|[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+"
)


def cells(text: str) -> int:
    """How many terminal columns ``text`` takes."""
    return sum(2 if unicodedata.east_asian_width(c) in _WIDE else 1 for c in text)


def ljust(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (``str.ljust`` counts a Chinese
    character as one column; a table aligned with it is not)."""
    return text + " " * max(0, width - cells(text))


def rjust(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal columns (see :func:`ljust`)."""
    return " " * max(0, width - cells(text)) + text


def fill(text: str, width: int) -> str:
    """``text`` wrapped to ``width`` columns: :func:`textwrap.fill` for text without wide
    characters (English, unchanged), else broken at spaces and between Chinese characters."""
    if cells(text) == len(text):
        return textwrap.fill(text, width, break_on_hyphens=False)
    lines, line = [], ""
    for token in _TOKENS.findall(" ".join(text.split())):
        if token.isspace():
            if line:
                line += " "
            continue
        if line and cells(line + token) > width and token[0] not in _CLOSING:
            lines.append(line.rstrip())
            line = ""
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)
