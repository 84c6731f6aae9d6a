"""False discovery rate and power of the selection tests, on data with known truth.

Target (``fsel reproduce NAME``):

``fdr``  Issue 26 (no paper): empirical false discovery rate (with its 95 % Monte
         Carlo interval) and power of the knockoff filter with several statistics,
         knockpy's lasso knockoffs, stability selection, NPFS (binomial and permutation
         null), BorutaPy and scikit-learn's ``SelectFdr``, over generated designs.

Protocol, written down here:

* Designs. ``iid``: independent standard normal features; ``ar1``: Gaussian with
  :math:`\\mathrm{Cov}(X_i, X_j) = 0.5^{|i-j|}`; ``categorical``: the ``ar1`` latent
  features cut at their quartiles into integer codes 0..3 (the knockoffs treat the
  codes as numbers: second-order Gaussian knockoffs are not valid for them, so this
  cell is reported as it comes).
* Responses (``k`` relevant features at random places, signs random):
  ``logistic``: :math:`P(y=1) = \\sigma(a \\sum_{j \\in R} \\pm x_j)`; ``xor``: the relevant
  features in pairs, :math:`\\sigma(a \\sum_{pairs} x_{j} x_{j'})` (no marginal signal);
  ``threshold``: :math:`\\sigma(2a \\sum_{j \\in R} \\pm (1\\{x_j > 0\\} - 1/2))`.
  ``a`` = 1 (logistic, threshold) and 1.5 (xor).
* Cells: (design, response, n, p, k); see ``FULL_GRID`` / ``QUICK_GRID``. Gaussian
  cells run the knockoff methods twice: with the true covariance (``true cov``; the
  knockoffs are then valid and the FDR must be at most ``q`` up to Monte Carlo error)
  and with the Ledoit-Wolf estimate (as a user would; reported as it comes).
* Methods, all at target ``q = 0.2`` where they take a rate: KnockoffFilter with its
  default statistic (cross-validated L1 logistic regression), with JMI's and
  ReliefF's pick orders (a quarter of the ``2p`` columns picked); knockpy's Gaussian
  knockoffs with its lasso statistic (skipped when knockpy is not installed);
  StabilitySelection(JMI(m)) at threshold 0.6 with ``m`` chosen so that the
  Meinshausen-Bühlmann bound is at most 1 false selection (it controls that number,
  not the rate); NPFS(JMI(m)) at ``alpha = 0.01``, binomial null and permutation
  null; BorutaPy (random forests of depth 5, ``n_estimators="auto"``, 60 iterations;
  50 trees and 15 iterations in the quick run; skipped when boruta is not installed);
  ``SelectFdr(f_classif, alpha=q)`` (Benjamini-Hochberg on univariate F-tests).
* Scores per replicate: false discovery proportion (0 when nothing is selected),
  power (share of the ``k`` relevant features found), the number of false
  selections ``V``; averaged over the replicates, the FDR with a 95 % normal interval.

Timing (the shared 2-core machine): the quick run takes about two minutes. The full
grid (``FULL_GRID``: five cells with every method at n = 300, p = 50; AR(1) logistic
at n = 1000, p = 200 with the cheaper methods; at n = 3000, p = 500 with the JMI
knockoffs and ``SelectFdr``; 100 replicates each) is estimated at two to two and a
half hours with 2 workers, from the quick run's per-fit times and one replicate of
the p = 200 cell; it has not been run yet.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fsel.experiments.common import reproduce_command, reproduction_n_jobs
from fsel.experiments.report import Reproduction, write_csv

__all__ = ["FULL_GRID", "QUICK_GRID", "REPRODUCTIONS", "fdr_study", "make_design"]

Q = 0.2
#: (design, response, n, p, k, replicates, methods): "all" methods on the small cells,
#: a cheaper subset (see ``METHOD_SETS``) where one replicate of everything takes minutes
FULL_GRID = [
    ("iid", "logistic", 300, 50, 10, 100, "all"),
    ("ar1", "logistic", 300, 50, 10, 100, "all"),
    ("ar1", "xor", 300, 50, 10, 100, "all"),
    ("ar1", "threshold", 300, 50, 10, 100, "all"),
    ("categorical", "logistic", 300, 50, 10, 100, "all"),
    ("ar1", "logistic", 1000, 200, 15, 100, "core"),
    ("ar1", "logistic", 3000, 500, 20, 100, "jmi"),
]
QUICK_GRID = [
    ("ar1", "logistic", 300, 50, 10, 3, "all"),
    ("iid", "xor", 300, 50, 10, 3, "all"),
    ("categorical", "logistic", 300, 50, 10, 3, "all"),
]
METHOD_SETS = {
    "core": (
        "KO default (L1 logistic)",
        "KO JMI order, true cov",
        "KO JMI order",
        "StabilitySelection JMI",
        "NPFS JMI",
        "SelectFdr (BH, F-test)",
    ),
    "jmi": ("KO JMI order, true cov", "KO JMI order", "SelectFdr (BH, F-test)"),
}


def _ar1(p: int, rho: float) -> np.ndarray:
    return rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))


def make_design(
    design: str, response: str, n: int, p: int, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """One replicate: ``X``, binary ``y``, the relevant indices and the true covariance
    (None for the categorical design).

    Examples
    --------
    >>> import numpy as np
    >>> X, y, rel, cov = make_design("ar1", "xor", 100, 10, 4, np.random.default_rng(0))
    >>> X.shape, sorted(set(y.tolist())), rel.size, cov.shape
    ((100, 10), [0, 1], 4, (10, 10))
    """
    cov = np.eye(p) if design == "iid" else _ar1(p, 0.5)
    X = rng.standard_normal((n, p)) @ np.linalg.cholesky(cov).T
    rel = np.sort(rng.choice(p, k, replace=False))
    sign = rng.choice([-1.0, 1.0], k)
    if response == "logistic":
        eta = X[:, rel] @ sign
    elif response == "xor":
        pairs = rng.permutation(rel).reshape(-1, 2)
        eta = 1.5 * np.sum(X[:, pairs[:, 0]] * X[:, pairs[:, 1]], axis=1)
    elif response == "threshold":
        eta = 2.0 * (((X[:, rel] > 0) - 0.5) @ sign)
    else:
        raise ValueError(f"unknown response {response!r}")
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    if design == "categorical":
        edges = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
        X = (X[:, None, :] > edges[None, :, :]).sum(axis=1).astype(np.float64)
        return X, y, rel, None
    return X, y, rel, cov


# --------------------------------------------------------------------------- methods
def _stability_m(p: int, threshold: float = 0.6, ev: float = 1.0) -> int:
    """The per-half-sample selection size with q^2 / ((2 pi - 1) p) <= ev."""
    return max(1, math.floor(math.sqrt(ev * (2 * threshold - 1) * p) + 1e-9))


@functools.lru_cache(maxsize=8)
def _true_s(key: bytes, p: int) -> np.ndarray:
    """ASDP ``s`` of a true covariance (the same in every replicate of a cell)."""
    from fsel.meta._knockoff_construction import solve_s

    return solve_s(np.frombuffer(key).reshape(p, p), "asdp")


def _knockoff(selector: Any, true_cov: bool) -> Callable[..., np.ndarray]:
    def run(X, y, cov, seed, quick):
        from fsel.meta._knockoff_construction import gaussian_knockoffs, knockoff_sampler
        from fsel.meta.knockoffs import KnockoffFilter

        knockoffs: Any = "gaussian"
        if true_cov:
            s = _true_s(cov.tobytes(), cov.shape[0])
            p = X.shape[1]
            sampler = knockoff_sampler(cov, s)  # once for the filter's draws

            def knockoffs(Z, rng):
                return gaussian_knockoffs(Z, np.zeros(p), cov, s, rng, sampler)

        sel = selector() if callable(selector) else None
        return KnockoffFilter(sel, fdr=Q, knockoffs=knockoffs, random_state=seed).fit(X, y).support_

    return run


def _knockpy(true_cov: bool) -> Callable[..., np.ndarray]:
    def run(X, y, cov, seed, quick):
        from knockpy.knockoff_filter import KnockoffFilter as KP

        np.random.seed(seed % 2**32)  # noqa: NPY002 - knockpy draws from the global generator
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kf = KP(ksampler="gaussian", fstat="lasso")
            rej = kf.forward(X=X, y=y, Sigma=cov if true_cov else None, fdr=Q)
        return np.asarray(rej).astype(bool)

    return run


def _jmi(m: int) -> Any:
    from fsel.selectors.information import JMI

    # the binning of the committed numbers (before issue 23's defaults)
    return JMI(n_features_to_select=m, discretize="uniform", n_bins=5)


def _stability(X, y, cov, seed, quick):
    from fsel.meta.stability_selection import StabilitySelection

    m = _stability_m(X.shape[1])
    n_pairs = 10 if quick else 50
    ss = StabilitySelection(_jmi(m), threshold=0.6, n_resamples=n_pairs, random_state=seed)
    return ss.fit(X, y).support_


def _npfs(null: str) -> Callable[..., np.ndarray]:
    def run(X, y, cov, seed, quick):
        from fsel.meta.npfs import NPFS

        m = max(2, X.shape[1] // 10)
        nb = 20 if quick else 50
        extra = {"null": "permutation", "n_permutations": 4 if quick else 10} if null else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NPFS's power warning on tiny runs
            est = NPFS(_jmi(m), n_resamples=nb, alpha=0.01, random_state=seed, **extra)
            return est.fit(X, y).support_

    return run


def _boruta(X, y, cov, seed, quick):
    from boruta import BorutaPy
    from sklearn.ensemble import RandomForestClassifier

    rf = RandomForestClassifier(n_estimators=100, max_depth=5, n_jobs=1, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trees: Any = 50 if quick else "auto"
        b = BorutaPy(rf, n_estimators=trees, max_iter=15 if quick else 60, random_state=seed)
        b.fit(X, y)
    return np.asarray(b.support_, dtype=bool)


def _select_fdr(X, y, cov, seed, quick):
    from sklearn.feature_selection import SelectFdr, f_classif

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SelectFdr(f_classif, alpha=Q).fit(X, y).get_support()


def _relieff() -> Any:
    from fsel.selectors.relief import ReliefF

    return ReliefF(n_features_to_select=0.25, scaling="range")  # the committed numbers


def _jmi_quarter() -> Any:
    return _jmi(0.25)


def methods() -> dict[str, tuple[Callable[..., np.ndarray], bool]]:
    """Method label -> (runner, needs the true covariance). A runner is
    ``run(X, y, cov, seed, quick) -> support mask``."""
    out: dict[str, tuple[Callable[..., np.ndarray], bool]] = {
        "KO default (L1 logistic), true cov": (_knockoff(None, True), True),
        "KO default (L1 logistic)": (_knockoff(None, False), False),
        "KO JMI order, true cov": (_knockoff(_jmi_quarter, True), True),
        "KO JMI order": (_knockoff(_jmi_quarter, False), False),
        "KO ReliefF": (_knockoff(_relieff, False), False),
        "StabilitySelection JMI": (_stability, False),
        "NPFS JMI": (_npfs(""), False),
        "NPFS perm JMI": (_npfs("permutation"), False),
        "SelectFdr (BH, F-test)": (_select_fdr, False),
    }
    try:
        import knockpy  # noqa: F401

        out["knockpy lasso, true cov"] = (_knockpy(True), True)
        out["knockpy lasso"] = (_knockpy(False), False)
    except ImportError:
        pass
    try:
        import boruta  # noqa: F401

        out["Boruta"] = (_boruta, False)
    except ImportError:
        pass
    return out


def _skipped() -> list[str]:
    notes = []
    for mod, what in (("knockpy", "knockpy's lasso knockoffs"), ("boruta", "BorutaPy")):
        try:
            __import__(mod)
        except ImportError:
            notes.append(f"{what} skipped: `{mod}` is not installed (benchmarks/requirements.txt)")
    return notes


def _replicate(cell: tuple, r: int, seed: int, quick: bool) -> list[dict[str, Any]]:
    design, response, n, p, k, _, subset = cell
    tag = zlib.crc32(f"{design}/{response}".encode())
    ss = np.random.SeedSequence([seed, r, n, p, k, tag])
    rng = np.random.default_rng(ss)
    X, y, rel, cov = make_design(design, response, n, p, k, rng)
    truth = np.zeros(p, dtype=bool)
    truth[rel] = True
    rows = []
    for label, (run, needs_cov) in methods().items():
        if needs_cov and cov is None:
            continue
        if subset != "all" and label not in METHOD_SETS[subset]:
            continue
        t0 = time.perf_counter()
        try:
            sel = np.asarray(run(X, y, cov, int(ss.generate_state(1)[0]), quick), dtype=bool)
            err = ""
        except Exception as exc:  # a failing method is reported, not fatal
            sel, err = np.zeros(p, dtype=bool), f"{type(exc).__name__}: {exc}"[:120]
        n_sel = int(sel.sum())
        v = int((sel & ~truth).sum())
        rows.append(
            {
                "design": design,
                "response": response,
                "n": n,
                "p": p,
                "k": k,
                "replicate": r,
                "method": label,
                "selected": n_sel,
                "false": v,
                "fdp": v / max(1, n_sel),
                "power": int((sel & truth).sum()) / k,
                "seconds": round(time.perf_counter() - t0, 3),
                "error": err,
            }
        )
    return rows


def _summarise(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    keys = sorted({(r["design"], r["response"], r["n"], r["p"], r["k"]) for r in rows})
    labels = list(dict.fromkeys(r["method"] for r in rows))
    for key in keys:
        for m in labels:
            rs = [
                r
                for r in rows
                if (r["design"], r["response"], r["n"], r["p"], r["k"]) == key and r["method"] == m
            ]
            if not rs:
                continue
            fdp = np.array([r["fdp"] for r in rs])
            half = 1.96 * fdp.std(ddof=1) / math.sqrt(fdp.size) if fdp.size > 1 else math.nan
            out.append(
                {
                    "cell": f"{key[0]}/{key[1]} n={key[2]} p={key[3]} k={key[4]}",
                    "method": m,
                    "replicates": len(rs),
                    "fdr": round(float(fdp.mean()), 3),
                    "fdr_lo": round(float(max(0.0, fdp.mean() - half)), 3),
                    "fdr_hi": round(float(fdp.mean() + half), 3),
                    "power": round(float(np.mean([r["power"] for r in rs])), 3),
                    "mean_false": round(float(np.mean([r["false"] for r in rs])), 2),
                    "mean_selected": round(float(np.mean([r["selected"] for r in rs])), 2),
                    "seconds": round(float(np.mean([r["seconds"] for r in rs])), 2),
                    "errors": sum(1 for r in rs if r["error"]),
                }
            )
    return out


def _markdown(summary: list[dict[str, Any]]) -> str:
    lines = []
    for cell in dict.fromkeys(s["cell"] for s in summary):
        lines += [
            f"**{cell}**",
            "",
            "| method | FDR [95% MC] | power | mean V | mean selected | s/fit |",
            "|---|---|---|---|---|---|",
        ]
        for s in (s for s in summary if s["cell"] == cell):
            flag = " **above q**" if s["fdr_lo"] > Q else ""
            lines.append(
                f"| {s['method']} | {s['fdr']:.3f} [{s['fdr_lo']:.3f}, {s['fdr_hi']:.3f}]{flag}"
                f" | {s['power']:.2f} | {s['mean_false']:.2f} | {s['mean_selected']:.1f} | "
                f"{s['seconds']:.2f} |"
            )
        lines.append("")
    return "\n".join(lines)


def _figure(summary: list[dict[str, Any]], path: Path) -> Path | None:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    cells = list(dict.fromkeys(s["cell"] for s in summary))
    fig = Figure(figsize=(4.2 * len(cells), 4.2))
    axes = [fig.add_subplot(1, len(cells), i + 1) for i in range(len(cells))]
    labels = list(dict.fromkeys(s["method"] for s in summary))
    markers = "osD^v<>phX*P"
    for ax, cell in zip(axes, cells, strict=True):
        for s in (s for s in summary if s["cell"] == cell):
            i = labels.index(s["method"])
            ax.errorbar(
                s["fdr"],
                s["power"],
                xerr=[[s["fdr"] - s["fdr_lo"]], [s["fdr_hi"] - s["fdr"]]],
                fmt=markers[i % len(markers)],
                color=f"C{i % 10}",
                label=s["method"],
            )
        ax.axvline(Q, color="k", lw=0.8, ls="--")
        ax.set(
            title=cell, xlabel="empirical FDR", ylabel="power", xlim=(-0.02, 1), ylim=(-0.02, 1.02)
        )
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=4, fontsize=7)
    fig.subplots_adjust(bottom=0.32, wspace=0.3)
    fig.savefig(path, dpi=100)
    return path


def fdr_study(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    grid: list[tuple] | None = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """False discovery rate and power of the selection tests (issue 26; no paper)."""
    from joblib import Parallel, delayed

    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    cells = grid if grid is not None else (QUICK_GRID if quick else FULL_GRID)
    t0 = time.perf_counter()
    jobs = [(cell, r) for cell in cells for r in range(cell[5])]
    n_jobs = reproduction_n_jobs(n_jobs)
    results = Parallel(n_jobs=n_jobs)(delayed(_replicate)(c, r, seed, quick) for c, r in jobs)
    rows = [row for rs in results for row in rs]
    seconds = time.perf_counter() - t0
    summary = _summarise(rows)
    table = write_csv(output_dir / "fdr_replicates.csv", rows)
    stable = write_csv(output_dir / "fdr_summary.csv", summary)
    figures = [f for f in [_figure(summary, output_dir / "fdr_power.png")] if f is not None]
    above = [f"{s['method']} ({s['cell']}: {s['fdr']:.2f})" for s in summary if s["fdr_lo"] > Q]
    true_cov_bad = [a for a in above if "true cov" in a]
    skipped = _skipped()
    ours = (
        f"Target q = {Q}. {len(jobs)} replicates in {seconds:.0f} s (n_jobs={n_jobs}). "
        "FDR = mean false discovery proportion with its 95 % Monte Carlo interval; V = false "
        "selections; StabilitySelection controls E(V) <= 1 (its bound), not the FDR; NPFS "
        "controls a per-feature level alpha = 0.01, not the FDR.\n\n"
        + _markdown(summary)
        + ("\n" + "; ".join(skipped) + "." if skipped else "")
    )
    agreement = (
        "Methods whose FDR interval lies above q: " + "; ".join(above) + "."
        if above
        else "Every method's FDR interval reaches q or lies below it."
    )
    agreement += (
        " Knockoffs with the true covariance (valid knockoffs) stay within q up to Monte "
        "Carlo error in every Gaussian cell."
        if not true_cov_bad
        else " Knockoffs with the true covariance exceed q in: " + "; ".join(true_cov_bad) + "."
    )
    if quick:
        agreement += (
            " Quick run: 3 replicates per cell, so the intervals are wide and say little;"
            " the full grid (100 replicates per cell) is `fsel reproduce fdr`."
        )
    return Reproduction(
        name="fdr",
        title="False discovery rate and power: knockoffs, stability selection, NPFS, BH",
        command=reproduce_command("fdr", seed, quick),
        seed=seed,
        paper=(
            "No paper. Model-X knockoffs (Candès et al. 2018, knockoff+ of Barber & Candès "
            "2015) keep the FDR at most q in finite samples when the knockoffs are valid "
            "(here: Gaussian designs with the true covariance); stability selection bounds "
            "the expected number of false selections (Meinshausen & Bühlmann 2010; Shah & "
            "Samworth 2013); NPFS's binomial null (Ditzler et al. 2015) is a per-feature "
            "test with no FDR claim; Benjamini-Hochberg on univariate tests controls the "
            "FDR for the marginal nulls, not the conditional ones counted here."
        ),
        ours=ours,
        agreement=agreement,
        tables={"replicates": table, "summary": stable},
        figures=figures,
        quick=quick,
    )


REPRODUCTIONS = {"fdr": fdr_study}
