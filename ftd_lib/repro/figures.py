r"""One definition per paper figure (Figs. 3 and 4 of van Seijen, 2016, Sec. 6): what to compute
at ``quick`` or ``paper`` scale and how to cut it into chunks (:mod:`ftd_lib.repro.chunks`).

A figure is a list of *cells* -- one setting of (method, :math:`\alpha`, :math:`\lambda`,
:math:`\gamma`, :math:`\eta`, :math:`K_{max}`) -- each run ``runs`` times with run ids
``0 .. runs-1`` (see :mod:`ftd_lib.repro` for the scales and the metrics). :math:`\gamma` and
the episode caps come from the task registry (:mod:`ftd_lib.envs.tasks`); the grids, the
exploration and :math:`\eta` are set here, each with the reason for its value.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .. import validate
from ..envs import tasks
from ..methods import CONTROL

FIGURES = ("fig3-left", "fig3-right", "fig4-left", "fig4-right")
#: studies beyond the paper's figures: made, stored and reported the same way, not in "all"
#: (claim5-study: ftd_lib.repro.study)
STUDIES = ("block-lambda", "claim5-study")
SCALES = ("quick", "paper")
DEFAULT_SEED = 2016
#: the four methods of Fig. 3 left (ids of :mod:`ftd_lib.methods`); Fig. 4 has both control
#: methods (:data:`ftd_lib.methods.CONTROL`)
FIG3_LEFT_METHODS = ("td_lambda", "forward_td_lambda", "online_lambda_return",
                     "offline_lambda_return")

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

# gamma and the episode caps of the two tasks: the task registry, ftd_lib.envs.tasks


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

    ``curve`` is the line of the figure the cell belongs to; ``k_max = None`` means no cap;
    ``variant`` names a set-up variant of ``Figure.variants`` ("": the figure's own set-up).
    """

    method: str
    alpha: float
    lam: float
    gamma: float
    eta: float = ETA
    k_max: int | None = None
    curve: str = ""
    variant: str = ""

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
    # set-up variants of the cells (name -> spec: hidden, inputs, start, init and, overriding
    # the figure's, epsilon, max_steps, truncation); see ftd_lib.repro.study
    variants: dict = field(default_factory=dict)
    # cell counts at which cells were appended (a widening of the step-size grid,
    # ftd_lib.repro.protocol): the cells of each such segment get chunks of their own
    appended_at: tuple[int, ...] = ()

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
    lam, gamma = 0.9, tasks.gamma("mountain_car")
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in FIG3_LEFT_METHODS for a in alphas)
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
    gamma = tasks.gamma("mountain_car")
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
    gamma = tasks.gamma(env)
    lams = (0.0, 0.5, 0.9) if quick else LAMBDAS
    alphas = (0.0075, 0.03) if quick else ALPHAS_FIG4
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in CONTROL for lam in lams for a in alphas)
    if side == "left":
        title = "Mountain car control, best α per λ (Fig. 4 left)"
        paper_episodes, quick_episodes = 50, 3
        # episode cap: the paper gives none; the env's default (5000) at paper scale, 500 at
        # quick scale (an untrained agent needs thousands of steps to reach the goal)
        max_steps = 500 if quick else tasks.task(env).max_steps
    else:
        title = "Cart-pole, best α per λ (Fig. 4 right)"
        paper_episodes, quick_episodes = 1000, 20
        max_steps = tasks.task(env).max_steps  # the paper's cap, at both scales
    return Figure(
        name=f"fig4-{side}", scale=scale, title=title,
        task="control", env=env, x="lam", cells=cells,
        runs=2 if quick else 200, episodes=quick_episodes if quick else paper_episodes,
        paper_runs=200, paper_episodes=paper_episodes,
        ylabel="average return, first episodes",
        # a chunk holds every cell of a method (x 50 runs): a long queue keeps the engine's
        # batch full, and the slow tails of the runs that learn overlap in one batch
        runs_per_chunk=2 if quick else 50, cells_per_chunk=len(cells) // len(CONTROL),
        epsilon=EPSILON, optimise="alpha", max_steps=max_steps, truncation="bootstrap",
        notes=(f"gamma = {gamma} (see ftd_lib.envs.tasks); epsilon = {EPSILON}; "
               f"eta = {ETA}; one network per action; episodes capped at {max_steps} steps.",))


#: block lengths B of the block lambda-return study (:func:`_block_lambda`): shorter than
#: forward TD(lambda)'s K = 44 (lambda = 0.9, eta = 0.01), equal to it, and 128 (PPO's
#: smallest common rollout), longer than every episode of the task (83-115 steps): one block
#: per episode, i.e. the offline lambda-return algorithm (1024 or 2048 would be the same).
BLOCKS = (4, 16, 44, 128)


