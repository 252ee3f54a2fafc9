r"""What a chunk costs, before it runs: run-steps and seconds (the plan,
:mod:`ftd_lib.repro.planning.plan`). A *run-step* is one environment step of one run, its
updates included.

- **How many run-steps** (:func:`row_steps`). Prediction (Fig. 3): the evaluation policy is
  fixed, so an episode takes :func:`evaluation_episode_steps` steps whatever the method.
  Control: as many as the agent needs, which depends on what it learns (a mountain car run
  that never reaches the goal costs ~10x one that learns): from the stored chunks' own
  ``run_steps`` and the stored figures' returns (:func:`control_history`, the pilot's in
  ``<out>/pilot/`` first), else the task's stored first episodes (:func:`early_steps`), else
  a guess said in the plan.
- **How many seconds** (:class:`Rates`, measured by :mod:`~ftd_lib.repro.planning.calibrate`).
  A prediction chunk is one torch batch in lockstep: ``E * ipe * (a + b * B)`` for ``B`` rows
  and ``E`` episodes (``ipe`` batch iterations an episode: ~T for TD(lambda), 2T for the
  offline lambda-return, T^2/2 for the online one). A control chunk runs in the engine of
  :func:`chunk_engine` at its ``(a, b)``: seconds per batch iteration and per run-step. Every
  chunk also costs ``chunk_s``, every stage of worker processes ``worker_start_s``.

:class:`Costing` puts them together for a :class:`ftd_lib.repro.chunks.ChunkTask`.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from ...envs import tasks as task_registry
from .rates import (  # noqa: F401  (the rates, re-exported: the planners price with them)
    CALIBRATION_FRESH_S,
    DEFAULT_RATES,
    NO_CALIBRATION,
    Rates,
    calibration_code,
    engine_key,
    fresh_rates,
    machine_rates,
    rates_path,
    save_rates,
)

#: steps an episode when nothing is stored about a control task (median of a cell's average
#: over the paper-scale runs stored under results/ when this was written: mountain car about
#: 3300 over the first 50 episodes, cart-pole about 100 over the first 1000); capped at the
#: episode cap
PRIOR_STEPS = {"mountain_car": 3300.0, "cartpole": 100.0}
#: where the committed results live (the history every plan may read)
REPO_RESULTS = Path(__file__).resolve().parents[3] / "results"
#: the committed stores whose chunks' metadata say what runs took (:func:`stored_step_seconds`)
COMMITTED_STORES = (REPO_RESULTS, REPO_RESULTS / "pilot")


# ----------------------------------------------------------------------------- run-steps


@functools.lru_cache(maxsize=8)
def evaluation_episode_steps(seed: int = 2016, n_runs: int = 16, n_episodes: int = 20) -> float:
    """Average steps of a mountain car evaluation episode (Fig. 3's task: the fixed
    near-optimal policy from a random start), measured on ``n_runs`` x ``n_episodes``
    recorded episodes."""
    from ...envs.mountain_car import record_episodes_batch

    eps = record_episodes_batch(seed, np.arange(n_runs), n_episodes)
    return float(np.mean([len(r) for run in eps for _x, r in run]))


def history_key(env: str, method: str, row, episodes: int, max_steps, variant) -> tuple:
    """What the steps of a control cell depend on: task, method, settings row (alpha, lambda,
    gamma, eta, K_max), episodes, episode cap and set-up variant."""
    return (env, method, tuple(float(x) for x in row), int(episodes),
            None if max_steps is None else int(max_steps), variant or "")


def control_history(dirs) -> dict:
    """Steps an episode of every stored control cell: ``{history_key: mean steps an episode
    over its runs that did not diverge}`` from the figures stored (``<name>.npz``) in
    ``dirs``, earlier directories first (a cell found in an earlier one is kept), and
    ``{("curves", task): [every stored cell's steps in each episode]}`` (its ``curve_mean``),
    from which :func:`early_steps` tells how long the first episodes of any run of the task
    are. Read from the stored returns: steps = return / the task's reward per step."""
    from ..results import load_results

    out: dict = {}
    for d in dirs:
        d = Path(d)
        if not d.is_dir():
            continue
        for p in sorted(d.glob("*.npz")):
            try:
                res = load_results(p.stem, d)
            except Exception:  # not a figure, or damaged: no history
                continue
            if res is None or res.meta.get("definition", {}).get("task") != "control":
                continue
            _add_history(out, res)
    out.update(chunk_history(dirs))
    return out


def early_steps(curves, episodes: int) -> float | None:
    """The median over stored cells (``curves``: steps in each episode) of their mean steps
    an episode over the first ``episodes`` (whole curves where none is that long: those with
    the most episodes); ``None`` without curves. Early episodes of a control task differ
    from late ones -- cart-pole's first 40 last ~10 steps, its 1000th ~400 -- so the history
    of any method on the task, cut at the same episode, is the better guess."""
    if not curves:
        return None
    longest = max(len(c) for c in curves)
    n = min(int(episodes), longest)
    means = [np.nanmean(c[:n]) for c in curves if len(c) >= n and np.isfinite(c[:n]).any()]
    return float(np.median(means)) if means else None


def chunk_history(dirs) -> dict:
    """Steps an episode from the stored chunks' own counts (``run_steps``, every engine
    records it): ``{("chunks", task, method, episodes, cap, variant): mean over the chunks of
    run_steps / (runs x episodes)}`` -- right whatever the task's rewards."""
    from ..store import chunk_metas

    per: dict = {}
    for d in dirs:
        for folder in sorted(Path(d).glob("chunks/*")):
            for ident, meta in chunk_metas(folder):
                steps = (meta.get("engine") or {}).get("run_steps")
                if not steps or ident.get("task") != "control" or not ident.get("run_ids"):
                    continue
                v = ident.get("variant") or {}
                key = ("chunks", ident["env"], ident["method"], int(ident["episodes"]),
                       ident.get("max_steps"), v.get("name", "") if isinstance(v, dict) else "")
                rows = (meta.get("grown") or {}).get("computed_rows") or len(ident["run_ids"])
                per.setdefault(key, []).append(float(steps) / (rows * int(ident["episodes"])))
    return {k: float(np.mean(v)) for k, v in per.items()}


def chunk_records(out, name: str) -> list[dict]:
    """Every chunk of figure ``name`` stored under ``out`` (its pilot's under ``out/pilot``
    too): ``stage`` (``pilot`` or ``final``), ``compute_s``, ``finished`` (seconds since the
    epoch), ``device`` and ``run_steps`` -- the engine's count of environment steps, or the
    kernel's iterations (one run at a time: one step each) in chunks stored before the count
    was kept; ``None`` for prediction chunks."""
    from ..results import results_paths
    from ..store import chunk_metas

    recs = []
    for stage, base in (("pilot", Path(out) / "pilot"), ("final", Path(out))):
        for _ident, meta in chunk_metas(results_paths(name, base)["chunks"]):
            eng = meta.get("engine") or {}
            steps = eng.get("run_steps")
            if steps is None and eng.get("width") == 1.0:
                steps = eng.get("iterations")
            recs.append({"stage": stage, "compute_s": float(meta["compute_s"]),
                         "finished": float(meta["finished"]), "device": meta.get("device"),
                         "run_steps": None if steps is None else float(steps)})
    return recs


def _add_history(out: dict, res) -> None:
    definition = res.meta["definition"]
    env, episodes = definition["env"], int(res.meta["episodes"])
    reward = task_registry.task(env).reward
    cells = definition["cells"]
    for i, c in enumerate(cells):
        m = np.asarray(res["metric"][i], dtype=float)
        m = m[np.isfinite(m)]
        if not len(m):
            continue
        row = [c["alpha"], c["lam"], c["gamma"], c["eta"], float(c["k_max"] or 0)]
        key = history_key(env, c["method"], row, episodes, definition.get("max_steps"),
                          c.get("variant"))
        if getattr(task_registry.task(env), "reward_min", reward) != reward:
            return  # rewards that vary: returns are not steps (the chunks' counts are)
        steps = float(np.mean(m)) / reward
        if math.isfinite(steps) and steps >= 0:  # (else not the task's returns: no history)
            out.setdefault(key, steps)
            out.setdefault(("curves", env), []).append(np.asarray(res["curve_mean"][i]) / reward)


def history_dirs(out=None) -> list[Path]:
    """Where the plan looks for stored figures and chunks: ``out`` and ``out/pilot`` first,
    then the committed ``results/`` and ``results/pilot``, then the committed folders below
    ``results/`` (a demonstration's, a set-up variant's)."""
    dirs = []
    for base in ([Path(out)] if out is not None else []) + [REPO_RESULTS]:
        dirs += [base / "pilot", base]
    if REPO_RESULTS.is_dir():
        dirs += sorted(p.parent for p in REPO_RESULTS.glob("*/**/*.npz")
                       if "chunks" not in p.parts and p.parent.name != "pilot")
    return list(dict.fromkeys(dirs))


def row_steps(task, row, history: dict, notes: set | None = None) -> float:
    """Expected run-steps of one run of a chunk's settings ``row`` (see the module
    docstring): prediction from :func:`evaluation_episode_steps`; control from ``history``
    (same task, method, settings, episodes, cap, variant), else the stored chunks' own
    run-steps of the task, method, episodes, cap and variant, else the first ``episodes``
    of the stored cells of the task (:func:`early_steps`), else :data:`PRIOR_STEPS`, else
    the cap (a guess, named in ``notes``); at most the cap."""
    if task.task == "prediction":
        return task.n_episodes * evaluation_episode_steps()
    cap = task.max_steps or task_registry.task(task.env).max_steps
    variant = (task.variant or {}).get("name")
    per_episode = history.get(history_key(task.env, task.method, row, task.n_episodes,
                                          task.max_steps, variant))
    if per_episode is None:
        per_episode = history.get(("chunks", task.env, task.method, task.n_episodes,
                                   task.max_steps, variant or ""))
    if per_episode is None:
        per_episode = early_steps(history.get(("curves", task.env)), task.n_episodes)
    if per_episode is None and task.env in PRIOR_STEPS:
        per_episode = PRIOR_STEPS[task.env]
        if notes is not None:
            notes.add(f"no stored runs of {task.method} on {task.env} at {task.n_episodes} "
                      f"episodes: {per_episode:g} steps an episode guessed (PRIOR_STEPS)")
    if per_episode is None:
        per_episode = float(cap)
        if notes is not None:
            notes.add(f"no stored runs of {task.env}: episodes guessed at the cap ({cap} "
                      f"steps; a bound, not a forecast)")
    return task.n_episodes * min(float(per_episode), float(cap))


def task_steps(task, history: dict, notes: set | None = None) -> float:
    """Expected run-steps of a chunk: the sum over its rows (what had to be guessed goes into
    ``notes``)."""
    rows = {}
    for row in map(tuple, task.settings.tolist()):
        rows[row] = rows.get(row, 0) + 1
    return float(sum(n * row_steps(task, row, history, notes) for row, n in rows.items()))


# ----------------------------------------------------------------------------- seconds


#: control seconds when nothing was measured for an engine, method and task: ``(a, b)`` as
#: :attr:`Rates.engines` (this machine, 2 shared AMD EPYC cores: the kernel ~1 µs a run-step;
#: the torch batch ~0.3 ms a batch iteration plus ~6 µs a row; the per-run reference
#: 75-175 µs a run-step); a plan that uses one says so
GUESS = {"kernel": (0.0, 1.1e-6), "batch": (3e-4, 6e-6), "reference": (0.0, 1.5e-4)}


def chunk_engine(task, device: str = "cpu") -> str:
    """The engine that computes a control chunk (as :func:`ftd_lib.repro.chunks.engine_runner`
    does): a set-up of mountain car's inputs or start states in the compiled kernel; else (a
    set-up of the network only is a plain parameter of every engine) the kernel where the
    task and the method have one (float64 on the CPU), the torch batch where the method has
    one, the per-run reference otherwise."""
    from ...methods import method as method_record
    from ..cells import network_only

    if task.variant is not None and not network_only(task.variant):
        return "kernel"
    m = method_record(task.method)
    t = task_registry.TASKS.get(task.env)
    # (the kernel's own runs on the tasks flagged kernel; a method written as pieces of its
    # extension point on the tasks with compiled dynamics: ftd_lib.engine.choose_engine)
    from ...engine.control_run import kernel_takes

    on_task = t is not None and kernel_takes(m, task.env, t)
    if "kernel" in m.engines and on_task and str(device) == "cpu":
        return "kernel"
    return "batch" if "batch" in m.engines else "reference"


def pair_key(task, device: str = "cpu") -> str:
    """The compiled pair a chunk loads in the process that computes it
    (:attr:`Rates.pair_load_s`): ``engine/method/task`` of a control chunk, ``prediction``
    for a prediction chunk (the torch batch: nothing compiled per pair)."""
    if task.task == "prediction":
        return "prediction"
    return engine_key(chunk_engine(task, device), task.method, task.env)


def control_rate(task, rates: Rates, device: str = "cpu") -> tuple[tuple, str | None]:
    """``((a, b), guess)`` for a control chunk: the engine's measured rates on its method and
    task, else the kernel's per method (the stored chunks, :func:`with_stored_control`), else
    :data:`GUESS` with ``guess`` naming what was guessed."""
    eng = chunk_engine(task, device)
    key = engine_key(eng, task.method, task.env)
    if key in rates.engines:
        return tuple(rates.engines[key]), None
    if eng == "kernel" and task.method in rates.control:
        return (0.0, rates.control[task.method]), None
    if eng == "kernel" and task.method in DEFAULT_RATES.control:
        return (0.0, DEFAULT_RATES.control[task.method]), None
    return GUESS[eng], f"no rate for {task.method} ({eng}) on {task.env}: guessed"


def task_seconds(task, rates: Rates, history: dict, notes: set | None = None) -> float:
    """Predicted seconds of one chunk on one worker (see the module docstring); what had to
    be guessed goes into ``notes``."""
    fixed = rates.chunk_s.get(task.task, 0.0)
    if task.task == "prediction":
        a, b, ipe = rates.prediction.get(task.method, DEFAULT_RATES.prediction.get(
            task.method, (3e-4, 4e-6, 150.0)))
        return fixed + task.n_episodes * ipe * (a + b * task.rows)
    (a, b), guess = control_rate(task, rates)
    if guess and notes is not None:
        notes.add(guess)
    steps = task_steps(task, history, notes)
    # the batch steps its rows in lockstep: an iteration for every step of the longest run
    iterations = steps / task.rows if chunk_engine(task) == "batch" else 0.0
    return fixed + steps * b + iterations * a


class Costing:
    """The predicted cost of chunks with one machine's ``rates`` (default: this machine's
    last calibration, :func:`machine_rates`) and the control history read once from ``dirs``
    (:func:`history_dirs`)."""

    def __init__(self, rates: Rates | None = None, dirs=()):
        self.rates = machine_rates() if rates is None else rates
        self.dirs = list(dirs)
        self._history = None
        self.notes: set = set()  # what was guessed (said with the plan)

    @property
    def history(self) -> dict:
        """:func:`control_history` of the directories, read when a control chunk is first
        costed (a prediction figure never reads it)."""
        if self._history is None:
            self._history = control_history(self.dirs)
        return self._history

    @history.setter
    def history(self, value: dict) -> None:
        self._history = value

    def _history_for(self, task) -> dict:
        return self.history if task.task == "control" else {}

    def seconds(self, task) -> float:
        return task_seconds(task, self.rates, self._history_for(task), self.notes)

    def steps(self, task) -> float:
        return task_steps(task, self._history_for(task), self.notes)
