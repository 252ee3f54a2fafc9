r"""Speed of the batched engine, measured in one process (``python -m ftd_lib bench``).

Workload: recorded episodes of the mountain car evaluation task (paper Fig. 3: 2-50-1 tanh
network, lambda = 0.9, eta = 0.01 so K = 44, episodes of about 100-125 steps), float64, so
that every loop compared does the same learning work without the environment's cost. Every
time is the best of ``repeats`` wall-clock runs (the machine may be shared) with
``torch.set_num_threads(threads)`` (default 1: "per core").

Lines (:func:`run_bench`):

1. engine vs a per-run loop with a ``torch.nn`` network and autograd (forward TD(lambda)),
2. engine vs the per-run numpy reference :func:`ftd_lib.algorithms.forward_td_lambda`,
3. forward TD(lambda) / TD(0) cost per step by K (1 .. 50 and the paper's 44), torch batch
   and compiled per-run kernel (:mod:`.bench_k`: the median of alternating rounds, its
   spread, the load average),
4. TD(lambda) / TD(0) cost per step,
5. microseconds per run-step at 200 and 1000 runs,
6. the online lambda-return algorithm's cost per step against the episode length t,
7. ``control:`` two lines per control method (:func:`control_lines`): live cart-pole, 2000
   runs over lambda in {0, .3, .6, .9, 1} and alpha in {.0025, .005, .01}, 30 episodes each,
   through the compiled per-run kernel (:mod:`.kernel`, the default on the CPU) and through
   a full batch of 1000 rows of the torch engine (:mod:`.control`); microseconds per
   run-step (before the batch's final tail; the kernel's include each run's set-up) and the
   ratio to forward TD(lambda)'s on recorded steps at 1000 runs measured just before in the
   same process, and the utilisation (run-steps / (iterations x rows); 1 for the kernel,
   which has no rows to idle),
8. ``kernel:`` one line per (task, method) pair the compiled kernel runs
   (:func:`kernel_lines`; ``python -m ftd_lib bench --kernel`` prints only these): its own
   Sarsa(lambda) and forward Sarsa(lambda), each method written as pieces of its extension
   point (:mod:`.kernel.extend`) at its example parameters, against Sarsa(lambda)'s kernel
   on the same task and against its per-run reference (timed on a few thousand run-steps),
   the median of alternating rounds, the first call's compile time; a pair that fails is a
   line saying why; the machine and the load average before and after.

A run-step is one environment step of one run (its updates included).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from ..approx import MLP
from .prediction import NP_DTYPE, PredictionBatch
from .settings import Settings
from .sources import RecordedSource

SEED = 2016


def _episodes(n_runs: int, n_episodes: int, max_len: int | None = None):
    """Recorded evaluation episodes of ``n_runs`` runs (truncated to ``max_len`` steps)."""
    from ..envs.mountain_car import record_episodes_batch

    eps = record_episodes_batch(SEED, np.arange(n_runs), n_episodes)
    if max_len is not None:
        eps = [[(x[: max_len + 1], r[:max_len]) for x, r in run] for run in eps]
    return eps


def _tile(eps, B):
    return [eps[b % len(eps)] for b in range(B)]


def _w0(B):
    from . import initial_weights

    return initial_weights(SEED, np.arange(B), 2)


def _engine_seconds(method, eps_rows, settings, *, device="cpu", dtype=torch.float64,
                    repeats=3):
    """Best wall time of the engine's loop (setup excluded) and the run-steps it took."""
    best, steps = np.inf, 0
    w0 = _w0(len(eps_rows))
    for rep in range(repeats + 1):  # the first run warms up
        src = RecordedSource(eps_rows, 2, dtype=NP_DTYPE[dtype])
        batch = PredictionBatch(method, settings.broadcast(len(eps_rows)), w0, src,
                                device=device, dtype=dtype)
        if str(device).startswith("cuda"):
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        batch.run()
        if str(device).startswith("cuda"):
            torch.cuda.synchronize()
        if rep:
            best = min(best, time.perf_counter() - t0)
        steps = int(src.n_steps.sum())
    return best, steps


def _us_per_step(method, eps_rows, settings, **kw):
    sec, steps = _engine_seconds(method, eps_rows, settings, **kw)
    return sec / steps * 1e6


