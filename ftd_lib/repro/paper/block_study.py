r"""The reading of the block :math:`\lambda`-return study (figure id ``block-lambda``), computed
from the stored numbers: which method wins, where, by how much, with standard errors.

Every cell of the figure uses the same run ids (common random numbers: run r of every cell has
the same :math:`\theta_0` and the same episodes), so two cells are compared run by run: the
*paired* difference of their per-run errors, its mean and its standard error over runs. A
difference within two standard errors is reported as no clear difference.
"""

from __future__ import annotations

import math

import numpy as np

from ...methods import label
from .claims import best_index, fmt_number

REFERENCE = "forward_td_lambda"  # the method every other curve is compared with


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error over runs of ``a - b`` (per-run errors of two cells, same run
    ids); ``(inf, inf)`` when either has a diverged (infinite) run."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return math.inf, math.inf
    d = a - b
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.inf
    return float(d.mean()), se


def compare(res) -> list[dict]:
    """Every curve at its best step size against :data:`REFERENCE` at its own best: the curve,
    its best alpha, mean and SE, the paired difference (curve minus reference) with its SE and
    the verdict (``"better"``, ``"worse"``, ``"no clear difference"``, ``"diverged"``)."""
    s = res.summary()
    metric = res.arrays["metric"]
    i_ref = int(s[REFERENCE]["cell"][best_index(s[REFERENCE], True)])
    out = []
    for c, sc in s.items():
        k = best_index(sc, True)
        i = int(sc["cell"][k])
        d, se = paired_difference(metric[i], metric[i_ref])
        if not np.isfinite(d):
            verdict = "diverged"
        elif c == REFERENCE:
            verdict = "reference"
        elif abs(d) <= 2 * se:
            verdict = "no clear difference"
        else:
            verdict = "better" if d < 0 else "worse"
        out.append(dict(curve=c, alpha=float(sc["x"][k]), mean=float(sc["y"][k]),
                        se=float(sc["se"][k]), diff=d, diff_se=se, verdict=verdict))
    return out


def wins_per_alpha(res, curve: str) -> list[float]:
    """The step sizes at which ``curve`` beats :data:`REFERENCE` at the same alpha by more
    than two standard errors of the paired difference."""
    a = res.arrays
    out = []
    for x in sorted(set(a["alpha"].tolist())):
        ic = np.flatnonzero((a["curve"] == curve) & (a["alpha"] == x))
        ir = np.flatnonzero((a["curve"] == REFERENCE) & (a["alpha"] == x))
        if len(ic) and len(ir):
            d, se = paired_difference(a["metric"][ic[0]], a["metric"][ir[0]])
            if np.isfinite(d) and d < -2 * se:
                out.append(x)
    return out


def _name(curve: str) -> str:
    return label(curve)


def reading(res) -> list[str]:
    """The study's reading as Markdown lines: a table of every curve at its best step size
    against forward TD(:math:`\\lambda`), then the sentences that follow from it."""
    rows = compare(res)
    n = res.arrays["metric"].shape[1]
    lines = [f"Every curve at its own best α against forward TD(λ) at its best; difference = "
             f"curve − forward TD(λ), paired over the {n} runs (common random numbers), ± one "
             "standard error:", "",
             "| curve | best α | error at best α (± SE) | difference (± SE) | verdict |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        diff = ("—" if r["curve"] == REFERENCE else fmt_number(r["diff"], r["diff_se"]))
        lines.append(f"| {_name(r['curve'])} | {r['alpha']:g} | "
                     f"{fmt_number(r['mean'], r['se'])} | {diff} | {r['verdict']} |")
    lines.append("")
    ranked = sorted((r for r in rows if np.isfinite(r["mean"])), key=lambda r: r["mean"])
    if not ranked:
        return lines
    best = ranked[0]
    text = [f"**Reading (computed).** Lowest error at the best step size: "
            f"{_name(best['curve'])} ({fmt_number(best['mean'], best['se'])} at α = "
            f"{best['alpha']:g})."]
    if len(ranked) > 1:
        second = ranked[1]
        m = res.arrays["metric"]
        d, se = paired_difference(m[_best_cell(res, second["curve"])],
                                  m[_best_cell(res, best["curve"])])
        gap = f"the gap is {fmt_number(d, se)}"
        if np.isfinite(d) and se > 0:
            gap += (f" ({d / se:.1f} SE): " + ("a clear difference." if d > 2 * se else
                                               "within two SE, no clear winner."))
        text.append(f"Runner-up: {_name(second['curve'])} "
                    f"({fmt_number(second['mean'], second['se'])} at α = "
                    f"{second['alpha']:g}); {gap}")
    ref = next(r for r in rows if r["curve"] == REFERENCE)
    phrase = {"better": "better than", "worse": "worse than", "diverged": "diverged, unlike",
              "no clear difference": "no clear difference from"}
    for r in rows:
        if not r["curve"].startswith("block"):
            continue
        rel = (r["mean"] / ref["mean"] - 1) * 100 if np.isfinite(r["mean"]) else math.inf
        where = wins_per_alpha(res, r["curve"])
        text.append(f"{_name(r['curve'])}: {phrase[r['verdict']]} forward TD(λ) at each "
                    f"one's best α ({rel:+.0f} % error)" + (
                        "; it beats forward TD(λ) at the same α (by > 2 SE) for α ∈ {"
                        + ", ".join(f"{x:g}" for x in where) + "}" if where else
                        "; at no α of the grid does it beat forward TD(λ) at the same α")
                    + ".")
    lines += [" ".join(t for t in text if t), ""]
    return lines


def _best_cell(res, curve: str) -> int:
    s = res.summary()[curve]
    return int(s["cell"][best_index(s, True)])
