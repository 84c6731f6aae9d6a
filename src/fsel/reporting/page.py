"""The page of a :class:`fsel.reporting.analysis.FeatureReport`: its figures, its
plain-language summary and its HTML, written with the shared toolkit of
:mod:`fsel.utils.html` (self-contained, no network).

This module draws what :mod:`fsel.reporting.analysis` computed; it receives the report
object and never imports that module. Figures are drawn on
:class:`matplotlib.figure.Figure` objects without pyplot (:mod:`fsel.utils.figures`;
matplotlib is an optional extra, imported only when a figure is drawn).
"""

from __future__ import annotations

import csv
import html
import json
import platform
from pathlib import Path
from typing import Any

import numpy as np

from fsel._version import __version__
from fsel.utils.html import BASE_CSS, figure_png, html_page, html_table, png_img

__all__ = ["figures", "render", "summary_sentences", "write"]

_CSS = """
.lead ul{margin:.3em 0 0 0;padding-left:1.2em}
.lead{font-size:1.05em;background:#eef4fb;border-left:4px solid #2166ac;padding:.5em .9em}
.figs{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.figs img{max-width:100%}.figs.pair img{max-width:48%}
.muted{color:#666;font-size:.9em}
table.sel{font-size:.78em}table.sel td{text-align:left}
.scroll{overflow-x:auto}
.err{color:#a00}
"""
_MAX_ROWS = 30
_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666"]


def _fmt(v: float, digits: int = 3) -> str:
    return "–" if v is None or not np.isfinite(v) else f"{v:.{digits}f}"


def _names(rep: Any, feats: Any) -> list[str]:
    return [rep.name(f) for f in feats]


def _list(names: list[str], limit: int = 12) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def _score_label(rep: Any) -> str:
    return "accuracy" if rep.summary.task == "classification" else "R²"


# --------------------------------------------------------------------------- summary
def _n(count: int, word: str) -> str:
    """``1 feature``, ``2 features``, ``3 classes``.

    Examples
    --------
    >>> _n(1, "feature"), _n(2, "feature"), _n(3, "class")
    ('1 feature', '2 features', '3 classes')
    """
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}es" if word.endswith("s") else f"{count} {word}s"


def summary_sentences(rep: Any) -> list[str]:
    """The short plain-language summary at the top of the page."""
    s = rep.summary
    ok = rep.ok_methods
    what = _n(len(s.classes), "class") if s.task == "classification" else "a numeric target"
    miss = "no missing values" if s.n_missing == 0 else _n(s.n_missing, "missing value")
    out = [f"{s.n_samples} rows × {_n(s.n_features, 'feature')}, {what}, {miss}."]
    if not ok:
        out.append("No method could run on this table (see the errors below).")
        return out
    cons = [int(f) for f in rep.consensus]
    alpha = rep.params["alpha"]
    if rep.npfs is not None:
        rel = {int(f) for f in rep.npfs.relevant}
        both = [f for f in cons if f in rel]
        if both:
            names = _names(rep, both)
            out.append(
                f"One feature, {names[0]}, is selected by every method and passes NPFS at "
                f"alpha={alpha:g}."
                if len(names) == 1
                else f"These {len(names)} features are selected by every method and pass "
                f"NPFS at alpha={alpha:g}: {_list(names)}."
            )
        elif cons:
            out.append(
                f"{_n(len(cons), 'feature')} selected by every method "
                f"({_list(_names(rep, cons))}), but none passes NPFS at alpha={alpha:g}."
            )
        else:
            out.append("No feature is selected by every method.")
        out.append(
            f"NPFS on {ok[0]} finds {_n(rep.npfs.n_relevant, 'relevant feature')} (selected "
            f"in more than {rep.npfs.threshold} of {rep.params['n_bootstraps']} bootstraps)."
        )
    elif cons:
        names = _names(rep, cons)
        out.append(
            f"One feature, {names[0]}, is selected by every method."
            if len(names) == 1
            else f"These {len(names)} features are selected by every method: {_list(names)}."
        )
    stab = [(m, rep.stability[m]) for m in ok if rep.stability.get(m) is not None]
    if stab:
        best = max(stab, key=lambda t: t[1].stability)
        worst = min(stab, key=lambda t: t[1].stability)
        txt = (
            f"The most stable method is {best[0]} (Nogueira {best[1].stability:.2f}, "
            f"95% CI {best[1].lower:.2f} to {best[1].upper:.2f})"
        )
        if worst[0] != best[0]:
            txt += f"; the least stable is {worst[0]} ({worst[1].stability:.2f})"
        out.append(txt + ".")
    label = _score_label(rep)
    best_m, best_j, best_v = None, 0, -np.inf
    first: tuple[int, str] | None = None
    base = float(rep.baseline.mean[0])
    for m in ok:
        cur = rep.curves.get(m)
        if cur is not None and cur.n_kept.size:
            j = int(np.nanargmax(cur.mean))
            if cur.mean[j] > best_v:
                best_m, best_j, best_v = m, j, float(cur.mean[j])
            reach = np.flatnonzero(cur.mean >= base)
            if reach.size and (first is None or cur.n_kept[reach[0]] < first[0]):
                first = (int(cur.n_kept[reach[0]]), m)
    if best_m is not None:
        cur = rep.curves[best_m]
        top = int(cur.n_kept[best_j])
        out.append(
            f"The best cross-validated {label}, {best_v:.3f} ± {cur.std[best_j]:.3f}, comes "
            f"from the top {_n(top, 'feature')} of {best_m}; all "
            f"{s.n_features} features give {base:.3f} ± {rep.baseline.std[0]:.3f}"
            + (
                f"; {first[1]}'s top {_n(first[0], 'feature')} already match that."
                if first is not None and first[0] < s.n_features
                else f"; no selection of up to {_n(rep.k, 'feature')} matches all features here."
            )
        )
    if rep.errors:
        out.append(f"Failed on this table: {', '.join(rep.errors)}.")
    return out


