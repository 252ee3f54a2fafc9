r"""The rates of :mod:`ftd_lib.repro.planning.cost` measured on this machine (:func:`calibrate`),
in a few seconds a method, on the engine that will run each chunk: the torch batch of a
prediction method at two widths; the compiled kernel per run-step, replaced by what the stored
chunks of this CPU took (:func:`with_stored_control`, :func:`stored_step_seconds`); the torch
batch and the per-run reference of a control method on its task (:func:`calibrate_engine`); a
chunk's fixed seconds; the command's start-up (interpreter, imports, the engine), the drawing of
its pictures, the start of N worker processes at once, a worker's first chunk of each kind and
pair, and how much slower N processes computing at once run than one (the slowdown of N workers
sharing the machine).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...envs import tasks as task_registry
from .cost import COMMITTED_STORES, DEFAULT_RATES, Rates, engine_key


def best_time(fn, repeats: int) -> tuple[float, object]:
    """``(the shortest of ``repeats`` wall times of ``fn()``, its last result)``."""
    best, out = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def calibrate_prediction(method: str, rows=(8, 96), repeats: int = 2) -> tuple:
    """``(a, b, ipe)`` of a prediction method on this machine: the batch run live at two
    widths (the best of ``repeats`` each, after a warm-up; one episode of the online
    lambda-return, whose episode is ~60 times longer, three of the others), a straight line
    through the two seconds-per-iteration."""
    from ... import engine

    def run(n):
        k = [16] * n if method == "block_lambda_return" else None
        s = engine.Settings.make(alpha=[0.01] * n, lam=0.9, gamma=1.0, eta=0.01, k_max=k)
        return engine.run_prediction(method, s, 2016, np.arange(n), episodes)

    episodes = 1 if method == "online_lambda_return" else 3
    run(2)  # warm-up
    per_it, ipe = [], 0.0
    for n in rows:
        t, res = best_time(lambda n=n: run(n), repeats)
        per_it.append(t / res.iterations)
        ipe = float(res.iterations) / episodes
    b = max((per_it[1] - per_it[0]) / (rows[1] - rows[0]), 0.0)
    a = max(per_it[0] - b * rows[0], 0.0)
    return a, b, ipe


def calibrate_control(method: str, env: str, repeats: int = 2, params=None) -> float:
    """Seconds per run-step of the compiled control kernel on this machine (3 runs of a few
    thousand steps, the best of ``repeats`` after a warm-up; ``params``: the method's own)."""
    from ... import engine

    episodes = 2 if env == "mountain_car" else 60
    s = engine.Settings.make(alpha=[0.01] * 3, lam=0.5, gamma=task_registry.gamma(env),
                             eta=0.01)

    def run():
        return engine.run_control(method, s, 2016, np.arange(3), episodes, env=env,
                                  epsilon=0.05, params=params)

    run()  # warm-up (compiled code loaded)
    t, res = best_time(run, repeats)
    return t / max(int(np.sum(res.n_steps)), 1)


def calibrate_engine(engine: str, method: str, env: str, repeats: int = 2,
                     params=None) -> tuple:
    """``(a, b)`` of a control method (with its own ``params``) on a task in the engine that
    will run it, measured here (:attr:`Rates.engines`): the kernel as
    :func:`calibrate_control`; the torch batch at two widths (2 and 8 rows), a straight line
    through seconds = a x iterations + b x run-steps; the per-run reference, 2 runs of a few
    capped episodes (seconds per run-step)."""
    from ... import engine as eng

    if engine == "kernel":
        return 0.0, calibrate_control(method, env, repeats, params)
    s = task_registry.gamma(env)

    def run(n, episodes=2):
        st = eng.Settings.make(alpha=[0.01] * n, lam=0.5, gamma=s, eta=0.01)
        return eng.run_control(method, st, 2016, np.arange(n), episodes, env=env,
                               epsilon=0.05, max_steps=200, engine=engine, params=params)

    run(1, 1)  # warm-up
    if engine == "reference":
        t, res = best_time(lambda: run(2), repeats)
        return 0.0, t / max(int(np.sum(res.n_steps)), 1)
    pts = []
    for n in (2, 8):
        t, res = best_time(lambda n=n: run(n), repeats)
        pts.append((t, float(res.iterations), float(np.sum(res.n_steps))))
    (t1, i1, s1), (t2, i2, s2) = pts
    det = i1 * s2 - i2 * s1
    if det == 0:
        return 0.0, t2 / max(s2, 1.0)
    a, b = (t1 * s2 - t2 * s1) / det, (i1 * t2 - i2 * t1) / det
    if a < 0 or b < 0:  # noise: all per run-step, at the wider batch
        return 0.0, t2 / max(s2, 1.0)
    return a, b


def calibrate_chunk_s(kind: str, repeats: int = 2) -> float:
    """Fixed seconds of one chunk of ``kind`` beyond its steps: a chunk of one run and one
    episode through :func:`ftd_lib.repro.chunks.chunk_result`, less that episode's share."""
    from ..chunks import ChunkTask, chunk_result, engine_runner

    env = "mountain_car"
    method = "td_lambda" if kind == "prediction" else "sarsa_lambda"
    row = np.array([[0.01, 0.9, 1.0, 0.01, 0.0]])
    task = ChunkTask("calibration", "quick", kind, env, method, np.array([0]), row,
                     np.array([0]), 2016, 1, 0.05 if kind == "control" else float("nan"),
                     200 if kind == "control" else None, "bootstrap" if kind == "control"
                     else None)
    job = (None, task, None, engine_runner, "cpu", {})
    chunk_result(job)  # warm-up
    if repeats < 1:
        return 0.0
    t, _ = best_time(lambda: chunk_result(job), repeats)
    return t


def calibrate_worker_start(kinds=("prediction", "control"), processes: int = 1,
                           timeout: float = 300.0) -> float:
    """Seconds until ``processes`` fresh worker processes, started at once, are ready to run
    chunks at speed: each starts Python, imports the engine (torch, the compiled kernel) and
    runs a one-step chunk of each of ``kinds`` (the compiled code loaded from numba's cache,
    the evaluation states built)."""
    code = ("import numpy as np, torch; torch.set_num_threads(1); "
            "from ftd_lib.repro.planning.calibrate import calibrate_chunk_s; "
            f"[calibrate_chunk_s(k, repeats=0) for k in {tuple(kinds)!r}]")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env)
             for _ in range(max(int(processes), 1))]
    for p in procs:
        if p.wait(timeout=timeout) != 0:
            raise RuntimeError("calibration: a worker process failed to start the engine")
    return time.perf_counter() - t0


