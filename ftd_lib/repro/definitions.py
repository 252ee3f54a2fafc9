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

from .. import validate
from ..envs import tasks
from ..methods import method as method_record
from .cells import EPSILON, ETA, Cell, Figure, _geom

FIGURES = ("fig3-left", "fig3-right", "fig4-left", "fig4-right")
#: studies beyond the paper's figures: made, stored and reported the same way, not in "all"
#: (claim5-study: ftd_lib.repro.study)
STUDIES = ("block-lambda", "claim5-study")
SCALES = ("quick", "paper")
DEFAULT_SEED = 2016
#: the methods of each figure (ids of :mod:`ftd_lib.methods`), named here: a method added to
#: the table of methods joins no figure until it is listed here (or by ``--set methods=...``)
FIG3_LEFT_METHODS = ("td_lambda", "forward_td_lambda", "online_lambda_return",
                     "offline_lambda_return")
FIG3_RIGHT_METHODS = ("forward_td_lambda",)
FIG4_METHODS = ("sarsa_lambda", "forward_sarsa_lambda")
#: the task (environment) of each figure (:mod:`ftd_lib.envs.tasks`)
TASK_OF = {"fig3-left": "mountain_car", "fig3-right": "mountain_car",
           "fig4-left": "mountain_car", "fig4-right": "cartpole"}

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


def _fig3_left(scale: str) -> Figure:
    quick = scale == "quick"
    alphas = (0.0075, 0.015, 0.03) if quick else ALPHAS_FIG3
    env = TASK_OF["fig3-left"]
    lam, gamma = 0.9, tasks.gamma(env)
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in FIG3_LEFT_METHODS for a in alphas)
    return Figure(
        name="fig3-left", scale=scale,
        title="Mountain car evaluation, λ = 0.9 (Fig. 3 left)",
        task="prediction", env=env, x="alpha", cells=cells,
        # quick: 3 episodes, since the online lambda-return costs T^2/2 updates an episode
        runs=2 if quick else 50, episodes=3 if quick else 50,
        paper_runs=50, paper_episodes=50,
        ylabel="normalised RMS error, first episodes",
        runs_per_chunk=2 if quick else 50, cells_per_chunk=len(alphas) if quick else 5,
        notes=("eta = 0.01 for forward TD(λ); gamma = 1.",))


def _fig3_right(scale: str) -> Figure:
    quick = scale == "quick"
    lams = (0.0, 0.5, 0.9) if quick else LAMBDAS_FIG3_RIGHT
    env = TASK_OF["fig3-right"]
    gamma = tasks.gamma(env)
    curves = [("η = 0.01", 0.01, None), ("η = 0.1", 0.1, None), ("η = 0.3", 0.3, None),
              ("η = 0.01, K_max = 50", 0.01, 50)]
    cells = tuple(Cell(m, ALPHA_FIG3_RIGHT, lam, gamma, eta, k, curve=name)
                  for m in FIG3_RIGHT_METHODS for name, eta, k in curves for lam in lams)
    return Figure(
        name="fig3-right", scale=scale,
        title="Forward TD(λ) on mountain car evaluation, α = 0.015 (Fig. 3 right)",
        task="prediction", env=env, x="lam", cells=cells,
        runs=2 if quick else 200, episodes=5 if quick else 50,
        paper_runs=200, paper_episodes=50,
        ylabel="normalised RMS error, first episodes",
        runs_per_chunk=2 if quick else 100,
        cells_per_chunk=len(cells) if quick else len(lams),  # one curve per chunk
        notes=("alpha = 0.015 for every point; gamma = 1.",))