# ----------------------------------------------------------------- per-run baselines
def autograd_forward_td(episodes, alpha=0.01, lam=0.9, gamma=1.0, eta=0.01, seed=0):
    """Forward TD(lambda) (Algorithm 1) for one run, the way one would write it with
    ``torch.nn`` and autograd: the baseline the engine is compared with."""
    from ..returns import k_bound

    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(2, 50), torch.nn.Tanh(),
                              torch.nn.Linear(50, 1)).double()
    params = list(net.parameters())
    K = k_bound(gamma, lam, eta)
    gl = gamma * lam
    c_final = gl ** (K - 1)

    def update(x, target):
        net.zero_grad()
        v = net(torch.as_tensor(x)).squeeze()
        v.backward()
        with torch.no_grad():
            delta = target - v.item()
            for p in params:
                p.add_(p.grad, alpha=alpha * delta)

    for x, r in episodes:
        T = len(r)
        F = []
        U_sync, i, c, V_cur, ready, U = 0.0, 0, 1.0, 0.0, False, 0.0
        for t in range(T):
            with torch.no_grad():
                V_next = 0.0 if t + 1 == T else net(torch.as_tensor(x[t + 1])).item()
            rho = r[t] + gamma * (1 - lam) * V_next
            F.append((x[t], rho))
            d = r[t] + gamma * V_next - V_cur
            V_cur = V_next
            if i == K - 1:
                U, U_sync, i, c, ready = U_sync, V_cur, 0, 1.0, True
            else:
                U_sync, i, c = U_sync + c * d, i + 1, gl * c
            if ready:
                U += c_final * d
                xp, rp = F.pop(0)
                update(xp, U)
                if K != 1:
                    U = (U - rp) / gl
        if not ready:
            U = U_sync
        while F:
            xp, rp = F.pop(0)
            update(xp, U)
            if K != 1:
                U = (U - rp) / gl


def _per_run_us(fn, episodes, repeats=3):
    steps = sum(len(r) for _, r in episodes)
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(episodes)
        best = min(best, time.perf_counter() - t0)
    return best / steps * 1e6


