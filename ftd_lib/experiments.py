r"""The paper's Figures 3 and 4: one definition per figure, a resumable runner, a loader.

van Seijen (2016), Sec. 6. Each figure is a list of *cells* -- one setting of (method,
:math:`\alpha`, :math:`\lambda`, :math:`\gamma`, :math:`\eta`, :math:`K_{max}`) -- each run
``runs`` times with run ids ``0 .. runs-1``. Every cell uses the same run ids, so run ``r`` of
every cell sees the same random numbers (same network initialisation, same environment noise):
common random numbers make the comparison between settings sharper, and a run's numbers never
depend on the batch it was computed in (:mod:`ftd_lib.rng`).

The work is cut into *chunks*: a block of cells of one method times a block of runs. Chunks are
computed one after another by a *runner* (by default the batched engine,
:mod:`ftd_lib.engine`) and each is stored as soon as it is finished (:mod:`ftd_lib.store`), so
an interrupted reproduction resumes where it stopped and ends with exactly the numbers of an
uninterrupted one.

Scales
------
``quick``  seconds: a few runs, a few episodes, coarse grids (CI, live notebook cells). The
           numbers show the machinery working, not the paper's result.
``paper``  the paper's run and episode counts; log-spaced step-size grids (ratio
           :math:`\sqrt 2` or 2) wide enough that each method's best :math:`\alpha` is inside.

Cost (measured on 2 shared AMD EPYC cores, one torch thread, float64)
--------------------------------------------------------------------
``reproduce all --scale quick``: about 16 s (Fig. 3 left 10 s: the online lambda-return
replays T^2/2 updates an episode). Paper scale: Fig. 3 right 7 min (8 chunks); Fig. 3 left
about 20-25 min (the online lambda-return: ~6500 batch iterations an episode at ~0.85 ms);
Fig. 4: ~5 ms per batch iteration for a 650-row chunk, and a chunk runs until its slowest row
has finished its episodes (up to 50 x 5000 iterations on mountain car, 1000 x 1000 on
cart-pole), so tens of hours (mountain car) to days (cart-pole) on such a CPU. On a GPU use big
chunks (``--device cuda --chunk-rows 60000``: one chunk per method) so that the batch
iterations are shared by all rows.

Metrics (per run, then averaged over runs)
------------------------------------------
prediction (Fig. 3)  the normalised RMS error at the end of each episode, averaged over the
                     episodes (paper: the first 50). A diverged run counts as ``inf``: it is
                     drawn off the chart, never dropped.
control (Fig. 4)     the return of each episode, averaged over the episodes (paper: the first
                     50 on mountain car, the first 1000 on cart-pole). Where the figure
                     optimises :math:`\alpha`, each point is the best cell of its curve and
                     :math:`\lambda` (best mean over runs). A diverged run's returns are
                     ``nan`` from then on, so its cell's mean is ``nan``: never the best; a
                     point whose every :math:`\alpha` diverged is drawn below the chart.

The runner contract
-------------------
``runner(task: ChunkTask, *, device: str, progress: bool) -> dict`` with
``values``: ``(rows, n_episodes)`` floats (error or return per episode) and ``diverged``:
``(rows,)`` bools. Any function with that signature can stand in for the engine (tests use a
cheap one). A runner may carry a ``name`` attribute; it is part of every chunk's identity, so
chunks computed by a different runner (or engine version) are never mixed in. The engine's
name is ``engine-<hash of its code>`` (comments and docstrings left out), and a chunk's
identity also holds its settings rows, run ids, seed, scale, episodes, epsilon, episode cap
and the kind of device (cpu/cuda: their floating point differs).

Notebooks: ``load_results("fig3-left")`` gives the stored data (or ``None``), and
``reproduce_command("fig3-left")`` the exact command that makes it.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import __version__
from . import store as S
from . import validate as V

FIGURES = ("fig3-left", "fig3-right", "fig4-left", "fig4-right")
SCALES = ("quick", "paper")
DEFAULT_SEED = 2016
DEFAULT_RESULTS = "results"
STORE_VERSION = 1  # bump when the meaning of a stored chunk changes

PREDICTION_METHODS = ("td_lambda", "forward_td_lambda", "online_lambda_return",
                      "offline_lambda_return")
CONTROL_METHODS = ("sarsa_lambda", "forward_sarsa_lambda")

# ----------------------------------------------------------------------------- choices

#: lambda grid of Figs. 3 right and 4 (the paper's x axes run from 0 to 1).
LAMBDAS = tuple(round(0.1 * i, 1) for i in range(11))
#: Fig. 3 right refines the grid near 1 (0.85, 0.925, 0.95, 0.975, 0.99): "the performance at
#: the optimal lambda" needs each eta's optimum, and a first paper-scale run on the plain grid
#: had every eta's best at lambda = 0.9 with a steep rise to 1; the optimum moves to larger
#: lambda as eta grows (K shrinks), e.g. to 0.95 (eta = 0.1) and 0.975 (eta = 0.3).
LAMBDAS_FIG3_RIGHT = (*LAMBDAS[:9], 0.85, 0.9, 0.925, 0.95, 0.975, 0.99, 1.0)
#: Fig. 3 right's fixed step size, which is also the centre of every alpha grid below.
ALPHA_FIG3_RIGHT = 0.015
#: epsilon-greedy exploration of both control tasks (Sec. 6).
EPSILON = 0.05
#: eta of every forward method unless a curve says otherwise (Sec. 6).
ETA = 0.01

#: gamma per task. Mountain car (evaluation and control): gamma = 1, the undiscounted episodic
#: task of Sutton & Barto; every episode ends (near-optimal policy / step cap), the value of a
#: state is minus the expected steps to the goal, and the paper's evaluation task has true
#: values -(steps to goal) only for gamma = 1.
#: Cart-pole: gamma = 0.99. The paper does not say. With reward +1 per step and episodes cut at
#: 1000 steps, gamma = 1 would make the target "steps left before failure or the cut" -- up to
#: 1000, and not a function of the state, since the cut depends on time, which the network does
#: not see. gamma = 0.99 bounds every value by 100 (horizon ~100 steps, still 5x a failing
#: episode's length early on) and makes the truncation at 1000 steps almost invisible
#: (0.99**1000 ~ 4e-5). The reported return is undiscounted (steps balanced), as in the paper.
GAMMA = {"mountain_car": 1.0, "cartpole": 0.99}
#: episode caps of the control tasks: cart-pole 1000 (the paper's); mountain car: the paper gives
#: none, we use the environment's default (5000 steps).
CARTPOLE_MAX_STEPS = 1000
MC_MAX_STEPS = 5000


def _geom(centre: float, lo: int, hi: int, ratio: float) -> tuple[float, ...]:
    """centre * ratio**k for k = lo..hi, rounded to 6 significant digits (so ids are stable)."""
    return tuple(float(f"{centre * ratio ** k:.6g}") for k in range(lo, hi + 1))


#: Fig. 3 left, paper scale: 19 step sizes 0.015 * sqrt(2)**k, k = -12..6 (0.00023 .. 0.12).
#: A pilot (3 runs, 10 episodes, alpha = 0.015 * 2**k) put the best alpha of TD(lambda) near
#: 0.001 (diverging from 0.0075 on), of the offline lambda-return near 0.002, of forward
#: TD(lambda) near 0.01 and of the online lambda-return near 0.03 (diverging at 0.12): the grid
#: brackets all four with room on both sides.
ALPHAS_FIG3 = _geom(ALPHA_FIG3_RIGHT, -12, 6, math.sqrt(2))
#: Fig. 4 (both tasks, both methods), paper scale: 13 step sizes 0.015 * 2**k, k = -8..4
#: (0.00006 .. 0.24). Pilots: on mountain car (2 runs, 20 episodes, lambda in {0, 0.5, 0.9})
#: Sarsa(lambda) diverged from 0.03 on (from 0.0075 for lambda = 0.9) and the returns varied
#: over the whole range below; on cart-pole (2 runs, 100 episodes) learning showed only from
#: 0.015 on and Sarsa(lambda >= 0.5) diverged at 0.03. One grid for both tasks, wide enough for
#: both (with 1000 episodes, smaller step sizes have time to learn on cart-pole).
ALPHAS_FIG4 = _geom(ALPHA_FIG3_RIGHT, -8, 4, 2.0)


# ----------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Cell:
    """One setting of a figure: computed for every run id ``0 .. runs-1``.

    ``curve`` is the line of the figure the cell belongs to; ``k_max = None`` means no cap.
    """

    method: str
    alpha: float
    lam: float
    gamma: float
    eta: float = ETA
    k_max: int | None = None
    curve: str = ""

    def row(self) -> list[float]:
        """The engine's settings row: alpha, lam, gamma, eta, k_max (0 = no cap)."""
        return [self.alpha, self.lam, self.gamma, self.eta, float(self.k_max or 0)]


