"""The report of benchmarks/bench_gpu.py: cells per second next to the published
anchors, and the Markdown page (benchmarks/results/gpu.md) from the JSON results.

Plain Python and numpy: importing it needs neither a GPU nor numba.
"""

from __future__ import annotations

from typing import Any

FAST_MRMR_CELLS_PER_S = 4.4e8  # fast-mRMR, best published single-core figure
# Spark framework, ECBDL14: 64M rows x 631 features, ~60 s per selected feature, 400 cores
SPARK_CELLS_PER_CORE_S = 64e6 * 631 / 60.0 / 400
BANDWIDTH = {"H200": 4.8e12, "H100": 3.35e12, "A100": 2.0e12}  # bytes/s


#: the tables of codes already on the GPU compared side by side: (``_VARIANT``, run,
#: what it is); the first is the default
VARIANTS = (
    ("columns", "gpu", "feature-major copy made on the GPU at set-up, 8 rows a load"),
    ("owned", "gpu_owned", "the same copy counted one candidate a lane (hist_owned)"),
    ("private", "gpu_private", "the same copy counted one histogram a thread (hist_private)"),
    ("lanes", "gpu_lanes", "read in place, one shared-memory bank per lane (before)"),
    ("lanes48", "gpu_lanes48", "the same within 48 KiB of shared memory a block"),
    ("lane_words", "gpu_lane_words", "the lane kernel reading 4-byte words, 8 rows a warp"),
    ("rows", "gpu_rows", "read in place, 4-byte words (the kernel before)"),
    ("features", "gpu_features", "feature-major copy (the table before that)"),
)
DEFAULT = VARIANTS[0][0]


def bandwidth_of(gpu: str | None) -> float | None:
    for key, bw in BANDWIDTH.items():
        if gpu and key in gpu:
            return bw
    return None


def summarize(res: dict[str, Any]) -> None:
    """Cells per second (per core, per GPU) next to the anchors."""
    jm = res.get("jmi")
    if not jm or "runs" not in jm:
        return
    n, d = jm["rows"], jm["features"]
    cells_step = n * d  # rows x candidate features read by one greedy step
    rows_out = []
    for label, r in jm["runs"].items():
        if "step_s" not in r:
            continue
        cores = int(label.split("_")[1]) if label.startswith("cpu_") else None
        cps = cells_step / r["step_s"] if r["step_s"] > 0 else float("nan")
        rows_out.append(
            {
                "run": label,
                "cells_per_s": cps,
                "cells_per_s_per_core": cps / cores if cores else None,
            }
        )
    gpu = res["machine"].get("gpu")
    bw = bandwidth_of(gpu)
    bound = n * (d + 2) / bw if bw else None
    res["summary"] = {
        "cells_per_step": cells_step,
        "rows": rows_out,
        "anchors": {
            "fast_mrmr_cells_per_s_core": FAST_MRMR_CELLS_PER_S,
            "spark_ecbdl14_cells_per_s_core": SPARK_CELLS_PER_CORE_S,
            "bandwidth_bytes_per_s": bw,
            "bandwidth_bound_step_s": bound,
        },
    }


