r"""Reading the claim-5 study (:mod:`ftd_lib.repro.study`): per variant and :math:`\lambda`
both methods' best-:math:`\alpha` returns, whether each learned, the paired difference, and
claim 5's verdict; REPORT.md's section, every sentence computed from the numbers.

Two verdicts per variant:

- the rule of :mod:`ftd_lib.repro.claims` (forward Sarsa(:math:`\lambda`)'s mean above
  Sarsa(:math:`\lambda`)'s at every :math:`\lambda` of the grid but 0), as for Fig. 4;
- how clearly: the difference forward minus Sarsa(:math:`\lambda`), each at its best
  :math:`\alpha`, run by run (both methods see the same run ids: the same initial weights and
  start states), with its standard error. *Holds clearly*: above two standard errors at every
  :math:`\lambda > 0`; *fails clearly*: below minus two at some :math:`\lambda`; else a tie
  within noise. Where neither method learns the rule of claims.py compares two untrained
  networks and its verdict is chance.
"""

from __future__ import annotations

import math

import numpy as np

from ..methods import CONTROL
from .study import CHOICES, DEFAULT, GRID_EDGES, VARIANT_NAMES

HEADING = "## Claim 5: which set-up choice decides it"
HOLDS, FAILS, TIE = "holds clearly", "fails clearly", "tie within noise"


def variant_results(res, name: str, min_alpha: float | None = None):
    """The stored study restricted to one variant (cells with ``alpha >= min_alpha``), as a
    Fig. 4-left-like :class:`~ftd_lib.repro.results.Results` whose curves are the methods:
    what the rule of :mod:`ftd_lib.repro.claims` for claim 5 reads."""
    from .results import Results

    a = res.arrays
    sel = np.array([c.startswith(f"{name} / ") for c in a["curve"].tolist()])
    if min_alpha is not None:
        sel &= a["alpha"] >= min_alpha * (1 - 1e-9)
    arrays = {k: np.asarray(v)[sel] for k, v in a.items()}
    arrays["curve"] = arrays["method"].copy()
    return Results(res.figure, arrays, res.meta, res.path)


def _learns(y: float, se: float, y0: float, se0: float) -> bool:
    """A point learned something: its return beats the one at the grid's smallest alpha
    (where the network hardly moves) by more than two standard errors."""
    if not np.isfinite(y):
        return False
    if not np.isfinite(y0):
        return True
    return bool(y - y0 > 2 * math.hypot(se, se0))


def _paired(metric: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """Mean and standard error of ``metric[i] - metric[j]`` over the runs (nan: a run
    diverged)."""
    d = metric[i] - metric[j]
    if not np.isfinite(d).all():
        return math.nan, math.nan
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))


def study_rows(res) -> list[dict]:
    """One row per (variant, lambda): per method its best-alpha return (``y``, ``se``,
    ``alpha``, ``edge``, ``learns``), the paired difference forward minus Sarsa(lambda)
    (``diff``, ``diff_se``), claim 5 by the rule of claims.py (``claim5``) and how clearly
    (``clear``: :data:`HOLDS`, :data:`FAILS` or :data:`TIE`, per variant); then rows that
    reread the default variant's cells with the grid cut below :data:`GRID_EDGES`."""
    from .claims import _claims_fig4_left

    curves = res.arrays["curve"].tolist()
    names = [n for n in VARIANT_NAMES if any(c.startswith(f"{n} / ") for c in curves)]
    todo = [(n, n, None) for n in names]
    if DEFAULT in names:
        todo += [(f"α grid from {e:.2g}", DEFAULT, e) for e in GRID_EDGES]
    rows = []
    for shown, name, edge in todo:
        sub = variant_results(res, name, edge)
        a, st, summ = sub.arrays, sub.cell_stats(), sub.summary()
        verdict = _claims_fig4_left(sub)[0]
        mine = []
        for lam in sorted(set(a["lam"].tolist())):
            row = {"variant": shown, "lam": lam, "claim5": verdict.status}
            best = {}
            for m in CONTROL:
                s = summ[m]
                k = int(np.flatnonzero(s["x"] == lam)[0])
                grid = np.flatnonzero((a["method"] == m) & (a["lam"] == lam))
                low = grid[np.argmin(a["alpha"][grid])]
                best[m] = int(s["cell"][k])
                row[m] = {"y": float(s["y"][k]), "se": float(s["se"][k]),
                          "alpha": float(s["alpha"][k]), "edge": str(s["alpha_edge"][k]),
                          "learns": _learns(s["y"][k], s["se"][k], st["mean"][low],
                                            st["se"][low])}
            row["diff"], row["diff_se"] = _paired(a["metric"], best["forward_sarsa_lambda"],
                                                  best["sarsa_lambda"])
            mine.append(row)
        clear = _clearly([r for r in mine if r["lam"] > 0])
        for r in mine:
            r["clear"] = clear
        rows += mine
    return rows