#: a fixed piece of arithmetic, timed inside its own process (:func:`calibrate_slowdown`)
_SPIN = """import time
t = time.perf_counter()
x = 0
for i in range(2_000_000):
    x += i * i
print(time.perf_counter() - t)"""


def calibrate_slowdown(processes: int, timeout: float = 300.0) -> float:
    """How much slower each of ``processes`` processes computing at once runs than one alone
    (:attr:`~ftd_lib.repro.planning.cost.Rates.slowdown`): the same fixed arithmetic timed
    inside each process, their mean against one process alone (before and after, averaged:
    on a shared machine the others' load drifts). On ``C`` free cores it is about 1 up to
    ``C`` processes; beside a load ``L`` of other work, about ``(L + N) / (L + 1)``."""

    def spin(n):
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN], stdout=subprocess.PIPE,
                                  text=True) for _ in range(n)]
        return [float(p.communicate(timeout=timeout)[0]) for p in procs]

    alone = spin(1) + spin(1) if processes > 1 else [1.0]
    together = spin(processes) if processes > 1 else [1.0]
    return max(1.0, float(np.mean(together) / np.mean(alone)))


#: what :func:`calibrate_command_start` runs in a fresh process: the command's imports, then
#: its bookkeeping timed inside (the code digests of the pairs given as JSON, the history)
_COMMAND = """import json, sys, time
import ftd_lib.repro.cli, ftd_lib.engine
from ftd_lib.repro.code import code_files
from ftd_lib.repro.planning.cost import control_history, history_dirs
t0 = time.perf_counter()
for kind, method, env in json.loads(sys.argv[1]):
    code_files(kind, method, env)
t1 = time.perf_counter()
control_history(history_dirs())
print(json.dumps([t1 - t0, time.perf_counter() - t1]))"""