def markdown(res: dict[str, Any]) -> str:
    m = res["machine"]
    lines = [
        '# GPU back-end (`device="cuda"`)',
        "",
        f"Machine: GPU {m.get('gpu')}; CPU {m.get('cpu')}, {m.get('cores')} cores; "
        f"Python {m.get('python')}, numpy {m.get('numpy')}, numba {m.get('numba')}, "
        f"numba-cuda {m.get('numba_cuda')}{' (SIMULATOR)' if m.get('cudasim') else ''}. "
        f"Commit {res.get('git', {}).get('head', '?')[:12]}; command `{res['command']}`; "
        f"total {res.get('total_s', 0):.0f} s.",
        "",
    ]
    jm = res.get("jmi")
    if jm and "runs" in jm:
        lines += [
            f"## JMI({jm['k']}) on {jm['rows']:,} x {jm['features']} uint8 codes "
            "(10 levels, binary y)",
            "",
            f"The lane kernel's shared memory a block: up to {jm.get('lane_budget_bytes', '?')} "
            "bytes (above 49152: the driver's opt-in took).",
            "",
            "| run | whole fit | setup (k=1 fit) | per greedy step | notes |",
            "|---|---:|---:|---:|---|",
        ]
        notes = {label: f"X already on the GPU, {what}" for _v, label, what in VARIANTS}
        notes["gpu_y_on_gpu"] = f"X and y already on the GPU, {VARIANTS[0][2]}"
        for label, r in jm["runs"].items():
            note = ""
            if label in notes:
                note = f"{notes[label]}; copying X there took {r['transfer_s']:.3f} s"
            if label == "gpu_host":
                t = r.get("gpu_transfer_s", 0)
                note = f"from the host array (validated on the CPU, uploaded: {t:.2f} s)"
            step = f"{r['step_s'] * 1e3:.2f} ms" if "step_s" in r else "-"
            setup = f"{r['setup_s']:.3f} s" if "setup_s" in r else "-"
            lines.append(f"| {label} | {r['fit_s']:.3f} s | {setup} | {step} | {note} |")
        lines += [
            "",
            f"Selections identical (scores within 1e-9) on every run: **{jm.get('identical')}**.",
            "",
        ]
        for label in notes:
            gpu = jm["runs"].get(label, {})
            for title, key in (
                ("set-up (k=1 fit)", "setup_breakdown_s"),
                ("whole fit", "fit_breakdown_s"),
            ):
                parts = gpu.get(key)
                if parts:
                    text = ", ".join(f"{name[:-2]} {v * 1e3:.1f} ms" for name, v in parts.items())
                    lines += [f"{label}, {title} (`timings_`): {text}.", ""]
    s = res.get("summary")
    if s:
        a = s["anchors"]
        fm, sp = a["fast_mrmr_cells_per_s_core"], a["spark_ecbdl14_cells_per_s_core"]
        lines += [
            "### Cells per second in a greedy step (rows x candidate features)",
            "",
            "| run | cells/s | cells/s per core |",
            "|---|---:|---:|",
        ]
        for r in s["rows"]:
            pc = f"{r['cells_per_s_per_core']:.2e}" if r["cells_per_s_per_core"] else "(one GPU)"
            lines.append(f"| {r['run']} | {r['cells_per_s']:.2e} | {pc} |")
        lines += [
            f"| fast-mRMR, one core (published) | {fm:.1e} | {fm:.1e} |",
            f"| Spark framework, ECBDL14, 400 cores (published) | {sp * 400:.1e} | {sp:.1e} |",
            "",
        ]
        if a["bandwidth_bound_step_s"]:
            lines.append(
                f"The card's bandwidth bound for a step (N x (K + 2) bytes at "
                f"{a['bandwidth_bytes_per_s'] / 1e12:.2f} TB/s): "
                f"{a['bandwidth_bound_step_s'] * 1e3:.2f} ms."
            )
            lines.append("")
    lines += columns_markdown(res.get("columns"))
    cr = res.get("criteria")
    if cr and cr.get("runs"):
        lines += [
            f"## Every criterion on the GPU ({cr['rows']:,} rows, data on the GPU)",
            "",
            "| criterion | k | "
            + " | ".join(what for _v, _l, what in VARIANTS)
            + " | vs JMI (default table) | same picks |",
            "|---|---:|" + "---:|" * len(VARIANTS) + "---:|---|",
        ]

        def cell(r: dict, key: str, variant: str) -> str:
            if key in r:
                return f"{r[key] * 1e3:.1f} ms"
            if f"{variant}_error" not in r:
                return "-"
            return f"failed: {r[f'{variant}_error'][:60]}"

        for name, r in cr["runs"].items():
            vs = f"{r['vs_jmi']:.2f}x" if "vs_jmi" in r else "-"
            cells = [
                cell(r, "fit_s" if v == DEFAULT else f"{v}_fit_s", v) for v, _l, _w in VARIANTS
            ]
            lines.append(
                f"| {name} | {r['k']} | {' | '.join(cells)} | {vs} | {r.get('same_selection')} |"
            )
        lines.append("")
    if cr:
        lines += _cmi_lines(cr.get("cmi"))
    rl = res.get("relief")
    if rl:
        lines += [
            f"## ReliefF (k={rl['n_neighbors']}, Manhattan) on {rl['rows']:,} x "
            f"{rl['features']} floats",
            "",
            f"One CPU core, {rl['cpu_refs']} references: {rl['cpu_1_s_measured']:.2f} s, of "
            f"which {rl['setup_s']:.2f} s is the set-up (validation, scaling, sorting by "
            "class: a one-reference fit); the rest scaled linearly to "
            f"{rl['refs']} references: {rl['cpu_1_s_scaled']:.1f} s in all. The GPU fits "
            f"run their host part on {rl.get('gpu_n_jobs', 1)} cores (`n_jobs`).",
            "",
            f"| GPU run | set-up (one-reference fit) | {rl['refs']} references | speed-up vs "
            "one core | past the set-up | same features | largest margin difference |",
            "|---|---:|---:|---:|---:|---|---:|",
        ]
        names = {
            "gpu": "X checked, scaled and sorted by class on the GPU",
            "gpu_staged": "the same, X copied through pinned staging buffers",
            "gpu_select512": "the same, 512 threads a reference selecting neighbours",
            "gpu_host_scaling": "scaling and sort on the host (before)",
        }
        for label, r in rl.get("gpu_runs", {}).items():
            lines.append(
                f"| {names.get(label, label)} | {r['setup_s']:.3f} s | {r['gpu_s']:.3f} s | "
                f"**{r['speedup']:.0f}x** | {r['speedup_past_setup']:.0f}x | "
                f"{r['same_selection']} | {r['max_margin_diff']:.1e} |"
            )
        lines.append("")
        for label, r in rl.get("gpu_runs", {}).items():
            t = ", ".join(f"{key[:-2]} {v:.3f} s" for key, v in r["gpu_timings"].items())
            lines += [
                f"{names.get(label, label)}, `timings_` of the {rl['refs']}-reference fit: {t}.",
                "",
            ]
    su = res.get("surf")
    if su and su.get("runs"):
        lines += [
            f"## SURF and MultiSURF, {su['refs']} references on {su['rows']:,} x "
            f"{su['features']} floats (one CPU core vs the GPU)",
            "",
            "| method | CPU, one core | GPU | same features | largest margin difference |",
            "|---|---:|---:|---|---:|",
        ]
        for name, r in su["runs"].items():
            lines.append(
                f"| {name} | {r['cpu_1_s']:.2f} s | {r['gpu_s']:.3f} s | "
                f"{r['same_selection']} | {r['max_margin_diff']:.1e} |"
            )
        lines.append("")
    dk = res.get("dask")
    if dk and dk.get("runs"):
        lines += [
            f"## Dask: JMI({dk['k']}) on {dk['rows']:,} x {dk['features']} codes held by one "
            f"worker process in chunks of {dk['chunk_rows']:,} rows",
            "",
            f"Persisting the chunks on the worker took {dk['persist_s']:.1f} s.",
            "",
            "| device | whole fit | setup (k=1 fit) | per greedy step | device_ | same picks |",
            "|---|---:|---:|---:|---|---|",
        ]
        for name, r in dk["runs"].items():
            lines.append(
                f"| {name} | {r['fit_s']:.2f} s | {r['setup_s']:.2f} s | "
                f"{r['step_s'] * 1e3:.1f} ms | {r['device_']} | {r['same_selection']} |"
            )
        lines.append("")
    elif dk and dk.get("skipped"):
        lines += ["## Dask", "", f"Not measured: {dk['skipped']}.", ""]
    if res.get("errors"):
        lines += ["## Failed parts", ""]
        lines += [f"- {k}: `{v.splitlines()[-1]}`" for k, v in res["errors"].items()]
        lines.append("")
    return "\n".join(lines)