# --------------------------------------------------------------------------- bench
def run_bench(device="cpu", threads: int | None = 1, quick: bool = False,
              repeats: int | None = None, kernel: bool = True) -> list[str]:
    """Measure the engine; one line of text per ratio or number (see module docstring).

    ``device``: where the engine runs (baselines always run on the CPU). ``threads``: torch
    CPU threads during the measurement (``None``: leave as is). ``quick``: tiny sizes (a
    smoke test, numbers not meaningful). ``kernel``: the ``kernel:`` lines too (on the CPU;
    :func:`kernel_lines`: every pair the compiled kernel runs, each compiled first).
    """
    from .. import algorithms

    old_threads = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(int(threads))
    rep = repeats or (1 if quick else 3)
    dev = torch.device("cuda" if device in (None, "auto") and torch.cuda.is_available()
                       else (device or "cpu"))
    lines = []
    try:
        n_small, n_big = (8, 16) if quick else (200, 1000)
        n_ep = 1 if quick else 2
        eps = _episodes(min(n_small, 50), n_ep)
        rows_small, rows_big = _tile(eps, n_small), _tile(eps, n_big)
        paper = Settings.make(alpha=0.01, lam=0.9, gamma=1.0, eta=0.01)
        kw = dict(device=dev, repeats=rep)
        where = (f"{dev.type}" + (f", {torch.get_num_threads()} torch thread(s)"
                                  if dev.type == "cpu" else ""))

        # 1-2: engine (forward TD, 200 runs) vs per-run loops
        eng = _us_per_step("forward_td_lambda", rows_small, paper, **kw)
        base_eps = eps[0][:1]
        ag = _per_run_us(lambda e: autograd_forward_td(e), base_eps, repeats=rep)
        approx = MLP(2, 50)
        w0 = _w0(1)[0]
        npref = _per_run_us(lambda e: algorithms.forward_td_lambda(
            e, w0, approx=approx, alpha=0.01, lam=0.9, gamma=1.0, eta=0.01), base_eps,
            repeats=rep)
        lines.append(f"engine vs per-run torch.nn+autograd loop (forward TD(lambda), "
                     f"{n_small} runs, {where}): {ag / eng:.0f}x more run-steps/s "
                     f"({eng:.2f} vs {ag:.1f} us per run-step) [target >= 50x]")
        lines.append(f"engine vs per-run numpy reference (forward TD(lambda), {n_small} runs): "
                     f"{npref / eng:.0f}x more run-steps/s ({eng:.2f} vs {npref:.1f} us per "
                     f"run-step) [target >= 8x]")

        # 3: forward TD(lambda) / TD(0) by K, both engines: medians of alternating rounds
        from . import bench_k

        ks = (1, 50) if quick else bench_k.KS
        for label in (n_small, n_big):
            for engine in ("batch", "kernel"):
                lines.append("forward TD(lambda) / TD(0) cost per step, " + bench_k.format_sweep(
                    bench_k.sweep(label, engine=engine, ks=ks, repeats=rep,
                                  rows=_tile(eps, label), min_seconds=0.0 if quick else 0.25))
                    + " [target <= 1.15, largest - smallest <= 0.1; cpu, 1 torch thread]")
        # 4: TD(lambda) / TD(0), same batch
        td0 = {label: _us_per_step("td0", rows, paper, **kw)
               for label, rows in ((n_small, rows_small), (n_big, rows_big))}
        big_f = _us_per_step("forward_td_lambda", rows_big, paper, **kw)
        for label, rows in ((n_small, rows_small), (n_big, rows_big)):
            tdl = _us_per_step("td_lambda", rows, paper, **kw)
            lines.append(f"TD(lambda) / TD(0) cost per step, {label} runs: "
                         f"{tdl / td0[label]:.2f} ({tdl:.2f} vs {td0[label]:.2f} us per run-step)"
                         " [target <= 1.5]")

        # 5: absolute cost
        lines.append(f"us per run-step ({where}): {n_small} runs: forward TD {eng:.2f}, TD(0) "
                     f"{td0[n_small]:.2f}; {n_big} runs: forward TD {big_f:.2f}, TD(0) "
                     f"{td0[n_big]:.2f} [target <= 1 us at 1000 runs on one core]")

        # 6: the online lambda-return algorithm's cost per step grows with t
        lens = [3, 6] if quick else [10, 20, 40, 80]
        n_on = 8 if quick else 200
        parts = []
        for T in lens:
            e_T = _tile(_episodes(min(n_on, 50), 1, max_len=T), n_on)
            parts.append(f"t<={T}: {_us_per_step('online_lambda_return', e_T, paper, **kw):.1f}")
        lines.append(f"online lambda-return us per run-step ({n_on} runs), episodes cut at "
                     "length t: " + ", ".join(parts) + " (about (t+1)/2 updates a step: "
                     f"grows with t; forward TD: {eng:.2f})")
        # 7: control (kernel and batch), against forward TD(lambda) in the same process
        lines += control_lines(dev, quick=quick, repeats=rep, rows=rows_big)
        # 8: every (task, method) pair of the compiled kernel
        if kernel and dev.type == "cpu":
            lines += kernel_lines(quick=quick, repeats=1 if quick else 5)
    finally:
        torch.set_num_threads(old_threads)
    return lines


CONTROL_LAMBDAS = (0.0, 0.3, 0.6, 0.9, 1.0)
CONTROL_ALPHAS = (0.0025, 0.005, 0.01)


def _ascii_label(method: str) -> str:
    """The method's label from :data:`ftd_lib.methods.METHODS`, spelt for any terminal."""
    from ..methods import METHODS

    return METHODS[method].label.replace("λ", "lambda")


def control_workload(n_tasks: int):
    """The control bench's tasks: settings cycling over lambda x alpha (cart-pole, gamma 0.99)."""
    lam, alpha = np.meshgrid(CONTROL_LAMBDAS, CONTROL_ALPHAS)
    k = np.arange(n_tasks) % lam.size
    return Settings.make(alpha=alpha.ravel()[k], lam=lam.ravel()[k], gamma=0.99)


