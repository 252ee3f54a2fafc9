r"""Forward TD(:math:`\lambda`)'s cost per step against TD(0)'s in the engine, by K (paper
Sec. 5: Algorithm 1 computes K-bounded :math:`\lambda`-returns "at the cost of TD(0)").

Workload: the bench's recorded mountain car evaluation episodes (2 episodes of about
100-125 steps per run, the paper's 2-50-1 network, float64), tiled to ``n_runs`` rows;
:math:`\lambda = 0.999`, :math:`\eta = 0.01` and :math:`K_{max} = K` so that K is what the
sweep sets. For each K, ``repeats`` rounds in which TD(0) and forward TD(:math:`\lambda`)
take turns (after one warm-up round); a round's ratio is forward's time over TD(0)'s in the
same round, in CPU time of this process (one thread does the work; on a shared machine the
wall-clock time also counts the other jobs' turns, kept beside it as ``ratio_wall``), and
the record keeps the median ratio and its spread (min, max) over the rounds, both methods'
CPU microseconds per run-step (median, min and max over the rounds), and the loop's counted
iterations per step (:attr:`.results.PredictionResult.iterations`), with the load average
before and after; per sweep, its ``flatness`` (largest - smallest median ratio over K) and
``us_per_run_step``, each method's range of median microseconds per run-step over K.

Where the batch's K-dependence comes from (the record's ``counts_forward``): its row-iterations
per run-step are the same at every K (a row needs about one iteration a step: two steps an
iteration while update-free, two pops while it flushes), but an iteration costs the whole
batch's width, and the extra work one row needs in it -- slot A's update while it flushes
(a full-width value, gradient and update, a gather from the ring buffer, a few masked
selects) or a second environment step while it is update-free (a second gather, a dozen
masked host ops) -- is paid by every row whenever any row needs it. With the rows out of
phase, the share of iterations carrying a flushing row (``flush``) or a double-stepping row
(``double``) is 0 at K = 1 and grows with K. The ring buffer's size (``(n + 2) x B x (K+1)``
numbers) grows with K too, but an iteration touches B of its columns whatever K. The
compiled per-run loops have no batch to pay for: a run does its own work only, TD(0)'s
count of values and updates at every K (``counts_forward == counts_td0``); what is left of
K in their time would be the flush, whose K - 1 values come one after another (each after
the previous update: a chain), where TD(0)'s and the ready phase's update and the next step's
two values share a pass (:func:`.kernel.prediction.update_value2`) and the update-free phase
computes pairs of values side by side (:func:`.kernel.prediction.value2`); so two rows'
flushes run side by side, a pop of each in one pass
(:func:`.kernel.prediction.update_value_pair`).
The FIFO (``(K + 1) x n`` numbers a run) stays in the L1 cache at every K.

``engine``: ``"batch"`` (:class:`.prediction.PredictionBatch`, the torch batch) or
``"kernel"`` (the compiled per-run loops of :mod:`.kernel.prediction`). A row's numbers are
the same bit for bit in both (``tests/engine/test_engine_kernel_prediction.py``).
"""

from __future__ import annotations

import os
import time

import numpy as np

#: the K of the sweep (1 .. 50) and the paper's setting, K = 44
KS = (1, 2, 5, 10, 20, 30, 40, 44, 50)


SEED = 2016  # the bench's (:data:`.bench.SEED`)


def workload(n_runs: int, n_episodes: int = 2):
    """The bench's recorded episodes (:func:`.bench._episodes`): ``n_episodes`` of each of
    the first min(n_runs, 50) runs, tiled to ``n_runs`` rows."""
    from ..envs.mountain_car import record_episodes_batch

    eps = record_episodes_batch(SEED, np.arange(min(n_runs, 50)), n_episodes)
    return [eps[b % len(eps)] for b in range(n_runs)]


def initial_weights(n_runs: int):
    """The bench's initial weights of ``n_runs`` rows (:func:`.bench._w0`)."""
    from .weights import initial_weights as w0

    return w0(SEED, np.arange(n_runs), 2)


def settings_for_k(k: int, n_runs: int):
    """lambda = 0.999, eta = 0.01, gamma = 1, ``k_max = k``: Algorithm 1 with that K."""
    from .settings import Settings

    return Settings.make(alpha=0.01, lam=0.999, gamma=1.0, eta=0.01, k_max=k).broadcast(n_runs)


def _clock():
    """``(wall, cpu)`` seconds: the CPU time is this process's (one thread does the work),
    which a machine shared with other jobs inflates far less than the wall-clock time."""
    return time.perf_counter(), time.process_time()