@dataclass(frozen=True)
class Figure:
    """A paper figure at one scale: what to compute, and how to cut it into chunks."""

    name: str
    scale: str
    title: str
    task: str  # "prediction" | "control"
    env: str  # "mountain_car" | "cartpole"
    x: str  # "alpha" | "lam": the figure's x axis
    cells: tuple[Cell, ...]
    runs: int
    episodes: int
    paper_runs: int
    paper_episodes: int
    ylabel: str
    runs_per_chunk: int
    cells_per_chunk: int
    epsilon: float = float("nan")
    optimise: str = ""  # "alpha" when each point is the best cell over alpha
    max_steps: int | None = None  # control: episode cap (None: the environment's default)
    # control: what the cap means: "bootstrap" (a time limit: bootstrap from Q(S', A'),
    # Pardo et al. 2018) or "terminal" (value 0 after the last state)
    truncation: str | None = None
    chunk_rows: int | None = None  # set when figure(..., chunk_rows=) overrode the chunking
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def lower_is_better(self) -> bool:
        return self.task == "prediction"

    @property
    def at_paper_scale(self) -> bool:
        return self.runs >= self.paper_runs and self.episodes >= self.paper_episodes

    @property
    def curves(self) -> list[str]:
        return list(dict.fromkeys(c.curve for c in self.cells))

    @property
    def methods(self) -> list[str]:
        return list(dict.fromkeys(c.method for c in self.cells))

    def describe(self) -> dict:
        """JSON-able summary of the definition (stored in the metadata)."""
        d = asdict(self)
        d["cells"] = [asdict(c) for c in self.cells]
        d["n_cells"] = len(self.cells)
        d["at_paper_scale"] = self.at_paper_scale
        d["epsilon"] = None if math.isnan(self.epsilon) else self.epsilon
        return d


def _fig3_left(scale: str) -> Figure:
    quick = scale == "quick"
    alphas = (0.0075, 0.015, 0.03) if quick else ALPHAS_FIG3
    lam, gamma = 0.9, GAMMA["mountain_car"]
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in PREDICTION_METHODS for a in alphas)
    return Figure(
        name="fig3-left", scale=scale,
        title="Mountain car evaluation, λ = 0.9 (Fig. 3 left)",
        task="prediction", env="mountain_car", x="alpha", cells=cells,
        # quick: 3 episodes, since the online lambda-return costs T^2/2 updates an episode
        runs=2 if quick else 50, episodes=3 if quick else 50,
        paper_runs=50, paper_episodes=50,
        ylabel="normalised RMS error, first episodes",
        runs_per_chunk=2 if quick else 50, cells_per_chunk=len(alphas) if quick else 5,
        notes=("eta = 0.01 for forward TD(λ); gamma = 1.",))


def _fig3_right(scale: str) -> Figure:
    quick = scale == "quick"
    lams = (0.0, 0.5, 0.9) if quick else LAMBDAS_FIG3_RIGHT
    gamma = GAMMA["mountain_car"]
    curves = [("η = 0.01", 0.01, None), ("η = 0.1", 0.1, None), ("η = 0.3", 0.3, None),
              ("η = 0.01, K_max = 50", 0.01, 50)]
    cells = tuple(Cell("forward_td_lambda", ALPHA_FIG3_RIGHT, lam, gamma, eta, k, curve=name)
                  for name, eta, k in curves for lam in lams)
    return Figure(
        name="fig3-right", scale=scale,
        title="Forward TD(λ) on mountain car evaluation, α = 0.015 (Fig. 3 right)",
        task="prediction", env="mountain_car", x="lam", cells=cells,
        runs=2 if quick else 200, episodes=5 if quick else 50,
        paper_runs=200, paper_episodes=50,
        ylabel="normalised RMS error, first episodes",
        runs_per_chunk=2 if quick else 100,
        cells_per_chunk=len(cells) if quick else len(lams),  # one curve per chunk
        notes=("alpha = 0.015 for every point; gamma = 1.",))


