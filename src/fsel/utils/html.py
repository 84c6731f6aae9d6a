"""Self-contained HTML pages (figures embedded as base64 PNG): the one page toolkit of
``fsel reproduce --html`` (:mod:`fsel.experiments.html`) and ``fsel report``
(:mod:`fsel.reporting.page`).

A page needs no other file and no network: open it in any browser. The module needs
only the standard library; :func:`figure_png` takes a figure drawn elsewhere (see
:mod:`fsel.utils.figures`).
"""

from __future__ import annotations

import base64
import csv
import html
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "BASE_CSS",
    "csv_table",
    "figure_png",
    "html_page",
    "html_table",
    "img_file",
    "markdown_to_html",
    "png_img",
]

#: The style sheet of every page (a page adds its own rules after it).
BASE_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1000px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.5em}
h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.85em}
td,th{border:1px solid #bbb;padding:.2em .5em;text-align:right}th{background:#f0f0f0}
td:first-child,th:first-child{text-align:left}
code{background:#f4f4f4;padding:0 .2em}img{max-width:100%;border:1px solid #ddd;margin:.5em 0}
.box{background:#fafafa;border-left:4px solid #888;padding:.3em .8em;margin:.6em 0}
details{margin:.5em 0}
"""


def _inline(text: str) -> str:
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)
    return out


def markdown_to_html(text: str) -> str:
    """Render the small Markdown subset reproductions use: paragraphs, ``*`` lists,
    pipe tables, inline code and bold.

    Examples
    --------
    >>> print(markdown_to_html("| a | b |\\n|---|---|\\n| 1 | 2 |"))
    <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
    """
    blocks: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i].strip())
                i += 1
            cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
            body = [r for r in cells if not all(re.fullmatch(r":?-+:?", c) for c in r if c)]
            if not body:
                continue
            head, rest = body[0], body[1:]
            out = "<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in head) + "</tr>"
            for r in rest:
                out += "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>"
            blocks.append(out + "</table>")
            continue
        if line.strip().startswith(("* ", "- ")):
            items = []
            while i < len(lines) and lines[i].strip().startswith(("* ", "- ")):
                items.append(lines[i].strip()[2:])
                i += 1
            blocks.append("<ul>" + "".join(f"<li>{_inline(t)}</li>" for t in items) + "</ul>")
            continue
        if not line.strip():
            i += 1
            continue
        para = []
        while (
            i < len(lines)
            and lines[i].strip()
            and not lines[i].strip().startswith(("|", "* ", "- "))
        ):
            para.append(lines[i].strip())
            i += 1
        blocks.append("<p>" + _inline(" ".join(para)) + "</p>")
    return "\n".join(blocks)


def img_file(path: str | Path) -> str:
    """An ``<img>`` tag holding a PNG file inline, its stem as ``alt``."""
    return png_img(Path(path).read_bytes(), Path(path).stem)


def png_img(data: bytes, alt: str) -> str:
    """An ``<img>`` tag holding PNG bytes inline (base64), with an ``alt`` text.

    Examples
    --------
    >>> png_img(b"\\x89PNG", "fig")[:45]
    '<img alt="fig" src="data:image/png;base64,iVB'
    """
    b64 = base64.b64encode(data).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def figure_png(fig: Any, dpi: int = 110) -> bytes:
    """The PNG bytes of a matplotlib figure (drawn without pyplot)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def html_table(
    head: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    styles: Sequence[Sequence[str | None]] | None = None,
    cls: str | None = None,
) -> str:
    """An HTML table; cells are escaped text, ``styles`` optional CSS per cell; an empty
    ``head`` gives no header row.

    Examples
    --------
    >>> html_table(["a", "b"], [[1, "<x>"]])
    '<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>&lt;x&gt;</td></tr></table>'
    """
    out = "<table" + (f' class="{html.escape(cls)}"' if cls else "") + ">"
    if head:
        out += "<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in head) + "</tr>"
    for i, row in enumerate(rows):
        out += "<tr>"
        for j, cell in enumerate(row):
            style = styles[i][j] if styles is not None else None
            attr = f' style="{html.escape(style)}"' if style else ""
            out += f"<td{attr}>{html.escape(str(cell))}</td>"
        out += "</tr>"
    return out + "</table>"


def html_page(title: str, body: str, *, css: str = "") -> str:
    """A complete, self-contained HTML document around ``body`` (no external file)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{BASE_CSS}{css}</style></head>"
        f"<body><h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def csv_table(path: str | Path, max_rows: int = 60) -> str:
    """The first ``max_rows`` rows of a CSV file as an HTML table (cells escaped), with
    a note of how many rows were left out."""
    with Path(path).open(newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows:
        return "<p>(empty)</p>"
    head, body = rows[0], rows[1:]
    more = len(body) - max_rows
    out = "<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr>"
    for r in body[:max_rows]:
        out += "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
    out += "</table>"
    if more > 0:
        out += f"<p>... {more} more rows in <code>{html.escape(Path(path).name)}</code></p>"
    return out
