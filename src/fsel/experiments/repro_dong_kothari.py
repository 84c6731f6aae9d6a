"""Reproductions of Dong & Kothari (2003), "Feature subset selection using a new
definition of classifiability", Pattern Recognition Letters 24(9-10), 1215-1225.

Targets (``fsel reproduce NAME``):

``dongkothari-group1``  Table 1: ``L`` with 1, 2 and 3 attributes of the synthetic
                        data (attribute 1 N(0,1) vs N(1,1), attributes 2-3 U[0,1]) at
                        N = 200, 400, 800, 1600, five trials.
``dongkothari-group2``  Tables 2-3: selected subsets (in order) and 10-fold CV accuracy
                        of an ID3-like tree and naive Bayes with all features, the
                        subset and a wrapper (scikit-learn ``SequentialFeatureSelector``
                        around the same classifier) on Cleve, Corral, Crx, M-of-N-3-7-10,
                        MONK-1/2/3 and Pima, with CPU times.
``dongkothari-group3``  Tables 4-5: the two larger sets (Digit = mfeat, Sonar -> we have
                        no Sonar and use Ionosphere, the closest two-class radar set).
``dongkothari-group4``  Table 6: the subsets of Crx and Pima for ``d`` = 2r, 3r, 5r, 8r.

Choices the paper leaves open, written down here:

* ``L`` is the rule (docs/user_guide/classifiability.rst): ``mean_i sum_c p_i(c)^2`` (in [1/c, 1]);
  the paper's printed
  values (which fall below 0.5 for two classes) use a normalisation it does not fully
  specify, so Table 1 is compared on its claim (the gap between 1 attribute and 2-3
  attributes shrinks as N grows) and the paper's ``C = 2 L - 1`` form is also shown.
* "ID3" is ``DecisionTreeClassifier(criterion="entropy", random_state=0)`` (binary
  splits on the codes, not ID3's multiway splits); naive Bayes is ``CategoricalNB`` on
  all-symbolic sets (MONK, Corral, M-of-N) and ``GaussianNB`` otherwise.
* Accuracies: 10-fold CV (folds from :mod:`fsel.meta.resampling`), mean +- std over
  ``trials`` fold seeds (10 in the full run, as in the paper; 2 with ``quick``). Subsets
  (ours and the wrapper's) are chosen once on all rows, as the paper's Table 2 lists one
  subset per data set; the paper's wrapper numbers come from Kohavi & John (1997).
* The wrapper is ``SequentialFeatureSelector(direction="forward",
  n_features_to_select="auto", tol=1e-9, cv=5)``; it always keeps at least one feature
  (the paper's wrapper may keep none).
* Rows with missing values are dropped (paper). Cleve's symbolic attributes (PMLB copy,
  no mask stored) are sex, cp, fbs, restecg, exang, slope, thal (UCI documentation);
  Crx uses the mask stored with the data. MONK-1/2/3 and M-of-N are the full domains
  from :mod:`fsel.datasets` (the paper merged train and test files; MONK-3's 5% label
  noise is not added); Corral is 128 rows drawn from its rule with ``seed``.
* Digit: the paper describes it as "1000 instances and five classes"; we use mfeat's
  digits 0-4 (1000 x 649). CPU times are ``time.process_time()`` of this process, after
  a warm-up fit so numba compilation is not counted.
* Feature indices: 0-based everywhere in our tables; the paper's 1-based numbers are
  converted (``paper - 1``) in the columns marked "paper".
* Workers: these tables run in one process whatever ``n_jobs`` (``fsel reproduce
  --n-jobs``) says, because their CPU-time columns compare single-process fits of the
  paper's methods; ``n_jobs`` is accepted as by every reproduction and ignored.

Every unit of work is cached under ``<output>/.cache`` (Table 1: one (N, trial); the
other tables: one selection, and one (data set, classifier) with its full / subset /
wrapper accuracies), so an interrupted run resumes where it stopped; CPU times are
stored with the unit and reported as measured when it was computed. On a terminal a
progress bar counts the units.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fsel.experiments.cache import cache_for
from fsel.experiments.common import md_table
from fsel.experiments.dong_kothari_protocol import (
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    PAPER_TABLE6,
    _cached_ours,
    _classifier_unit,
    _classifiers,
    _figure,
    _group2_data,
    _load_table,
    _pm,
    _prepare_nb_input,
    _result,
    _zero_based,
)
from fsel.experiments.report import Reproduction, write_csv
from fsel.utils.progress import Progress

__all__ = [
    "REPRODUCTIONS",
    "group1_table1",
    "group2_tables2_3",
    "group3_tables4_5",
    "group4_table6",
]

_TITLE = "Dong & Kothari 2003"


# ----------------------------------------------------------------- group I
def table1_claims(means: dict[int, np.ndarray], sizes: Sequence[int]) -> list[tuple[str, bool]]:
    """Every part of Table 1's claim, checked on mean ``L`` per N and attribute count.

    ``means[n]`` holds ``L`` of the 1-, 2- and 3-attribute sets. The paper: "the
    difference between the classifiability of first data set and the classifiability
    of the second and third data set decreases as the sample size increases", with
    the 1-attribute set the most classifiable at every N (its own Table 1).

    Examples
    --------
    >>> m = {200: np.array([0.7, 0.6, 0.5]), 400: np.array([0.65, 0.66, 0.55])}
    >>> [held for _, held in table1_claims(m, [200, 400])]
    [False, False, True, True, True]
    >>> table1_claims(m, [200, 400])[0][0]
    'L(1 attribute) > L(2 attributes) at every N (the 2 attributes set is level or ahead at N=400)'

    """
    first, last = sizes[0], sizes[-1]
    out = []
    for s, what in ((1, "2 attributes"), (2, "3 attributes")):
        gap = [float(means[n][0] - means[n][s]) for n in sizes]
        behind = [str(n) for n, g in zip(sizes, gap, strict=True) if g <= 0]
        out.append(
            (
                f"L(1 attribute) > L({what}) at every N"
                + (
                    f" (the {what} set is level or ahead at N={', '.join(behind)})"
                    if behind
                    else ""
                ),
                not behind,
            )
        )
        out.append(
            (
                f"the gap L(1 attribute) - L({what}) shrinks and stays positive from "
                f"N={first} to N={last} ({gap[0]:.3f} -> {gap[-1]:.3f})",
                0 < gap[-1] < gap[0],
            )
        )
    mono = [float(means[n][0] - means[n][2]) for n in sizes]
    out.append(
        (
            "the 1-vs-3-attribute gap shrinks at every step of N",
            all(mono[i + 1] < mono[i] for i in range(len(mono) - 1)),
        )
    )
    return out


def group1_table1(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Table 1: ``L`` of the synthetic data with 1, 2, 3 attributes against N."""
    from fsel.datasets import make_dong_kothari
    from fsel.meta.resampling import replicate_seeds
    from fsel.selectors.classifiability import classifiability

    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    sizes = (200, 400) if quick else (200, 400, 800, 1600)
    trials = 2 if quick else 5
    subsets = ([0], [0, 1], [0, 1, 2])
    rows, summary = [], []
    seeds = replicate_seeds(seed, len(sizes) * trials)
    cache = cache_for(output_dir)
    means = {}
    bar = Progress(len(sizes) * trials, "dongkothari-group1 trials")
    for a, n in enumerate(sizes):
        vals = np.empty((trials, 3))
        for t in range(trials):
            s_t = seeds[a * trials + t]
            parts = {
                "protocol": "dongkothari-group1-L",
                "n_samples": n,
                "seed": [str(s_t.entropy), list(s_t.spawn_key)],
                "subsets": subsets,
            }

            def compute(n: int = n, s_t: Any = s_t) -> list[float]:
                X, y, _ = make_dong_kothari(n, random_state=s_t)
                return [float(classifiability(X, y, features=f)) for f in subsets]

            vals[t] = cache.get_or_compute(parts, compute)
            bar.update()
            for s, feats in enumerate(subsets):
                rows.append(
                    {
                        "n_samples": n,
                        "trial": t,
                        "n_attributes": len(feats),
                        "L": vals[t, s],
                        "C_2L_minus_1": 2 * vals[t, s] - 1,
                    }
                )
        means[n] = vals.mean(axis=0)
        for s in range(3):
            p_mean, p_std = PAPER_TABLE1[n][s]
            summary.append(
                {
                    "n_samples": n,
                    "n_attributes": s + 1,
                    "L_mean": vals[:, s].mean(),
                    "L_std": vals[:, s].std(ddof=1),
                    "C_mean": (2 * vals[:, s] - 1).mean(),
                    "paper_mean": p_mean,
                    "paper_std": p_std,
                }
            )
    bar.close()
    tables = {
        "trials": write_csv(output_dir / "group1_trials.csv", rows),
        "table1": write_csv(output_dir / "group1_table1.csv", summary),
    }
    md_rows = []
    for s in range(3):
        cells = [f"{s + 1} attribute{'s' if s else ''}"]
        for n in sizes:
            r = next(r for r in summary if r["n_samples"] == n and r["n_attributes"] == s + 1)
            cells.append(
                f"{r['L_mean']:.4f}±{r['L_std']:.4f} (C {r['C_mean']:.3f}; "
                f"paper {r['paper_mean']:.4f})"
            )
        md_rows.append(cells)
    ours = md_table(["L", *[f"N = {n}" for n in sizes]], md_rows)
    gaps = {n: means[n][0] - means[n][2] for n in sizes}
    gaps2 = {n: means[n][0] - means[n][1] for n in sizes}
    gap_text = ", ".join(f"N={n}: {g:.3f}" for n, g in gaps.items())
    gap2_text = ", ".join(f"N={n}: {g:.3f}" for n, g in gaps2.items())
    ours += f"\n\nGap L(1 attribute) - L(3 attributes): {gap_text}."
    ours += f"\nGap L(1 attribute) - L(2 attributes): {gap2_text}."
    claims = table1_claims(means, sizes)
    ours += "\n\nThe whole claim of Table 1, checked on our means:\n\n" + "\n".join(
        f"* {text}: {'holds' if held else 'does NOT hold'}" for text, held in claims
    )

    def draw(new_figure: Any) -> Any:
        fig, ax = new_figure(figsize=(5.5, 3.8))
        for s in range(3):
            m = [
                next(
                    r["L_mean"]
                    for r in summary
                    if r["n_samples"] == n and r["n_attributes"] == s + 1
                )
                for n in sizes
            ]
            e = [
                next(
                    r["L_std"]
                    for r in summary
                    if r["n_samples"] == n and r["n_attributes"] == s + 1
                )
                for n in sizes
            ]
            ax.errorbar(
                sizes,
                m,
                yerr=e,
                marker="o",
                capsize=3,
                color=f"C{s}",
                label=f"{s + 1} attr. (ours)",
            )
            ax.plot(
                sizes,
                [PAPER_TABLE1[n][s][0] for n in sizes],
                ls=":",
                marker="x",
                color=f"C{s}",
                label=f"{s + 1} attr. (paper)",
            )
        ax.set_xscale("log")
        ax.set_xticks(list(sizes), [str(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("number of patterns N")
        ax.set_ylabel("classifiability L")
        ax.legend(fontsize=7)
        return fig

    figures = _figure(output_dir, "group1_L_vs_N.png", draw)
    paper = (
        "Table 1 (mean ± std, 5 trials), N = 200/400/800/1600: 1 attribute "
        "0.6081/0.5556/0.5628/0.5378, 2 attributes 0.5109/0.4960/0.5214/0.5043, "
        "3 attributes 0.3722/0.3858/0.4411/0.4302. Claim: 'the difference between the "
        "classifiability of first data set and the classifiability of the second and "
        "third data set decreases as the sample size increases'."
    )
    failed = [text for text, held in claims if not held]
    agreement = (
        "Our L (our mean sum_c p^2, >= 0.5 for two classes) sits on a different scale "
        "from the paper's printed values. Of the paper's Table 1 claim (the relevant "
        "attribute alone is the most classifiable, and its lead over the sets with 1 and "
        f"2 added noise attributes shrinks as N grows), {len(claims) - len(failed)} of "
        f"{len(claims)} parts hold on our means"
        + (
            "; it does NOT hold that " + "; nor that ".join(failed) + "."
            if failed
            else ", as the paper claims."
        )
    )
    return _result(
        "dongkothari-group1",
        f"{_TITLE}, Table 1 (simulation group I)",
        quick,
        seed,
        paper,
        ours,
        agreement,
        tables,
        figures,
    )


# ----------------------------------------------------------------- group II
_GROUP2 = ("cleve", "corral", "crx", "m-of-n-3-7-10", "monk-1", "monk-2", "monk-3", "pima")


def group2_tables2_3(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Tables 2-3: subsets and 10-fold CV accuracy vs all features and a wrapper."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    names = ("corral", "monk-1", "pima") if quick else _GROUP2
    trials = 2 if quick else 10
    cache = cache_for(output_dir)
    rows, md_sel, md_acc = [], [], []
    agree_sets = inside_paper = 0
    gains, vs_wrapper = [], []
    # units: one selection and two classifiers per data set
    bar = Progress(3 * len(names), "dongkothari-group2 units")
    for name in names:
        X, y, symbolic = _group2_data(name, seed, data_path)
        all_sym = bool(symbolic.all())
        order, scores, cpu = _cached_ours(cache, X, y, symbolic)
        bar.update()
        clfs = _classifiers(all_sym, X)
        paper_subset = _zero_based(PAPER_TABLE2[name][0])
        agree_sets += set(order) == set(paper_subset)
        inside_paper += set(order) < set(paper_subset)
        row: dict[str, Any] = {
            "data_set": name,
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "subset": " ".join(map(str, order)),
            "paper_subset": " ".join(map(str, paper_subset)),
            "L_steps": " ".join(f"{s:.4f}" for s in scores),
            "cpu_s": round(cpu, 3),
        }
        acc_cells = []
        for cname, clf in clfs.items():
            Xc = _prepare_nb_input(X, all_sym) if cname == "NB" else X
            u = _classifier_unit(cache, Xc, y, symbolic, clf, order, trials, seed)
            bar.update()
            full, sub, wrap = u["full"], u["sub"], u["wrap"]
            w_subset, w_cpu = u["w_subset"], u["w_cpu"]
            gains.append(np.mean(sub) - np.mean(full))
            vs_wrapper.append(np.mean(sub) - np.mean(wrap))
            row.update(
                {
                    f"{cname}_full": _pm(full),
                    f"{cname}_subset": _pm(sub),
                    f"{cname}_wrapper": _pm(wrap),
                    f"{cname}_wrapper_subset": " ".join(map(str, w_subset)),
                    f"{cname}_wrapper_cpu_s": round(w_cpu, 3),
                }
            )
            acc_cells += [_pm(full), _pm(sub), _pm(wrap)]
        rows.append(row)
        md_sel.append(
            [
                name,
                X.shape[1],
                row["subset"],
                row["paper_subset"],
                f"{cpu:.2f}",
                f"{row['ID3_wrapper_subset']} ({row['ID3_wrapper_cpu_s']:.1f} s)",
                f"{row['NB_wrapper_subset']} ({row['NB_wrapper_cpu_s']:.1f} s)",
                "/".join(str(v) for v in PAPER_TABLE2[name][1]),
            ]
        )
        p = PAPER_TABLE3[name]
        md_acc.append(
            [name, *acc_cells[:3], f"{p[0]} → {p[2]}", *acc_cells[3:], f"{p[1]} → {p[3]}"]
        )
    bar.close()
    tables = {"group2": write_csv(output_dir / "group2_tables2_3.csv", rows)}
    ours = (
        "Selected subsets (0-based, in selection order):\n\n"
        + md_table(
            [
                "data set",
                "D",
                "ours",
                "paper (0-based)",
                "our CPU s",
                "wrapper ID3 (CPU)",
                "wrapper NB (CPU)",
                "paper wrapper #feat ID3/NB",
            ],
            md_sel,
        )
        + f"\n\n10-fold CV accuracy %, mean ± std over {trials} fold seeds:\n\n"
        + md_table(
            [
                "data set",
                "ID3 all",
                "ID3 ours",
                "ID3 wrapper",
                "paper ID3 all → subset",
                "NB all",
                "NB ours",
                "NB wrapper",
                "paper NB all → subset",
            ],
            md_acc,
        )
    )
    paper = (
        "Table 2 subsets (1-based): Cleve 10,13,12,3,9; Corral 6,1,2,3,4; Crx 8,9,13,10; "
        "M-of-N 4,9,5,8,3,6,7; MONK-1 5,1,2; MONK-2 3,6,1,2,4,5; MONK-3 2,5,4,1; Pima "
        "2,8,1. Table 3: accuracy of the subset is equal or better than all features "
        "for both classifiers except Pima/NB (75.90 → 73.43); 'the proposed approach "
        "performs at least as well as the wrapper approach'."
    )
    n_better = int(np.sum(np.asarray(gains) >= -0.005))
    n_wrap = int(np.sum(np.asarray(vs_wrapper) >= -0.005))
    agreement = (
        f"Our subset equals the paper's as a set on {agree_sets} of {len(names)} data sets "
        f"and is a strict part of it on {inside_paper} more (our search stopped earlier); "
        f"the subset is within 0.5 points of, or better than, all features in {n_better} "
        f"and the wrapper's subset in {n_wrap} of {len(gains)} classifier/data-set cases, "
        + (
            "so the paper's 'at least as good as the wrapper' holds here."
            if n_wrap == len(gains)
            else "so the paper's 'at least as good as the wrapper' holds only in part here."
        )
    )
    return _result(
        "dongkothari-group2",
        f"{_TITLE}, Tables 2-3 (simulation group II)",
        quick,
        seed,
        paper,
        ours,
        agreement,
        tables,
    )


# ----------------------------------------------------------------- group III
def group3_tables4_5(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Tables 4-5: Digit (mfeat digits 0-4) and Sonar (-> Ionosphere), with CPU times."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    trials = 2 if quick else 10
    cache = cache_for(output_dir)
    sets = [("sonar -> ionosphere", "ionosphere")]
    if not quick:
        sets.append(("digit (mfeat 0-4)", "mfeat"))
    rows, md_rows = [], []
    # units: one selection and two classifiers per data set
    bar = Progress(3 * len(sets), "dongkothari-group3 units")
    for label, file in sets:
        X, y, symbolic = _load_table(file, data_path)
        if file == "mfeat":
            keep = y < 5
            X, y = X[keep], y[keep]
        order, _, cpu = _cached_ours(cache, X, y, symbolic)
        bar.update()
        clfs = _classifiers(False, X)
        row: dict[str, Any] = {
            "data_set": label,
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "subset": " ".join(map(str, order)),
            "cpu_s": round(cpu, 2),
        }
        cells = []
        for cname, clf in clfs.items():
            wrapper = not (quick and cname == "ID3")
            u = _classifier_unit(cache, X, y, symbolic, clf, order, trials, seed, wrapper)
            bar.update()
            full, sub, wrap = u["full"], u["sub"], u["wrap"]
            w_subset, w_cpu = u["w_subset"], u["w_cpu"]
            row.update(
                {
                    f"{cname}_full": _pm(full),
                    f"{cname}_subset": _pm(sub),
                    f"{cname}_wrapper": _pm(wrap),
                    f"{cname}_wrapper_subset": " ".join(map(str, w_subset)),
                    f"{cname}_wrapper_cpu_s": round(w_cpu, 2),
                }
            )
            size = "skipped" if np.isnan(w_cpu) else f"{len(w_subset)} f, {w_cpu:.1f} s"
            cells += [_pm(full), _pm(sub), _pm(wrap), size]
        rows.append(row)
        md_rows.append(
            [label, f"{X.shape[0]}x{X.shape[1]}", f"{row['subset']} ({cpu:.2f} s)", *cells]
        )
    bar.close()
    tables = {"group3": write_csv(output_dir / "group3_tables4_5.csv", rows)}
    ours = md_table(
        [
            "data set",
            "size",
            "ours: subset (CPU)",
            "ID3 all",
            "ID3 ours",
            "ID3 wrapper",
            "ID3 wrapper size, CPU",
            "NB all",
            "NB ours",
            "NB wrapper",
            "NB wrapper size, CPU",
        ],
        md_rows,
    )
    if quick:
        ours += "\n\n(quick run: Ionosphere only, no ID3 wrapper; the full run adds Digit.)"
    d = PAPER_TABLE4["digit"]
    paper = (
        f"Table 4: Digit (649 features) -> 10 features {d['subset']} (1-based) in 2150 s CPU, "
        f"wrapper 11 features in 4807 s (Pentium IV 1.8 GHz); Sonar (60 features) -> 2 "
        f"features (12, 16). Table 5 (all / ours / wrapper): Digit ID3 98.50 / 96.25 / 93.40, "
        f"NB 98.50 / 98.50 / 94.50; Sonar ID3 72.60 / 76.44 / 76.92, NB 68.75 / 71.15 / 68.75."
    )
    cpu_txt = "; ".join(
        f"{r['data_set']}: ours {r['cpu_s']} s vs NB wrapper {r['NB_wrapper_cpu_s']} s"
        for r in rows
    )
    cheaper = all(r["cpu_s"] < r["NB_wrapper_cpu_s"] for r in rows)
    agreement = (
        f"We have no Sonar (Ionosphere stands in)"
        f"{' and the quick run skips Digit' if quick else ''}; CPU times {cpu_txt}: the "
        f"selection is {'cheaper' if cheaper else 'NOT always cheaper'} than the wrapper, as "
        "the paper reports; the accuracies are in the table beside the paper's (Sonar's "
        "are not on the same data)."
    )
    return _result(
        "dongkothari-group3",
        f"{_TITLE}, Tables 4-5 (simulation group III)",
        quick,
        seed,
        paper,
        ours,
        agreement,
        tables,
    )


# ----------------------------------------------------------------- group IV
def group4_table6(
    output_dir: Path,
    *,
    quick: bool = False,
    seed: int = 0,
    data_path: Any = None,
    n_jobs: int | None = None,
) -> Reproduction:
    """Table 6: subsets of Crx and Pima for neighbourhood sizes 2r, 3r, 5r, 8r."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    factors = (2, 3, 5, 8)
    names = ("pima",) if quick else ("crx", "pima")
    cache = cache_for(output_dir)
    rows, md_rows = [], []
    n_same = n_total = 0
    bar = Progress(len(names) * len(factors), "dongkothari-group4 selections")
    for name in names:
        X, y, symbolic = _group2_data(name, seed, data_path)
        for rf in factors:
            order, scores, cpu = _cached_ours(cache, X, y, symbolic, radius_factor=float(rf))
            bar.update()
            paper = _zero_based(PAPER_TABLE6[name][rf])
            n_total += 1
            n_same += order == paper
            rows.append(
                {
                    "data_set": name,
                    "radius_factor": rf,
                    "subset": " ".join(map(str, order)),
                    "paper_subset": " ".join(map(str, paper)),
                    "L_final": scores[-1] if scores else float("nan"),
                    "cpu_s": round(cpu, 3),
                }
            )
            md_rows.append([name, f"{rf}r", " ".join(map(str, order)), " ".join(map(str, paper))])
    bar.close()
    tables = {"group4": write_csv(output_dir / "group4_table6.csv", rows)}
    ours = md_table(["data set", "d", "ours (0-based)", "paper (0-based)"], md_rows)
    stable = {
        name: len({r["subset"] for r in rows if r["data_set"] == name and r["radius_factor"] < 8})
        for name in names
    }
    paper = (
        "Table 6 (1-based): Crx 2r/3r/5r -> 8,9,13,10, 8r -> 8,9,13,10,6,12; Pima 2r -> "
        "2,8,1,4, 3r/5r -> 2,8,1, 8r -> 2,8. 'The proposed method is not overly "
        "sensitive to the choice of d.'"
    )
    agreement = (
        f"{n_same} of {n_total} subsets equal the paper's exactly; across 2r-5r we get "
        + ", ".join(f"{k} distinct subset(s) for {n}" for n, k in stable.items())
        + " — compare the table for how sensitive our selection is to d."
    )
    return _result(
        "dongkothari-group4",
        f"{_TITLE}, Table 6 (simulation group IV)",
        quick,
        seed,
        paper,
        ours,
        agreement,
        tables,
    )


REPRODUCTIONS = {
    "dongkothari-group1": group1_table1,
    "dongkothari-group2": group2_tables2_3,
    "dongkothari-group3": group3_tables4_5,
    "dongkothari-group4": group4_table6,
}
