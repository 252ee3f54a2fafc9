r"""``results/REPORT.md``: what this reproduction found, computed from the stored data.

The paper's claims (Figs. 3 and 4 of van Seijen, 2016, Sec. 6) first, then one section for
every stored experiment -- the paper's figures, the studies, a researcher's own -- written
the same way (:func:`ftd_lib.repro.sections.experiment_section`): the picture, best
:math:`\alpha` per setting with grid-edge marks, learning curves, the claims its file names,
how the data was made (scale, runs, episodes, wall time, machine, commit, engines). Every
verdict is computed from the numbers by the rules of :mod:`ftd_lib.repro.paper.claims`, never
written by hand; the rule and the numbers it used are printed next to it.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

import numpy as np

from ..methods import label
from . import store
from .counts import counts_text
from .definitions import FIGURES, format_sets
from .paper.claims import NO_DATA, claims, fmt_number
from .provenance import describe
from .results import DEFAULT_RESULTS, load_results, reproduce_command, results_paths
from .sections import experiment_section, options, reread_lines


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
    paper = (f"(paper: {m.get('paper_runs')} runs × {m.get('paper_episodes')} episodes)"
             if m.get("definition", {}).get("paper_counts", True) else
             "(an experiment beyond the paper: no paper counts to reach)")
    own = not m.get("definition", {}).get("paper_counts", True)  # a file beyond the paper
    word = "file" if own and m.get("scale") == "paper" else m.get("scale")
    session = (f"last session: {_duration(m.get('elapsed_s'))} wall, {counts_text(ch)}"
               if not m.get("assembled_by")
               else f"made in {_duration(m.get('elapsed_s'))} wall; last assembled from the "
                    f"store: {counts_text(ch)}")
    lines = [
        f"- scale: **{word}** — {m.get('runs')} runs × {m.get('episodes')} episodes "
        f"{paper}; seed {m.get('seed')}",
        f"- compute time {_duration(m.get('compute_s'))} over the definition's "
        f"{ch.get('total', '?')} chunks ({session}; a piece: rows computed at once, a "
        f"chunk's or part of them); finished {m.get('finished', '?')}",
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
        paper = m.get("definition", {}).get("paper_counts", True)
        lines.append(f"- definition changed from the command line: `{changed}` (not "
                     + ("the paper's grid)" if paper else "the file's definition)"))
    lines += describe(m.get("provenance"))
    lines += [
        f"- command: `{m.get('command', '?')}`",
    ]
    for a in m.get("assembled_by") or []:
        git = a.get("git") or {}
        lines.append(f"- assembled by `{a.get('command', '?')}` from stored chunks only (0 "
                     f"computed) on {a.get('finished', '?')}, commit "
                     f"{(git.get('commit') or 'unknown')[:12]}"
                     + (" (uncommitted changes)" if git.get("dirty") else ""))
    diff = (m.get("git") or {}).get("diff")
    if diff:
        lines.append(f"- uncommitted changes when computed: `{diff.get('file')}` beside the "
                     f"results ({len(diff.get('files') or [])} file(s): "
                     f"{', '.join(diff.get('files') or [])})")
    return lines


def _below_warning(res) -> str:
    m = res.meta
    return (f"> **Below paper scale** ({m.get('scale')} scale: {m.get('runs')} of "
            f"{m.get('paper_runs')} runs, {m.get('episodes')} of {m.get('paper_episodes')} "
            f"episodes). These numbers show the pipeline working; they are no evidence for or "
            f"against the paper."
            + (f" Paper scale: `{reproduce_command(res.figure, 'paper')}`."
               if res.figure in FIGURES and not m.get("definition", {}).get("source") else ""))


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


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
    opts = options(res)
    rep = opts["report"]
    out += reread_lines(res, opts["claims"], rep.get("reread_from"), rep.get("reread_setups"),
                        rep.get("compare"))
    out += ["How the pilot was made:", ""] + _provenance(res) + [""]
    return out


def _png(name: str, where: Path, report_dir: Path) -> str | None:
    png = results_paths(name, where)["png"]
    return os.path.relpath(png, report_dir).replace(os.sep, "/") if png.is_file() else None


def stored_experiments(results_dir: Path) -> list[tuple[Path, str]]:
    """``(folder, name)`` of every stored experiment under ``results_dir``: the paper's
    figures first, then the others of the folder by name, then those of its subfolders
    (e.g. ``variants/small-weights``; not ``chunks`` or a pilot)."""
    out = [(results_dir, n) for n in FIGURES]
    others = sorted(p.stem for p in results_dir.glob("*.npz") if p.stem not in FIGURES)
    out += [(results_dir, n) for n in others]
    for d in sorted(p for p in results_dir.rglob("*") if p.is_dir()):
        rel = d.relative_to(results_dir).parts
        if "chunks" in rel or "pilot" in rel:
            continue
        out += [(d, p.stem) for p in sorted(d.glob("*.npz"))]
    return out


def _heading(results: dict, stored: list, results_dir: Path) -> str:
    """The report's title: the paper's where the folder holds one of its figures, else the
    one experiment's own title, else the folder's."""
    if any(r is not None for r in results.values()):
        return "Reproduction report: van Seijen (2016), Figures 3 and 4"
    if len(stored) == 1:
        return f"Report: {stored[0][2].meta.get('title', stored[0][1])}"
    return f"Report: the experiments in `{results_dir}/`"


def render(results_dir=DEFAULT_RESULTS, report_path=None) -> str:
    """The report's Markdown text, from the data stored in ``results_dir``: the paper's
    claims, then one section per stored experiment (:func:`ftd_lib.repro.sections.
    experiment_section`), with its pilot where the step sizes went through two stages."""
    results_dir = Path(results_dir)
    report_dir = Path(report_path).parent if report_path else results_dir
    results = {n: load_results(n, results_dir) for n in FIGURES}
    stored = [(where, name, results[name] if where == results_dir and name in FIGURES
               else load_results(name, where))
              for where, name in stored_experiments(results_dir)]
    stored = [x for x in stored if x[2] is not None]
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    lines = [f"# {_heading(results, stored, results_dir)}", "",
             f"Generated by `python -m ftd_lib report` from the data in `{results_dir}/` on "
             f"{now}. Do not edit: every number and verdict below is computed from the stored "
             "results (one section per experiment, `ftd_lib/repro/sections.py`).", ""]
    below = [n for n, r in results.items() if r is not None and not r.at_paper_scale]
    if below:
        lines += [f"> **Below paper scale:** {', '.join(below)} — verdicts on these figures are "
                  "no evidence either way.", ""]
    judged = [v for v in claims(results) if v.status != NO_DATA]
    if judged:  # only the claims the folder's figures hold data for
        lines += ["## The paper's claims", "",
                  "Rules in `ftd_lib/repro/paper/claims.py`.", ""]
        rows = [[str(v.number), v.figure, v.claim, v.mark, results[v.figure].scale
                 + (" (below paper scale)" if v.below_paper_scale else "")] for v in judged]
        lines += _table(["#", "figure", "claim", "this reproduction", "scale"], rows) + [""]
    for where, name, res in stored:
        warning = None if res.at_paper_scale else _below_warning(res)
        lines += experiment_section(res, _png(name, where, report_dir), _provenance(res),
                                    warning)
        lines += _pilot_section(name, where, report_dir)
    return "\n".join(lines).rstrip() + "\n"


def write_report(results_dir=DEFAULT_RESULTS, path=None) -> Path:
    """Write ``REPORT.md`` (default: inside ``results_dir``) atomically; returns its path."""
    path = Path(path) if path else Path(results_dir) / "REPORT.md"
    return store.atomic_write_text(path, render(results_dir, path))