def _fig4(side: str, scale: str) -> Figure:
    quick = scale == "quick"
    env = "mountain_car" if side == "left" else "cartpole"
    gamma = GAMMA[env]
    lams = (0.0, 0.5, 0.9) if quick else LAMBDAS
    alphas = (0.0075, 0.03) if quick else ALPHAS_FIG4
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in CONTROL_METHODS for lam in lams for a in alphas)
    if side == "left":
        title = "Mountain car control, best α per λ (Fig. 4 left)"
        paper_episodes, quick_episodes = 50, 3
        # episode cap: the paper gives none; the env's default (5000) at paper scale, 500 at
        # quick scale (an untrained agent needs thousands of steps to reach the goal)
        max_steps = 500 if quick else MC_MAX_STEPS
    else:
        title = "Cart-pole, best α per λ (Fig. 4 right)"
        paper_episodes, quick_episodes = 1000, 20
        max_steps = CARTPOLE_MAX_STEPS  # the paper's cap, at both scales
    return Figure(
        name=f"fig4-{side}", scale=scale, title=title,
        task="control", env=env, x="lam", cells=cells,
        runs=2 if quick else 200, episodes=quick_episodes if quick else paper_episodes,
        paper_runs=200, paper_episodes=paper_episodes,
        ylabel="average return, first episodes",
        runs_per_chunk=2 if quick else 50,
        cells_per_chunk=len(cells) // len(CONTROL_METHODS) if quick else len(alphas),
        epsilon=EPSILON, optimise="alpha", max_steps=max_steps, truncation="bootstrap",
        notes=(f"gamma = {gamma} (see GAMMA in ftd_lib.experiments); epsilon = {EPSILON}; "
               f"eta = {ETA}; one network per action; episodes capped at {max_steps} steps.",))


