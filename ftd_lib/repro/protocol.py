r"""Step sizes, honestly optimised: the two-stage protocol of the control figures (Fig. 4).

The paper optimises :math:`\alpha` for every :math:`\lambda` and method and shows the best
(Sec. 6). With 13 step sizes x 11 :math:`\lambda` x 2 methods x 200 runs x 1000 cart-pole
episodes that is out of reach on a laptop, and picking the best of many noisy cells is biased
upwards anyway. So, two stages:

1. **pilot** -- the full :math:`\alpha` grid, :data:`PILOT_RUNS` runs (run ids
   ``0 .. PILOT_RUNS-1``), the paper's episode count. Where a curve's best :math:`\alpha`
   (per method and :math:`\lambda`) sits at an edge of its grid -- or every step size of
   the curve had a diverged run, so it has no best -- the grid is widened by one step (a
   factor 2) beyond that edge (downwards for divergence) and the new cells are computed, until
   every best is inside (at most :data:`MAX_WIDENINGS` times; a best at the edge after that is
   reported).
2. **final** -- for every curve the :data:`FINAL_ALPHAS` step sizes of its pilot grid centred
   on the pilot's best (shifted inwards at an edge), the paper's 200 runs (run ids ``0 ..
   199``); the figure shows, at each :math:`\lambda`, the best of those. A final best at the
   edge of its window widens the window the same way.

Both stages are stored: the pilot under ``<out>/pilot/`` (below paper scale: 20 runs), the
final figure under ``<out>/`` (at paper scale). Widening only appends cells, and appended
cells get chunks of their own (``Figure.appended_at``, :func:`ftd_lib.repro.chunks.cut_chunks`):
the chunks already computed keep their identity and are reused, and a widening computes only
its new cells. Stores written before appended cells had chunks of their own hold the cells of
several widenings in one chunk; :func:`ftd_lib.repro.reuse.rows_from_stored` reads a chunk's
rows from such a chunk, so those stores stay valid and nothing is recomputed.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .definitions import Cell, Figure, figure

PILOT_RUNS = 20  # runs of the pilot stage (>= 20, the floor)
FINAL_ALPHAS = 5  # step sizes per curve in the final stage
MAX_WIDENINGS = 3  # times a grid is widened at an edge
RUNS_PER_FINAL_CHUNK = 50  # final chunks: every cell of a method x 50 runs


def two_stage(fig: Figure) -> bool:
    """Whether a figure's step sizes go through the two stages: its file asks for them
    (``[protocol] kind = "pilot"``, e.g. the paper's control figures at paper scale)."""
    return fig.two_stage


def best_alphas(fig: Figure, metric: np.ndarray) -> dict[tuple[str, float], dict]:
    """For every (method, lambda): its step sizes (sorted), the mean metric of each over the
    runs (a diverged run's return is nan, so is its cell's mean: it counts as a failure and
    is never best), the index of the best and the cells. ``metric``: ``(cells, runs)``,
    higher is better (control)."""
    return best_alphas_of([c.method for c in fig.cells], [c.lam for c in fig.cells],
                          [c.alpha for c in fig.cells], metric)


def best_alphas_of(methods, lams, alphas, metric) -> dict[tuple[str, float], dict]:
    """:func:`best_alphas` from per-cell arrays (e.g. a stored figure's ``method``, ``lam``,
    ``alpha`` and ``metric``)."""
    keys = list(dict.fromkeys(zip(methods, (float(x) for x in lams), strict=True)))
    out = {}
    for key in keys:
        idx = [i for i, mk in enumerate(zip(methods, lams, strict=True))
               if (mk[0], float(mk[1])) == key]
        a = np.array([alphas[i] for i in idx], dtype=float)
        order = np.argsort(a)
        means = np.array([np.mean(metric[i]) for i in idx])[order]
        finite = np.isfinite(means)
        best = int(np.argmax(np.where(finite, means, -np.inf))) if finite.any() else None
        out[key] = {"alphas": a[order], "means": means, "best": best,
                    "cells": [idx[j] for j in order]}
    return out


def at_edge(info: dict) -> str | None:
    """``"low"``/``"high"`` when a curve's best step size is the smallest/largest of its
    grid, else ``None``. A curve without a best (at every step size some run diverged) is
    ``"low"``: divergence comes from too large a step, so the grid is widened downwards."""
    b = info["best"]
    if b is None:
        return "low"
    if b == 0:
        return "low"
    if b == len(info["alphas"]) - 1:
        return "high"
    return None


def widened(fig: Figure, metric: np.ndarray, ratio: float = 2.0) -> Figure | None:
    """``fig`` with one more step size beyond the edge for every curve whose best sits at an
    edge (appended cells), or ``None`` when every best is inside."""
    extra = []
    for info in best_alphas(fig, metric).values():
        edge = at_edge(info)
        if edge is None:
            continue
        a = info["alphas"][0] / ratio if edge == "low" else info["alphas"][-1] * ratio
        template = fig.cells[info["cells"][0]]
        extra.append(replace(template, alpha=float(f"{a:.6g}")))
    if not extra:
        return None
    return replace(fig, cells=fig.cells + tuple(extra),
                   appended_at=fig.appended_at + (len(fig.cells),))


def _base(name, variant=None, grid=None) -> Figure:
    """The paper-scale definition: ``name`` a figure's name (under a set-up ``variant``, with
    the ``--set`` changes ``grid``) or already a :class:`Figure` (an experiment file's)."""
    if isinstance(name, Figure):
        return name
    return figure(name, "paper", variant=variant, grid=grid)


def pilot_figure(name, variant: str | None = None, grid: dict | None = None) -> Figure:
    """Stage 1: the paper-scale definition (``name``: a figure's name or its definition)
    with the protocol's ``pilot_runs`` runs (default :data:`PILOT_RUNS`; the full grid)."""
    base = _base(name, variant, grid)
    return replace(base, runs=base.protocol.get("pilot_runs", PILOT_RUNS))


def final_figure(name, pilot: Figure, pilot_metric: np.ndarray,
                 runs: int | None = None, variant: str | None = None,
                 grid: dict | None = None) -> Figure:
    """Stage 2: for every curve the protocol's ``final_alphas`` step sizes (default
    :data:`FINAL_ALPHAS`) of the pilot's grid centred on its best, ``runs`` runs (default:
    the paper's); chunks hold every cell of a method times :data:`RUNS_PER_FINAL_CHUNK` runs
    (a long queue keeps the batch full)."""
    base = _base(name, variant, grid)
    final_alphas = base.protocol.get("final_alphas", FINAL_ALPHAS)
    cells: list[Cell] = []
    for method in base.methods:
        for (m, _lam), info in best_alphas(pilot, pilot_metric).items():
            if m != method:
                continue
            n = len(info["alphas"])
            b = info["best"] if info["best"] is not None else n // 2
            lo = min(max(b - final_alphas // 2, 0), max(n - final_alphas, 0))
            cells += [pilot.cells[i] for i in info["cells"][lo:lo + final_alphas]]
    n_runs = base.paper_runs if runs is None else int(runs)
    per_method = len(cells) // max(len(base.methods), 1)
    return replace(base, cells=tuple(cells), runs=n_runs,
                   runs_per_chunk=min(RUNS_PER_FINAL_CHUNK, n_runs),
                   cells_per_chunk=per_method,
                   notes=base.notes + (
                       f"step sizes: two stages (ftd_lib.repro.protocol): a pilot of "
                       f"{pilot.runs} runs over the full grid, then the {final_alphas} step "
                       "sizes around each curve's pilot best with these runs.",))


def _optimised(fig: Figure, out, run, label: str):
    """Run ``fig`` (``run(fig, out, stage)``, ``stage`` naming the stage for the progress
    bar), widening its grids at the edges until every best is inside or
    :data:`MAX_WIDENINGS` is reached. Returns ``(figure, results)``."""
    res = run(fig, out, label)
    for k in range(fig.protocol.get("max_widenings", MAX_WIDENINGS)):
        wider = widened(fig, np.asarray(res["metric"]))
        if wider is None:
            break
        n_new = len(wider.cells) - len(fig.cells)
        print(f"{fig.name} {label}: {n_new} best step size(s) at the edge of the grid; "
              "widening", flush=True)
        fig = wider
        res = run(fig, out, f"{label}, widening {k + 1}")
    return fig, res


def run_protocol(name, out, *, runs: int | None = None, pilot_out=None,
                 variant: str | None = None, grid: dict | None = None,
                 command: str | None = None, final_s: float = 0.0, **kw):
    """Both stages for a control figure (``name``: its name, or its definition at paper
    scale, e.g. an experiment file's; see the module docstring): the pilot into
    ``pilot_out`` (default ``<out>/pilot``), the final figure into ``out``; ``grid``: the
    definition's ``--set`` changes (both stages); ``command``: what resumes it (default: the
    ``reproduce`` command with these runs and changes); ``final_s``: the final stage's
    predicted seconds (:mod:`ftd_lib.repro.planning.plan`), added to the pilot's ETA. ``kw`` go to
    :func:`ftd_lib.repro.runs.run_figure` (seed, workers, device, ...). Returns the final
    :class:`~ftd_lib.repro.results.Results`."""
    from pathlib import Path

    from .results import reproduce_command
    from .runs import run_figure

    pilot_out = Path(out) / "pilot" if pilot_out is None else Path(pilot_out)
    if isinstance(name, Figure) and command is None:
        raise ValueError("command: give the command that resumes this experiment")
    command = command or reproduce_command(name, "paper", out, runs=runs, grid=grid) + (
        f" --variant '{variant}'" if variant is not None else "")

    def run(fig, where, stage):
        later = final_s if stage.startswith("pilot") else 0.0
        return run_figure(fig, where, command=command, stage=stage, later_s=later, **kw)

    pilot, pres = _optimised(pilot_figure(name, variant, grid), pilot_out, run, "pilot")
    final, fres = _optimised(final_figure(name, pilot, np.asarray(pres["metric"]), runs,
                                          variant, grid), out, run, "final")
    return fres