def calibrate_command_start(codes=(), timeout: float = 300.0) -> tuple[float, float, float]:
    """``(startup_s, digest_s, history_s)`` of :class:`~ftd_lib.repro.planning.cost.Rates`: a
    fresh process as a command's own, timed from outside, importing the command line and the
    engine (every command that runs a figure does: a chunk's identity names the engine's
    numerics version) and exiting; inside it, timed apart, its bookkeeping: the code digests
    of ``codes`` (``(kind, method, task)``: :func:`ftd_lib.repro.code.code_files`, what the
    chunks' identities digest) and the stored history the costing reads
    (:func:`~ftd_lib.repro.planning.cost.control_history` of the committed results)."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _COMMAND, json.dumps([list(c) for c in codes])],
                         check=True, timeout=timeout, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    digest, history = json.loads(out.stdout)
    return max(wall - digest - history, 0.0), digest, history


#: what :func:`calibrate_pair_loads` runs in a fresh process: a worker's start (the engine,
#: a first chunk of each kind), then a small chunk of each pair twice, the first less the
#: second timed
_PAIRS = """import json, sys, time
import numpy as np, torch
torch.set_num_threads(1)
from ftd_lib.envs import tasks
from ftd_lib.repro.chunks import ChunkTask, chunk_result, engine_runner
from ftd_lib.repro.planning.calibrate import calibrate_chunk_s
kinds, pairs = json.loads(sys.argv[1])
for k in kinds:
    calibrate_chunk_s(k, repeats=0)
out = {}
for key, method, env, params in pairs:
    row = np.array([[0.01, 0.5, tasks.gamma(env), 0.01, 0.0]])
    task = ChunkTask("calibration", "quick", "control", env, method, np.array([0]), row,
                     np.array([0]), 2016, 1, 0.05, 50, "bootstrap", params=params or None)
    job = (None, task, None, engine_runner, "cpu", {})
    t = [time.perf_counter()]
    for _ in range(2):
        chunk_result(job)
        t.append(time.perf_counter())
    out[key] = max((t[1] - t[0]) - (t[2] - t[1]), 0.0)
