"""The Markdown page of benchmarks/bench_scaling.py (benchmarks/results/scaling.md)
from its JSON results: the machine, the set-up and step breakdowns, the step against
its floors, the projection to 16 cores, ReliefF and Dask.

Plain Python: importing it needs neither fsel nor numba.
"""

from __future__ import annotations

import os
from typing import Any

#: columns of the benchmark's table of codes (bench_scaling's ``N_FEATURES``)
N_FEATURES = 100


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.1f} ms"


def _load_text(load: dict[str, Any] | None) -> str:
    if not load:
        return ""
    return (
        f" Load average (1 min) {load['start'][0]:.1f} at the start, {load['end'][0]:.1f} "
        f"at the end (on {os.cpu_count()} cores: other work shares the machine when it "
        "exceeds the threads measured)."
    )


def _topology_text(topo: dict[str, Any]) -> str:
    if not topo.get("physical_cores"):
        return ""
    return (
        f"; {topo['physical_cores']} physical cores, {topo['threads_per_core']} "
        "hardware thread(s) per core"
    )


_SETUP_WORDS = (
    "Set-up breakdown, seconds (each the least over the repeats): validation of X and y "
    "(`validate`), coding of X (`code`: integer input straight to packed feature pairs), "
    "from the codes to the table (`between`), the table's preparation (labels, n log n "
    "table: `table_prep`), its relevance pass (the pairs counted against the target; "
    "packed first where the coding did not pack them: `relevance`), and from the table "
    "to the first step."
)
_STEP_WORDS = (
    "Mean greedy step, seconds: the threads counting every packed pair against the "
    "newest pick and the target (`count`), the parallel sum of their histograms into "
    "entropies (`sums`), and the rest (Python: terms, criterion, argmax)."
)