def _fig4(side: str, scale: str) -> Figure:
    quick = scale == "quick"
    env = TASK_OF[f"fig4-{side}"]
    gamma = tasks.gamma(env)
    lams = (0.0, 0.5, 0.9) if quick else LAMBDAS
    alphas = (0.0075, 0.03) if quick else ALPHAS_FIG4
    cells = tuple(Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in FIG4_METHODS for lam in lams for a in alphas)
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
        runs_per_chunk=2 if quick else 50, cells_per_chunk=len(cells) // len(FIG4_METHODS),
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
           variant: str | None = None, grid: dict | None = None) -> Figure:
    """The definition of a paper figure at a scale; ``runs``/``episodes`` override the counts.

    ``variant`` (Fig. 4 left only): the figure under one set-up variant of the claim-5 study
    (:data:`ftd_lib.repro.study.VARIANTS`); its chunks name the variant, so they never mix
    with the figure's own.

    ``chunk_rows`` overrides how many rows (cells x runs) one chunk holds at most: the
    defaults suit a CPU; a GPU wants far bigger batches (e.g. 20000). Chunks of a different
    size are different chunks (they are not reused across sizes). ``grid`` (e.g.
    ``{"alphas": (0.001, 0.002)}``, the command line's ``--set``, :func:`parse_sets`) rebuilds
    the cells on other methods, step sizes or lambdas (:func:`with_grid`).
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
    if grid:
        fig = with_grid(fig, **grid)
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


# ----------------------------------------------------------------------------- --set


#: what ``--set KEY=V1,V2,...`` may change in a figure's definition (:func:`with_grid`)
GRID_KEYS = ("methods", "alphas", "lams")


def _number(text: str) -> str:
    """A number as the command line writes it: the shortest form that reads back the same."""
    v = float(text)
    return f"{v:g}" if float(f"{v:g}") == v else repr(v)


def parse_sets(items) -> dict[str, tuple]:
    """``["alphas=0.001,0.002", "lams=0,0.5"]`` (the ``--set`` options) -> ``{"alphas": (0.001,
    0.002), "lams": (0.0, 0.5)}``; a bad item raises ``ValueError`` naming ``--set`` and it.
    The values are checked against a figure by :func:`with_grid`."""
    out: dict[str, tuple] = {}
    for item in items or ():
        key, eq, text = str(item).partition("=")
        key = key.strip()
        if not eq or key not in GRID_KEYS:
            raise ValueError(f"--set {item}: expected KEY=V1,V2,... with KEY one of "
                             f"{', '.join(GRID_KEYS)}")
        if key in out:
            raise ValueError(f"--set {item}: {key} is set twice")
        values = [v.strip() for v in text.split(",")]
        if not all(values):
            raise ValueError(f"--set {item}: an empty value")
        if key != "methods":
            try:
                values = [float(v) for v in values]
            except ValueError:
                raise ValueError(f"--set {item}: {key} must be numbers") from None
        out[key] = tuple(values)
    return out


def format_sets(overrides) -> str:
    """The ``--set`` options that give ``overrides`` (``Figure.overrides`` or a dict), e.g.
    ``" --set alphas=0.001,0.002 --set lams=0,0.5"`` ("" for none)."""
    items = overrides.items() if isinstance(overrides, dict) else overrides
    return "".join(
        f" --set {k}=" + ",".join(v if k == "methods" else _number(str(v)) for v in vals)
        for k, vals in sorted(items))


def _check_grid(fig: Figure, key: str, values) -> tuple:
    def bad(why):
        return ValueError(f"--set {key}={','.join(map(str, values))}: {why}")

    if not values:
        raise bad("no values")
    if key == "methods":
        for m in values:
            try:
                rec = method_record(m)
            except ValueError as e:
                raise bad(str(e)) from None
            if rec.kind != fig.task:
                raise bad(f"{fig.name} is a {fig.task} figure; {m} is a {rec.kind} method")
            if rec.numerics is None:
                raise bad(f"{m} runs in no engine (it has only a per-run reference)")
        return tuple(dict.fromkeys(values))
    check = validate.check_alpha if key == "alphas" else (
        lambda v: validate.check_unit("lams", v))
    try:
        return tuple(sorted({check(v) for v in values}))
    except ValueError as e:
        raise bad(str(e)) from None


def with_grid(fig: Figure, *, methods=None, alphas=None, lams=None) -> Figure:
    """``fig`` with its cells rebuilt on other ``methods``, step sizes ``alphas`` or ``lams``
    (each ``None``: the figure's own): every curve of the figure (method, eta, K_max) that
    belongs to one of the methods (with its gamma and set-up variant; in the order of
    ``methods`` when given) -- a method new to the figure gets one curve of its own, eta =
    :data:`ETA`, no K_max -- times every lambda times every alpha, in that order. A
    chunk holds the same share of the grid as before (one method's cells, one curve's, or the
    same count). Bad values raise ``ValueError`` naming ``--set``. The changes are recorded
    in ``overrides``."""
    asked = {k: v for k, v in (("methods", methods), ("alphas", alphas), ("lams", lams))
             if v is not None}
    if not asked:
        return fig
    asked = {k: _check_grid(fig, k, tuple(v)) for k, v in asked.items()}
    methods = asked.get("methods", tuple(fig.methods))
    alphas = asked.get("alphas", tuple(sorted({c.alpha for c in fig.cells})))
    lams = asked.get("lams", tuple(sorted({c.lam for c in fig.cells})))
    # a curve: its method, name, eta, K_max, gamma and set-up variant (the claim-5 study)
    curves = list(dict.fromkeys((c.method, c.curve, c.eta, c.k_max, c.gamma, c.variant)
                                for c in fig.cells if c.method in methods))
    gamma = fig.cells[0].gamma
    curves += [(m, m, ETA, None, gamma, "") for m in methods if m not in fig.methods]
    if "methods" in asked:  # the methods' order, stable within one
        curves.sort(key=lambda c: methods.index(c[0]))
    cells = tuple(Cell(m, a, lam, g, eta, k, curve=curve, variant=v)
                  for m, curve, eta, k, g, v in curves for lam in lams for a in alphas)

    def per(attr, cs):  # cells of one method (or one curve) of a cell list
        return max(sum(getattr(c, attr) == getattr(x, attr) for c in cs) for x in cs)

    chunk = fig.cells_per_chunk
    if chunk == per("method", fig.cells):
        chunk = per("method", cells)
    elif chunk == per("curve", fig.cells):
        chunk = per("curve", cells)
    overrides = dict(fig.overrides) | asked
    return Figure(**{**{k: getattr(fig, k) for k in fig.__dataclass_fields__},
                     "cells": cells, "cells_per_chunk": chunk,
                     "overrides": tuple(sorted(overrides.items()))})


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
