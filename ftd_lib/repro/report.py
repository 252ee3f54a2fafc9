r"""``results/REPORT.md``: what this reproduction found, computed from the stored data.

For every figure of Sec. 6 (Figs. 3 and 4 of van Seijen, 2016) the report shows the picture,
the key numbers (best :math:`\alpha` per method with its error, the values per
:math:`\lambda`), how the data was made (scale, runs, episodes, wall time, machine, commit),
and for each claim of the paper whether this reproduction agrees. Every verdict is computed
from the numbers by the rules of :mod:`ftd_lib.repro.claims`, never written by hand; the
rule and the numbers it used are printed next to it.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..methods import label
from . import store
from .claims import NO_DATA, Verdict, best_index, claims, fmt_number
from .definitions import FIGURES, STUDIES, figure, format_sets
from .provenance import describe
from .results import DEFAULT_RESULTS, load_results, reproduce_command, results_paths
from .variant_report import variant_sections


def _duration(s) -> str:
    if s is None:
        return "n/a"
    s = float(s)
    if s < 120:
        return f"{s:.1f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.2f} h"


def _provenance(res) -> list[str]:
    m = res.meta
    mach = m.get("machine", {})
    git = m.get("git", {}) or {}
    commit = (git.get("commit") or "unknown")[:12] + (" (uncommitted changes)" if git.get("dirty")
                                                      else "")
    ch = m.get("chunks", {})
    lines = [
        f"- scale: **{m.get('scale')}** — {m.get('runs')} runs × {m.get('episodes')} episodes "
        f"(paper: {m.get('paper_runs')} runs × {m.get('paper_episodes')} episodes); seed "
        f"{m.get('seed')}",
        f"- compute time {_duration(m.get('compute_s'))} over {ch.get('total', '?')} chunks "
        f"(last session: {_duration(m.get('elapsed_s'))} wall, {ch.get('computed', '?')} "
        f"chunks computed, {ch.get('loaded', '?')} loaded); finished {m.get('finished', '?')}",
        f"- machine: {mach.get('cpu', '?')}, {mach.get('cpu_count', '?')} CPUs, "
        f"{mach.get('platform', '?')}; torch {mach.get('torch', '?')} on "
        f"{mach.get('device', '?')} ({mach.get('device_name', '?')})",
        f"- commit {commit}; runner `{m.get('runner', '?')}`",
    ]
    used = m.get("machines_used") or []
    if len(used) > 1:
        lines.append("- chunks were computed on several machines: " + "; ".join(
            f"{u.get('cpu', '?')} ({u.get('cpu_count', '?')} CPUs, {u.get('device_name', '?')})"
            for u in used))
    changed = format_sets(m.get("definition", {}).get("overrides") or {}).strip()
    if changed:
        lines.append(f"- definition changed from the command line: `{changed}` (not the "
                     "paper's grid)")
    lines += describe(m.get("provenance"))
    lines += [
        f"- command: `{m.get('command', '?')}`",
    ]
    return lines


def _below_warning(res) -> str:
    m = res.meta
    return (f"> **Below paper scale** ({m.get('scale')} scale: {m.get('runs')} of "
            f"{m.get('paper_runs')} runs, {m.get('episodes')} of {m.get('paper_episodes')} "
            f"episodes). These numbers show the pipeline working; they are no evidence for or "
            f"against the paper. Paper scale: `{reproduce_command(res.figure, 'paper')}`.")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _figure_section(name: str, res, png_rel: str | None, verdicts: list[Verdict]) -> list[str]:
    title = figure(name, "paper").title
    out = [f"## {title}", ""]
    if res is None:
        out += [f"No stored data. Compute it with `{reproduce_command(name, 'paper')}` "
                f"(or `{reproduce_command(name, 'quick')}` for a seconds-long check).", ""]
        return out
    if not res.at_paper_scale:
        out += [_below_warning(res), ""]
    if png_rel:
        out += [f"![{name}]({png_rel})", ""]
    d = res.meta["definition"]
    s = res.summary()
    st = res.cell_stats()
    a = res.arrays
    curves = list(s)
    if d["x"] == "alpha":
        out += ["Best step size per method (lower error is better):", ""]
        rows = []
        for c in curves:
            i = best_index(s[c], True)
            up = int(sum(~(s[c]["y"] <= 1.0)))
            rows.append([label(c), f"{s[c]['x'][i]:g}", fmt_number(s[c]["y"][i], s[c]["se"][i]),
                         f"{up} ({int(sum(s[c]['n_diverged'] > 0))} with diverged runs)"])
        out += _table(["method", "best α", "error at best α (± SE)",
                       f"α (of {len(s[curves[0]]['x'])}) with error > initial"], rows) + [""]
        xs = sorted(set(a["alpha"].tolist()))
        out += ["Error per α (mean over runs; ∞ = at least one run diverged):", ""]
        rows = []
        for x in xs:
            row = [f"{x:g}"]
            for c in curves:
                k = np.flatnonzero(s[c]["x"] == x)
                row.append(fmt_number(s[c]["y"][k[0]]) if len(k) else "")
            rows.append(row)
        out += _table(["α"] + [label(c) for c in curves], rows) + [""]
    else:
        lower = d["task"] == "prediction"
        what = "error" if lower else "return"
        opt = " at its best α" if d["optimise"] else ""
        out += [f"{what.capitalize()} per λ{opt} (mean over runs ± SE"
                + (", best α in brackets" if d["optimise"] else "") + "):", ""]
        xs = sorted(set(a["lam"].tolist()))
        rows = []
        for x in xs:
            row = [f"{x:g}"]
            for c in curves:
                k = np.flatnonzero(s[c]["x"] == x)
                if not len(k):
                    row.append("")
                    continue
                k = k[0]
                cell = fmt_number(s[c]["y"][k], s[c]["se"][k])
                if d["optimise"]:
                    cell += f" [α = {s[c]['alpha'][k]:g}{_edge_mark(a, c, x, s[c]['alpha'][k])}]"
                row.append(cell)
            rows.append(row)
        out += _table(["λ"] + [label(c) for c in curves], rows) + [""]
        best_rows = []
        for c in curves:
            i = best_index(s[c], lower)
            best_rows.append([label(c), f"{s[c]['x'][i]:g}",
                              fmt_number(s[c]["y"][i], s[c]["se"][i])])
        out += _table(["curve", "best λ", f"{what} there"], best_rows) + [""]
    n_div = int(st["n_diverged"].sum())
    if n_div:
        out += [f"Diverged runs in this figure: {n_div} of {a['diverged'].size} (drawn off the "
                f"chart, counted as infinite error).", ""]
    if verdicts:
        out += ["Claims:", ""]
        for v in verdicts:
            out += [f"- **{v.mark}** — {v.claim}  ", f"  {v.evidence}"]
        out += [""]
    out += ["How it was made:", ""] + _provenance(res) + [""]
    return out


def _edge_mark(arrays, curve, lam, alpha) -> str:
    """``", grid edge"`` when ``alpha`` is the smallest or largest step size of the curve's
    cells at ``lam`` (the optimum may lie beyond the grid)."""
    sel = (arrays["curve"] == curve) & (arrays["lam"] == lam)
    grid = arrays["alpha"][sel]
    if len(grid) > 1 and alpha in (grid.min(), grid.max()):
        return ", grid edge"
    return ""


def _pilot_section(name: str, results_dir: Path, report_dir: Path) -> list[str]:
    """Stage 1 of the step-size protocol (:mod:`ftd_lib.repro.protocol`): the pilot's best
    step size per curve, from ``<results>/pilot/``."""
    from .protocol import PILOT_RUNS, at_edge, best_alphas_of

    res = load_results(name, results_dir / "pilot")
    if res is None:
        return []
    a = res.arrays
    info = best_alphas_of(a["method"].tolist(), a["lam"].tolist(), a["alpha"].tolist(),
                          np.asarray(a["metric"]))
    methods = list(dict.fromkeys(a["method"].tolist()))
    lams = sorted({k[1] for k in info})
    out = [f"### Step sizes, stage 1: the pilot ({res.meta.get('runs', PILOT_RUNS)} runs × "
           f"{res.meta.get('episodes')} episodes, {len(set(a['alpha'].tolist()))} step sizes)",
           "", "Stage 2 (the figure at paper scale) runs, for every curve, the 5 step sizes "
           "around the pilot's best with 200 runs (`ftd_lib/repro/protocol.py`); a best at an "
           "edge of the grid, or a curve with a diverged run at every step size, first widens "
           "the grid. Pilot's best α per λ (mean return over the pilot's runs; a cell with a "
           "diverged run counts as failed; *edge*: the best is the smallest or largest step "
           "size tried):", ""]
    png = results_paths(name, results_dir / "pilot")["png"]
    if png.is_file():
        rel = os.path.relpath(png, report_dir).replace(os.sep, "/")
        out += [f"![{name} pilot]({rel})", ""]
    rows = []
    for lam in lams:
        row = [f"{lam:g}"]
        for m in methods:
            k = info.get((m, lam))
            if k is None or k["best"] is None:
                row.append("a diverged run at every α" if k is not None else "")
                continue
            edge = at_edge(k)
            row.append(f"{fmt_number(k['means'][k['best']])} [α = {k['alphas'][k['best']]:g}"
                       + (f", *{edge} edge*" if edge else "") + "]")
        rows.append(row)
    out += _table(["λ"] + [label(m) for m in methods], rows) + [""]
    out += ["How the pilot was made:", ""] + _provenance(res) + [""]
    return out


def render(results_dir=DEFAULT_RESULTS, report_path=None) -> str:
    """The report's Markdown text, from the data stored in ``results_dir``."""
    results_dir = Path(results_dir)
    report_dir = Path(report_path).parent if report_path else results_dir
    results = {n: load_results(n, results_dir) for n in FIGURES}
    verdicts = claims(results)
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    lines = [
        "# Reproduction report: van Seijen (2016), Figures 3 and 4",
        "",
        f"Generated by `python -m ftd_lib report` from the data in `{results_dir}/` on {now}. "
        "Do not edit: every number and verdict below is computed from the stored results "
        "(rules in `ftd_lib/repro/claims.py`).",
        "",
    ]
    present = [n for n, r in results.items() if r is not None]
    below = [n for n in present if not results[n].at_paper_scale]
    missing = [n for n, r in results.items() if r is None]
    if below:
        lines += [f"> **Below paper scale:** {', '.join(below)} — verdicts on these figures are "
                  "no evidence either way.", ""]
    if missing:
        lines += [f"> **Missing:** {', '.join(missing)} — `python -m ftd_lib reproduce all "
                  "--scale paper` computes everything (resumable).", ""]
    lines += ["## The paper's claims", ""]
    rows = []
    for v in verdicts:
        scale = ("" if v.status == NO_DATA else
                 results[v.figure].scale + (" (below paper scale)" if v.below_paper_scale else ""))
        rows.append([str(v.number), v.figure, v.claim, v.mark, scale])
    lines += _table(["#", "figure", "claim", "this reproduction", "scale"], rows) + [""]
    for n in FIGURES:
        res = results[n]
        png = results_paths(n, results_dir)["png"]
        rel = os.path.relpath(png, report_dir).replace(os.sep, "/") if png.is_file() else None
        lines += _figure_section(n, res, rel, [v for v in verdicts if v.figure == n])
        lines += _pilot_section(n, results_dir, report_dir)
    lines += _studies(results_dir, report_dir)
    parts = SimpleNamespace(figure_section=_figure_section, pilot_section=_pilot_section,
                            below_warning=_below_warning)
    lines += variant_sections(results_dir, report_dir, results["fig4-left"], parts)
    return "\n".join(lines).rstrip() + "\n"