def _cmi_lines(cm: dict[str, Any] | None) -> list[str]:
    """The CMI table of :func:`markdown`: its two routes and JMI with the same ``k``."""
    if not cm or not cm.get("runs"):
        return []
    what = {
        "gpu_joint": "CMI, conditioning joint kept on the GPU (rows sorted by Z once the "
        "histograms outgrow shared memory)",
        "gpu_joint_lanes": "the same on the lane table (before)",
        "host_joint": "CMI, conditioning joint made on the host (before)",
        "jmi": "JMI, the same k and table",
        "jmi_lanes": "JMI on the lane table (before)",
    }
    k = cm["k"]
    lines = [f"### CMI({k}) against JMI({k})", "", "| run | whole fit | picks |", "|---|---:|---|"]
    for run, r in cm["runs"].items():
        fit = f"{r['fit_s'] * 1e3:.1f} ms" if "fit_s" in r else f"failed: {r['error'][:60]}"
        lines.append(f"| {what.get(run, run)} | {fit} | {r.get('order', '-')} |")
    lines.append("")
    t = cm["runs"].get("gpu_joint", {}).get("timings")
    if t:
        text = ", ".join(f"{key[:-2]} {v * 1e3:.1f} ms" for key, v in t.items())
        lines += [f"CMI with its joint on the GPU, `timings_`: {text}.", ""]
    if "vs_jmi" in cm:
        lines.append(
            f"CMI({k}) with its joint on the GPU takes {cm['vs_jmi']:.2f}x JMI({k}) "
            "(target: within 2x). The two CMI routes pick the same features: "
            f"**{cm.get('same_selection')}**."
        )
        lines.append("")
    return lines


