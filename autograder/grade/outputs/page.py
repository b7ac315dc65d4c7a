"""A self-contained HTML page: inline style, no script, nothing fetched from anywhere.

Everything a learner wrote (names, messages, errors) reaches a page only through :func:`esc`.
"""

from __future__ import annotations

import html
import re
from string import Template

from autograder.core.result import printable
from autograder.i18n import language

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 62rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d232a; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; }
th, td { border: 1px solid #c9d0d8; padding: .25rem .55rem; text-align: left; vertical-align: top; }
th { background: #eef1f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; margin: 0; font-size: .9em; }
.passed { color: #176c2f; font-weight: 600; } .failed { color: #a3231a; font-weight: 600; }
.note { color: #55606b; }
img { max-width: 100%; }
"""

PAGE = Template(
    """<!DOCTYPE html>
<html lang="$lang">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<style>$style</style>
</head>
<body>
<h1>$title</h1>
$body
</body>
</html>
"""
)


def esc(text: object) -> str:
    """``text`` as HTML text: control characters shown as escapes, markup characters escaped."""
    return html.escape(printable(str(text)), quote=True)


def fill(template: str, **fields: str) -> str:
    """A (translated) text ``template`` as HTML: its text escaped, each ``{field}`` replaced, in
    one pass, by the HTML given for it (escape text fields with :func:`esc` first)."""
    return re.sub(r"\{(\w+)\}", lambda m: fields.get(m[1], m[0]), esc(template))


def element(tag: str, text: str, css_class: str | None = None) -> str:
    """``<tag>text</tag>`` (``text`` escaped), of ``css_class`` if one is given."""
    attribute = f' class="{css_class}"' if css_class else ""
    return f"<{tag}{attribute}>{esc(text)}</{tag}>"


def page(title: str, body: str) -> str:
    """A whole page; ``title`` is text (escaped here), ``body`` is HTML built with :func:`esc`."""
    return PAGE.substitute(lang=language(), title=esc(title), style=STYLE, body=body)


def table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """An HTML table: ``head`` is text, ``rows`` hold HTML cells; columns in ``numeric`` align
    right."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>\n"
        for row in rows
    )
    return f"<table>\n<thead><tr>{th}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>"


def points(x: float) -> str:
    return f"{x:g}"