print(json.dumps(out))"""


def calibrate_pair_loads(pairs, kinds=("control",), timeout: float = 300.0) -> dict:
    """``{"engine/method/task": seconds}`` (:attr:`~ftd_lib.repro.planning.cost.Rates.
    pair_load_s`): in a fresh process started as a worker is (the engine imported, a first
    chunk of each of ``kinds`` computed: what :func:`calibrate_worker_start` times), the first
    small chunk of each control pair ``(engine, method, task, params)`` less a second one of
    the same -- the pair's compiled code loaded from numba's cache (the extension point's
    generated module), its code digested: what a worker pays for the first chunk of each
    pair it computes."""
    from .cost import engine_key

    todo = [[engine_key(e, m, env), m, env, dict(params)] for e, m, env, params in pairs]
    if not todo:
        return {}
    out = subprocess.run([sys.executable, "-c", _PAIRS, json.dumps([list(kinds), todo])],
                         check=True, timeout=timeout, capture_output=True, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    return {k: float(v) for k, v in json.loads(out.stdout).items()}


#: what :func:`calibrate_kind_loads` runs in a fresh process started as a worker is (torch
#: imported, one thread; the run's module imported, as unpickling a worker's job does before
#: its clock starts): the engine's import, then the first chunk of a kind and a warm one,
#: each timed
_KINDS = """import json, sys, time
import torch
torch.set_num_threads(1)
import ftd_lib.repro.runs
from ftd_lib.repro.planning.calibrate import calibrate_chunk_s
t = time.perf_counter()
import ftd_lib.engine
t1 = time.perf_counter()
calibrate_chunk_s(sys.argv[1], repeats=0)
first = time.perf_counter() - t1
print(json.dumps([t1 - t, max(first - calibrate_chunk_s(sys.argv[1], repeats=1), 0.0)]))"""


def calibrate_kind_loads(kinds, repeats: int = 2,
                         timeout: float = 300.0) -> tuple[float, dict]:
    """``(engine_import_s, {kind: seconds})`` of :class:`~ftd_lib.repro.planning.cost.Rates`:
    in a fresh process of its own for each kind, started as a worker is (torch imported),
    the engine's import, then a first small chunk of the kind less a warm one -- its code
    loaded, what it builds once -- both of which a worker's first piece measures on its own
    clock (the command's own process has imported the engine before its first piece). The
    least of ``repeats`` processes a kind, as :func:`best_time` (a start-up on a shared
    machine is slowed by the others' work, never sped up); the import: the least of all."""
    imports, out = [], {}
    for k in kinds:
        for _ in range(max(int(repeats), 1)):
            p = subprocess.run([sys.executable, "-c", _KINDS, k], check=True,
                               timeout=timeout, capture_output=True, text=True,
                               env=dict(os.environ, OMP_NUM_THREADS="1"))
            imp, load = json.loads(p.stdout.strip().splitlines()[-1])
            imports.append(imp)
            out[k] = min(out.get(k, load), load)
    return min(imports, default=0.0), out


#: what :func:`calibrate_drawing` draws (a fresh process: matplotlib not yet imported)
_DRAW = """import json, os, sys, tempfile, time
os.environ["MPLBACKEND"] = "Agg"
from ftd_lib.repro.results import load_results
figs = [load_results(n, sys.argv[1]) for n in sys.argv[2:]]
t = [time.perf_counter()]
from ftd_lib.repro.plots import save_plot
with tempfile.TemporaryDirectory() as d:
    for f in [figs[0]] + figs:
        save_plot(f, os.path.join(d, "f.png"))
        t.append(time.perf_counter())
print(json.dumps([t[1] - t[0], t[2] - t[1], t[-1] - t[2]]))"""


def calibrate_drawing(names=("fig3-left", "fig3-right", "fig4-left", "fig4-right"),
                      where=None, timeout: float = 300.0) -> tuple[float, float]:
    """``(plot_load_s, draw_s)`` of :class:`~ftd_lib.repro.planning.cost.Rates`: in a fresh
    process, the committed figures ``names`` (under ``where``, default ``results/``) drawn and
    saved as a stage does (:func:`ftd_lib.repro.plots.save_plot`), the first one twice:
    matplotlib's import is the first drawing less the second, ``draw_s`` the mean of the
    others."""
    from .cost import REPO_RESULTS

    where = Path(where or REPO_RESULTS)
    names = [n for n in names if (where / f"{n}.npz").is_file()]
    if not names:  # (an installed copy without results/)
        return DEFAULT_RATES.plot_load_s, DEFAULT_RATES.draw_s
    out = subprocess.run([sys.executable, "-c", _DRAW, str(where), *names],
                         check=True, timeout=timeout, capture_output=True, text=True)
    first, again, rest = json.loads(out.stdout)
    return max(first - again, 0.0), rest / len(names)


def calibrate(prediction=(), control=(), worker_start: bool = True, workers: int = 1,
              engines=()) -> Rates:
    """Measure :class:`Rates` on this machine for the ``prediction`` methods and the
    ``control`` pairs ``(method, env)`` (the kernel's speed per run-step is measured on each
    task and the slower kept): a few seconds per method (the online lambda-return's episode
    is the longest). One torch thread, as the workers run. The workers' start is measured
    with as many processes at once as ``workers`` (at most one per CPU here)."""
    import torch

    from ..store import machine_description

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        pred = {m: calibrate_prediction(m) for m in dict.fromkeys(prediction)}
        ctrl: dict = {}
        for m, env in dict.fromkeys(control):
            ctrl[m] = max(ctrl.get(m, 0.0), calibrate_control(m, env))
        per = {engine_key(e, m, env): calibrate_engine(e, m, env, params=dict(params))
               for e, m, env, params in dict.fromkeys(engines)}
        kinds = (["prediction"] if pred else []) + (["control"] if ctrl or per else [])
        chunk_s = {k: calibrate_chunk_s(k) for k in kinds}
        n = min(max(int(workers), 1), os.cpu_count() or 1)
        start = (calibrate_worker_start(kinds, n) if worker_start and kinds
                 else DEFAULT_RATES.worker_start_s)
        one = calibrate_worker_start(kinds, 1) if kinds else None
        pairs = ([("kernel", m, env, ()) for m, env in dict.fromkeys(control)]
                 + [(e, m, env, params) for e, m, env, params in dict.fromkeys(engines)])
        codes = ([("prediction", m, "mountain_car") for m in pred]
                 + [("control", m, env) for _e, m, env, _p in pairs])
        pair_load = calibrate_pair_loads(pairs, kinds)
        engine_import, kind_load = calibrate_kind_loads(kinds)
        startup, digest, history = calibrate_command_start(codes)
        plot_load, draw = calibrate_drawing()
    finally:
        torch.set_num_threads(threads)
    m = machine_description()
    slow = {str(n): calibrate_slowdown(n)} if n > 1 else {}
    # (a first chunk in the command's own process: its code digested there already)
    load = DEFAULT_RATES.engine_load_s if one is None else max(one - startup - digest, 0.0)
    rates = Rates(pred, ctrl, chunk_s, start,
                  source=f"calibrated on this machine ({m['cpu']}, {m['cpu_count']} CPUs)",
                  engines=per, startup_s=startup, engine_load_s=load, slowdown=slow,
                  plot_load_s=plot_load, draw_s=draw, pair_load_s=pair_load,
                  worker_starts={str(n): start} if worker_start and kinds and n > 1 else {},
                  digest_s=digest, history_s=history, kind_load_s=kind_load,
                  engine_import_s=engine_import)
    return with_stored_control(rates)


#: stored chunks of one CPU that it takes for their seconds per run-step to replace a
#: calibration's (:func:`with_stored_control`)
MIN_STORED_CHUNKS = 5


def with_stored_control(rates: Rates, dirs=COMMITTED_STORES, cpu: str | None = None) -> Rates:
    """``rates`` with each control method's seconds per run-step taken from the chunks stored
    in ``dirs`` that were made on ``cpu`` (default: this machine's; :func:`stored_step_seconds`;
    at least :data:`MIN_STORED_CHUNKS`): what paper-scale runs took on this kind of CPU. A
    calibration's few short runs are slower per step -- here 1.34-1.37 µs where the 153
    control chunks of a whole ``reproduce all --scale paper`` took 0.93-1.08 µs --
    and would predict a control figure a third too long."""
    if cpu is None:
        from ..store import machine_description

        cpu = machine_description()["cpu"]
    stored = stored_step_seconds(dirs, cpu)
    used = {m: stored[m][0] for m in rates.control
            if m in stored and stored[m][1] >= MIN_STORED_CHUNKS}
    if not used:
        return rates
    n = sum(stored[m][1] for m in used)
    return replace(rates, control={**rates.control, **used},
                   source=f"{rates.source}; control from {n} stored chunks of this CPU")


def stored_step_seconds(dirs, cpu: str | None = None) -> dict:
    """Seconds per run-step of the compiled control kernel in the stored chunks' metadata
    (``compute_s / iterations`` of every chunk the kernel made, ``cpu`` only if given):
    ``{method: (median, chunks)}`` -- what earlier runs measured, beside a calibration made on
    a machine that may be busier or quieter now."""
    from ..store import chunk_metas

    per: dict = {}
    for d in dirs:
        for folder in sorted(Path(d).glob("chunks/*")):
            for ident, meta in chunk_metas(folder):
                _add_step_seconds(per, ident, meta, cpu)
    return {m: (float(np.median(v)), len(v)) for m, v in per.items()}


def _add_step_seconds(per: dict, ident: dict, meta: dict, cpu: str | None) -> None:
    """One chunk's seconds per run-step into ``per[method]``: the kernel's chunks only
    (width 1: one run at a time), made on ``cpu`` when given."""
    eng = meta.get("engine") or {}
    if "method" not in ident or eng.get("width") != 1.0 or not eng.get("iterations"):
        return
    if cpu is not None and (meta.get("machine") or {}).get("cpu") != cpu:
        return
    per.setdefault(ident["method"], []).append(float(meta["compute_s"]) / eng["iterations"])


def stored_rate_lines(rates: Rates) -> list[str]:
    """The control kernel's seconds per run-step in the committed chunks made on this CPU
    beside the rates used (a busy machine calibrates slow): the plan's ``check:`` lines."""
    from ..store import machine_description

    stored = stored_step_seconds(COMMITTED_STORES, machine_description()["cpu"])
    return [f"check: {m} {1e6 * s:.2f} µs a run-step in {n} stored chunks made on this CPU"
            + (f", {1e6 * rates.control[m]:.2f} µs in the rates used"
               if rates.control.get(m) else "")
            for m, (s, n) in sorted(stored.items())]
