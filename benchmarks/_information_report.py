"""The report of benchmarks/bench_information.py: the speedups over FEAST, the CSV,
the Markdown page (benchmarks/results/information*.md), the issue's targets and the
printed rows and summary, plus the versions of the libraries measured.

Imported by benchmarks/bench_information.py. Plain Python: importing it needs neither
fsel nor numba nor any of the peers.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from _information_impls import CRITERIA, IMPLS


def _fmt_s(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _status_text(r: dict) -> str:
    s = r["status"]
    if s == "ok":
        return ""
    if s == "timeout":
        return f"timeout ({r['timeout_s']:.0f} s)"
    if s == "skipped":
        return f"skipped: {r['why']}"
    return f"{s}: {r.get('error', '')}".splitlines()[0][:90]


def _recompute_speedups(rows: list[dict]) -> None:
    """Speedups from the stored times: FEAST CPU / CPU (n_jobs=1) or / wall (n_jobs=2)."""
    feast = {
        (r["dataset"], r["k"], r["criterion"]): r
        for r in rows
        if r["impl"] == "fstoolbox" and r["status"] == "ok"
    }
    for r in rows:
        f = feast.get((r["dataset"], r["k"], r["criterion"]))
        if r["impl"] == "fstoolbox" or f is None or r["status"] != "ok":
            continue
        mine = r["cpu_s"] if r["n_jobs"] == 1 else r["wall_s"]
        r["speedup_vs_feast"] = f["cpu_s"] / mine if mine else None


def _write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as fh:
        cols = [
            "dataset",
            "n_samples",
            "n_features",
            "k",
            "criterion",
            "impl",
            "n_jobs",
            "status",
            "cpu_s",
            "wall_s",
            "repeats",
            "speedup_vs_feast",
            "same_as_feast",
            "comparison",
            "first_call_s",
            "error",
            "why",
        ]
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow({c: row.get(c) for c in cols})


def markdown_summary(rows: list[dict], meta: dict) -> str:
    """A Markdown report of one run: a table per data set and k, the targets, the notes."""
    labels = {i.key: i.label for i in IMPLS}
    lines = [
        "# Information-theoretic criteria: fsel vs FEAST and the Python peers",
        "",
        f"Measured {meta.get('date', '')} at fsel commit "
        f"`{(meta.get('fsel_git') or {}).get('head', '')[:10]}`"
        + (
            " (plus uncommitted changes in src/)"
            if (meta.get("fsel_git") or {}).get("src_dirty")
            else ""
        )
        + f"; {meta.get('cpu_count')} CPUs shared with other jobs (load average "
        f"{', '.join(f'{v:.1f}' for v in meta.get('load_average') or [])} at the end), so wall "
        "times are noisy; CPU time is the fair single-thread measure. Speedup = FEAST CPU "
        "time / fsel CPU time (n_jobs=1) or / fsel wall time (n_jobs=2).",
        "",
    ]
    for c in meta.get("compile", []):
        lines.append(
            f"fsel's first call with a cold numba cache ({c['criterion']} on 300 x 30, data "
            f"({c['dataset']})): {_fmt_s(c.get('first_call_s'))} s."
        )
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["n_samples"], r["n_features"], r["k"]), []).append(r)
    for (ds, n, d, k), rs in groups.items():
        lines += [
            "",
            f"## ({ds}) {n} x {d}, k = {k}",
            "",
            "| criterion | implementation | CPU s | wall s | speedup vs FEAST "
            "| same picks as FEAST |",
            "|---|---|---:|---:|---:|---|",
        ]
        for r in rs:
            if r["status"] != "ok":
                res = _status_text(r)
                cpu = wall = sp = "-"
            else:
                cpu, wall = _fmt_s(r.get("cpu_s")), _fmt_s(r.get("wall_s"))
                spv = r.get("speedup_vs_feast")
                sp = f"{spv:.2f}x" if spv else "-"
                res = r.get("comparison") or ("(reference)" if r["impl"] == "fstoolbox" else "")
            lines.append(
                f"| {r['criterion']} | {labels.get(r['impl'], r['impl'])} | {cpu} "
                f"| {wall} | {sp} | {res} |"
            )
    if meta.get("targets"):
        lines += ["", "## Targets (issue 2, item 9)", ""]
        for t in meta["targets"]:
            v = t["value"]
            vtxt = f"{v:.2f}" if isinstance(v, float) else str(v)
            lines.append(
                f"* {'met' if t['met'] else '**MISSED**'}: ({t['dataset']}) "
                f"k={t['k']} {t['criterion']}: {t['target']}: {vtxt}"
            )
    lines += ["", "## Known deviations of the alternatives", ""]
    for key, notes in (meta.get("known_deviations") or {}).items():
        lines += [f"* {key}: {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _print_row(row: dict) -> None:
    sp = row.get("speedup_vs_feast")
    sp_txt = f"{sp:6.2f}x" if sp else "      -"
    same = row.get("comparison") or ("reference" if row["impl"] == "fstoolbox" else "")
    extra = _status_text({**row, "status": row["status"] or "error"})
    print(
        f"({row['dataset']}) k={row['k']:<3d} {row['criterion']:<5s} {row['label']:<32s} "
        f"cpu {_fmt_s(row.get('cpu_s')):>7s}  wall {_fmt_s(row.get('wall_s')):>7s}  "
        f"{sp_txt}  {extra or same}",
        flush=True,
    )


def _check_targets(rows: list[dict]) -> list[dict]:
    """The issue's targets, evaluated on data (b) (or the largest data set run)."""
    out = []
    ok_rows = [r for r in rows if r["status"] == "ok"]
    if not ok_rows:
        return out
    big = "b" if any(r["dataset"] == "b" for r in ok_rows) else ok_rows[-1]["dataset"]

    def get(impl, crit, k):
        return next(
            (
                r
                for r in ok_rows
                if r["impl"] == impl
                and r["criterion"] == crit
                and r["k"] == k
                and r["dataset"] == big
            ),
            None,
        )

    for k in sorted({r["k"] for r in ok_rows}):
        for crit in CRITERIA:
            one = get("fsel-numba-1", crit, k)
            two = get("fsel-numba-2", crit, k)
            if one is None or one.get("speedup_vs_feast") is None:
                continue
            need = 1.0 if crit == "CMIM" else 3.0
            out.append(
                {
                    "dataset": big,
                    "k": k,
                    "criterion": crit,
                    "target": f">= {need:g}x FEAST (cpu, n_jobs=1)",
                    "value": one["speedup_vs_feast"],
                    "met": one["speedup_vs_feast"] >= need,
                }
            )
            if two is not None:
                out.append(
                    {
                        "dataset": big,
                        "k": k,
                        "criterion": crit,
                        "target": "n_jobs=2 wall < n_jobs=1 wall",
                        "value": two["wall_s"] / one["wall_s"],
                        "met": two["wall_s"] < one["wall_s"],
                    }
                )
            out.append(
                {
                    "dataset": big,
                    "k": k,
                    "criterion": crit,
                    "target": "same picks as FEAST up to exact ties",
                    "value": one.get("comparison"),
                    "met": bool(
                        one.get("same_as_feast") or (one.get("comparison_detail") or {}).get("tied")
                    ),
                }
            )
    jmi50 = get("fsel-numba-1", "JMI", 50)
    if jmi50 is not None and big == "b":
        out.append(
            {
                "dataset": big,
                "k": 50,
                "criterion": "JMI",
                "target": "cpu < 2.5 s",
                "value": jmi50["cpu_s"],
                "met": jmi50["cpu_s"] < 2.5,
            }
        )
    return out


def _print_summary(rows: list[dict], targets: list[dict], elapsed: float) -> None:
    if targets:
        print("\nTargets (issue 2, item 9):")
        for t in targets:
            v = t["value"]
            vtxt = f"{v:.2f}" if isinstance(v, float) else str(v)
            print(
                f"  [{'met' if t['met'] else 'MISSED'}] ({t['dataset']}) k={t['k']} "
                f"{t['criterion']}: {t['target']}: {vtxt}"
            )
    print("\nKnown deviations of the alternatives:")
    for impl in IMPLS:
        for note in impl.notes:
            print(f"  {impl.key}: {note}")
    print(
        "\nTimes are noisy when other jobs share the CPU; CPU time is the fairer "
        "single-threaded measure."
    )


def _versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {}
    for dist in (
        "fsel",
        "numpy",
        "numba",
        "fstoolbox",
        "itmo-fs",
        "fast-select",
        "skfeature-chappers",
    ):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out