def columns_markdown(co: dict[str, Any] | None) -> list[str]:
    """The section of bench_gpu's ``columns`` part: the feature-major copy, one step's
    count under each plan of ``hist_columns`` and the row table's, JMI with the
    fastest plan."""
    if not co or "plans" not in co:
        return []
    lines = [
        f"## The feature-major table's pieces ({co['rows']:,} x {co['features']} codes on the GPU)",
        "",
        f"Copy of X into feature-major 8-row words (`columns_of`): {co['copy_s'] * 1e3:.2f} ms.",
        "",
        "One greedy step's count (`Z = X0 |Y| + Y`, the least of five; counts compared "
        "with the first plan's):",
        "",
        "| shared bytes | group | copies | waves | 4 loads | count | same counts |",
        "|---:|---:|---:|---:|:---:|---:|:---:|",
    ]
    for p in co["plans"]:
        sb, g, c, w, wide = p["plan"]
        t = f"{p['step_s'] * 1e3:.3f} ms" if "step_s" in p else p.get("error", "-")
        lines.append(f"| {sb} | {g} | {c} | {w} | {wide} | {t} | {p.get('same_counts', '-')} |")
    for p in co.get("owned_plans", []):
        sb, warps, c = p["plan"]
        t = f"{p['step_s'] * 1e3:.3f} ms" if "step_s" in p else p.get("error", "-")
        lines.append(
            f"| {sb} (one candidate a lane, {warps} warps a block) | | {c} | | | {t} "
            f"| {p.get('same_counts', '-')} |"
        )
    for p in co.get("private_plans", []):
        sb, half, waves = p["plan"]
        t = f"{p['step_s'] * 1e3:.3f} ms" if "step_s" in p else p.get("error", "-")
        counts = "two 16-bit" if half else "one 32-bit"
        lines.append(
            f"| {sb} (one histogram a thread, {counts} counts a word) | | | {waves} | | {t} "
            f"| {p.get('same_counts', '-')} |"
        )
    if "row_table_step_s" in co:
        lines.append(
            "| row table (lanes, default before) | | | | | "
            f"{co['row_table_step_s'] * 1e3:.3f} ms | {co.get('row_table_same_counts')} |"
        )
    pr = co.get("probes") or {}
    if "step_s" in pr:
        lines += [
            "",
            f"The first plan's count, {pr['step_s'] * 1e3:.3f} ms, against its stages alone "
            f"(same grid): the reads of every candidate word {pr['reads_only_s'] * 1e3:.3f} ms "
            f"({co['rows'] * co['features'] / pr['reads_only_s'] / 1e12:.2f} TB/s), the "
            f"shared-memory adds {pr['adds_only_s'] * 1e3:.3f} ms.",
        ]
    b = co.get("best_fit")
    if b:
        lines += [
            "",
            f"JMI with the fastest plan {co['best_plan']}: whole fit {b['fit_s'] * 1e3:.1f} ms, "
            f"set-up (k=1 fit) {b['setup_s'] * 1e3:.1f} ms, step {b['step_s'] * 1e3:.2f} ms; "
            f"same picks as the CPU: {b.get('same_selection')}, largest score difference "
            f"{b.get('max_score_diff', float('nan')):.1e}.",
            "",
        ]
        parts = b.get("setup_breakdown_s") or {}
        text = ", ".join(f"{name[:-2]} {v * 1e3:.1f} ms" for name, v in parts.items())
        lines += [f"Its set-up (`timings_`): {text}.", ""]
    return [*lines, ""]