def figure(name: str, scale: str = "quick", runs: int | None = None,
           episodes: int | None = None, chunk_rows: int | None = None) -> Figure:
    """The definition of a paper figure at a scale; ``runs``/``episodes`` override the counts.

    ``chunk_rows`` overrides how many rows (cells x runs) one chunk holds at most: the
    defaults suit a CPU; a GPU wants far bigger batches (e.g. 20000). Chunks of a different
    size are different chunks (they are not reused across sizes).
    """
    if name not in FIGURES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES)}, got {name!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    fig = {"fig3-left": lambda: _fig3_left(scale), "fig3-right": lambda: _fig3_right(scale),
           "fig4-left": lambda: _fig4("left", scale),
           "fig4-right": lambda: _fig4("right", scale)}[name]()
    changes = {}
    if runs is not None:
        changes["runs"] = V.check_int("runs", runs, 1)
    if episodes is not None:
        changes["episodes"] = V.check_int("episodes", episodes, 1)
    if chunk_rows is not None:
        rows = V.check_int("chunk_rows", chunk_rows, 1)
        changes["chunk_rows"] = rows
        n_runs = changes.get("runs", fig.runs)
        if rows >= n_runs:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = n_runs, rows // n_runs
        else:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = rows, 1
    if changes:
        d = {k: getattr(fig, k) for k in fig.__dataclass_fields__}
        d.update(changes)
        fig = Figure(**d)
    check_memory(fig)
    return fig


#: bytes one row (a cell times a run) costs before anything is computed: its settings, run id
#: and cell index in the chunk list and in the chunks' identities (Python lists, hashed as
#: JSON), its metric and diverged flag in the results. Measured: about 550.
ROW_BYTES = 600


def memory_estimate(fig: Figure) -> dict[str, int]:
    """Bytes a figure needs in memory, whatever the runner: ``runs`` (the per-row bookkeeping
    of every cell x run, :data:`ROW_BYTES` each) and ``episodes`` (the per-episode curves of
    every cell and of one chunk's rows, a few copies)."""
    rows = len(fig.cells) * fig.runs
    chunk = min(rows, fig.cells_per_chunk * fig.runs_per_chunk)
    return {"runs": rows * ROW_BYTES,
            "episodes": (2 * len(fig.cells) + 4 * chunk) * fig.episodes * 8}


def available_memory() -> int | None:
    """Bytes of memory available now (``MemAvailable``, else the physical memory), or None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def check_memory(fig: Figure, available: int | None = None) -> None:
    """Refuse, before any work, a figure whose run or episode count cannot fit in memory
    (instead of minutes of building chunk lists, then numpy's ArrayMemoryError)."""
    need = memory_estimate(fig)
    total = sum(need.values())
    available = available_memory() if available is None else available
    if available is None or total <= available:
        return
    what = max(need, key=need.get)  # "runs" or "episodes"
    count = fig.runs if what == "runs" else fig.episodes
    raise ValueError(
        f"--{what} {count}: {fig.name} ({len(fig.cells)} cells x {fig.runs} runs x "
        f"{fig.episodes} episodes) would need about {total / 2**30:.3g} GiB of memory, more "
        f"than the {available / 2**30:.3g} GiB available; ask for fewer {what}")


# ----------------------------------------------------------------------------- chunks


class ChunkTask(NamedTuple):
    """One chunk of rows for a runner: one method, a block of cells times a block of runs.

    Rows are cell-major: row ``i`` is cell ``cell_index[i]`` (an index into ``Figure.cells``)
    with run id ``run_ids[i]``. ``settings[i]`` = (alpha, lam, gamma, eta, k_max; 0 = no cap).
    """

    figure: str
    scale: str
    task: str
    env: str
    method: str
    cell_index: np.ndarray
    settings: np.ndarray
    run_ids: np.ndarray
    seed: int
    n_episodes: int
    epsilon: float
    max_steps: int | None = None
    truncation: str | None = None

    @property
    def rows(self) -> int:
        return len(self.run_ids)

    def identity(self, runner_name: str, device_kind: str) -> dict:
        """Everything that determines the chunk's numbers (hashed into its file name)."""
        return {
            "store_version": STORE_VERSION, "figure": self.figure, "scale": self.scale,
            "task": self.task, "env": self.env, "method": self.method,
            "settings": self.settings.tolist(), "run_ids": self.run_ids.tolist(),
            "seed": int(self.seed), "episodes": int(self.n_episodes),
            "epsilon": None if math.isnan(self.epsilon) else float(self.epsilon),
            "runner": runner_name, "device": device_kind,
            "max_steps": None if self.max_steps is None else int(self.max_steps),
            **({} if self.truncation is None else {"truncation": self.truncation}),
        }


def chunks(fig: Figure, seed: int = DEFAULT_SEED) -> list[ChunkTask]:
    """Cut a figure into chunks: per method, blocks of ``cells_per_chunk`` cells times blocks
    of ``runs_per_chunk`` runs.

    The cut depends only on the definition, never on what is stored; run blocks start at
    multiples of ``runs_per_chunk``, so asking for more runs later reuses the chunks of the
    first runs.
    """
    out = []
    for method in fig.methods:
        idx = [i for i, c in enumerate(fig.cells) if c.method == method]
        for c0 in range(0, len(idx), fig.cells_per_chunk):
            cblock = idx[c0:c0 + fig.cells_per_chunk]
            for r0 in range(0, fig.runs, fig.runs_per_chunk):
                runs = np.arange(r0, min(r0 + fig.runs_per_chunk, fig.runs), dtype=np.int64)
                cell_index = np.repeat(np.asarray(cblock, dtype=np.int64), len(runs))
                run_ids = np.tile(runs, len(cblock))
                settings = np.array([fig.cells[i].row() for i in cell_index], dtype=np.float64)
                out.append(ChunkTask(fig.name, fig.scale, fig.task, fig.env, method, cell_index,
                                     settings, run_ids, int(seed), fig.episodes, fig.epsilon,
                                     fig.max_steps, fig.truncation))
    return out


CHUNK_FIELDS = ("metric", "diverged", "cells", "curve_sum", "run_ids", "cell_index")


def chunk_problem(task: ChunkTask, data: dict) -> str | None:
    """What is inconsistent in a stored chunk's arrays for ``task`` (fields, kinds, shapes,
    its rows), or ``None``: the test :meth:`ftd_lib.store.ChunkStore.load` runs on every chunk
    (checksummed or written before checksums existed)."""
    missing = [k for k in CHUNK_FIELDS if k not in data]
    if missing:
        return f"field(s) missing: {', '.join(missing)}"
    cells = np.unique(task.cell_index)
    want = {"metric": ((task.rows,), "f"), "diverged": ((task.rows,), "b"),
            "run_ids": ((task.rows,), "iu"), "cell_index": ((task.rows,), "iu"),
            "cells": ((len(cells),), "iu"), "curve_sum": ((len(cells), task.n_episodes), "f")}
    for k, (shape, kinds) in want.items():
        if data[k].shape != shape or data[k].dtype.kind not in kinds:
            return (f"{k} is {data[k].dtype}{list(data[k].shape)}, expected shape "
                    f"{list(shape)}")
    if not (np.array_equal(data["run_ids"], task.run_ids)
            and np.array_equal(data["cell_index"], task.cell_index)
            and np.array_equal(data["cells"], cells)):
        return "its run ids or cells are not the chunk's"
    return None


def _chunk_check(task: ChunkTask):
    return lambda data: chunk_problem(task, data)


def _reduce_chunk(task: ChunkTask, out: dict) -> dict[str, np.ndarray]:
    """Runner output -> what a chunk stores: per-row metric and diverged flag, per-cell sums
    of the per-episode curve (so the stored data stays small at 1000 episodes x 200 runs)."""
    values = np.asarray(out["values"], dtype=np.float64)
    if values.shape != (task.rows, task.n_episodes):
        raise ValueError(f"runner returned values of shape {values.shape}, expected "
                         f"{(task.rows, task.n_episodes)}")
    diverged = np.asarray(out.get("diverged", np.zeros(task.rows, bool)), dtype=bool)
    if diverged.shape != (task.rows,):
        raise ValueError(f"runner returned diverged of shape {diverged.shape}, expected "
                         f"{(task.rows,)}")
    if task.task == "prediction":
        # a diverged run (or a non-finite error) is an infinite error: off the chart.
        diverged = diverged | ~np.isfinite(values).all(axis=1)
        values = np.where(diverged[:, None] & ~np.isfinite(values), np.inf, values)
        metric = np.where(diverged, np.inf, values.mean(axis=1))
    else:
        metric = values.mean(axis=1)
    cells = np.unique(task.cell_index)
    curve_sum = np.stack([values[task.cell_index == c].sum(axis=0) for c in cells])
    return {"metric": metric, "diverged": diverged, "cells": cells, "curve_sum": curve_sum,
            "run_ids": task.run_ids, "cell_index": task.cell_index}


# ----------------------------------------------------------------------------- runners

Runner = Callable[..., dict]


def runner_name(runner) -> str:
    return str(getattr(runner, "name", None) or getattr(runner, "__qualname__", "runner"))


def device_kind(device: str) -> str:
    """``cpu`` or ``cuda``: numbers from different kinds of device are kept apart."""
    return "cuda" if str(device).startswith("cuda") else "cpu"


#: figure method names (those of :mod:`ftd_lib.plots`) -> engine method names
ENGINE_METHOD = {"forward_td_lambda": "forward_td_lambda",
                 "forward_sarsa_lambda": "forward_sarsa_lambda"}
#: figure env names -> engine env names
ENGINE_ENV = {"cartpole": "cartpole"}


def engine_settings(settings: np.ndarray):
    """The chunk's settings rows as :class:`ftd_lib.engine.Settings` (k_max 0 -> no cap)."""
    from .engine import Settings

    s = np.asarray(settings, dtype=np.float64)
    k_max = [None if k == 0 else int(k) for k in s[:, 4]]
    return Settings.make(alpha=s[:, 0], lam=s[:, 1], gamma=s[:, 2], eta=s[:, 3], k_max=k_max)


def engine_runner(task: ChunkTask, *, device: str = "cpu", progress: bool = False) -> dict:
    """The default runner: :mod:`ftd_lib.engine` (batched torch, float64)."""
    from . import engine

    method = ENGINE_METHOD.get(task.method, task.method)
    kw = dict(seed=task.seed, run_ids=task.run_ids, n_episodes=task.n_episodes, device=device,
              progress=progress)
    settings = engine_settings(task.settings)
    if task.task == "prediction":
        res = engine.run_prediction(method, settings, env=task.env, **kw)
    else:
        res = engine.run_control(method, settings, env=ENGINE_ENV.get(task.env, task.env),
                                 epsilon=task.epsilon, max_steps=task.max_steps,
                                 truncation=task.truncation or "bootstrap", **kw)
    return _engine_result(res)


def _engine_result(res) -> dict:
    if isinstance(res, dict):
        values = res.get("values", res.get("errors", res.get("returns")))
        diverged = res.get("diverged")
    else:
        values = getattr(res, "values", None)
        if values is None:
            values = getattr(res, "errors", None)
        if values is None:
            values = getattr(res, "returns", None)
        diverged = getattr(res, "diverged", None)
    values = _to_numpy(values)
    diverged = np.zeros(len(values), bool) if diverged is None else _to_numpy(diverged)
    return {"values": values, "diverged": diverged.astype(bool)}


def _to_numpy(a):
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.asarray(a)


def engine_runner_name(method: str) -> str:
    """``engine-<method>-v<N>``: the engine runner's name for a method's chunks, from its
    numerics version (:data:`ftd_lib.engine.NUMERICS_VERSION`), so that moving or renaming
    code recomputes nothing while a change of numbers (a version bump) never mixes old
    chunks in."""
    from .engine import numerics_version

    return f"engine-{numerics_version(method)}"


# ----------------------------------------------------------------------------- results


@dataclass
class Results:
    """A figure's stored data: arrays plus metadata.

    Arrays: ``method``, ``curve`` (str), ``alpha``, ``lam``, ``gamma``, ``eta``, ``k_max``
    (0 = no cap) per cell; ``metric`` and ``diverged`` of shape ``(cells, runs)``;
    ``curve_mean`` of shape ``(cells, episodes)``: the per-episode value averaged over runs.
    """

    figure: str
    arrays: dict
    meta: dict
    path: Path | None = None

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def scale(self) -> str:
        return self.meta.get("scale", "?")

    @property
    def at_paper_scale(self) -> bool:
        return bool(self.meta.get("definition", {}).get("at_paper_scale", False))

    def cell_stats(self) -> dict[str, np.ndarray]:
        """Per cell: mean over runs, standard error, number of diverged runs."""
        m = self.arrays["metric"]
        n = m.shape[1]
        with np.errstate(invalid="ignore"):
            mean = m.mean(axis=1)
            se = m.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(len(m))
        se = np.where(np.isfinite(mean), se, np.inf)
        return {"mean": mean, "se": se, "n_diverged": self.arrays["diverged"].sum(axis=1)}

    def summary(self) -> dict[str, dict[str, np.ndarray]]:
        """Per curve, the plotted points: ``x``, ``y``, ``se``, ``alpha`` (the best alpha where
        the figure optimises it), ``n_diverged`` and ``cell`` (the cell index)."""
        return summarize(self)

    def plot(self, ax=None):
        return plot_results(self, ax=ax)


def summarize(res: Results) -> dict[str, dict[str, np.ndarray]]:
    a = res.arrays
    xname = res.meta["definition"]["x"]
    lower = res.meta["definition"]["task"] == "prediction"
    st = res.cell_stats()
    # non-finite means are the worst possible value when choosing the best cell
    score = np.where(np.isfinite(st["mean"]), st["mean"], np.inf if lower else -np.inf)
    out = {}
    for curve in dict.fromkeys(a["curve"].tolist()):
        idx = np.flatnonzero(a["curve"] == curve)
        xs = sorted(set(a[xname][idx].tolist()))
        best = []
        for x in xs:
            group = idx[a[xname][idx] == x]
            pick = np.argmin(score[group]) if lower else np.argmax(score[group])
            best.append(group[pick])
        best = np.asarray(best, dtype=np.int64)
        out[curve] = {"x": np.asarray(xs), "y": st["mean"][best], "se": st["se"][best],
                      "alpha": a["alpha"][best], "n_diverged": st["n_diverged"][best],
                      "cell": best, "method": a["method"][best]}
    return out


def results_paths(figure_name: str, results_dir=DEFAULT_RESULTS) -> dict[str, Path]:
    d = Path(results_dir)
    return {"npz": d / f"{figure_name}.npz", "json": d / f"{figure_name}.json",
            "png": d / f"{figure_name}.png", "chunks": d / "chunks" / figure_name}


def load_results(figure_name: str, results_dir=DEFAULT_RESULTS, scale: str | None = None
                 ) -> Results | None:
    """The stored data of a figure (arrays + metadata), or ``None`` when there is none.

    ``scale`` (``quick``/``paper``): return ``None`` unless the stored data has that scale.
    The metadata is read from inside the ``.npz`` (the ``.json`` next to it is a copy for
    people), so data and metadata always belong together.
    """
    if figure_name not in FIGURES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES)}, got {figure_name!r}")
    p = results_paths(figure_name, results_dir)["npz"]
    if not p.is_file():
        return None
    try:
        arrays = S.load_npz(p)
    except Exception as e:
        problem = f"it cannot be read ({type(e).__name__})"
    else:
        meta, problem = S.read_meta(arrays)
        if problem is None:
            problem = S.verify_checksum(arrays, meta) or results_problem(arrays, meta)
    if problem is not None:  # as if it were not there; its chunks rebuild it
        print(f"ignoring {p}: {problem}", file=sys.stderr, flush=True)
        return None
    res = Results(figure_name, arrays, meta, p)
    if scale is not None and res.scale != scale:
        return None
    return res