def control_lines(device="cpu", *, quick=False, repeats=1, rows=None) -> list[str]:
    """``control:`` lines (see the module docstring): per method, the compiled per-run kernel
    (what ``run_control`` uses on the CPU) and the batched torch engine, each against forward
    TD(lambda) on recorded steps measured just before in the same process; ``rows``: those
    recorded episodes (default: the bench's at 1000 runs)."""
    from . import run_control

    width, n_tasks, n_ep = (16, 32, 3) if quick else (1000, 2000, 30)
    if rows is None:
        rows = _tile(_episodes(min(width, 50), 1 if quick else 2), width)
    paper = Settings.make(alpha=0.01, lam=0.9, gamma=1.0, eta=0.01)
    s = control_workload(n_tasks)
    engines = ("kernel", "batch") if torch.device(device).type == "cpu" else ("batch",)
    out = []
    for method in ("forward_sarsa_lambda", "sarsa_lambda"):
        for engine in engines:
            fwd = _us_per_step("forward_td_lambda", rows, paper, device=device, repeats=repeats)
            best = None
            for _ in range(repeats + (engine == "kernel")):  # (the first kernel run compiles)
                t0 = time.perf_counter()
                r = run_control(method, s, SEED, np.arange(n_tasks), n_ep, env="cartpole",
                                width=width, device=device, engine=engine)
                total = time.perf_counter() - t0
                us = r.seconds_before_tail / max(r.steps_before_tail, 1) * 1e6
                if best is None or us < best[0]:
                    best = (us, r, total)
            us, r, total = best
            how = ("compiled per-run kernel" if engine == "kernel"
                   else f"batched torch engine, {width} rows")
            out.append(
                f"control: {_ascii_label(method)}, cart-pole, {how} ({n_tasks} runs x {n_ep}"
                f" episodes): {us:.2f} us per run-step before the final tail = {us / fwd:.2f}x "
                f"forward TD(lambda)'s {fwd:.2f} on recorded steps at {len(rows)} runs [target "
                f"<= 2x]; utilisation {r.utilisation_before_tail:.2f} before the tail, "
                f"{r.utilisation:.2f} overall [target >= 0.9]; all in: "
                f"{total / r.n_steps.sum() * 1e6:.2f} us per run-step")
    return out


# --------------------------------------------------------------------------- kernel pairs
#: the kernel bench's workload: runs x episodes, the episode cap, alpha
KERNEL_WORKLOAD = {"full": (10, 100, 200), "quick": (2, 2, 20)}
KERNEL_ALPHA = 0.005
#: run-steps the per-run reference is timed on, at least (full, quick)
REFERENCE_STEPS = {"full": 3000, "quick": 100}


def kernel_pairs(tasks=None) -> list[tuple[str, str, str | None]]:
    """Every ``(task, method, pieces)`` the compiled kernel runs: its own runs of Sarsa(λ)
    and forward Sarsa(λ) on the tasks flagged ``kernel``, and each method whose row names a
    compiled form on each task whose row names compiled dynamics (:mod:`.kernel.extend`;
    the paper's two there where their own runs do not take the task). ``pieces`` is always
    ``None`` (the row's pieces); a bench of pieces before a row names them passes a module."""
    from ..envs.tasks import TASKS
    from ..methods import METHODS
    from .kernel import RUNS

    out = []
    for name, task in TASKS.items():
        if tasks is not None and name not in tasks:
            continue
        own = list(RUNS) if task.kernel else []
        out += [(name, m, None) for m in own]
        if task.compiled is not None:
            out += [(name, m.id, None) for m in METHODS.values()
                    if m.compiled is not None and m.id not in own]
    return out


def _kernel_run(task, method, pieces, engine, n_runs, n_ep, cap):
    """One timed run of ``n_runs`` x ``n_ep`` episodes (cap ``cap``) at the method's example
    parameters (:func:`ftd_lib.methods.example_params`): ``(CPU us per run-step, wall
    seconds, run-steps)``, the first in this process's CPU time (one thread does the work;
    on a shared machine the wall-clock time also counts the other jobs' turns)."""
    from ..envs.tasks import TASKS
    from ..methods import example_params
    from . import initial_weights, run_control
    from .kernel import extend

    t = TASKS[task]
    s = Settings.make(alpha=KERNEL_ALPHA, lam=0.9, gamma=t.gamma).broadcast(n_runs)
    ids = np.arange(n_runs)
    params = example_params(method)
    t0, c0 = time.perf_counter(), time.process_time()
    if pieces is not None:
        def init(tasks):
            return initial_weights(SEED, ids[tasks], t.n_in, 50, n_nets=t.n_actions)

        r = extend.run_tasks(method, s, SEED, ids, n_ep, env=task, init=init, max_steps=cap,
                             pieces=pieces, params=params)
    else:
        r = run_control(method, s, SEED, ids, n_ep, env=task, max_steps=cap, engine=engine,
                        params=params)
    cpu = time.process_time() - c0
    steps = int(r.n_steps.sum())
    return cpu / max(steps, 1) * 1e6, time.perf_counter() - t0, steps