def _clearly(rows: list[dict]) -> str:
    """:data:`HOLDS`, :data:`FAILS` or :data:`TIE` from the paired differences at the rows'
    lambdas (nan: a diverged run, no verdict: a tie)."""
    above = [r["diff"] > 2 * r["diff_se"] for r in rows]
    below = [r["diff"] < -2 * r["diff_se"] for r in rows]
    if any(below):
        return FAILS
    return HOLDS if rows and all(above) else TIE


def decisive(rows: list[dict]) -> dict[str, list[str]]:
    """Variant names by verdict (``agrees``: the rule of claims.py; ``holds``/``fails``/``tie``:
    how clearly) and by where each method learns at lambda <= 0.4 (``sarsa_learns_low``,
    ``forward_learns_low``)."""
    def names(pred):
        return list(dict.fromkeys(r["variant"] for r in rows if pred(r)))

    return {"agrees": names(lambda r: r["claim5"] == "agrees"),
            "holds": names(lambda r: r["clear"] == HOLDS),
            "fails": names(lambda r: r["clear"] == FAILS),
            "tie": names(lambda r: r["clear"] == TIE),
            "sarsa_learns_low": names(lambda r: 0 < r["lam"] <= 0.4
                                      and r["sarsa_lambda"]["learns"]),
            "forward_learns_low": names(lambda r: 0 < r["lam"] <= 0.4
                                        and r["forward_sarsa_lambda"]["learns"])}


# ----------------------------------------------------------------------------- the report


def _point(p: dict) -> str:
    from .claims import fmt_number

    s = f"{fmt_number(p['y'], p['se'])} [α = {p['alpha']:.2g}"
    s += (", grid edge" if p["edge"] else "") + "]"
    return f"**{s}** (learns)" if p["learns"] else s


def _names(xs) -> str:
    return ", ".join(f"*{x}*" for x in xs) if xs else "none"


def _verdict_cell(r: dict) -> str:
    mark = {HOLDS: "✅ holds clearly", FAILS: "❌ fails clearly"}.get(r["clear"], "tie")
    return f"{mark} (claims.py rule: {r['claim5']})"


def load_fig4_pilot(results_dir=None):
    """Fig. 4 left's stored pilot (``<results>/pilot``; default: the repository's), or
    ``None``."""
    from pathlib import Path

    from .results import load_results, repo_results_dir

    d = repo_results_dir() if results_dir is None else Path(results_dir)
    return load_results("fig4-left", d / "pilot")


def grid_edge_rows(fig4_pilot) -> list[dict]:
    """Fig. 4 left's stored pilot (the paper's 50 episodes, every lambda, the full step-size
    grid widened downwards, :mod:`ftd_lib.repro.protocol`) reread with the grid cut below each
    of :data:`GRID_EDGES` (``None``: the whole grid): claim 5 by the rule of claims.py."""
    from .claims import _claims_fig4_left
    from .results import Results

    a = fig4_pilot.arrays
    out = []
    for edge in (None, *GRID_EDGES):
        sel = np.ones(len(a["alpha"]), bool) if edge is None else a["alpha"] >= edge * (1 - 1e-9)
        sub = Results(fig4_pilot.figure, {k: np.asarray(v)[sel] for k, v in a.items()},
                      fig4_pilot.meta, fig4_pilot.path)
        v = _claims_fig4_left(sub)[0]
        out.append({"edge": edge, "smallest": float(a["alpha"][sel].min()),
                    "claim5": v.status, "evidence": v.evidence})
    return out


