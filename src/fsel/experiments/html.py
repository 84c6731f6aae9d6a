"""The HTML page of paper reproductions (``fsel reproduce --html``), written with the
shared page toolkit :mod:`fsel.utils.html` (figures embedded, no network)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from fsel.experiments.report import Reproduction
from fsel.utils.html import csv_table, html_page, img_file, markdown_to_html

__all__ = ["reproduction_html", "write_html"]


def reproduction_html(rep: Reproduction) -> str:
    """The HTML section of one reproduction."""
    parts = [
        f"<h2>{html.escape(rep.title)}</h2>",
        f"<p>Command: <code>{html.escape(rep.command)}</code> &middot; seed {rep.seed}"
        + (" &middot; reduced <code>--quick</code> run" if rep.quick else "")
        + "</p>",
        '<div class="box"><b>Paper.</b> ' + markdown_to_html(rep.paper) + "</div>",
        "<h3>Ours</h3>",
        markdown_to_html(rep.ours),
        '<div class="box"><b>Agreement.</b> ' + markdown_to_html(rep.agreement) + "</div>",
    ]
    for f in rep.figures:
        if Path(f).suffix.lower() == ".png" and Path(f).exists():
            parts.append(img_file(f))
    for key, path in rep.tables.items():
        if Path(path).exists() and Path(path).suffix.lower() == ".csv":
            parts.append(
                f"<details><summary>Table <code>{html.escape(key)}</code></summary>"
                + csv_table(path)
                + "</details>"
            )
    return "\n".join(parts)


def write_html(
    reps: Reproduction | Sequence[Reproduction],
    path: str | Path,
    *,
    title: str = "fsel paper reproductions",
) -> Path:
    """Write one self-contained HTML page for one or several reproductions."""
    if isinstance(reps, Reproduction):
        reps = [reps]
        if title == "fsel paper reproductions":
            title = reps[0].title
    body = "\n".join(reproduction_html(r) for r in reps)
    page = html_page(title, body)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