RESULT_FIELDS = ("method", "curve", "alpha", "lam", "gamma", "eta", "k_max", "metric",
                 "diverged", "curve_mean")


def results_problem(arrays: dict, meta: dict) -> str | None:
    """What is inconsistent in a figure's stored arrays and metadata, or ``None``."""
    missing = [k for k in RESULT_FIELDS if k not in arrays]
    if missing:
        return f"field(s) missing: {', '.join(missing)}"
    d = meta.get("definition")
    if not isinstance(d, dict) or not {"x", "task"} <= set(d):
        return "its metadata has no figure definition"
    n = arrays["method"].shape
    if len(n) != 1 or any(arrays[k].shape != n for k in RESULT_FIELDS[:7]):
        return "its per-cell fields have different lengths"
    m = arrays["metric"]
    runs = meta.get("runs", m.shape[-1] if m.ndim else None)
    episodes = meta.get("episodes", arrays["curve_mean"].shape[-1])
    if (m.shape != (n[0], runs) or arrays["diverged"].shape != m.shape
            or arrays["curve_mean"].shape != (n[0], episodes)):
        return "its metric, diverged or curve_mean has the wrong shape"
    if d["x"] not in arrays:
        return f"its x axis ({d['x']}) is not stored"
    return None


def repo_results_dir() -> Path:
    """The repository's ``results/`` folder, wherever the caller runs.

    Notebooks run inside ``notebooks/``, so the relative :data:`DEFAULT_RESULTS` would miss
    it: this is the first of the working directory and its parents that holds the ``ftd_lib``
    package, else the folder next to the installed package.
    """
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "ftd_lib" / "__init__.py").is_file():
            return d / DEFAULT_RESULTS
    return Path(__file__).resolve().parents[1] / DEFAULT_RESULTS