def report_section(res, provenance: list[str], fig4_pilot=None, png: str | None = None
                   ) -> list[str]:
    """REPORT.md's section on the study (:data:`HEADING`): the choices, the table, a plain
    reading generated from the numbers, Fig. 4 left's pilot reread with the grid cut (when
    ``fig4_pilot`` is given), the picture (``png``: its path relative to the report) and how
    the data was made (``provenance``)."""
    rows = study_rows(res)
    m = res.meta
    out = [HEADING, "",
           "Claim 5 says forward Sarsa(λ) beats Sarsa(λ) at every λ < 1 on mountain car "
           "(Fig. 4 left). The paper leaves several set-up choices of that experiment open; "
           "this study (`ftd_lib/repro/study.py`) changes one at a time, with "
           f"{m.get('runs')} runs × {m.get('episodes')} episodes (the paper: 200 × 50) and the "
           "step sizes 0.015·2^k, k = −10..0, at λ ∈ {0, 0.4, 0.8}.", ""]
    if png:
        out += [f"![{res.figure}]({png})", ""]
    out += ["### The set-up choices", ""]
    out += _md_table(["choice", "the paper", "here (Fig. 4)", "tested by"],
                     [list(c) for c in CHOICES]) + [""]
    out += ["### Best-α return per variant", "",
            "Mean return over the first 50 episodes ± SE over runs, at each method's best "
            "α (*grid edge*: the best is the smallest or largest α tried). **(learns)**: the "
            "best α beats the smallest α (where the network hardly moves) by more than two "
            "standard errors. *forward − Sarsa(λ)*: the difference run by run (both methods "
            "see the same initial weights and start states) ± its SE. Claim 5 *holds "
            "clearly* where that difference exceeds two SE at λ = 0.4 and 0.8, *fails "
            "clearly* where it is below minus two SE at either; else it is a *tie* within "
            "noise, and the rule of `ftd_lib/repro/claims.py` (which compares the means, as "
            "for Fig. 4) decides by chance. At λ = 0 the two methods are one algorithm. The "
            "*α grid from* rows reread the default variant's cells with the grid cut below "
            "that step size.", ""]
    table = []
    for k, r in enumerate(rows):
        last = k + 1 == len(rows) or rows[k + 1]["variant"] != r["variant"]
        diff = ("" if r["lam"] == 0 else
                f"{r['diff']:+.0f} ± {r['diff_se']:.2g}" if np.isfinite(r["diff"])
                else "diverged")
        table.append([r["variant"], f"{r['lam']:g}", _point(r["sarsa_lambda"]),
                      _point(r["forward_sarsa_lambda"]), diff,
                      _verdict_cell(r) if last else ""])
    out += _md_table(["variant", "λ", "Sarsa(λ)", "forward Sarsa(λ)", "forward − Sarsa(λ)",
                      "claim 5"], table)
    out += ["", "### Reading", ""] + reading(rows) + [""]
    if fig4_pilot is not None:
        fm = fig4_pilot.meta
        out += ["### The grid's lower edge at Fig. 4's own scale", "",
                f"Fig. 4 left's pilot ({fm.get('runs')} runs × {fm.get('episodes')} "
                "episodes, all 11 λ, the step-size grid widened downwards while a best sat at "
                "its edge) reread with the grid cut below a step size, by the rule of "
                "`ftd_lib/repro/claims.py`:", ""]
        out += _md_table(["grid from", "claim 5", "evidence"],
                         [["whole grid" if g["edge"] is None else f"{g['edge']:.2g}",
                           g["claim5"], g["evidence"]] for g in grid_edge_rows(fig4_pilot)])
        out += [""]
    out += ["How it was made:", ""] + provenance + [""]
    return out


def reading(rows: list[dict]) -> list[str]:
    """Plain sentences, every one computed from the rows."""
    d = decisive(rows)
    default = next((r["clear"] for r in rows if r["variant"] == DEFAULT), None)
    out = [f"- Claim 5 holds clearly under: {_names(d['holds'])}; it fails clearly under: "
           f"{_names(d['fails'])}; a tie within noise at some λ under: {_names(d['tie'])}.",
           f"- Sarsa(λ) learns at λ = 0.4 under: {_names(d['sarsa_learns_low'])}; forward "
           f"Sarsa(λ) learns at λ = 0.4 under: {_names(d['forward_learns_low'])}."]
    if default is None:
        return out
    turn = [r["variant"] for r in rows if r["lam"] == 0 and r["clear"] != default]
    out.append(f"- Under the set-up of Fig. 4 claim 5 is a *{default}* here. "
               + ("The choices that change that, one at a time: "
                  + "; ".join(f"*{v}* ({next(r['clear'] for r in rows if r['variant'] == v)})"
                              for v in turn) + "."
                  if turn else "No single choice tried changes that."))
    return out


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    return (["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
            + ["| " + " | ".join(r) + " |" for r in esc])


def plot_study(res, fig) -> None:
    """Small multiples on the matplotlib figure ``fig``: one panel per variant, the
    best-alpha return of both methods against lambda (± 1 SE), the claim's verdict in the
    panel's title."""
    from ..methods import label, style

    rows = [r for r in study_rows(res) if not r["variant"].startswith("α grid")]
    names = list(dict.fromkeys(r["variant"] for r in rows))
    ncol = 3
    axes = fig.subplots((len(names) + ncol - 1) // ncol, ncol, sharex=True, sharey=True,
                        squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        mine = [r for r in rows if r["variant"] == name]
        lams = [r["lam"] for r in mine]
        for m in CONTROL:
            st = style(m)
            ax.errorbar(lams, [r[m]["y"] for r in mine], yerr=[r[m]["se"] for r in mine],
                        color=st.get("color"), ls=st.get("ls", "-"), marker="o", ms=3,
                        capsize=2, label=label(m))
        ax.set_title(f"{name}: {mine[0]['clear']}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("λ (best α per point)")
    for ax in axes[:, 0]:
        ax.set_ylabel("return, first 50 ep.")
    axes.flat[0].legend(fontsize=8, loc="lower left")
    m = res.meta
    fig.suptitle(f"Claim 5 under set-up variants ({m.get('runs')} runs × {m.get('episodes')} "
                 "episodes; verdict: paired difference at λ = 0.4 and 0.8)", fontsize=10)