def _reference_us(task, method, cap, min_steps) -> tuple[float, int]:
    """The per-run reference's CPU us a run-step on the bench's task, over runs of 2
    episodes added until at least ``min_steps`` run-steps: ``(us, run-steps)``."""
    cpu = steps = 0.0
    n = 0
    while steps < min_steps:
        us, _, k = _kernel_run(task, method, None, "reference", 1, 2, cap)
        cpu, steps, n = cpu + us * k, steps + k, n + 1
        if k == 0:
            break
    return cpu / max(steps, 1), int(steps)


def machine_line() -> str:
    """``kernel: machine ...``: the CPU model, its cores and the load average now."""
    import os
    import platform

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"kernel: machine {model}, {os.cpu_count()} cores; load average "
            + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def kernel_lines(*, quick=False, repeats=5, tasks=None, pairs=None) -> list[str]:
    """``kernel:`` lines, one per pair of :func:`kernel_pairs` (or ``pairs``): CPU
    microseconds a run-step (each run's set-up included) of the compiled kernel on
    :data:`KERNEL_WORKLOAD` (alpha 0.005, λ 0.9, each method at its example parameters),
    the median of ``repeats`` rounds that alternate over the pairs and the spread (min-max);
    for a method beside Sarsa(λ) its ratio to Sarsa(λ)'s kernel on the same task; the
    per-run reference's time on at least :data:`REFERENCE_STEPS` run-steps and the ratio;
    the first call's seconds (numba's compile, in this process). A pair that fails is one
    line saying why, and the others go on. The machine and load average open and close the
    lines."""
    key = "quick" if quick else "full"
    n_runs, n_ep, cap = KERNEL_WORKLOAD[key]
    pairs = kernel_pairs(tasks) if pairs is None else list(pairs)
    failed, first = {}, {}
    for p in pairs:  # compiles (or loads numba's cache)
        try:
            first[p] = _kernel_run(*p, "kernel", 1, 1, 2)[1]
        except Exception as e:  # noqa: BLE001  (one line for the pair; the others go on)
            failed[p] = f"{type(e).__name__}: {e}".splitlines()[0]
    times = {p: [] for p in first}
    for _ in range(max(1, repeats)):
        for p in list(times):
            try:
                times[p].append(_kernel_run(*p, "kernel", n_runs, n_ep, cap)[0])
            except Exception as e:  # noqa: BLE001
                failed[p] = f"{type(e).__name__}: {e}".splitlines()[0]
                del times[p]
    med = {p: float(np.median(v)) for p, v in times.items()}
    out = [machine_line()]
    for p in pairs:
        task, method, pieces = p
        how = " (as pieces)" if pieces else ""
        head = f"kernel: {_ascii_label(method)}{how}, {task}: "
        if p in failed:
            out.append(head + f"failed: {failed[p]}")
            continue
        line = head + (f"{med[p]:.2f} CPU us per run-step (median of {len(times[p])}, spread "
                       f"{min(times[p]):.2f}-{max(times[p]):.2f}; {n_runs} runs x {n_ep} "
                       f"episodes, cap {cap})")
        sarsa = [q for q in med if q[0] == task and q[1] == "sarsa_lambda"]
        if method != "sarsa_lambda" and sarsa:
            line += (f" = {med[p] / med[sarsa[0]]:.2f}x Sarsa(lambda)'s kernel "
                     f"{med[sarsa[0]]:.2f} [target <= 1.5x, <= 3 us]")
        try:
            ref_us, ref_steps = _reference_us(task, method, cap, REFERENCE_STEPS[key])
            line += (f"; reference {ref_us:.0f} us over {ref_steps} run-steps = "
                     f"{ref_us / med[p]:.0f}x")
        except Exception as e:  # noqa: BLE001
            line += f"; reference failed: {type(e).__name__}: {e}".splitlines()[0]
        out.append(line + f"; first call {first[p]:.1f} s (numba's compile)")
    out.append(machine_line().replace("kernel: machine", "kernel: at the end, machine"))
    return out