def scale_label(res: Results) -> str:
    """``quick scale, 2 runs × 4 episodes (paper: 200 × 50), cap 400 steps``."""
    m = res.meta
    s = f"{m.get('scale')} scale, {m.get('runs')} runs × {m.get('episodes')} episodes"
    if not res.at_paper_scale:
        s += f" (paper: {m.get('paper_runs')} × {m.get('paper_episodes')})"
    cap = m.get("definition", {}).get("max_steps")
    if cap is not None:
        s += f", cap {cap} steps"
    return s


def reproduce_command(figure_name: str, scale: str = "paper", results_dir=DEFAULT_RESULTS,
                      runs: int | None = None, seed: int | None = None,
                      device: str | None = None, chunk_rows: int | None = None,
                      episodes: int | None = None) -> str:
    """The exact shell command that computes (or resumes) a figure's data."""
    figure(figure_name, scale)  # validates the names
    cmd = f"python -m ftd_lib reproduce {figure_name} --scale {scale}"
    if runs is not None:
        cmd += f" --runs {int(runs)}"
    if episodes is not None:
        cmd += f" --episodes {int(episodes)}"
    if seed is not None and int(seed) != DEFAULT_SEED:
        cmd += f" --seed {int(seed)}"
    if str(results_dir) != DEFAULT_RESULTS:
        cmd += f" --out {results_dir}"
    if device and device != "cpu":
        cmd += f" --device {device}"
    if chunk_rows is not None:
        cmd += f" --chunk-rows {int(chunk_rows)}"
    return cmd


def missing_message(figure_name: str, results_dir=DEFAULT_RESULTS) -> str:
    """What a notebook prints when a figure's data is not there yet."""
    return (f"No stored data for {figure_name} in {results_dir}/. Compute it with\n"
            f"    {reproduce_command(figure_name, 'paper', results_dir)}\n"
            f"(hours on a CPU; resumable) or, in seconds at quick scale,\n"
            f"    {reproduce_command(figure_name, 'quick', results_dir)}")


# ----------------------------------------------------------------------------- running


class ScaleConflict(RuntimeError):
    """Refusing to overwrite paper-scale data with a smaller run."""