def _studies(results_dir: Path, report_dir: Path) -> list[str]:
    """A section for every study beyond the paper (:data:`STUDIES`) that has stored data:
    the figure's section and its computed reading (:mod:`ftd_lib.repro.block_study`)."""
    from .block_study import reading

    out = []
    for n in STUDIES:
        if n == "claim5-study":  # its own section (ftd_lib.repro.study_report)
            out += _study_section(results_dir, report_dir)
            continue
        res = load_results(n, results_dir)
        if res is None:
            continue
        png = results_paths(n, results_dir)["png"]
        rel = os.path.relpath(png, report_dir).replace(os.sep, "/") if png.is_file() else None
        sec = _figure_section(n, res, rel, [])
        sec[0] = f"## Beyond the paper: {sec[0][3:]}"
        k = sec.index("How it was made:")
        out += sec[:k] + reading(res) + sec[k:]
    return out


def _study_section(results_dir: Path, report_dir: Path) -> list[str]:
    """The claim-5 sensitivity study (:mod:`ftd_lib.repro.study`), where it is stored."""
    from .study import STUDY
    from .study_report import load_fig4_pilot, report_section

    res = load_results(STUDY, results_dir)
    if res is None:
        return []
    png = results_paths(STUDY, results_dir)["png"]
    rel = os.path.relpath(png, report_dir).replace(os.sep, "/") if png.is_file() else None
    return report_section(res, _provenance(res), load_fig4_pilot(results_dir), rel)


def write_report(results_dir=DEFAULT_RESULTS, path=None) -> Path:
    """Write ``REPORT.md`` (default: inside ``results_dir``) atomically; returns its path."""
    path = Path(path) if path else Path(results_dir) / "REPORT.md"
    return store.atomic_write_text(path, render(results_dir, path))