def run_once(engine: str, method: str, rows, settings, w0):
    """One timed run: ``((wall, cpu) seconds, run_steps, row_iterations, counts)`` (set-up
    excluded):
    ``row_iterations`` = the loop's iterations times its rows (the batch) or its passes (the
    kernel: one per step); ``counts``: the batch's iterations with a row flushing or double
    stepping (:attr:`.prediction_forward.ForwardTDLoop.loop_counts`), the kernel's values
    and updates computed."""
    from .prediction import PredictionBatch
    from .sources import RecordedSource

    src = RecordedSource(rows, 2)
    if engine == "batch":
        batch = PredictionBatch(method, settings, w0, src)
        t0 = _clock()
        res = batch.run()
        sec = tuple(b - a for a, b in zip(t0, _clock(), strict=True))
        counts = dict(iterations=int(res.iterations), **getattr(batch, "loop_counts", {}))
        return sec, int(res.n_steps.sum()), int(res.iterations) * len(rows), counts
    if engine == "kernel":
        from .kernel.prediction import run_source

        t0 = _clock()
        res = run_source(method, settings, w0, src, record_weights=False)
        sec = tuple(b - a for a, b in zip(t0, _clock(), strict=True))
        counts = dict(values=int(res.work[:, 0].sum()), updates=int(res.work[:, 1].sum()))
        return sec, int(res.n_steps.sum()), int(res.iterations), counts
    raise ValueError(f"engine must be 'batch' or 'kernel', got {engine!r}")


def _timed(inner: int, engine: str, method: str, rows, settings, w0):
    """:func:`run_once` ``inner`` times in a row: its seconds summed, the last one's rest."""
    total = [0.0, 0.0]
    for _ in range(inner):
        sec, steps, its, counts = run_once(engine, method, rows, settings, w0)
        total = [a + b for a, b in zip(total, sec, strict=True)]
    return tuple(total), steps, its, counts


def sweep(n_runs: int, *, engine: str = "batch", ks=KS, repeats: int = 7,
          progress: bool = False, rows=None, min_seconds: float = 0.0) -> dict:
    """The K sweep at ``n_runs`` runs (see the module docstring): a dict with, per K, the
    median ratio, its min and max over the rounds, both methods' median us per run-step, the
    row-iterations per run-step of each loop and its counts (:func:`run_once`). ``rows``:
    other episodes, one list per row (default: :func:`workload`). ``min_seconds``: each
    method's turn in a round runs the workload as many times in a row (``inner``, the same
    for both, from the warm-up round) as it takes to last about that long in CPU time, so
    that a turn of a fast loop is not a few milliseconds that one interruption doubles."""
    import math

    import torch

    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if isinstance(min_seconds, bool) or not isinstance(min_seconds, (int, float)) or not (
            min_seconds >= 0):
        raise ValueError(f"min_seconds must be a number >= 0, got {min_seconds!r}")
    rows = workload(n_runs) if rows is None else rows
    n_runs = len(rows)
    w0 = initial_weights(n_runs)
    load0 = os.getloadavg()
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    out = []
    it = ks
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(ks, desc=f"{engine}, {n_runs} runs", unit="K")
    try:
        for k in it:
            s = settings_for_k(int(k), n_runs)
            r, r_wall, us_f, us_t = [], [], [], []
            inner = 1
            for rep in range(repeats + 1):  # the first round warms up
                tt, st, it_t, c_t = _timed(inner, engine, "td0", rows, s, w0)
                tf, sf, it_f, c_f = _timed(inner, engine, "forward_td_lambda", rows, s, w0)
                if rep:
                    r.append(tf[1] / tt[1])
                    r_wall.append(tf[0] / tt[0])
                    us_f.append(tf[1] / (sf * inner) * 1e6)
                    us_t.append(tt[1] / (st * inner) * 1e6)
                elif min_seconds > 0:
                    inner = max(1, math.ceil(min_seconds / max(min(tt[1], tf[1]), 1e-6)))
            out.append(dict(K=int(k), ratio=float(np.median(r)), ratio_min=float(min(r)),
                            ratio_max=float(max(r)), ratio_wall=float(np.median(r_wall)),
                            ratio_wall_min=float(min(r_wall)),
                            ratio_wall_max=float(max(r_wall)),
                            us_forward=float(np.median(us_f)),
                            us_forward_min=float(min(us_f)), us_forward_max=float(max(us_f)),
                            us_td0=float(np.median(us_t)), us_td0_min=float(min(us_t)),
                            us_td0_max=float(max(us_t)), steps=sf,
                            iterations_per_step_forward=it_f / sf,
                            iterations_per_step_td0=it_t / st, counts_forward=c_f,
                            counts_td0=c_t, inner=inner))
    finally:
        torch.set_num_threads(old)
    rs = [p["ratio"] for p in out]
    us = {m: [p[f"us_{m}"] for p in out] for m in ("forward", "td0")}
    return dict(engine=engine, n_runs=int(n_runs), repeats=int(repeats), torch_threads=1,
                min_seconds=float(min_seconds),
                load_average={"start": [round(x, 2) for x in load0],
                              "end": [round(x, 2) for x in os.getloadavg()]},
                flatness=float(max(rs) - min(rs)),
                us_per_run_step={m: [float(min(v)), float(max(v))] for m, v in us.items()},
                points=out)