def run_figure(fig: Figure, out=DEFAULT_RESULTS, *, seed: int = DEFAULT_SEED,
               runner: Runner | None = None, device: str = "cpu", progress: bool = True,
               plot: bool = True, force: bool = False, command: str | None = None,
               workers: int = 1, threads: int = 1) -> Results:
    """Compute (or resume) a figure, store its data, metadata and PNG under ``out``.

    Finished chunks found in ``out/chunks/<figure>/`` are loaded, the others computed and
    stored one by one -- in this process (``workers=1``) or in ``workers`` processes at once
    (each with ``threads`` torch threads; a worker computes one chunk at a time and stores it
    atomically). The figure is then assembled from the stored chunks in their fixed order, so
    the numbers never depend on ``workers`` nor on which chunks were loaded (tested).
    Interrupting (Ctrl-C, kill -9) loses at most the chunks in progress; calling again with
    the same arguments resumes. Writes ``out/<figure>.npz`` (arrays + metadata),
    ``out/<figure>.json`` (metadata) and ``out/<figure>.png``.

    Refuses (:class:`ScaleConflict`) to replace paper-scale data in ``out`` with data below
    paper scale unless ``force``.
    """
    seed = V.check_int("seed", seed, 0)
    workers = V.check_int("workers", workers, 1)
    threads = V.check_int("threads", threads, 1)
    if runner is None or runner is engine_runner:  # (another runner reads device its way)
        V.check_device(device)  # e.g. cuda without a GPU: before any work, not in a worker
    paths = results_paths(fig.name, out)
    S.check_writable_dir(out, "out")  # before any work: hours may go into the first chunk
    S.check_writable_dir(paths["chunks"], "out")
    if not force and not fig.at_paper_scale:
        old = load_results(fig.name, out)
        if old is not None and old.at_paper_scale:
            raise ScaleConflict(
                f"{paths['npz']} holds paper-scale data; refusing to overwrite it with a "
                f"{fig.scale}-scale run ({fig.runs} runs, {fig.episodes} episodes). Use another "
                f"--out directory or --force.")
    if runner is None:
        runner = engine_runner
    def rname(method):
        return runner_name(runner) if runner is not engine_runner else engine_runner_name(method)
    dkind = device_kind(device)
    cstore = S.ChunkStore(paths["chunks"])
    cstore.sweep_temp()
    tasks = chunks(fig, seed)
    idents = [task.identity(rname(task.method), dkind) for task in tasks]
    t0 = time.time()
    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    # (arrays, meta) or None; a damaged or inconsistent chunk is None (recomputed), named once
    done: list = S.load_chunks(cstore, idents, [_chunk_check(t) for t in tasks])
    n_loaded = sum(d is not None for d in done)
    todo = [i for i, d in enumerate(done) if d is None]
    here = S.machine_description(device)
    here = {k: here[k] for k in ("cpu", "cpu_count", "device_name", "platform")}
    bar = _tqdm(total=sum(t.rows for t in tasks), desc=f"{fig.name} ({fig.scale})",
                unit="row", disable=not progress)
    bar.update(sum(tasks[i].rows for i, d in enumerate(done) if d is not None))
    n_done = n_loaded

    def finished(k):  # the k-th chunk to compute is stored
        nonlocal n_done
        n_done += 1
        bar.update(tasks[todo[k]].rows)
        bar.set_postfix(chunks=f"{n_done}/{len(tasks)}", cached=n_loaded)

    jobs = [(cstore.root, tasks[i], idents[i], runner, device, here) for i in todo]
    try:
        if int(workers) == 1 or len(todo) <= 1:
            # per-episode bars from the engine only at paper scale (quick chunks take
            # seconds; their bars would only clutter the output)
            inner = progress and fig.scale == "paper"
            for k, job in enumerate(jobs):
                _compute_chunk(job, progress=inner)
                finished(k)
        else:
            _compute_in_processes(jobs, min(int(workers), len(jobs)), threads, finished)
    finally:
        bar.close()
    for i in todo:  # everything is assembled from the store, in the chunk order
        done[i] = cstore.load(idents[i], _chunk_check(tasks[i]))
        if done[i] is None:
            raise RuntimeError(f"chunk {i} of {fig.name} was computed but cannot be read back "
                               f"from {cstore.root}")
    compute_s = sum(float(m.get("compute_s", 0.0)) for _, m in done)
    machines: list[dict] = []
    for _, m in done:
        if m.get("machine") and m["machine"] not in machines:
            machines.append(m["machine"])
    arrays = _assemble(fig, tasks, [d for d, _ in done])
    default = figure(fig.name, fig.scale)
    meta = {
        "figure": fig.name, "title": fig.title, "scale": fig.scale, "seed": int(seed),
        "runs": fig.runs, "episodes": fig.episodes, "paper_runs": fig.paper_runs,
        "paper_episodes": fig.paper_episodes, "at_paper_scale": fig.at_paper_scale,
        "definition": fig.describe(),
        "chunks": {"total": len(tasks), "loaded": n_loaded, "computed": len(tasks) - n_loaded},
        "compute_s": compute_s, "elapsed_s": time.time() - t0,
        "started": started,
        "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "runner": sorted({rname(m) for m in fig.methods}), "device": device, "git": S.git_commit(),
        "machine": S.machine_description(device), "machines_used": machines,
        "ftd_lib_version": __version__,
        "command": command or reproduce_command(
            fig.name, fig.scale, out, runs=None if fig.runs == default.runs else fig.runs,
            seed=seed, device=device, chunk_rows=fig.chunk_rows,
            episodes=None if fig.episodes == default.episodes else fig.episodes),
    }
    meta["checksum"] = S.arrays_checksum(arrays)
    S.save_npz_atomic(paths["npz"], __meta__=np.array(json.dumps(meta, default=S._jsonable)),
                      **arrays)
    S.atomic_write_json(paths["json"], meta)
    res = Results(fig.name, arrays, meta, paths["npz"])
    if plot:
        save_plot(res, paths["png"])
    return res


def _compute_chunk(job, progress: bool = False) -> None:
    """Compute one chunk with its runner and store it atomically (in a worker or in place)."""
    root, task, ident, runner, device, here = job
    tc = time.time()
    raw = runner(task, device=device, progress=progress)
    data = _reduce_chunk(task, raw)
    cmeta = {"compute_s": time.time() - tc, "device": device, "finished": time.time(),
             "machine": here}
    S.ChunkStore(root).save(ident, data, cmeta)


def _init_worker(threads: int) -> None:
    """A worker process: Ctrl-C is the parent's to handle (it stops the workers), and torch
    gets ``threads`` threads (one per worker: more threads than free cores slow torch down)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["OMP_NUM_THREADS"] = str(int(threads))
    import torch

    torch.set_num_threads(int(threads))


def _compute_in_processes(jobs, workers: int, threads: int, finished) -> None:
    """Compute ``jobs`` in ``workers`` fresh ("spawn") processes, calling ``finished(k)`` as
    job ``k`` is stored. On any exception (Ctrl-C included) the workers are stopped at once:
    the chunks they were computing are lost (never half-written), the stored ones stay."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(threads,))
    try:
        for k in pool.imap_unordered(_compute_job, list(enumerate(jobs))):
            finished(k)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _compute_job(numbered_job) -> int:
    k, job = numbered_job
    _compute_chunk(job)
    return k


def _assemble(fig: Figure, tasks: list[ChunkTask], done: list[dict]) -> dict[str, np.ndarray]:
    """Chunks -> the figure's arrays, in a fixed order (so the result never depends on which
    chunks were loaded and which computed)."""
    n = len(fig.cells)
    metric = np.full((n, fig.runs), np.nan)
    diverged = np.zeros((n, fig.runs), dtype=bool)
    curve_sum = np.zeros((n, fig.episodes))
    for _task, data in zip(tasks, done, strict=True):
        metric[data["cell_index"], data["run_ids"]] = data["metric"]
        diverged[data["cell_index"], data["run_ids"]] = data["diverged"]
        for c, s in zip(data["cells"], data["curve_sum"], strict=True):
            curve_sum[c] += s
    cells = fig.cells
    return {
        "method": np.array([c.method for c in cells]),
        "curve": np.array([c.curve for c in cells]),
        "alpha": np.array([c.alpha for c in cells]),
        "lam": np.array([c.lam for c in cells]),
        "gamma": np.array([c.gamma for c in cells]),
        "eta": np.array([c.eta for c in cells]),
        "k_max": np.array([c.k_max or 0 for c in cells], dtype=np.int64),
        "metric": metric, "diverged": diverged, "curve_mean": curve_sum / fig.runs,
    }


