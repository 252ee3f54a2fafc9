r"""The plan of a reproduction, before any work: ``python -m ftd_lib plan FIGURE|all``.

For every stage of every figure (one stage; or, for the control figures at paper scale, the
pilot, its widenings and the final stage of :mod:`ftd_lib.repro.protocol`) the plan lists the
chunks :func:`ftd_lib.repro.runs.run_figure` will compute -- the rows not in the store, cut
by cost for the workers (:mod:`ftd_lib.repro.planning.cut`) -- with their predicted run-steps and
seconds (:mod:`ftd_lib.repro.planning.cost`), and predicts the stage's wall time as list scheduling
of those chunks, largest first, on ``N`` workers (:mod:`ftd_lib.repro.planning.schedule`), after the
workers' start. Stages run one after another (the final stage waits on the pilot), so do the
figures of ``all``.

A stage that waits on a pilot is predicted from the pilot's stored numbers when the store
holds them all (its widenings too, replayed from those numbers,
:func:`ftd_lib.repro.protocol.widened`); else from the model: each cell's average return
from the history of stored figures (:func:`ftd_lib.repro.planning.cost.control_history`), the middle
of the grid where there is none; the widenings, which depend on numbers not yet computed,
are then not predicted (said so).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import store
from ..chunks import chunk_check, cut_chunks, device_kind, engine_identity
from ..counts import chunk_counts, counts_text
from ..definitions import DEFAULT_SEED, Figure, chunk_device, figure
from ..protocol import MAX_WIDENINGS, final_figure, pilot_figure, widened
from ..results import DEFAULT_RESULTS, results_paths
from ..reuse import add_to_index, missing_cells, rows_from_stored, stored_index
from .cost import DEFAULT_RATES, NO_CALIBRATION, Costing, pair_key
from .cut import cut_by_cost, remainders
from .progress import format_seconds
from .schedule import stage_compute, stage_schedule


class StagePlan(NamedTuple):
    """One stage: its ``figure`` definition, the ``chunks`` to compute (largest first) with
    their predicted ``steps`` and ``seconds`` (each alone in a warm process), how many of
    the definition's chunks are ``stored`` (of ``total``; in any cut), the ``wall_s`` of
    their schedule on the workers (worker start included), its ``utilisation``, the
    ``basis`` of the prediction and its ``compute_s``: what the chunks' own clocks will sum
    to (each piece's ``compute_s``), their seconds as they run -- workers at once slowed
    down as measured, each worker process's first piece of a kind and of a compiled pair
    loading them -- from the same schedule
    (:func:`~ftd_lib.repro.planning.schedule.stage_compute`; ``None``: the sum of
    ``seconds``)."""

    name: str
    figure: Figure
    chunks: list
    steps: list
    seconds: list
    stored: int
    total: int
    wall_s: float
    utilisation: float
    basis: str
    compute_s: float | None = None


class FigurePlan(NamedTuple):
    name: str
    workers: int
    stages: list

    @property
    def wall_s(self) -> float:
        return sum(s.wall_s for s in self.stages)

    @property
    def compute_s(self) -> float:
        """The stages' :attr:`StagePlan.compute_s`: what the pieces' measured compute will
        sum to."""
        return sum(sum(s.seconds) if s.compute_s is None else s.compute_s
                   for s in self.stages)

    @property
    def steps(self) -> float:
        return sum(sum(s.steps) for s in self.stages)

    @property
    def utilisation(self) -> float:
        return utilisation(self.compute_s, self.wall_s, self.workers)


def utilisation(compute_s: float, wall_s: float, workers: int) -> float:
    """Busy share of the workers' time: compute / (workers x wall); 1 when there is no work."""
    return compute_s / (workers * wall_s) if wall_s > 0 else 1.0


def _identities(tasks, kind: str = "cpu"):
    return [engine_identity(t, kind) for t in tasks]


def plan_stage(fig: Figure, out, workers: int, costing, *, seed: int = DEFAULT_SEED,
               name: str = "", basis: str = "model", device: str = "cpu",
               planned=()) -> StagePlan:
    """The chunks of one stage still to compute in ``out`` on ``device`` (chunks made on
    another kind of device are other chunks) and their predicted wall time on ``workers``
    workers (the rates are the CPU's); ``planned``: the chunks (tasks) earlier stages of the
    plan compute into ``out`` first, whose rows are then stored."""
    kind = device_kind(device)
    tasks = cut_chunks(fig, seed)
    idents = _identities(tasks, kind)
    cstore = store.ChunkStore(results_paths(fig.name, out)["chunks"])
    in_store = [cstore.has(store.chunk_key(i)) for i in idents]
    stored_idx = stored_index(cstore, [i for i, s in zip(idents, in_store, strict=True)
                                       if not s])
    ahead = _identities(planned, kind)  # what earlier stages will have stored by then
    ahead_keys = {store.chunk_key(i) for i in ahead}
    done = [True if s or store.chunk_key(i) in ahead_keys else None
            for i, s in zip(idents, in_store, strict=True)]
    index = add_to_index(dict(stored_idx), ahead)
    work = cut_by_cost(remainders(tasks, idents, done, index), workers, costing.seconds)
    steps = [costing.steps(t) for t in work]
    # each chunk's seconds in a process of its own (the compute: the same on any number of
    # workers); chunks that run at once share the machine, each slowed down as measured,
    # which the schedule (the wall time) counts
    seconds = [costing.seconds(t) for t in work]
    # (each worker process loads the compiled pair of its first chunk of each pair)
    keys = [pair_key(t, device) for t in work]
    sched = stage_schedule(seconds, keys, workers, costing.rates)
    wall = sched.makespan if work else 0.0
    stored = sum(s or not missing_cells(t, i, stored_idx)
                 for t, i, s in zip(tasks, idents, in_store, strict=True))
    return StagePlan(name or "all", fig, work, steps, seconds, stored, len(tasks), wall,
                     sched.utilisation if work else 1.0, basis,
                     stage_compute(seconds, keys, [t.task for t in work], workers,
                                   costing.rates))


def stored_metric(fig: Figure, out, seed: int = DEFAULT_SEED,
                  device: str = "cpu") -> np.ndarray | None:
    """The ``(cells, runs)`` metric of ``fig`` read from the store in ``out`` when every
    chunk of it made on ``device`` is there (in any cut), else ``None``; nothing is computed
    or written."""
    tasks = cut_chunks(fig, seed)
    idents = _identities(tasks, device_kind(device))
    cstore = store.ChunkStore(results_paths(fig.name, out)["chunks"])
    checks = [chunk_check(t) for t in tasks]
    done = [cstore.load(i, c) for i, c in zip(idents, checks, strict=True)]
    rows_from_stored(cstore, tasks, idents, done, checks)
    if any(d is None for d in done):
        return None
    metric = np.full((len(fig.cells), fig.runs), np.nan)
    for d, _meta in done:
        metric[d["cell_index"], d["run_ids"]] = d["metric"]
    return metric


def model_metric(fig: Figure, history: dict) -> np.ndarray:
    """A stand-in for a pilot's metric from the model: each cell's average return from the
    history (the same for every run; ``nan`` where there is none, so a curve without any
    history is centred on the middle of its grid by :func:`ftd_lib.repro.protocol.final_figure`)."""
    from ...envs import tasks as task_registry
    from .cost import history_key

    reward = task_registry.task(fig.env).reward
    out = np.full((len(fig.cells), fig.runs), np.nan)
    for i, c in enumerate(fig.cells):
        steps = history.get(history_key(fig.env, c.method, c.row(), fig.episodes,
                                        fig.max_steps, c.variant))
        if steps is not None:
            out[i] = steps * reward
    return out


def numbers_source(fig: Figure, here, dirs, label: str, seed: int = DEFAULT_SEED,
                   device: str = "cpu") -> tuple[Path | None, str, np.ndarray | None]:
    """Where the numbers of stage ``label`` (``pilot`` or ``final``) of ``fig`` are read
    from before it is computed into ``here``, what the plan then says of its prediction, and
    the numbers (:func:`stored_metric`): ``here`` when every chunk of it is stored there; else
    another folder of the same kind among ``dirs`` (the committed ``results/pilot`` or
    ``results``) that stores the same chunks -- same definition, seed and device, so the very
    numbers this run will compute, and the widenings and the stage they lead to; else
    ``(None, "", None)``."""
    here = Path(here)
    metric = stored_metric(fig, here, seed, device)
    if metric is not None:
        return here, f"stored {label}", metric
    for d in map(Path, dirs):
        if (d.name == "pilot") == (label == "pilot") and d != here:
            metric = stored_metric(fig, d, seed, device)
            if metric is not None:
                return d, f"the same {label}'s numbers, stored in {d}", metric
    return None, "", None


def plan_optimised(fig: Figure, here, workers: int, costing, label: str, basis: str, *,
                   seed: int = DEFAULT_SEED, device: str = "cpu"):
    """A stage of the protocol and its widenings (:func:`ftd_lib.repro.protocol._optimised`):
    the stage ``label`` of ``fig`` into ``here``, then one more stage for each widening the
    numbers of :func:`numbers_source` lead to, each computing only its appended cells.
    Returns ``(stages, widened figure, its metric or None, basis of what follows)``."""
    on = dict(seed=seed, device=device)
    stages = [plan_stage(fig, here, workers, costing, name=label, basis=basis, **on)]
    where, basis, metric = numbers_source(fig, here, costing.dirs, label, seed, device)
    for k in range(fig.protocol.get("max_widenings", MAX_WIDENINGS)):
        wider = None if metric is None else widened(fig, metric)
        if wider is None:
            break
        fig = wider
        planned = [t for st in stages for t in st.chunks]
        stages.append(plan_stage(fig, here, workers, costing, planned=planned,
                                 name=f"{label}, widening {k + 1}", basis=basis, **on))
        metric = stored_metric(fig, where, seed, device)
    return stages, fig, metric, basis


def plan_protocol(name, out, workers: int, costing, *, seed: int = DEFAULT_SEED,
                  runs: int | None = None, variant: str | None = None,
                  grid: dict | None = None, device: str = "cpu") -> list[StagePlan]:
    """The stages of a two-stage figure (:mod:`ftd_lib.repro.protocol`): the pilot into
    ``out/pilot`` and its widenings, the final stage into ``out`` and its widenings, each
    widening while some store holds the numbers it depends on (:func:`plan_optimised`); the
    final cells from the pilot's numbers when they are stored, else from the model
    (:func:`model_metric`). ``runs``, ``variant``, ``grid``: as
    :func:`ftd_lib.repro.protocol.run_protocol`'s."""
    on = dict(seed=seed, device=device)
    stages, fig, metric, basis = plan_optimised(pilot_figure(name, variant, grid),
                                                Path(out) / "pilot", workers, costing,
                                                "pilot", "model", **on)
    if metric is None:
        basis = "model (pilot not stored; widenings not predicted)"
        metric = model_metric(fig, costing.history)
    final = final_figure(name, fig, metric, runs, variant, grid)
    return stages + plan_optimised(final, out, workers, costing, "final", basis, **on)[0]


def plan_experiment(fig: Figure, out, workers: int, costing, *, seed: int = DEFAULT_SEED,
                    device: str = "cpu") -> FigurePlan:
    """The plan of one loaded experiment (an experiment file's figure, ``--set`` changes
    included): what ``run FILE --out OUT --workers N`` computes -- both stages of the
    protocol when its file asks for them (``fig.two_stage``), else one stage."""
    if fig.two_stage:
        return FigurePlan(fig.name, workers, plan_protocol(
            fig, out, workers, costing, seed=seed, runs=fig.runs, device=device))
    return FigurePlan(fig.name, workers, [plan_stage(fig, out, workers, costing, seed=seed,
                                                     device=device)])


def plan_figure(name: str, scale: str, workers: int, costing, *, out=DEFAULT_RESULTS,
                seed: int = DEFAULT_SEED, runs: int | None = None,
                episodes: int | None = None, chunk_rows: int | None = None,
                variant: str | None = None, grid: dict | None = None,
                device: str = "cpu") -> FigurePlan:
    """:func:`plan_experiment` of a paper figure or study by name, with ``reproduce``'s
    options (``--runs``, ``--episodes``, ``--chunk-rows``, ``--variant``, ``--set`` as
    ``grid``)."""
    fig = figure(name, scale, runs=runs, episodes=episodes, chunk_rows=chunk_rows,
                 variant=variant, grid=grid)
    return plan_experiment(fig, out, workers, costing, seed=seed, device=device)


def default_device(fig: Figure, out, run: dict) -> str:
    """The device when none is asked for: the device the file names (``chunks.device``,
    ``run["device_kind"]``) where this machine has one, or where every chunk the experiment
    needs from it is stored in ``out`` -- e.g. Fig. 3 left's, made on a GPU, are read on any
    machine, not computed again on its CPU -- else ``cpu``."""
    kind = run.get("device_kind", "cpu")
    if kind == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return kind
    fp = plan_experiment(fig, out, 1, Costing(DEFAULT_RATES), seed=run.get("seed", DEFAULT_SEED),
                         device=kind)
    return kind if not any(s.chunks for s in fp.stages) else "cpu"


def stored_device(name: str, scale: str, out=DEFAULT_RESULTS, *, seed: int = DEFAULT_SEED,
                  **figure_kw) -> str:
    """:func:`default_device` of a paper figure or study by name (``figure_kw``:
    :func:`plan_figure`'s figure options)."""
    kind = chunk_device(name, scale)
    keep = ("runs", "episodes", "chunk_rows", "variant", "grid")
    fig = figure(name, scale, **{k: v for k, v in figure_kw.items() if k in keep})
    return default_device(fig, out, {"device_kind": kind, "seed": seed})


# ----------------------------------------------------------------------------- printing


def chunk_lines(stage: StagePlan, known: bool = True) -> list[str]:
    """One line per piece of a stage: method, the engine that computes it (control: the
    kernel's own run, the kernel's pieces, the batch or the reference), cells, runs,
    run-steps, seconds (alone in a warm process; ``?`` where the rates were not measured on
    this machine: ``known`` false)."""
    lines = [f"    {'#':>4}  {'method':<22} {'engine':<15} {'cells':>5} {'rows':>6} "
             f"{'run-steps':>10} {'est. s':>9}"]
    for k, (t, st, sec) in enumerate(zip(stage.chunks, stage.steps, stage.seconds,
                                         strict=True)):
        cells = len(np.unique(t.cell_index))
        lines.append(f"    {k + 1:>4}  {t.method:<22} {chunk_engine_name(t):<15} {cells:>5} "
                     f"{t.rows:>6} {st:>10.3g} {f'{sec:.1f}' if known else '?':>9}")
    return lines


def chunk_engine_name(t) -> str:
    """The engine of a chunk for people: ``kernel`` (its own run), ``kernel pieces`` (its
    extension point), ``batch``, ``reference``; ``batch`` for a prediction chunk."""
    if t.task != "control":
        return "batch"
    from ...engine.kernel import own_run
    from ..cells import network_only
    from .cost import chunk_engine

    e = chunk_engine(t)
    pieces = not own_run(t.method, t.env) and (t.variant is None or network_only(t.variant))
    return "kernel pieces" if e == "kernel" and pieces else e


def stage_line(fp: FigurePlan, stage: StagePlan, known: bool = True) -> str:
    """A stage's chunks and pieces (:func:`ftd_lib.repro.counts.counts_text`), run-steps,
    compute and wall time; ``known``: the rates were measured on this machine (else
    ``unknown (no calibration)`` in place of seconds; the plan's last line says how to
    calibrate, :data:`~ftd_lib.repro.planning.rates.NO_CALIBRATION`)."""
    counts = counts_text(chunk_counts(stage.total, stage.stored, stage.chunks), planned=True)
    one = FigurePlan(fp.name, fp.workers, [stage])
    seconds = (f"{format_seconds(one.compute_s)} of compute; wall "
               f"{format_seconds(stage.wall_s)} on {fp.workers} workers, utilisation "
               f"{100 * stage.utilisation:.0f} %" if known or not stage.chunks else
               "compute and wall unknown (no calibration)")
    return (f"  {fp.name} · {stage.name}: {counts}, {sum(stage.steps):.3g} run-steps, "
            f"{seconds} ({stage.basis})")


def in_process(stage: StagePlan, workers: int) -> bool:
    """Whether the command's own process computes the stage's chunks (one worker or one
    chunk: no worker processes), so it loads the engine itself."""
    return bool(stage.chunks) and (workers == 1 or len(stage.chunks) == 1)


def command_wall(plans: list[FigurePlan], rates) -> float:
    """The whole command's predicted wall time: its own process's start and exit (interpreter,
    the command line's and the engine's imports), its bookkeeping (the code digests of the
    chunks' identities; the stored history the costing reads where control chunks are
    computed), a first chunk where it computes chunks itself (worker processes' start is in
    their stages, and every process's load of each compiled pair in the stage's schedule),
    every figure's stages one after another, and the picture each stage that computes draws
    (matplotlib imported once)."""
    stages = [s for p in plans for s in p.stages]
    load = any(in_process(s, p.workers) for p in plans for s in p.stages)
    drawn = sum(bool(s.chunks) for s in stages)
    control = any(getattr(t, "task", None) == "control" for s in stages for t in s.chunks)
    return (rates.startup_s + (rates.digest_s if plans else 0.0)
            + (rates.history_s if control else 0.0)
            + (rates.engine_load_s if load else 0.0)
            + sum(s.wall_s for s in stages)
            + (rates.plot_load_s + drawn * rates.draw_s if drawn else 0.0))


def plan_lines(plans: list[FigurePlan], *, chunks: bool = True, rates=None,
               notes=()) -> list[str]:
    """The printed plan: per figure its stages (and their chunks), then the total with the
    command's start-up, then what had to be guessed."""
    lines = []
    known = rates is None or rates.calibrated
    for fp in plans:
        for stage in fp.stages:
            lines.append(stage_line(fp, stage, known))
            if chunks and stage.chunks:
                lines += chunk_lines(stage, known)
        if not known and any(s.chunks for s in fp.stages):
            lines.append(f"{fp.name}: predicted wall and compute on {fp.workers} workers "
                         "unknown (no calibration)")
            continue
        lines.append(f"{fp.name}: predicted wall {format_seconds(fp.wall_s)} on "
                     f"{fp.workers} workers, {format_seconds(fp.compute_s)} of compute (the "
                     f"pieces' own clocks summed), "
                     f"utilisation {100 * fp.utilisation:.0f} %")
    if plans and not known:
        lines.append(f"command: compute and wall {NO_CALIBRATION}")
    elif plans and rates is not None:
        wall = command_wall(plans, rates)
        start = wall - sum(p.wall_s for p in plans)
        comp = sum(p.compute_s for p in plans)
        lines.append(f"command: predicted wall {format_seconds(wall)} on {plans[0].workers} "
                     f"workers ({start:.1f} s in this process: interpreter, imports, the "
                     f"engine, code digests, history, pictures), {format_seconds(comp)} of "
                     f"compute, utilisation "
                     f"{100 * utilisation(comp, wall, plans[0].workers):.0f} %")
    lines += [f"guess: {n}" for n in sorted(notes)]
    return lines


def methods_to_calibrate(figs) -> tuple[list, list, list]:
    """What to measure for these figures (loaded experiments, or names of ``experiments/``
    at paper scale): the prediction methods, the (control method, task) pairs the compiled
    kernel runs, and the ``(engine, method, task, params)`` of every other control chunk
    (:func:`ftd_lib.repro.planning.cost.chunk_engine`; ``params``: the method's own, as
    sorted items)."""
    from ...engine.kernel import own_run
    from .cost import chunk_engine

    pred, ctrl, engines = [], [], []
    for f in figs:
        f = figure(f, "paper") if isinstance(f, str) else f
        if f.task == "prediction":
            pred += list(f.methods)
            continue
        for t in cut_chunks(f):
            # (the kernel's own runs: then replaced by the stored chunks'; a method written as
            # pieces of its extension point is measured with its params, as the others)
            if (e := chunk_engine(t)) == "kernel" and own_run(t.method, t.env):
                ctrl.append((t.method, t.env))
            else:
                engines.append((e, t.method, t.env, tuple(sorted((t.params or {}).items()))))
    return (list(dict.fromkeys(pred)), list(dict.fromkeys(ctrl)),
            list(dict.fromkeys(engines)))