def format_sweep(rec: dict) -> str:
    """One line: K: median ratio [min-max], the us per run-step at the paper's K and their
    range over K."""
    pts = rec["points"]
    us = {m: [p[f"us_{m}"] for p in pts] for m in ("forward", "td0")}
    rs = [p["ratio"] for p in pts]
    la = rec["load_average"]
    body = ", ".join(f"{p['K']}: {p['ratio']:.2f} [{p['ratio_min']:.2f}-{p['ratio_max']:.2f}]"
                     for p in pts)
    k44 = next((p for p in pts if p["K"] == 44), pts[-1])
    return (f"{rec['engine']}, {rec['n_runs']} runs, by K "
            f"(CPU time, median [min-max] of {rec['repeats']} alternating rounds): {body}; "
            f"largest - smallest {max(rs) - min(rs):.2f}; K = {k44['K']}: "
            f"{k44['us_forward']:.2f} vs "
            f"{k44['us_td0']:.2f} CPU us per run-step, {k44['iterations_per_step_forward']:.3f}"
            f" row-iterations per run-step (over K: {min(us['forward']):.2f}-"
            f"{max(us['forward']):.2f} vs {min(us['td0']):.2f}-{max(us['td0']):.2f}); "
            f"load average {la['start'][0]:.2f} -> "
            f"{la['end'][0]:.2f}")


def plot_sweeps(rec: dict, path=None, axes=None):
    """The stored sweeps (``results/engine_k_sweep.json``) as a figure, one panel per batch
    size: the median ratio by K with its min-max band over the rounds, one line per engine,
    the target 1.15 dotted; on ``axes`` (one per batch size) if given, saved to ``path`` if
    given. Returns the axes."""
    sizes = sorted({sw["n_runs"] for sw in rec["sweeps"]})
    if axes is None:
        from matplotlib.figure import Figure

        axes = Figure(figsize=(9.0, 3.4)).subplots(1, len(sizes), sharey=True, squeeze=False)[0]
    style = {"batch": ("o--", "#D55E00", "torch batch"),
             "kernel": ("s-", "#0072B2", "compiled per-run kernel")}
    for ax, n in zip(axes, sizes, strict=True):
        for sw in (sw for sw in rec["sweeps"] if sw["n_runs"] == n):
            pts = sw["points"]
            k = [p["K"] for p in pts]
            fmt, color, label = style[sw["engine"]]
            ax.plot(k, [p["ratio"] for p in pts], fmt, color=color, ms=4, label=label)
            ax.fill_between(k, [p["ratio_min"] for p in pts], [p["ratio_max"] for p in pts],
                            color=color, alpha=0.15, lw=0)
        ax.axhline(1.0, color="0.5", lw=0.8)
        ax.axhline(1.15, color="0.3", lw=0.8, ls=":", label="target 1.15")
        ax.set_xlabel("K")
        ax.set_title(f"{n} runs")
    axes[0].set_ylabel("forward TD(λ) / TD(0)\nCPU time per step")
    axes[0].legend(loc="upper left")
    fig = axes[0].figure
    if path is not None:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
    return axes


def format_record(rec: dict) -> str:
    """The stored record as text: one :func:`format_sweep` line per sweep, then where and
    how it was measured."""
    m = rec["machine"]
    return "\n".join([format_sweep(sw) for sw in rec["sweeps"]] + [
        f"measured {rec.get('date', '?')} on {m.get('cpu', '?')} ({m.get('cpu_count', '?')} "
        f"CPUs, torch {m.get('torch', '?')}) by the course repository's "
        f"{rec.get('command', '?')}"])


def sweep_claims(rec: dict, target: float = 1.15) -> dict:
    """What notebook 04 says of a stored record, each True/False, at every batch size: the
    kernel's median ratio is within ``target`` of TD(0)'s at every K; it varies less with K
    (largest - smallest) than the batch's; the batch's ratio grows with K (its largest at
    K >= 10 above its K = 1)."""
    out = {}
    spread = {}
    for sw in rec["sweeps"]:
        r = {p["K"]: p["ratio"] for p in sw["points"]}
        spread[sw["engine"], sw["n_runs"]] = max(r.values()) - min(r.values())
        name = f"{sw['engine']}, {sw['n_runs']} runs"
        if sw["engine"] == "kernel":
            out[f"{name}: within {target} of TD(0) at every K"] = max(r.values()) <= target
        else:
            out[f"{name}: grows with K"] = max(v for k, v in r.items() if k >= 10) > r[min(r)]
    for (engine, n), sp in spread.items():
        if engine == "kernel" and ("batch", n) in spread:
            out[f"kernel, {n} runs: flatter in K than the batch"] = sp < spread["batch", n]
    return out
