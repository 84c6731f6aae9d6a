"""Yuan's simulation reproduced: ``fsel reproduce yuan-table1`` and the others.

The simulation itself and the protocol choices the paper leaves open are in
:mod:`fsel.experiments.yuan_protocol` (:func:`~fsel.experiments.yuan_protocol.simulate`).

Reproductions: ``yuan-table1``, ``yuan-table2``, ``yuan-sensitivity``
(``fsel reproduce NAME [--quick] [--random-state S]``). They cache every block of data sets of
one model (the joblib task of :func:`simulate`: 250 data sets without bootstrap, 5
with), so an interrupted run resumes with the blocks that were left, and draw a
progress bar over the data sets on a terminal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fsel.experiments.cache import cache_for
from fsel.experiments.common import md_table, reproduce_command
from fsel.experiments.report import Reproduction, write_csv
from fsel.experiments.yuan_protocol import (
    MODELS,
    N_GENUINE,
    PAPER_TABLE1,
    PAPER_TABLE2,
    YuanSimulation,
    simulate,
)
from fsel.kernels.ranking_indices import INDEX_NAMES
from fsel.utils.progress import Progress

__all__ = [
    "REPRODUCTIONS",
    "yuan_sensitivity",
    "yuan_table1",
    "yuan_table2",
]


# ----------------------------------------------------------------------- reproductions

_FAMILIES = {
    "difference": ("In", "In3", "In5"),
    "K-S": ("K1", "K2", "K3"),
    "table": ("chi2", "mi"),
}
_CHANCE = {m: 1.0 / math.comb(10, k) for m, k in N_GENUINE.items()}


def _cached_simulation(
    output_dir: Path, bar: Progress | None = None, **kwargs: Any
) -> YuanSimulation:
    """:func:`simulate` with every block of data sets cached under ``output_dir``."""
    return simulate(
        cache=cache_for(output_dir),
        progress=None if bar is None else bar.update,
        **kwargs,
    )


def _f(v: float) -> str:
    return f"{v:.2f}"


def _family_gaps(ours: np.ndarray, paper: np.ndarray, names: Sequence[str]) -> dict[str, float]:
    gaps = {}
    for fam, members in _FAMILIES.items():
        cols = [names.index(nm) for nm in members if nm in names]
        if cols:
            gaps[fam] = float(np.mean(np.abs(ours[:, cols] - paper[:, cols])))
    return gaps


def _scatter(
    path: Path,
    x: np.ndarray,
    y: np.ndarray,
    names: Sequence[str],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    yerr: np.ndarray | None = None,
) -> Path:
    from fsel.utils.figures import new_figure, save_figure

    fig, ax = new_figure(figsize=(5.2, 5))
    colors = {"difference": "tab:blue", "K-S": "tab:orange", "table": "tab:green"}
    for fam, members in _FAMILIES.items():
        cols = [names.index(nm) for nm in members if nm in names]
        if not cols:
            continue
        ax.errorbar(
            x[:, cols].ravel(),
            y[:, cols].ravel(),
            yerr=None if yerr is None else yerr[:, cols].ravel(),
            fmt="o",
            ms=4,
            color=colors[fam],
            label=f"{fam} ({', '.join(members)})",
            alpha=0.8,
        )
    ax.plot([0, 1], [0, 1], "k--", lw=0.8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    save_figure(fig, path, dpi=110)
    return path


def yuan_table1(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Yuan, Table IV.1: detection rates of the eight indices without bootstrap.

    Six models, ``N = 200``, ``d = 10``; mean (std) over ``M`` repetitions of the rate
    of ``R`` data sets (paper and full run: ``R = M = 100``; quick: ``R = 20, M = 5``).
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    R, M = (20, 5) if quick else (100, 100)
    with Progress(len(MODELS) * R * M, "yuan-table1 data sets") as bar:
        sim = _cached_simulation(
            output_dir, bar, n_datasets=R, n_repeats=M, random_state=seed, n_jobs=n_jobs
        )
    names = list(sim.indices)
    paper_mean = np.array([[PAPER_TABLE1[m][nm][0] for nm in names] for m in sim.models])
    mean, std = sim.mean(), sim.std()
    rows = []
    for a, m in enumerate(sim.models):
        for b, nm in enumerate(names):
            rows.append(
                {
                    "model": m,
                    "index": nm,
                    "mean": round(float(mean[a, b]), 4),
                    "std": round(float(std[a, b]), 4),
                    "paper_mean": PAPER_TABLE1[m][nm][0],
                    "paper_std": PAPER_TABLE1[m][nm][1],
                }
            )
    table = write_csv(output_dir / "table_iv1_detection.csv", rows)
    md_rows = [
        [m]
        + [
            f"{_f(mean[a, b])} ({_f(std[a, b])}) / {PAPER_TABLE1[m][nm][0]:.2f}"
            f" ({PAPER_TABLE1[m][nm][1]:.2f})"
            for b, nm in enumerate(names)
        ]
        for a, m in enumerate(sim.models)
    ]
    ours = (
        f"R = {R}, M = {M}, H = {sim.params['n_slices']}, S = T = "
        f"{sim.params['n_bins_x']}; cells: ours mean (std) / paper mean (std)\n\n"
        + md_table(["model", *names], md_rows)
    )
    fig = _scatter(
        output_dir / "table_iv1_ours_vs_paper.png",
        paper_mean,
        mean,
        names,
        xlabel="Yuan Table IV.1 detection rate",
        ylabel="fsel detection rate",
        title=f"Detection without bootstrap (R={R}, M={M})",
        yerr=std,
    )
    gaps = _family_gaps(mean, paper_mean, names)
    d = names.index("In")
    worst = sorted(
        (
            (abs(mean[a, b] - paper_mean[a, b]), m, nm)
            for a, m in enumerate(sim.models)
            for b, nm in enumerate(names)
        ),
        reverse=True,
    )[:3]
    agreement = (
        f"Mean |ours - paper| is {gaps['K-S']:.3f} for the K-S indices, {gaps['table']:.3f} "
        f"for chi2/mi and {gaps['difference']:.3f} for In/In3/In5; the largest gaps are "
        + ", ".join(
            f"model {m} {nm} ({mean[sim.models.index(m), names.index(nm)]:.2f} vs "
            f"{PAPER_TABLE1[m][nm][0]:.2f})"
            for _, m, nm in worst
        )
        + ". In models 3, 4 and 6 the mean of y given x2 is constant, so a difference-based "
        "residual-variance index cannot single x2 out in expectation (ours: In on model 6 "
        f"{mean[sim.models.index(6), d]:.2f}, chance {_CHANCE[6]:.3f}); we cannot explain "
        "the paper's higher In-family rates there."
        if 6 in sim.models
        else "."
    )
    return Reproduction(
        name="yuan-table1",
        title="Yuan, Table IV.1 (detection rates before bootstrapping)",
        command=reproduce_command("yuan-table1", seed, quick),
        seed=seed,
        paper="Table IV.1 (mean (std) over M = 100 rates of R = 100 data sets): "
        + "; ".join(
            f"model {m}: " + ", ".join(f"{nm} {PAPER_TABLE1[m][nm][0]:.2f}" for nm in INDEX_NAMES)
            for m in MODELS
        ),
        ours=ours,
        agreement=agreement,
        tables={"table_iv1": table},
        figures=[fig],
        quick=quick,
    )


def yuan_table2(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Yuan, Table IV.2: detection rates after bootstrapping (B = 100, R = 100).

    Beside each bootstrap rate: the plain index on the same ``R`` data sets, the
    paper's Table IV.2 and IV.1 numbers. Quick: ``R = 10, B = 10``.
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    R, B = (10, 10) if quick else (100, 100)
    with Progress(len(MODELS) * R, "yuan-table2 data sets") as bar:
        sim = _cached_simulation(
            output_dir,
            bar,
            n_datasets=R,
            n_repeats=1,
            n_bootstraps=B,
            random_state=seed,
            n_jobs=n_jobs,
        )
    names = list(sim.indices)
    boot, plain, se = sim.mean(), sim.mean(plain=True), sim.std()
    paper2 = np.array([[PAPER_TABLE2[m][nm] for nm in names] for m in sim.models])
    paper1 = np.array([[PAPER_TABLE1[m][nm][0] for nm in names] for m in sim.models])
    rows = []
    for a, m in enumerate(sim.models):
        for b, nm in enumerate(names):
            rows.append(
                {
                    "model": m,
                    "index": nm,
                    "bootstrap": round(float(boot[a, b]), 4),
                    "binomial_se": round(float(se[a, b]), 4),
                    "plain_same_data": round(float(plain[a, b]), 4),
                    "paper_bootstrap": PAPER_TABLE2[m][nm],
                    "paper_plain": PAPER_TABLE1[m][nm][0],
                }
            )
    table = write_csv(output_dir / "table_iv2_detection.csv", rows)
    md_rows = [
        [m]
        + [
            f"{_f(boot[a, b])} ({_f(se[a, b])}) / {_f(plain[a, b])} / {paper2[a, b]:.2f}"
            for b in range(len(names))
        ]
        for a, m in enumerate(sim.models)
    ]
    ours = (
        f"R = {R}, B = {B}, H = {sim.params['n_slices']}, S = T = "
        f"{sim.params['n_bins_x']}; cells: ours bootstrap (binomial std) / ours plain on "
        "the same data sets / paper Table IV.2\n\n" + md_table(["model", *names], md_rows)
    )
    fig = _scatter(
        output_dir / "table_iv2_bootstrap_vs_plain.png",
        plain,
        boot,
        names,
        xlabel="plain index, same data sets",
        ylabel="bootstrapped index",
        title=f"fsel: bootstrap (B={B}) vs plain on R={R} data sets",
    )
    fig2 = _scatter(
        output_dir / "table_iv2_paper.png",
        paper1,
        paper2,
        names,
        xlabel="Yuan Table IV.1 (plain)",
        ylabel="Yuan Table IV.2 (bootstrap)",
        title="Yuan: bootstrap vs plain (the paper's numbers)",
    )
    up, down = int((boot > plain).sum()), int((boot < plain).sum())
    fam_up = {
        fam: float(
            np.mean(
                boot[:, [names.index(n) for n in mem]] - plain[:, [names.index(n) for n in mem]]
            )
        )
        for fam, mem in _FAMILIES.items()
    }
    gaps = _family_gaps(boot, paper2, names)
    same = boot.size - up - down
    agreement = (
        "The paper reports a uniform improvement from bootstrapping; on the same data sets "
        f"ours raised the detection rate in {up} of {boot.size} cells, lowered it in {down} "
        f"and left {same} unchanged (mean change: "
        + ", ".join(f"{fam} {v:+.3f}" for fam, v in fam_up.items())
        + "); mean |ours - paper Table IV.2| is "
        + ", ".join(f"{fam} {v:.3f}" for fam, v in gaps.items())
        + f" (one rate of R = {R} data sets has a binomial std up to {0.5 / np.sqrt(R):.2f}),"
        " the difference indices keeping Table IV.1's gap on models 3, 4 and 6."
    )
    return Reproduction(
        name="yuan-table2",
        title="Yuan, Table IV.2 (detection rates after bootstrapping)",
        command=reproduce_command("yuan-table2", seed, quick),
        seed=seed,
        paper="Table IV.2 (B = 100, one rate of R = 100 data sets): "
        + "; ".join(
            f"model {m}: " + ", ".join(f"{nm} {PAPER_TABLE2[m][nm]:.2f}" for nm in INDEX_NAMES)
            for m in MODELS
        )
        + ". 'the detection rate improves uniformly over different data sets and over "
        "various selection indices.'",
        ours=ours,
        agreement=agreement,
        tables={"table_iv2": table},
        figures=[fig, fig2],
        quick=quick,
    )


def yuan_sensitivity(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Sensitivity of Table IV.1 to the slice counts (H for K1-K3, S = T for chi2/mi).

    ``H`` in 5, 10 (the stated rule), 20; ``S = T`` in 4, 6 (the stated rule), 8, 10;
    ``R = 100, M = 10`` (quick: ``R = 20, M = 2``).
    """
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    R, M = (20, 2) if quick else (100, 10)
    settings = [("K-S", "n_slices", h, ("K1", "K2", "K3")) for h in (5, 10, 20)]
    settings += [("table", "n_bins", s, ("chi2", "mi")) for s in (4, 6, 8, 10)]
    rows, md_rows, gap_by = [], [], {}
    sims = []
    with Progress(len(settings) * len(MODELS) * R * M, "yuan-sensitivity data sets") as bar:
        for _fam, param, value, idx in settings:
            kw = (
                {"n_slices": value}
                if param == "n_slices"
                else {"n_bins_x": value, "n_bins_y": value}
            )
            sims.append(
                _cached_simulation(
                    output_dir,
                    bar,
                    indices=idx,
                    n_datasets=R,
                    n_repeats=M,
                    random_state=seed,
                    n_jobs=n_jobs,
                    **kw,
                )
            )
    for (fam, _param, value, idx), sim in zip(settings, sims, strict=True):
        mean = sim.mean()
        paper = np.array([[PAPER_TABLE1[m][nm][0] for nm in idx] for m in sim.models])
        gap = float(np.mean(np.abs(mean - paper)))
        gap_by[(fam, value)] = gap
        for a, m in enumerate(sim.models):
            for b, nm in enumerate(idx):
                rows.append(
                    {
                        "family": fam,
                        "slices": value,
                        "model": m,
                        "index": nm,
                        "mean": round(float(mean[a, b]), 4),
                        "paper_mean": PAPER_TABLE1[m][nm][0],
                    }
                )
        for b, nm in enumerate(idx):
            md_rows.append(
                [
                    f"{nm}",
                    f"{'H' if fam == 'K-S' else 'S=T'}={value}",
                    *[_f(v) for v in mean[:, b]],
                    _f(float(np.mean(mean[:, b]))),
                ]
            )
    table = write_csv(output_dir / "slice_sensitivity.csv", rows)
    ours = f"Detection rates without bootstrap, R = {R}, M = {M}\n\n" + md_table(
        ["index", "slices", *[f"model {m}" for m in MODELS], "mean"], md_rows
    )
    from fsel.utils.figures import new_figure, save_figure

    fig, axes = new_figure(1, 2, figsize=(9, 3.5))
    for ax, fam, vals in ((axes[0], "K-S", (5, 10, 20)), (axes[1], "table", (4, 6, 8, 10))):
        for nm in _FAMILIES[fam]:
            ys = [
                float(np.mean([r["mean"] for r in rows if r["index"] == nm and r["slices"] == v]))
                for v in vals
            ]
            ax.plot(vals, ys, "o-", label=nm)
        ax.set_xlabel("H (slices of y)" if fam == "K-S" else "S = T (table slices)")
        ax.set_ylabel("mean detection rate over the 6 models")
        ax.legend(fontsize=8)
    save_figure(fig, output_dir / "slice_sensitivity.png", dpi=110)
    best_k = min((5, 10, 20), key=lambda v: gap_by[("K-S", v)])
    best_t = min((4, 6, 8, 10), key=lambda v: gap_by[("table", v)])
    agreement = (
        "Mean |ours - paper Table IV.1| by setting: "
        + ", ".join(f"H={v} {gap_by[('K-S', v)]:.3f}" for v in (5, 10, 20))
        + "; "
        + ", ".join(f"S=T={v} {gap_by[('table', v)]:.3f}" for v in (4, 6, 8, 10))
        + f". The closest settings are H={best_k} and S=T={best_t}; the reported tables keep "
        "the rule fixed before looking (H=10, S=T=6), not the closest setting."
    )
    return Reproduction(
        name="yuan-sensitivity",
        title="Yuan, Table IV.1: sensitivity to the slice counts",
        command=reproduce_command("yuan-sensitivity", seed, quick),
        seed=seed,
        paper="The paper does not state H, S or T; Table IV.1 is the reference.",
        ours=ours,
        agreement=agreement,
        tables={"slice_sensitivity": table},
        figures=[output_dir / "slice_sensitivity.png"],
        quick=quick,
    )


REPRODUCTIONS: dict[str, Callable[..., Reproduction]] = {
    "yuan-table1": yuan_table1,
    "yuan-table2": yuan_table2,
    "yuan-sensitivity": yuan_sensitivity,
}