def _tqdm(**kw):
    from tqdm.auto import tqdm

    return tqdm(file=sys.stderr, **kw)


# ----------------------------------------------------------------------------- plotting

_CURVE_STYLE = {  # Fig. 3 right: one method, one line per eta
    "η = 0.01": dict(color="#ff7f0e", ls="-"),
    "η = 0.1": dict(color="#1f77b4", ls="-"),
    "η = 0.3": dict(color="#2ca02c", ls="-"),
    "η = 0.01, K_max = 50": dict(color="#d62728", ls="--"),
}


def plot_results(res: Results, ax=None):
    """Draw a stored figure in the course style. Diverged points are off the chart (▲)."""
    from .plots import new_axes, plot_off_chart, style

    d = res.meta["definition"]
    if ax is None:
        fig, ax = new_axes()
    else:
        fig = ax.figure
    summ = summarize(res)
    title = d["title"]
    if not res.at_paper_scale:
        m = res.meta
        title += (f"\n[below paper scale: {m['runs']} of {m['paper_runs']} runs, "
                  f"{m['episodes']} of {m['paper_episodes']} episodes]")
    ax.set_title(title)
    xlabel = "step size α" if d["x"] == "alpha" else "λ"
    if d["optimise"]:
        xlabel += " (best α per point)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel(d["ylabel"].replace("first episodes", f"first {res.meta['episodes']} episodes"))
    if d["task"] == "prediction":
        finite = np.concatenate([s["y"][np.isfinite(s["y"])] for s in summ.values()])
        top = float(finite.max()) * 1.05 if finite.size else 1.0
        ymax = min(max(top, 0.1), 1.5)  # above 1.5x the initial error: off the chart
        for curve, s in summ.items():
            kw = _CURVE_STYLE.get(curve) or style(curve)
            kw = dict(kw, label=kw.get("label", curve), marker="o", ms=4)
            plot_off_chart(ax, s["x"], s["y"], ymax, **kw)
        ax.set_ylim(bottom=0)
    else:
        # returns: higher is better, so a point whose every alpha diverged is drawn off the
        # chart at the *bottom* (▼), never left out
        finite = np.concatenate([s["y"][np.isfinite(s["y"])] for s in summ.values()])
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        pad = 0.08 * (hi - lo) if hi > lo else max(1.0, 0.1 * abs(hi))
        edge = lo - pad  # the bottom of the axes
        pinned = edge - 0.5 * pad  # just below it, like plot_off_chart's top
        any_off = False
        for curve, s in summ.items():
            kw = dict(style(curve), marker="o", ms=4)
            off = ~np.isfinite(s["y"])
            y = np.where(off, pinned, s["y"])
            (line,) = ax.plot(s["x"], y, **kw)
            se = np.where(np.isfinite(s["se"]) & ~off, s["se"], 0.0)
            ax.fill_between(s["x"], y - se, y + se, color=line.get_color(), alpha=0.15, lw=0)
            if off.any():
                any_off = True
                ax.plot(s["x"][off], y[off], ls="none", marker="v", ms=8,
                        color=line.get_color(), clip_on=False)
        ax.set_ylim(bottom=edge)
        if any_off:
            from matplotlib.lines import Line2D

            handles, _ = ax.get_legend_handles_labels()
            handles.append(Line2D([], [], ls="none", marker="v", ms=8, color="0.3",
                                  label="every α diverged"))
            ax.legend(handles=handles, loc="best")
    if d["x"] == "alpha":
        from matplotlib.ticker import FuncFormatter, LogLocator

        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    if ax.get_legend() is None:
        ax.legend(loc="best")
    fig.tight_layout()
    return fig, ax


def plot_stored_and_live(stored_res, live_res, figure_name: str,
                         results_dir=DEFAULT_RESULTS):
    """Two panels: the stored figure (or, when there is none, the command that makes it) and
    the live run. Returns the matplotlib figure."""
    import matplotlib.pyplot as plt

    from .plots import use_style

    use_style()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(14.0, 4.9))
    if stored_res is not None:
        plot_results(stored_res, ax=a1)
        a1.set_title(f"stored: {scale_label(stored_res)}", fontsize=12)
    else:
        a1.axis("off")
        a1.text(0.5, 0.5, f"no stored data for {figure_name} yet\n\ncompute it with\n"
                f"{reproduce_command(figure_name, 'paper', results_dir)}",
                ha="center", va="center", fontsize=12, family="monospace",
                transform=a1.transAxes)
    plot_results(live_res, ax=a2)
    a2.set_title(f"live: {scale_label(live_res)}", fontsize=12)
    fig.suptitle(figure(figure_name, "paper").title, fontsize=14)
    fig.tight_layout()
    return fig


def save_plot(res: Results, path) -> Path:
    """Render the figure to PNG and write it atomically.

    Uses a bare :class:`matplotlib.figure.Figure` (Agg canvas, no pyplot), so it neither needs
    a display nor touches a notebook's figures or backend.
    """
    import io

    import matplotlib as mpl
    from matplotlib.figure import Figure as MplFigure

    from .plots import RC

    with mpl.rc_context(RC):
        fig = MplFigure(figsize=RC["figure.figsize"])
        plot_results(res, ax=fig.subplots())
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=RC["savefig.dpi"])
    return S.atomic_write_bytes(path, buf.getvalue())


def reproduce(names, scale: str = "quick", *, runs: int | None = None, seed: int = DEFAULT_SEED,
              out=DEFAULT_RESULTS, device: str = "cpu", runner: Runner | None = None,
              progress: bool = True, force: bool = False, plot: bool = True,
              workers: int = 1, threads: int = 1) -> dict[str, Results]:
    """Run several figures (``"all"`` or a list of names) one after another."""
    if isinstance(names, str):
        names = FIGURES if names == "all" else (names,)
    return {n: run_figure(figure(n, scale, runs=runs), out, seed=seed, runner=runner,
                          device=device, progress=progress, force=force, plot=plot,
                          workers=workers, threads=threads)
            for n in names}