def _block_lambda(scale: str) -> Figure:
    """The block lambda-return method (PPO's value update: GAE targets over blocks of B steps,
    :func:`ftd_lib.algorithms.block_lambda_return`) beside forward TD(lambda) and TD(lambda)
    on Fig. 3 left's task and metric. A cell's ``k_max`` is its block length B."""
    quick = scale == "quick"
    alphas = (0.003, 0.01, 0.03) if quick else ALPHAS_FIG3
    blocks = (16, 128) if quick else BLOCKS
    lam, gamma = 0.9, tasks.gamma("mountain_car")
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in ("td_lambda", "forward_td_lambda") for a in alphas)
    cells += tuple(Cell("block_lambda_return", a, lam, gamma, ETA, b, curve=f"block, B = {b}")
                   for b in blocks for a in alphas)
    return Figure(
        name="block-lambda", scale=scale,
        title="Block λ-return (PPO's value update) on mountain car evaluation, λ = 0.9",
        task="prediction", env="mountain_car", x="alpha", cells=cells,
        runs=2 if quick else 50, episodes=5 if quick else 50,
        paper_runs=50, paper_episodes=50,
        ylabel="normalised RMS error, first episodes",
        runs_per_chunk=2 if quick else 50, cells_per_chunk=len(alphas) if quick else 5,
        notes=("Fig. 3 left's task, metric, runs and step sizes; eta = 0.01 for forward "
               "TD(λ) (K = 44); block λ-return: values frozen over B steps, then one pass of "
               "semi-gradient steps toward the block's GAE targets in time order; a block "
               "closes at the episode's end (bootstrap 0); gamma = 1.",))


def figure(name: str, scale: str = "quick", runs: int | None = None,
           episodes: int | None = None, chunk_rows: int | None = None,
           variant: str | None = None) -> Figure:
    """The definition of a paper figure at a scale; ``runs``/``episodes`` override the counts.

    ``variant`` (Fig. 4 left only): the figure under one set-up variant of the claim-5 study
    (:data:`ftd_lib.repro.study.VARIANTS`); its chunks name the variant, so they never mix
    with the figure's own.

    ``chunk_rows`` overrides how many rows (cells x runs) one chunk holds at most: the
    defaults suit a CPU; a GPU wants far bigger batches (e.g. 20000). Chunks of a different
    size are different chunks (they are not reused across sizes).
    """
    if name not in FIGURES + STUDIES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES + STUDIES)}, got {name!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if name == "claim5-study":
        from .study import study_figure

        fig = study_figure(scale)
    else:
        fig = {"fig3-left": lambda: _fig3_left(scale),
               "fig3-right": lambda: _fig3_right(scale),
               "fig4-left": lambda: _fig4("left", scale),
               "fig4-right": lambda: _fig4("right", scale),
               "block-lambda": lambda: _block_lambda(scale)}[name]()
    changes = {}
    if runs is not None:
        changes["runs"] = validate.check_int("runs", runs, 1)
    if episodes is not None:
        changes["episodes"] = validate.check_int("episodes", episodes, 1)
    if chunk_rows is not None:
        rows = validate.check_int("chunk_rows", chunk_rows, 1)
        changes["chunk_rows"] = rows
        n_runs = changes.get("runs", fig.runs)
        if rows >= n_runs:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = n_runs, rows // n_runs
        else:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = rows, 1
    if variant is not None:
        changes.update(_under_variant(fig, variant))
    if changes:
        d = {k: getattr(fig, k) for k in fig.__dataclass_fields__}
        d.update(changes)
        fig = Figure(**d)
    check_memory(fig)
    return fig


def _under_variant(fig: Figure, name: str) -> dict:
    """What changes in Fig. 4 left under a set-up variant of the claim-5 study."""
    from dataclasses import replace

    from .study import variant

    if fig.name != "fig4-left":
        raise ValueError(f"variant: only fig4-left has set-up variants, got figure {fig.name!r}")
    v = variant(name)
    return {"cells": tuple(replace(c, gamma=v.gamma, variant=v.name) for c in fig.cells),
            "variants": {v.name: v.spec(fig.max_steps)},
            "title": f"{fig.title} — set-up variant: {v.name}",
            "notes": fig.notes + (f"set-up variant {v.name!r} (ftd_lib.repro.study): "
                                  f"{v.change}.",)}


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


def check_memory(fig: Figure, available: int | None = None) -> None:
    """Refuse, before any work, a figure whose run or episode count cannot fit in memory
    (instead of minutes of building chunk lists, then numpy's ArrayMemoryError)."""
    need = memory_estimate(fig)
    total = sum(need.values())
    available = validate.available_memory() if available is None else available
    if available is None or total <= available:
        return
    what = max(need, key=need.get)  # "runs" or "episodes"
    count = fig.runs if what == "runs" else fig.episodes
    raise ValueError(
        f"--{what} {count}: {fig.name} ({len(fig.cells)} cells x {fig.runs} runs x "
        f"{fig.episodes} episodes) would need about {total / 2**30:.3g} GiB of memory, more "
        f"than the {available / 2**30:.3g} GiB available; ask for fewer {what}")