# --------------------------------------------------------------------------- figures
def _fig(figsize: tuple[float, float]) -> tuple[Any, Any]:
    from fsel.utils.figures import new_figure

    return new_figure(figsize=figsize, layout="constrained")


def _heatmap(
    ax: Any,
    M: np.ndarray,
    rows: list[str],
    cols: list[str],
    *,
    vmin: float,
    vmax: float,
    cmap: str,
    fmt: str = "{:.2f}",
) -> Any:
    im = ax.imshow(M, vmin=vmin, vmax=vmax, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    mid = (vmin + vmax) / 2
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            v = M[i, j]
            if np.isfinite(v):
                ax.text(
                    j,
                    i,
                    fmt.format(v),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if v > mid + 0.25 * (vmax - vmin) else "black",
                )
    return im


def _agreement_fig(rep: Any, which: str) -> Any:
    ok = rep.ok_methods
    M = rep.kuncheva if which == "kuncheva" else rep.jaccard
    size = max(3.0, 1.2 + 0.42 * len(ok))  # one or two methods: room for the title
    fig, ax = _fig((size + 0.9, size))
    lo = -1.0 if which == "kuncheva" else 0.0
    im = _heatmap(ax, M, ok, ok, vmin=lo, vmax=1.0, cmap="Blues")
    fig.colorbar(im, ax=ax, shrink=0.8)
    title = (
        "Kuncheva index of the selected sets\n(1 identical, 0 chance level)"
        if which == "kuncheva"
        else "Jaccard index of the selected sets\n(shared / all selected)"
    )
    ax.set_title(title, fontsize=9)
    return fig


def _stability_fig(rep: Any) -> Any:
    ok = [m for m in rep.ok_methods if rep.stability.get(m) is not None]
    fig, ax = _fig((4.8, 0.3 * len(ok) + 1.2))
    for i, m in enumerate(ok):
        st = rep.stability[m]
        ax.errorbar(
            [st.stability],
            [i],
            xerr=[[st.stability - st.lower], [st.upper - st.stability]],
            fmt="o",
            color=_COLORS[i % len(_COLORS)],
            capsize=4,
        )
    ax.set_yticks(range(len(ok)), ok)
    ax.invert_yaxis()
    ax.axvline(0, color="#999", lw=0.8, ls=":")
    ax.set_xlim(min(-0.1, *(rep.stability[m].lower - 0.05 for m in ok)) if ok else -0.1, 1.02)
    ax.set_xlabel("Nogueira stability (95% confidence interval)")
    ax.set_title(f"Stability over {rep.params['n_bootstraps']} bootstrap samples", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig


def _frequency_rows(rep: Any) -> np.ndarray:
    ok = rep.ok_methods
    F = np.column_stack([rep.frequencies[m] for m in ok])
    order = np.lexsort((np.arange(F.shape[0]), -F.mean(axis=1)))
    keep = order[F[order].max(axis=1) > 0][:_MAX_ROWS]
    return keep


def _frequency_fig(rep: Any) -> Any:
    ok = rep.ok_methods
    rows = _frequency_rows(rep)
    F = np.column_stack([rep.frequencies[m][rows] for m in ok])
    names = _names(rep, rows)
    # room for the feature names, the colour bar and the title with one or two methods
    longest = max((len(str(n)) for n in names), default=0)
    width = max(4.8, 2.4 + 0.07 * longest + 0.7 * len(ok))
    fig, ax = _fig((width, 0.24 * len(rows) + 1.6))
    im = _heatmap(ax, F, names, ok, vmin=0.0, vmax=1.0, cmap="Greens")
    ax.xaxis.tick_top()
    ax.set_xticks(range(len(ok)), ok, rotation=30, ha="left")
    fig.colorbar(im, ax=ax, shrink=0.6, label="fraction of bootstraps")
    ax.set_title("How often each feature is selected\n(bootstrap samples)", fontsize=10)
    return fig


def _npfs_fig(rep: Any) -> Any:
    res = rep.npfs
    B = rep.params["n_bootstraps"]
    n_show = min(_MAX_ROWS, int(res.support.sum()) + 10, res.counts.size)
    order = np.lexsort((np.arange(res.counts.size), -res.counts))[:n_show]
    fig, ax = _fig((6.0, 0.2 * order.size + 1.3))
    colors = ["#d95f02" if res.support[f] else "#9e9e9e" for f in order]
    ax.barh(range(order.size), res.counts[order], color=colors)
    ax.set_yticks(range(order.size), _names(rep, order), fontsize=8)
    ax.set_ylim(order.size - 0.5, -1.2)
    ax.axvline(res.threshold + 0.5, color="black", ls="--", lw=1)
    ax.text(res.threshold + 0.5, -0.7, f" threshold {res.threshold}", fontsize=8, va="center")
    ax.set_xlim(0, B)
    ax.set_xlabel(f"times selected by {rep.ok_methods[0]} in {B} bootstrap samples")
    ax.set_title(f"NPFS: relevant features (orange) at alpha={rep.params['alpha']:g}", fontsize=10)
    return fig


def _curve_fig(rep: Any, which: str) -> Any:
    fig, ax = _fig((6.8, 4.2))
    ok = [m for m in rep.ok_methods if m in rep.curves]
    for i, m in enumerate(ok):
        cur = rep.curves[m]
        mean, std = (cur.mean, cur.std) if which == "score" else (cur.ber_mean, cur.ber_std)
        dx = (i - (len(ok) - 1) / 2) * 0.06
        ax.errorbar(
            cur.n_kept + dx,
            mean,
            yerr=std,
            marker="o",
            ms=3,
            capsize=2,
            lw=1.2,
            color=_COLORS[i % len(_COLORS)],
            label=m,
        )
    base = rep.baseline
    bm, bs = (
        (base.mean[0], base.std[0]) if which == "score" else (base.ber_mean[0], base.ber_std[0])
    )
    ax.axhline(bm, color="black", ls="--", lw=1.2, label=f"all {rep.summary.n_features} features")
    ax.axhspan(bm - bs, bm + bs, color="black", alpha=0.07)
    label = _score_label(rep) if which == "score" else "balanced error rate"
    folds = rep.params["n_folds"]
    ax.set_xlabel("number of features kept (in each method's order)")
    ax.set_ylabel(f"{label} ({folds}-fold CV)")
    ax.set_title(
        f"{label.capitalize()} against the number of features (mean ± sd over folds)", fontsize=10
    )
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    return fig


def figures(rep: Any) -> dict[str, tuple[bytes, str]]:
    """Every figure of the page as ``{file stem: (PNG bytes, alt text)}``."""
    out: dict[str, tuple[bytes, str]] = {}
    if not rep.ok_methods:
        return out
    out["curves"] = (
        figure_png(_curve_fig(rep, "score")),
        f"cross-validated {_score_label(rep)} against the number of features",
    )
    if rep.summary.task == "classification":
        out["ber"] = (
            figure_png(_curve_fig(rep, "ber")),
            "balanced error rate against the number of features",
        )
    if rep.npfs is not None:
        out["npfs"] = (figure_png(_npfs_fig(rep)), "NPFS selection counts and threshold")
    if any(rep.stability.get(m) is not None for m in rep.ok_methods):
        out["stability"] = (figure_png(_stability_fig(rep)), "Nogueira stability per method")
    if _frequency_rows(rep).size:
        out["frequencies"] = (
            figure_png(_frequency_fig(rep)),
            "bootstrap selection frequency per feature and method",
        )
    if np.isfinite(rep.kuncheva).any():
        out["agreement_kuncheva"] = (
            figure_png(_agreement_fig(rep, "kuncheva")),
            "Kuncheva agreement between methods",
        )
    out["agreement_jaccard"] = (
        figure_png(_agreement_fig(rep, "jaccard")),
        "Jaccard agreement between methods",
    )
    return out


# --------------------------------------------------------------------------- page
def _img(figs: dict[str, tuple[bytes, str]], key: str) -> str:
    if key not in figs:
        return ""
    data, alt = figs[key]
    return png_img(data, alt)


def _rank_table(rep: Any) -> str:
    ok = rep.ok_methods
    feats, R = rep.rank_matrix()
    npfs = rep.npfs
    head = ["feature", *ok, "selected by"]
    if npfs is not None:
        head.append(f"NPFS p ({ok[0]})")
    rows, styles = [], []
    for f, r in zip(feats, R, strict=True):
        cells: list[Any] = [rep.name(f)]
        st: list[str | None] = [None]
        for v in r:
            if np.isnan(v):
                cells.append("")
                st.append(None)
            else:
                a = 0.15 + 0.75 * (1 - (v - 1) / max(rep.k, 1))
                cells.append(int(v))
                st.append(
                    f"background:rgba(33,102,172,{a:.2f});" + ("color:white" if a > 0.55 else "")
                )
        cells.append(f"{int(np.sum(~np.isnan(r)))}/{len(ok)}")
        st.append(None)
        if npfs is not None:
            p = float(npfs.pvalues[f])
            cells.append(f"{p:.2g}" + (" ✓" if npfs.support[f] else ""))
            st.append("font-weight:bold" if npfs.support[f] else None)
        rows.append(cells)
        styles.append(st)
    return html_table(head, rows, styles=styles)


def _selection_table(rep: Any) -> str:
    ok = rep.ok_methods
    rows = []
    for r in range(rep.k):
        row: list[Any] = [r + 1]
        for m in ok:
            sel = rep.selections[m]
            if r < sel.features.size:
                row.append(f"{rep.name(sel.features[r])}  ({sel.scores[r]:.4g})")
            else:
                row.append("")
        rows.append(row)
    return '<div class="scroll">' + html_table(["rank", *ok], rows, cls="sel") + "</div>"


def _data_section(rep: Any) -> str:
    s = rep.summary
    types: dict[str, int] = {}
    for t in s.feature_types:
        types[t] = types.get(t, 0) + 1
    rows: list[list[Any]] = [
        ["rows", s.n_samples],
        ["features", s.n_features],
        ["feature types", ", ".join(f"{n} {t}" for t, n in sorted(types.items()))],
        [
            "missing values",
            f"{s.n_missing} in {int(np.sum(s.missing > 0))} features" if s.n_missing else "none",
        ],
    ]
    if s.task == "classification":
        rows.append(
            [
                "target",
                f"{len(s.classes)} classes: " + ", ".join(f"{c} ({n})" for c, n in s.classes),
            ]
        )
    elif s.target_range is not None:
        lo, med, hi = s.target_range
        rows.append(
            ["target", f"numeric (regression): min {lo:.4g}, median {med:.4g}, max {hi:.4g}"]
        )
    per = html_table(
        ["feature", "type", "missing"],
        [
            [n, t, int(m)]
            for n, t, m in zip(s.feature_names, s.feature_types, s.missing, strict=True)
        ],
    )
    return (
        "<h2>The data</h2>"
        + html_table([], rows)
        + f"<details><summary>All {s.n_features} features</summary>{per}</details>"
    )


def _npfs_section(rep: Any, figs: dict[str, tuple[bytes, str]]) -> str:
    ok = rep.ok_methods
    res = rep.npfs
    if res is None:
        return (
            "<h2>How sure: NPFS</h2><p>NPFS needs fewer selected features than "
            "features (k &lt; number of features).</p>"
        )
    B = rep.params["n_bootstraps"]
    rel = [int(f) for f in res.relevant]
    rows = [[rep.name(f), int(res.counts[f]), f"{res.pvalues[f]:.2g}"] for f in rel]
    txt = (
        f"<p>NPFS (Ditzler, Polikar &amp; Rosen 2015) runs <b>{html.escape(ok[0])}</b> "
        f"(k={rep.k}) on {B} bootstrap samples and keeps the features selected more often "
        f"than chance: more than <b>{res.threshold}</b> of {B} times (the one-sided "
        f"binomial test at alpha={rep.params['alpha']:g}). <b>{len(rel)}</b> features "
        "are relevant.</p>"
    )
    table = html_table(["relevant feature", f"times selected (of {B})", "p-value"], rows)
    return (
        "<h2>How sure: NPFS</h2>"
        + txt
        + '<div class="figs">'
        + table
        + _img(figs, "npfs")
        + "</div>"
    )


def _stability_section(rep: Any, figs: dict[str, tuple[bytes, str]]) -> str:
    rows = []
    for m in rep.ok_methods:
        st = rep.stability.get(m)
        rows.append(
            [
                m,
                _fmt(st.stability) if st else "undefined",
                f"{st.lower:.3f} to {st.upper:.3f}" if st else "",
            ]
        )
    return (
        "<h2>How stable</h2><p>Each method was re-run on "
        f"{rep.params['n_bootstraps']} bootstrap samples of the rows. Nogueira, Sechidis "
        "&amp; Brown's (2018) stability is 1 when every sample gives the same features and "
        "about 0 for random choices; the heat map shows how often each feature was "
        "picked.</p>"
        + '<div class="figs">'
        + html_table(["method", "Nogueira stability", "95% CI"], rows)
        + _img(figs, "stability")
        + "</div>"
        + _img(figs, "frequencies")
    )


def _worth_section(rep: Any, figs: dict[str, tuple[bytes, str]]) -> str:
    label = _score_label(rep)
    p = rep.params
    txt = (
        f"<p>Cross-validated {label} of a {html.escape(p['model'])} when it keeps the "
        f"first 1 to {rep.k} features of each method, the selection repeated inside each "
        f"of the {p['n_folds']} training folds (so the held-out rows never guide the "
        "selection); the dashed line is the same model on all features, the band its "
        "standard deviation.</p>"
    )
    return "<h2>Is it worth it</h2>" + txt + _img(figs, "curves") + _img(figs, "ber")


def _runtime_section(rep: Any) -> str:
    rows = []
    for m in rep.ok_methods:
        sec = rep.selections[m].seconds
        rows.append(
            [
                m,
                _fmt(sec.get("fit", np.nan), 2),
                _fmt(sec.get("bootstrap", np.nan), 2),
                _fmt(sec.get("cv", np.nan), 2),
                _fmt(sum(sec.values()), 2),
            ]
        )
    p = rep.params
    return "<h2>Run time (seconds)</h2>" + html_table(
        [
            "method",
            "whole table",
            f"{p['n_bootstraps']} bootstraps",
            f"{p['n_folds']}-fold CV",
            "total",
        ],
        rows,
    )


def _reproduce_section(rep: Any) -> str:
    params = json.dumps(rep.params, indent=1)
    return (
        "<h2>Reproduce</h2>"
        f"<p><code>{html.escape(rep.command)}</code></p>"
        f'<p class="muted">{html.escape(environment())}; whole report '
        f"{rep.seconds:.1f} s.</p>"
        f"<details><summary>Parameters</summary><pre>{html.escape(params)}</pre></details>"
    )


def environment() -> str:
    """fsel, Python, NumPy and scikit-learn versions, for the reproduce section."""
    import sklearn

    return (
        f"fsel {__version__}, Python {platform.python_version()}, NumPy {np.__version__}, "
        f"scikit-learn {sklearn.__version__}"
    )


def _body(rep: Any, figs: dict[str, tuple[bytes, str]]) -> str:
    ok = rep.ok_methods
    sentences = summary_sentences(rep)
    parts = [
        '<div class="lead"><b>'
        + html.escape(sentences[0])
        + "</b><ul>"
        + "".join(f"<li>{html.escape(t)}</li>" for t in sentences[1:])
        + "</ul></div>"
    ]
    parts.append(_data_section(rep))
    if rep.errors:
        parts.append(
            "<h2>Methods that failed</h2><ul>"
            + "".join(
                f'<li class="err"><b>{html.escape(m)}</b>: {html.escape(e)}</li>'
                for m, e in rep.errors.items()
            )
            + "</ul>"
        )
    if ok:
        parts.append(
            f"<h2>Selected features</h2><p>Each method's {rep.k} features on the whole "
            "table, in its order, with its score (criterion value at that step for the "
            "greedy information criteria, weight or index value for the rankers).</p>"
            + _selection_table(rep)
        )
        parts.append(
            "<h2>Agreement between methods</h2><p>Rank of each feature in each method's "
            "selection (1 = first; blank = not selected)"
            + (
                f", and its NPFS p-value under {html.escape(ok[0])} (✓ relevant)"
                if rep.npfs is not None
                else ""
            )
            + ".</p>"
            + '<div class="scroll">'
            + _rank_table(rep)
            + "</div>"
            + '<div class="figs pair">'
            + _img(figs, "agreement_kuncheva")
            + _img(figs, "agreement_jaccard")
            + "</div>"
        )
        parts.append(_stability_section(rep, figs))
        parts.append(_npfs_section(rep, figs))
        from fsel.experiments.report_guarantees import guarantees_section

        parts.append(guarantees_section(rep.guarantees, ok[0], list(rep.summary.feature_names)))
        parts.append(_worth_section(rep, figs))
        parts.append(_runtime_section(rep))
    parts.append(_reproduce_section(rep))
    return "\n".join(parts)


def _figures_once(rep: Any) -> dict[str, tuple[bytes, str]]:
    """:func:`figures`, drawn once per report (the page, ``save`` and Jupyter share them)."""
    cached = rep.__dict__.get("_figures")
    if cached is None:
        cached = rep.__dict__["_figures"] = figures(rep)
    return cached


def _scoped(css: str, scope: str) -> str:
    """Prefix every selector of ``css`` with ``scope`` (so the page's style stays inside
    its ``<div>`` in a notebook).

    Examples
    --------
    >>> _scoped("h1{a:b}td,th{c:d}.x{e:f}", ".r")
    '.r h1{a:b}.r td,.r th{c:d}.r .x{e:f}'
    """
    out = []
    for rule in css.replace("\n", "").split("}"):
        if "{" not in rule:
            continue
        sel, body = rule.split("{", 1)
        sels = [t.strip() for t in sel.split(",")]
        out.append(
            ",".join(t if t.startswith(scope) else f"{scope} {t}" for t in sels) + "{" + body + "}"
        )
    return "".join(out)


def _title(rep: Any) -> str:
    return f"fsel report: which of {rep.summary.n_features} features matter"


def render(rep: Any, *, standalone: bool = True, figs: dict | None = None) -> str:
    """The HTML of the page (``standalone=False``: a fragment for Jupyter)."""
    figs = _figures_once(rep) if figs is None else figs
    body = _body(rep, figs)
    if standalone:
        return html_page(_title(rep), body, css=_CSS)
    css = _scoped(BASE_CSS.replace("body{", ".fsel-report{") + _CSS, ".fsel-report")
    return (
        f'<div class="fsel-report"><style>{css}</style>'
        f"<h1>{html.escape(_title(rep))}</h1>{body}</div>"
    )


def write(rep: Any, directory: Path) -> Path:
    """Write ``report.html``, the PNG figures, ``report.json`` and ``selections.csv``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    figs = _figures_once(rep)
    for stem, (data, _) in figs.items():
        (directory / f"{stem}.png").write_bytes(data)
    (directory / "report.json").write_text(json.dumps(rep.to_dict(), indent=1) + "\n")
    with (directory / "selections.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "rank", "index", "name", "score", "bootstrap_frequency"])
        for m in rep.ok_methods:
            sel = rep.selections[m]
            for r, (f, v) in enumerate(zip(sel.features, sel.scores, strict=True)):
                w.writerow([m, r + 1, int(f), rep.name(f), float(v), float(rep.frequencies[m][f])])
    page = directory / "report.html"
    page.write_text(render(rep, standalone=True, figs=figs), encoding="utf-8")
    return page