def _breakdown_tables(jmi: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for key, words in (("setup_breakdown", _SETUP_WORDS), ("step_breakdown", _STEP_WORDS)):
        rows = [r for r in jmi if r.get(key)]
        if not rows:
            continue
        names = list(rows[0][key])
        lines += [
            "",
            words,
            "",
            "| threads | " + " | ".join(n[:-2] for n in names) + " |",
            "|---:|" + "---:|" * len(names),
        ]
        for r in rows:
            lines.append(
                f"| {r['threads']} | " + " | ".join(f"{r[key][n]:.3f}" for n in names) + " |"
            )
    return lines


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _rate(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


def _floor_lines(jmi: list[dict[str, Any]]) -> list[str]:
    """The step against its memory-bandwidth floor (results that have it)."""
    rows = [r for r in jmi if "read_floor_s" in r]
    if not rows:
        return []
    lines = [
        "",
        "Greedy step against its memory-bandwidth floor: the same threads reading (a "
        f"sum, nothing counted) the {rows[0]['read_bytes'] / 1e9:.2f} GB one step reads "
        "(packed pairs, the pick's source row, the target codes), split and chunked as "
        "the step is, best of 3. A ratio near 1: the step is bound by the machine's "
        "memory bandwidth; well above 1: by the counting. Also the set-up's coding "
        "pass against the first touch (one write per 4 KiB page, once, the same "
        f"threads) of {rows[0].get('touch_bytes', 0) / 1e9:.2f} GB of fresh memory, the "
        "size of the packed pairs it writes (on a virtual machine whose host maps "
        "each fresh page this alone can be most of the coding). And the counting "
        "itself with nothing from memory: every thread counting its own 128 KiB table "
        "in its core's cache with the step's kernel, all at once (cells/s per thread, "
        "and its scaling: threads x rate / one thread's rate); where it falls with the "
        "threads as the step does, the cores are the limit (a lower all-core clock, "
        "hardware threads sharing a core), not memory.",
        "",
        "| threads | step s | count s | read floor s | read GB/s | step / read floor "
        "| code s | first touch s | in-cache cells/s/thread | in-cache scaling |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        count = (r.get("step_breakdown") or {}).get("count_s")
        code = (r.get("setup_breakdown") or {}).get("code_s")
        touch = r.get("touch_s")
        lines.append(
            f"| {r['threads']} | {r['step_s']:.3f} | {_num(count)} | {r['read_floor_s']:.3f} "
            f"| {r['read_gb_s']:.1f} | {r['step_s'] / r['read_floor_s']:.2f} "
            f"| {_num(code)} | {_num(touch)} | {_rate(r.get('cache_cells_per_s_per_thread'))} "
            f"| {_num(r.get('cache_count_scaling'))} |"
        )
    return lines


def _projection_lines(proj: dict[str, Any]) -> list[str]:
    if not proj:
        return []
    p, target = proj["measured_threads"], proj["target_threads"]
    lines = [
        "",
        f"### Amdahl projection to {target} threads (a projection, not a measurement)",
        "",
        f"Each phase's serial fraction `e` from its times on 1 and {p} threads "
        f"(Karp-Flatt: t{p} = t1 (e + (1 - e) / {p})), then t{target} = t1 (e + (1 - e) "
        f"/ {target}). It ignores memory bandwidth, hyper-threads sharing a core and "
        "the noise of a shared machine (a phase of a few milliseconds has no meaningful "
        "fraction).",
        "",
        f"| phase | t1 s | t{p} s | serial fraction | projected t{target} s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, v in proj["phases"].items():
        pt = v[f"projected_t{target}_s"]
        lines.append(
            f"| {name} | {v['t1_s']:.3f} | {v[f't{p}_s']:.3f} | {v['serial_fraction']:.2f} "
            f"| {'-' if pt is None else f'{pt:.3f}'} |"
        )
    lines += [
        "",
        f"Projected whole fit on {target} threads: {proj[f'projected_fit_t{target}_s']:.2f} s.",
    ]
    return lines


def _markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    a = result["args"]
    lines = [
        "# Scaling with the cores of one machine",
        "",
        f"Machine: {m['cpu_model']}, {m['cores']} cores (os.cpu_count"
        + _topology_text(m.get("topology") or {})
        + f"), Python {m['python']}; "
        f"commit {result['git']['head'][:10]}"
        + (" (src/ dirty)" if result["git"].get("src_dirty") else "")
        + "."
        + (f" {a['note']}" if a.get("note") else "")
        + _load_text(result.get("load_average")),
    ]
    jmi = [
        "",
        f"## JMI(20, discretize=None), {a['rows']:,} x {N_FEATURES} uint8 codes "
        "(bench_dask.make_chunk)",
        "",
        "| threads | set-up s | step s | fit s | set-up x | step x | fit x "
        "| cells/s per thread | same picks |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    lines += jmi if result["jmi"] else []
    for r in result["jmi"]:
        lines.append(
            f"| {r['threads']} | {r['setup_s']:.2f} | {r['step_s']:.3f} | {r['fit_s']:.2f} "
            f"| {r['setup_speedup']:.2f} | {r['step_speedup']:.2f} | {r['fit_speedup']:.2f} "
            f"| {r['cells_per_s_per_thread']:.2e} | {'yes' if r['same_selection'] else 'NO'} |"
        )
    lines += _breakdown_tables(result["jmi"])
    lines += _floor_lines(result["jmi"])
    lines += _projection_lines(result.get("projection") or {})
    lines += (
        []
        if not result["relieff"]
        else [
            "",
            f"## ReliefF(n_neighbors=10, sample_size=1000), {a['relief_rows']:,} "
            f"x {N_FEATURES} floats",
            "",
            "The fit, the neighbour search within it (threads over the references, each "
            "reading the whole table) and the rest (validation, scaling, margins); next to "
            "them the search kernel with its data in cache: every thread searching its own "
            "1,024 rows for 64 references at once (distances per second per thread, and "
            "its scaling: threads x rate / one thread's rate). Where the in-cache scaling "
            "falls as the fit's does, the cores are the limit, not the split.",
            "",
            "| threads | fit s | speed-up | search s | rest s | in-cache distances/s/thread "
            "| in-cache scaling | same weights |",
            "|---:|---:|---:|---:|---:|---:|---:|:---:|",
        ]
    )
    for r in result["relieff"]:
        search = r.get("search_s", float("nan"))
        lines.append(
            f"| {r['threads']} | {r['fit_s']:.2f} | {r['fit_speedup']:.2f} | {search:.2f} "
            f"| {r['fit_s'] - search:.2f} | {r.get('cache_distances_per_s_per_thread', 0):.2e} "
            f"| {r.get('cache_search_scaling', float('nan')):.2f} "
            f"| {'yes' if r['same_weights'] else 'NO'} |"
        )
    for part, title in (
        (
            "sparse",
            f"Sparse JMI(10, discretize=None), {a.get('sparse_rows', 0):,} x 2000, 1% stored",
        ),
        ("cmi", f"CMI(4, discretize=None), {a.get('cmi_rows', 0):,} x {N_FEATURES} uint8 codes"),
        (
            "cmim",
            f"CMIM(20, discretize=None), {a.get('cmim_rows', 0):,} x {N_FEATURES} uint8 codes",
        ),
        ("floats", f"JMI(10), default binning, {a.get('float_rows', 0):,} x {N_FEATURES} floats"),
    ):
        if not result.get(part):
            continue
        lines += ["", f"## {title}", "", "| threads | fit s | speed-up | same picks |"]
        lines.append("|---:|---:|---:|:---:|")
        lines += [
            f"| {r['threads']} | {r['fit_s']:.3f} | {r['fit_speedup']:.2f} "
            f"| {'yes' if r['same_selection'] else 'NO'} |"
            for r in result[part]
        ]
    if result.get("dask"):
        lines += [
            "",
            f"## Dask JMI(20, discretize=None), local cluster of worker processes of "
            f"{a.get('worker_threads', 1)} thread(s), {a['rows']:,} x {N_FEATURES} in chunks "
            f"of {a['chunk_rows']:,} rows",
            "",
            "Per greedy step (median) against its floor: one worker's count (the step's "
            "counting call on the blocks one worker holds, alone on the cluster, median of "
            "7; the largest over the workers) plus "
            "one reduction round trip (a no-op task per block returning an int32 table of "
            "the step's shape, gathered and summed on the client; median of 10). "
            "Ratio = step / (count + round trip); strict: with the round trip through "
            "the per-worker actors the steps use. Futures step: every reduction as one "
            "task per block through the scheduler (the path used above 8 workers "
            "before). Together: the count with every worker counting its blocks at once "
            "(the floor of a parallel step on a machine whose cores or memory the workers "
            "share), and the ratio to it plus the round trip.",
            "",
            "| workers | blocks | fit s | step ms | count ms | round trip ms | actor round "
            "trip ms | ratio | strict ratio | together count ms | together ratio "
            "| futures step ms | same picks |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
        ]
        for r in result["dask"]:
            if "skipped" in r:
                lines.append(f"| skipped: {r['skipped']} |" + " |" * 12)
                continue
            lines.append(
                f"| {r['workers']} | {r['blocks']} | {r['fit_s']:.2f} | {r['step_s'] * 1e3:.1f} "
                f"| {r['count_s'] * 1e3:.1f} | {r['roundtrip_s'] * 1e3:.1f} "
                f"| {_ms(r['actor_roundtrip_s'])[:-3]} | {r['ratio']:.2f} "
                f"| {r.get('strict_ratio', float('nan')):.2f} "
                f"| {r['count_together_s'] * 1e3:.1f} | {r['together_ratio']:.2f} "
                f"| {_ms(r['futures_step_s'])[:-3]} | {'yes' if r['same_selection'] else 'NO'} |"
            )
    return "\n".join(lines) + "\n"
