r"""Notebook 04 (forward TD(:math:`\lambda`)): what it costs, and what its shortcuts would cost
in accuracy (Sec. 5).

- :func:`rounding_errors`: the targets Algorithm 1 used (read from its ``trace`` by
  :func:`ftd_lib.algorithms.algorithm1_targets`), against the definition and against the bare
  :math:`\rho`-recursion without resynchronisation, whose rounding errors grow by
  :math:`1/\gamma\lambda` every step.
- :func:`cost_per_step`: wall-clock cost per time step of TD(0), TD(:math:`\lambda`), forward
  TD(:math:`\lambda`) and the online :math:`\lambda`-return algorithm (the per-run references of
  :mod:`ftd_lib.algorithms`, with the paper's 2-50-1 MLP), as ratios to TD(0), plus exact
  counts of the value and gradient evaluations per step. Under ``CI`` in the environment it
  runs at a quick scale (:func:`ftd_lib.course.quick`). The notebook shows a stored
  measurement (:func:`stored_cost`, made by ``scripts/measure_cost_per_step.py``, its machine
  written beside it), not one made wherever the notebook runs; :func:`cost_claims` is what
  the notebook says of it.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .. import algorithms
from ..approx import MLP, Linear
from ..methods import style
from ..returns import (
    bounded_returns_by_rho,
    k_bound,
)
from ..rng import run_generator
from ..style import OKABE_ITO, legend_off_data, plot_off_chart, use_style
from . import quick as quick_scale


def long_episode(T: int = 2000, n_features: int = 3, seed: int = 0):
    """One episode of random features in [-1, 1] and rewards N(0, 1) (for rounding checks)."""
    rng = run_generator(seed, 0)
    return rng.uniform(-1, 1, size=(T + 1, n_features)), rng.normal(size=T)


def bounded_returns_vectorised(rewards, values, k, gamma: float, lam: float) -> np.ndarray:
    r""":math:`G_t^{\lambda|\min(t+K,T)}` for every t by the definition (eq. 2), the n-step
    returns of one t at once with numpy (cumulative sums) instead of one by one: the same
    numbers as :func:`ftd_lib.returns.bounded_returns_by_definition` (tested to 1e-12
    relative), but fast enough for :math:`K` in the hundreds (λ = 0.99, η = 0.01: K = 459).
    ``values[j]`` is :math:`\hat V(S_j|\theta_{j-1})`; values past the end are 0."""
    r = np.asarray(rewards, dtype=float)
    T = len(r)
    v = np.zeros(T + 1)
    given = np.asarray(values, dtype=float)[: T + 1]
    v[: len(given)] = given
    k = T if math.isinf(k) else int(k)
    m_max = min(k, T)
    disc = gamma ** np.arange(m_max + 1, dtype=float)  # γ^0 .. γ^m
    lam_pow = lam ** np.arange(m_max, dtype=float)  # λ^0 .. λ^(m-1)
    out = np.empty(T)
    for t in range(T):
        m = min(t + k, T) - t
        g_n = np.cumsum(disc[:m] * r[t:t + m]) + disc[1:m + 1] * v[t + 1:t + m + 1]
        w = (1 - lam) * lam_pow[:m]
        w[-1] = lam_pow[m - 1]
        out[t] = w @ g_n
    return out


def rounding_errors(T: int = 2000, gamma: float = 1.0, lam: float = 0.5, eta: float = 0.01,
                    alpha: float = 0.001, seed: int = 0) -> dict:
    r"""Sec. 5's rounding argument, measured on one long episode (linear, 3 random features).

    Runs Algorithm 1 with a trace, then computes, on the same values
    :math:`\hat V(S_j|\theta_{j-1})`, the K-bounded returns :math:`G_t^{\lambda|\min(t+K,T)}`
    by the definition (eq. 2; :func:`bounded_returns_vectorised`, so λ = 0.99 with K = 459
    takes seconds, not minutes) and :math:`G_t^{\lambda|t+K}` by the bare :math:`\rho`-recursion
    (App. B's two identities, no resynchronisation). Returns the absolute errors against the
    definition: ``err_algorithm1`` (every t) and ``err_rho`` (t = 0 .. T-K; ``inf``/``nan`` once
    it overflows).
    """
    x, r = long_episode(T, seed=seed)
    lin = Linear(x.shape[1])
    w0 = 0.1 * run_generator(seed, 0, stream=1).normal(size=lin.n_params)
    trace = []
    algorithms.forward_td_lambda([(x, r)], w0, approx=lin, alpha=alpha, lam=lam, gamma=gamma,
                                 eta=eta, trace=trace)
    K = trace[0]["K"]
    values = algorithms.trace_values(trace)
    exact = bounded_returns_vectorised(r, values, K, gamma, lam)
    by_rho = bounded_returns_by_rho(r, values, K, gamma, lam)
    with np.errstate(invalid="ignore", over="ignore"):
        err_rho = np.abs(by_rho - exact[: len(by_rho)])
    err_rho[np.isnan(err_rho)] = np.inf
    return dict(K=K, gamma=gamma, lam=lam, T=T, t=np.arange(T),
                err_algorithm1=np.abs(algorithms.algorithm1_targets(trace) - exact),
                err_rho=err_rho)


def plot_rounding(data: dict, ax=None, ymax: float = 1e10, t_max: int | None = None,
                  title: str | None = None, legend: bool = True):
    """Error of the K-bounded return vs t (up to ``t_max``), log scale; overflowed values drawn
    off the chart. ``title``: the panel's title (default: γλ and K); ``legend=False``: none
    (a second panel beside one that has it)."""
    if ax is None:
        use_style()
        ax = Figure(figsize=(7.0, 4.2)).subplots()
    tiny = 1e-18  # exact zeros have no logarithm: draw them at the bottom
    n = len(data["t"]) if t_max is None else min(int(t_max) + 1, len(data["t"]))
    err = np.maximum(data["err_rho"][:n], tiny)
    t_rho = data["t"][: len(err)]
    off = ~np.isfinite(err) | (err > ymax)
    k = int(np.argmax(off)) if off.any() else len(err) - 1  # draw up to the first off-chart point
    plot_off_chart(ax, t_rho[: k + 1], err[: k + 1], ymax, color=OKABE_ITO["vermillion"],
                   label="bare ρ-recursion (no resync)")
    if off.any():
        inf_at = np.flatnonzero(~np.isfinite(data["err_rho"]))
        note = f"off the chart from t = {t_rho[k]}"
        if inf_at.size:
            note += f"\n(overflows to ∞ at t = {data['t'][inf_at[0]]})"
        # right of where the curve leaves the chart, or, where that is too near the right
        # edge, in the top left corner, which the curve reaches only late (written at the
        # left at mid height, the words sat on the rising curve)
        where = (dict(xytext=(t_rho[k] + 0.04 * n, ymax * 1e-3)) if t_rho[k] < 0.5 * n
                 else dict(xytext=(0.03, 0.97), textcoords="axes fraction"))
        ax.annotate(note, xy=(t_rho[k], ymax * 1.04), color=OKABE_ITO["vermillion"],
                    fontsize=13, va="top", **where,
                    arrowprops=dict(arrowstyle="->", color=OKABE_ITO["vermillion"]))
    ax.plot(data["t"][:n], np.maximum(data["err_algorithm1"][:n], tiny),
            **style("forward_td_lambda"), lw=1.0)
    ax.lines[-1].set_label("Algorithm 1 (resync every K steps)")
    ax.set_yscale("log")
    ax.set_ylim(tiny * 0.5, ymax * 30)
    ax.set(xlabel="time step t", ylabel="|G − G by definition (eq. 2)|",
           title=title if title is not None
           else f"Rounding errors, γλ = {data['gamma'] * data['lam']:g}, K = {data['K']}")
    if legend:
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.2), fontsize=13)
        legend_off_data(ax.figure, [ax])
    return ax


# --------------------------------------------------------------------------------------------
# Cost per step

COST_METHODS = ("td0", "td_lambda", "forward_td_lambda", "online_lambda_return")


class CountingApprox:
    """Wraps an approximator and counts the states it evaluates (values and gradients)."""

    def __init__(self, approx):
        self.approx = approx
        self.n_in, self.n_params = approx.n_in, approx.n_params
        self.n_value = 0
        self.n_grad = 0

    def init(self, rng=None):
        return self.approx.init(rng)

    @staticmethod
    def _rows(x) -> int:
        x = np.asarray(x)
        return 1 if x.ndim == 1 else int(x.shape[0])

    def value(self, w, x):
        self.n_value += self._rows(x)
        return self.approx.value(w, x)

    def grad(self, w, x):
        self.n_grad += self._rows(x)
        return self.approx.grad(w, x)


def _run(method: str, episodes, w0, approx, lam: float, gamma: float, eta: float):
    kw = dict(approx=approx, alpha=0.001, gamma=gamma)
    if method == "td0":
        return algorithms.td0(episodes, w0, **kw)
    if method == "td_lambda":
        return algorithms.td_lambda(episodes, w0, lam=lam, **kw)
    if method == "forward_td_lambda":
        return algorithms.forward_td_lambda(episodes, w0, lam=lam, eta=eta, **kw)
    if method == "online_lambda_return":
        return algorithms.online_lambda_return(episodes, w0, lam=lam, **kw)
    if method == "forward_by_definition":
        return algorithms.forward_td_lambda_by_definition(episodes, w0, lam=lam, eta=eta, **kw)
    raise ValueError(f"unknown method {method!r}")


def timing_episode(T: int, seed: int = 0):
    """One episode of length T, 2 inputs in [-1, 1] (like mountain car), rewards N(-1, 2)."""
    rng = run_generator(seed, T)
    return rng.uniform(-1, 1, size=(T + 1, 2)), rng.normal(-1.0, 2.0, size=T)


def evaluations_per_step(T: int, methods=COST_METHODS, lam: float = 0.9, gamma: float = 1.0,
                         eta: float = 0.01, n_hidden: int = 50, seed: int = 0) -> dict:
    """Exact counts, per time step, of the value and gradient evaluations of each method on
    one episode of length T (averaged over the episode's steps)."""
    mlp = CountingApprox(MLP(2, n_hidden))
    w0 = mlp.init(run_generator(seed, 0, stream=1))
    episode = [timing_episode(T, seed)]
    out = {}
    for m in methods:
        mlp.n_value = mlp.n_grad = 0
        _run(m, episode, w0, mlp, lam, gamma, eta)
        out[m] = dict(value=mlp.n_value / T, grad=mlp.n_grad / T)
    return out


def cost_per_step(lengths=None, methods=COST_METHODS, *, repeats: int | None = None,
                  quick: bool | None = None, min_time: float | None = None, lam: float = 0.9,
                  gamma: float = 1.0, eta: float = 0.01, n_hidden: int = 50,
                  seed: int = 0) -> dict:
    r"""Measured wall-clock seconds per time step of each method, on one episode of each length.

    The per-run references of :mod:`ftd_lib.algorithms` with an MLP(2, ``n_hidden``). Like
    ``timeit``: each measurement runs the episode ``number`` times in a row (enough for about
    ``min_time`` seconds), and the methods take turns in each of ``repeats`` rounds (so a busy
    machine slows them alike within a round). ``seconds[m]``: the fastest round's time per
    step; ``ratio[m]``: the median over the rounds of each round's time divided by TD(0)'s in
    the same round and at the same length (a ratio of two times measured side by side, its
    median steady where one slow round would move a minimum). Compare ratios, not absolute
    times, which depend on the machine. Quick (``CI`` set): shorter episodes, shorter
    measurements. A stored measurement, made by ``scripts/measure_cost_per_step.py`` with its
    machine written beside it: :func:`stored_cost`.
    """
    quick = quick_scale() if quick is None else bool(quick)
    if lengths is None:
        lengths = (5, 10, 20) if quick else (10, 20, 40, 60)
    if repeats is None:
        repeats = 3
    repeats = int(repeats)
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if min_time is None:
        min_time = 0.005 if quick else 0.03
    mlp = MLP(2, n_hidden)
    w0 = mlp.init(run_generator(seed, 0, stream=1))
    lengths = [int(T) for T in lengths]
    rounds = {m: np.empty((len(lengths), repeats)) for m in methods}

    def once(m, episode):
        t0 = time.perf_counter()
        _run(m, episode, w0, mlp, lam, gamma, eta)
        return time.perf_counter() - t0

    for i, T in enumerate(lengths):
        episode = [timing_episode(T, seed)]
        number = {m: max(1, math.ceil(min_time / max(once(m, episode), 1e-9))) for m in methods}
        for r in range(repeats):
            for m in methods:
                t0 = time.perf_counter()
                for _ in range(number[m]):
                    _run(m, episode, w0, mlp, lam, gamma, eta)
                rounds[m][i, r] = (time.perf_counter() - t0) / number[m] / T
    return cost_summary(lengths, rounds, quick=quick, lam=lam, gamma=gamma, eta=eta)


def cost_summary(lengths, rounds: dict, *, quick: bool = False, lam: float = 0.9,
                 gamma: float = 1.0, eta: float = 0.01) -> dict:
    """:func:`cost_per_step`'s result from its measurements ``rounds[m]`` (seconds per step,
    one row per length, one column per round): the fastest round per method (``seconds``)
    and the median over the rounds of each round's ratio to TD(0) (``ratio``)."""
    rounds = {m: np.asarray(v, dtype=float) for m, v in rounds.items()}
    seconds = {m: v.min(axis=1) for m, v in rounds.items()}
    base = rounds.get("td0")
    ratio = ({m: np.median(v / base, axis=1) for m, v in rounds.items()}
             if base is not None else {})
    repeats = next(iter(rounds.values())).shape[1] if rounds else 0
    return dict(lengths=np.array([int(T) for T in lengths]), seconds=seconds, ratio=ratio,
                rounds=rounds, quick=bool(quick), repeats=int(repeats),
                K=k_bound(gamma, lam, eta), lam=lam, gamma=gamma, eta=eta)


#: the stored measurement (``scripts/measure_cost_per_step.py``), read by notebook 04 and the
#: site: a timing made on the build machine would be noise published as content
COST_FILE = Path(__file__).resolve().parents[2] / "results" / "cost_per_step.json"


def cost_record(data: dict, machine: dict, **about) -> dict:
    """:func:`cost_per_step`'s result ``data`` as JSON (every round kept), with the
    ``machine`` it was measured on and anything else ``about`` it (date, command, load)."""
    return dict(about, machine=machine, lengths=[int(T) for T in data["lengths"]],
                quick=bool(data["quick"]), lam=data["lam"], gamma=data["gamma"],
                eta=data.get("eta", 0.01),
                rounds={m: np.asarray(v).tolist() for m, v in data["rounds"].items()})


def stored_cost(path=None) -> dict:
    """The stored measurement (:data:`COST_FILE`): what :func:`cost_per_step` returned on the
    machine named in ``machine``, recomputed from its rounds (:func:`cost_summary`), with the
    record's ``machine``, ``date``, ``command`` and ``load_average``."""
    rec = json.loads(Path(COST_FILE if path is None else path).read_text())
    data = cost_summary(rec["lengths"], rec["rounds"], quick=rec["quick"], lam=rec["lam"],
                        gamma=rec["gamma"], eta=rec["eta"])
    data.update({k: rec[k] for k in ("machine", "date", "command", "load_average")
                 if k in rec})
    return data


ENGINE_SWEEP_FILE = COST_FILE.with_name("engine_k_sweep.json")


def stored_engine_sweep(path=None) -> dict:
    """The engine's stored K sweep (:data:`ENGINE_SWEEP_FILE`, written by
    ``scripts/measure_engine_k_sweep.py``, :func:`ftd_lib.engine.bench_k.sweep`): forward
    TD(λ) / TD(0) by K for the torch batch and the compiled per-run kernel, with the machine
    and the load average."""
    return json.loads(Path(ENGINE_SWEEP_FILE if path is None else path).read_text())


def plot_engine_sweep(rec: dict, axes=None):
    """:func:`ftd_lib.engine.bench_k.plot_sweeps`: one panel per batch size, laid out, the
    legend off the data (:func:`ftd_lib.style.legend_off_data`)."""
    from ..engine.bench_k import plot_sweeps

    axes = plot_sweeps(rec, axes=axes)
    fig = axes[0].figure
    fig.tight_layout()
    legend_off_data(fig, [axes[0]])
    return axes


def format_engine_sweep(rec: dict) -> str:
    """:func:`ftd_lib.engine.bench_k.format_record`: the numbers behind the figure."""
    from ..engine.bench_k import format_record

    return format_record(rec)


#: "about what TD(0) costs": within this factor of TD(0)'s cost per step, either way
ABOUT = 1.5


def cost_claims(data: dict) -> dict:
    r"""What notebook 04 says of the measured cost, each as True/False for ``data``: per step,
    TD(:math:`\lambda`) and forward TD(:math:`\lambda`) cost about what TD(0) costs (between
    :data:`ABOUT` times and its inverse, at every episode length); the online
    :math:`\lambda`-return algorithm's cost per step grows with the episode length (every step
    up) and ends above 3 times forward TD(:math:`\lambda`)'s (Sec. 5: at step t it redoes t
    updates)."""
    r = data["ratio"]
    out = {}
    for m in ("td_lambda", "forward_td_lambda"):
        out[f"{m} costs about what TD(0) costs at every length"] = bool(
            np.all((r[m] >= 1 / ABOUT) & (r[m] <= ABOUT)))
    olr = r["online_lambda_return"]
    out["online_lambda_return's cost per step grows with T"] = bool(np.all(np.diff(olr) > 0))
    out["online_lambda_return ends above 3 times forward_td_lambda"] = bool(
        olr[-1] > 3 * r["forward_td_lambda"][-1])
    return out


def plot_cost(data: dict, ax=None):
    """Cost per time step relative to TD(0) against the episode length (log scale)."""
    if ax is None:
        use_style()
        ax = Figure(figsize=(7.0, 4.2)).subplots()
    for m, r in data["ratio"].items():
        kw = style(m) if m != "forward_by_definition" else dict(
            color=OKABE_ITO["orange"], ls="--", label="forward TD(λ) by definition")
        ax.plot(data["lengths"], r, marker="o", **kw)
    ax.set_yscale("log")
    ax.set(xlabel="episode length T", ylabel="cost per step / TD(0)'s",
           title=f"Measured cost per time step (MLP 2-50-1, λ = {data['lam']:g})")
    ax.legend(loc="upper left", fontsize=13)
    legend_off_data(ax.figure, [ax])
    return ax


def memory_table(n_features: int, n_params: int, lams=(0.5, 0.9, 0.99, 0.999, 1.0), *,
                 gamma: float = 1.0, eta: float = 0.01, k_max: int | None = None) -> list[dict]:
    r"""What forward TD(:math:`\lambda`) stores beyond TD(0) (Sec. 5, "Memory"): the queue
    :math:`\mathcal F` of the last K feature vectors with their :math:`\rho`, i.e.
    :math:`K(n+1)` numbers for n features -- :math:`O(nK)` -- against the eligibility trace of
    TD(:math:`\lambda`), one number per weight (``n_params``). K is capped at ``k_max``;
    without a cap K is infinite at :math:`\gamma\lambda = 1` (the whole episode is queued)."""
    rows = []
    for lam in lams:
        K = k_bound(gamma, lam, eta, k_max)
        queue = math.inf if math.isinf(K) else int(K) * (int(n_features) + 1)
        rows.append(dict(lam=float(lam), K=K, queue_numbers=queue, trace_numbers=int(n_params)))
    return rows


def format_memory(n_features: int, n_params: int, lams=(0.5, 0.9, 0.99, 0.999, 1.0), *,
                  gamma: float = 1.0, eta: float = 0.01, k_max: int = 50) -> str:
    r""":func:`memory_table` without and with the cap ``k_max``, side by side, as one table for
    people: per :math:`\lambda` the horizon K and the numbers the queue holds (K(n+1)), and the
    size of TD(:math:`\lambda`)'s trace (one number per weight) for comparison."""
    free = memory_table(n_features, n_params, lams, gamma=gamma, eta=eta)
    capped = memory_table(n_features, n_params, lams, gamma=gamma, eta=eta, k_max=k_max)

    def q(row):
        return "episode" if math.isinf(row["queue_numbers"]) else str(row["queue_numbers"])

    lines = [f"η = {eta:g}; TD(λ)'s trace: {int(n_params)} numbers",
             f"   λ      K    queue    K (K_max = {k_max})   queue"]
    for a, b in zip(free, capped, strict=True):
        lines.append(f"{a['lam']:<6g} {a['K']!s:>4} {q(a):>8} {b['K']!s:>9} {q(b):>15}")
    return "\n".join(lines)


def format_cost(data: dict, digits: int = 2) -> str:
    """:func:`cost_per_step`'s ratios to TD(0) as a table for people: one row per method, one
    column per episode length; for a stored measurement (:func:`stored_cost`) a last line
    with its rounds, date, machine and command."""
    lengths = [int(T) for T in data["lengths"]]
    lines = ["cost per step / TD(0)'s   " + "".join(f"T = {T:<5d}" for T in lengths)]
    for method, ratio in data["ratio"].items():
        lines.append(f"{method:25s} " + "".join(f"{q:<9.{digits}f}" for q in ratio))
    if "machine" in data:  # a stored measurement: where and how it was made
        m = data["machine"]
        lines.append(f"median of {data['repeats']} rounds, measured {data.get('date', '?')} on "
                     f"{m.get('cpu', '?')} ({m.get('cpu_count', '?')} CPUs, Python "
                     f"{m.get('python', '?')}"
                     + (f", load average {data['load_average']['start'][0]:g}"
                        if "load_average" in data else "")
                     + f") by the course repository's {data.get('command', '?')}")
    return "\n".join(line.rstrip() for line in lines)
