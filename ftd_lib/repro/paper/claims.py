r"""The paper's claims about Figs. 3 and 4, each confronted with the stored numbers by a rule.

Every verdict (:func:`claims`) is computed from the numbers by a rule written below, never
written by hand; the rule and the numbers it used go with it (``Verdict.evidence``).
``results/REPORT.md`` (:mod:`ftd_lib.repro.report`) and the notebooks
(:mod:`ftd_lib.course.live`) show the same verdicts.

The rules
---------
A point of a curve is a mean over runs; a diverged run makes its point ``inf`` (error) and a
non-finite point is the worst possible value. "A beats B" compares the two means; when the
difference is smaller than two standard errors (of the difference) the verdict says so.

1. *Forward TD(λ) beats TD(λ)* (Fig. 3 left): lowest error over α of forward TD(λ) <
   lowest error over α of TD(λ).
2. *... and even the online λ-return algorithm*: the same against the online λ-return.
3. *TD(λ)'s error blows up at step sizes where forward TD(λ) still learns* (Sec. 6, "the
   error quickly diverges"): at some α of the grid TD(λ)'s mean normalised error is above 1
   (worse than the untrained network; diverged runs count as infinite) while forward TD(λ)'s
   is below 1.
4. *η hardly matters at the best λ* (Fig. 3 right): for η ∈ {0.01, 0.1, 0.3} take each
   curve's lowest error over λ; the spread (max − min) is at most 10 % of the smallest.
5. *Forward Sarsa(λ) beats Sarsa(λ) for every λ < 1* (Fig. 4 left): best-α return of forward
   Sarsa(λ) > that of Sarsa(λ) at every λ < 1 of the grid.
6. *On cart-pole Sarsa(λ) gets worse as λ grows* (Fig. 4 right): Spearman rank correlation
   between λ and Sarsa(λ)'s best-α return ≤ −0.5, and the return at the largest λ is below the
   return at λ = 0.
7. *Forward Sarsa(λ) peaks near λ = 0.6*: its best λ lies in [0.4, 0.8].
8. *... above Sarsa(0)*: its best return > Sarsa(0)'s return, by more than two standard
   errors ("substantially higher").

Data below paper scale (fewer runs or episodes than the paper) gets a verdict all the same,
with a warning that it is no evidence either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...methods import label

AGREES, DISAGREES, NO_DATA = "agrees", "disagrees", "no data"
ETA_SPREAD = 0.10  # claim 4: relative spread of the best errors over eta
PEAK_RANGE = (0.4, 0.8)  # claim 7
SPEARMAN_MAX = -0.5  # claim 6



@dataclass
class Verdict:
    """One claim of the paper confronted with the stored numbers."""

    number: int
    figure: str
    claim: str
    status: str  # AGREES | DISAGREES | NO_DATA
    evidence: str
    below_paper_scale: bool = False

    @property
    def mark(self) -> str:
        return {AGREES: "✔ agrees", DISAGREES: "✘ disagrees"}.get(self.status, "— no data")


# ----------------------------------------------------------------------------- numbers


def fmt_number(v: float, se: float | None = None, digits: int = 3) -> str:
    """A number of the evidence or the report: ``0.289 ± 0.01``, ``∞ (diverged)``, ``diverged``
    (a control point whose runs diverged), ``n/a``."""
    if v is None:
        return "n/a"
    if math.isnan(v):  # a control point whose runs diverged (returns are nan from then on)
        return "diverged"
    if not np.isfinite(v):
        return "∞ (diverged)" if v > 0 else "−∞"
    s = f"{v:.{digits}g}" if abs(v) < 10 ** digits - 0.5 else f"{v:.0f}"  # -3650, not -3.65e+03
    if se is not None and np.isfinite(se) and se > 0:
        s += f" ± {se:.2g}"
    return s


def _beats(a: float, sa: float, b: float, sb: float, lower: bool) -> tuple[bool, bool]:
    """(a better than b, difference larger than two standard errors)."""
    if lower:
        better = _key_low(a) < _key_low(b)
    else:
        better = _key_high(a) > _key_high(b)
    diff = abs(a - b) if np.isfinite(a) and np.isfinite(b) else math.inf
    se = math.sqrt((sa if np.isfinite(sa) else 0) ** 2 + (sb if np.isfinite(sb) else 0) ** 2)
    return bool(better), bool(diff > 2 * se)


def _key_low(v):
    return v if np.isfinite(v) else math.inf


def _key_high(v):
    return v if np.isfinite(v) else -math.inf


def best_index(summary_curve: dict, lower: bool) -> int:
    """The index of a curve's best point (lowest error or highest return; non-finite: worst)."""
    y = summary_curve["y"]
    key = np.where(np.isfinite(y), y, np.inf if lower else -np.inf)
    return int(np.argmin(key) if lower else np.argmax(key))


def spearman(x, y) -> float:
    """Spearman rank correlation (average ranks for ties); nan if undefined."""
    def ranks(a):
        a = np.asarray(a, dtype=float)
        order = np.argsort(a, kind="mergesort")
        r = np.empty(len(a))
        r[order] = np.arange(len(a), dtype=float)
        for v in np.unique(a):  # average ties
            m = a == v
            r[m] = r[m].mean()
        return r

    x, y = np.asarray(x, float), np.asarray(y, float)
    y = np.where(np.isfinite(y), y, -np.inf)
    if len(x) < 3:
        return math.nan
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return math.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _scale_note(res) -> bool:
    return res is not None and not res.at_paper_scale


# ----------------------------------------------------------------------------- claims


def claims(results: dict) -> list[Verdict]:
    """Every claim of the paper against the numbers (``results``: figure -> Results or None)."""
    out: list[Verdict] = []
    out += _claims_fig3_left(results.get("fig3-left"))
    out += _claims_fig3_right(results.get("fig3-right"))
    out += _claims_fig4_left(results.get("fig4-left"))
    out += _claims_fig4_right(results.get("fig4-right"))
    return out


def confront(res, numbers) -> list[Verdict]:
    """The claims ``numbers`` (the rules below, :data:`RULES`) confronted with one stored
    experiment ``res``, whatever its name: its curves must be the methods the rule reads."""
    from dataclasses import replace

    out = []
    for rule in dict.fromkeys(RULES[n] for n in numbers):
        out += [replace(v, figure=res.figure) for v in rule(res) if v.number in numbers]
    return out


def _no_data(n, fig, claim, why="") -> Verdict:
    from ..results import reproduce_command  # (results read the definitions: not at import)

    return Verdict(n, fig, claim, NO_DATA, why or f"no stored data; run "
                   f"`{reproduce_command(fig, 'paper')}`")


def _claims_fig3_left(res) -> list[Verdict]:
    f = "fig3-left"
    c1 = "Forward TD(λ) reaches a lower error than TD(λ) (each at its best α)."
    c2 = "Forward TD(λ) reaches a lower error than even the online λ-return algorithm."
    c3 = ("TD(λ)'s error blows up (above the initial error) at step sizes where forward "
          "TD(λ) still learns.")
    if res is None:
        return [_no_data(1, f, c1), _no_data(2, f, c2), _no_data(3, f, c3)]
    s = res.summary()
    below = _scale_note(res)
    out = []
    fwd = s.get("forward_td_lambda")
    for n, other, claim in ((1, "td_lambda", c1), (2, "online_lambda_return", c2)):
        o = s.get(other)
        if fwd is None or o is None:
            out.append(_no_data(n, f, claim, f"curve missing: {other}"))
            continue
        i, j = best_index(fwd, True), best_index(o, True)
        better, clear = _beats(fwd["y"][i], fwd["se"][i], o["y"][j], o["se"][j], True)
        ev = (f"forward TD(λ): {fmt_number(fwd['y'][i], fwd['se'][i])} at α = {fwd['x'][i]:g}; "
              f"{label(other)}: {fmt_number(o['y'][j], o['se'][j])} at α = {o['x'][j]:g}")
        if better and not clear:
            ev += " (difference within two standard errors)"
        out.append(Verdict(n, f, claim, AGREES if better else DISAGREES, ev, below))
    td = s.get("td_lambda")
    if fwd is None or td is None:
        out.append(_no_data(3, f, c3, "curve missing"))
    else:
        # "blows up": mean error above the initial error (normalised error > 1), diverged runs
        # (infinite error) included; "still learns": below it
        td_up = {float(x) for x, y in zip(td["x"], td["y"], strict=True) if not y <= 1.0}
        fwd_ok = {float(x) for x, y in zip(fwd["x"], fwd["y"], strict=True) if y < 1.0}
        both = sorted(td_up & fwd_ok)
        n_div = int(sum(td["n_diverged"] > 0))
        ev = (f"TD(λ)'s error exceeds the initial error at α ∈ "
              f"{{{', '.join(f'{a:g}' for a in sorted(td_up))}}} (diverged runs at {n_div} of "
              f"them); forward TD(λ) is below it at α ∈ {{{', '.join(f'{a:g}' for a in both)}}}"
              if td_up else "TD(λ)'s error stays below the initial error at every α of the grid")
        out.append(Verdict(3, f, c3, AGREES if both else DISAGREES, ev, below))
    return out


def _claims_fig3_right(res) -> list[Verdict]:
    f = "fig3-right"
    claim = ("η hardly matters at the best λ: the lowest error over λ is about the same for "
             "η = 0.01, 0.1 and 0.3.")
    if res is None:
        return [_no_data(4, f, claim)]
    s = res.summary()
    names = [k for k in ("η = 0.01", "η = 0.1", "η = 0.3") if k in s]
    if len(names) < 2:
        return [_no_data(4, f, claim, "fewer than two η curves stored")]
    bests = []
    parts = []
    for k in names:
        i = best_index(s[k], True)
        bests.append(s[k]["y"][i])
        parts.append(f"{k}: {fmt_number(s[k]['y'][i], s[k]['se'][i])} at λ = {s[k]['x'][i]:g}")
    bests = np.asarray(bests)
    if not np.isfinite(bests).all():
        spread = math.inf
    else:
        spread = float((bests.max() - bests.min()) / bests.min()) if bests.min() > 0 else math.inf
    ok = spread <= ETA_SPREAD
    ev = "; ".join(parts) + f" — spread {spread:.1%} of the lowest (rule: ≤ {ETA_SPREAD:.0%})"
    km = s.get("η = 0.01, K_max = 50")
    if km is not None:
        i = best_index(km, True)
        ev += f"; with K_max = 50: {fmt_number(km['y'][i], km['se'][i])} at λ = {km['x'][i]:g}"
    return [Verdict(4, f, claim, AGREES if ok else DISAGREES, ev, _scale_note(res))]


def _claims_fig4_left(res) -> list[Verdict]:
    f = "fig4-left"
    claim = "On mountain car, forward Sarsa(λ) beats Sarsa(λ) for every λ < 1 (best α each)."
    if res is None:
        return [_no_data(5, f, claim)]
    s = res.summary()
    a, b = s.get("forward_sarsa_lambda"), s.get("sarsa_lambda")
    if a is None or b is None:
        return [_no_data(5, f, claim, "curve missing")]
    lams = [x for x in a["x"] if x < 1 and x in set(b["x"])]
    if not lams:
        return [_no_data(5, f, claim, "no λ < 1 in the grid")]
    fails, unclear, same = [], [], False
    for lam in lams:
        i, j = int(np.flatnonzero(a["x"] == lam)[0]), int(np.flatnonzero(b["x"] == lam)[0])
        if lam == 0:  # K = 1: forward Sarsa(0) is Sarsa(0), update for update
            same = True
            continue
        better, clear = _beats(a["y"][i], a["se"][i], b["y"][j], b["se"][j], False)
        if not better:
            fails.append(lam)
        elif not clear:
            unclear.append(lam)
    diffs = ", ".join(
        f"λ = {lam:g}: {fmt_number(a['y'][a['x'] == lam][0])} vs "
        f"{fmt_number(b['y'][b['x'] == lam][0])}" for lam in lams)
    ev = f"forward vs Sarsa(λ): {diffs}"
    ev += (f"; forward is not better at λ ∈ {{{', '.join(f'{x:g}' for x in fails)}}}" if fails
           else f"; forward is better at all {len(lams) - same} λ < 1"
           + (" but 0" if same else ""))
    if same:
        ev += ("; λ = 0 is not counted: there the two are one algorithm (K = 1), apart from "
               "rounding")
    if unclear and not fails:
        ev += (f" (within two standard errors at λ ∈ "
               f"{{{', '.join(f'{x:g}' for x in unclear)}}})")
    return [Verdict(5, f, claim, DISAGREES if fails else AGREES, ev, _scale_note(res))]


def _claims_fig4_right(res) -> list[Verdict]:
    f = "fig4-right"
    c6 = "On cart-pole, Sarsa(λ) gets worse as λ grows."
    c7 = "On cart-pole, forward Sarsa(λ) performs best near λ = 0.6."
    c8 = "On cart-pole, forward Sarsa(λ) at its best λ is substantially above Sarsa(0)."
    if res is None:
        return [_no_data(6, f, c6), _no_data(7, f, c7), _no_data(8, f, c8)]
    s = res.summary()
    below = _scale_note(res)
    sa, fw = s.get("sarsa_lambda"), s.get("forward_sarsa_lambda")
    out = []
    if sa is None or len(sa["x"]) < 3:
        out.append(_no_data(6, f, c6, "Sarsa(λ) needs at least three λ"))
    else:
        rho = spearman(sa["x"], sa["y"])
        first, last = sa["y"][0], sa["y"][-1]
        ok = (not math.isnan(rho)) and rho <= SPEARMAN_MAX and _key_high(last) < _key_high(first)
        vals = ", ".join(f"λ = {x:g}: {fmt_number(y)}"
                         for x, y in zip(sa["x"], sa["y"], strict=True))
        ev = (f"Sarsa(λ) best-α returns: {vals}; Spearman ρ(λ, return) = {rho:.2f} "
              f"(rule: ≤ {SPEARMAN_MAX}, and λ = {sa['x'][-1]:g} below λ = {sa['x'][0]:g})")
        out.append(Verdict(6, f, c6, AGREES if ok else DISAGREES, ev, below))
    if fw is None:
        out.append(_no_data(7, f, c7, "curve missing"))
        out.append(_no_data(8, f, c8, "curve missing"))
        return out
    i = best_index(fw, False)
    peak = float(fw["x"][i])
    ok = PEAK_RANGE[0] <= peak <= PEAK_RANGE[1]
    out.append(Verdict(7, f, c7, AGREES if ok else DISAGREES,
                       f"forward Sarsa(λ) is best at λ = {peak:g} with "
                       f"{fmt_number(fw['y'][i], fw['se'][i])} (rule: best λ in "
                       f"[{PEAK_RANGE[0]}, {PEAK_RANGE[1]}])", below))
    if sa is None or 0.0 not in set(sa["x"].tolist()):
        out.append(_no_data(8, f, c8, "Sarsa(0) not in the grid"))
    else:
        j = int(np.flatnonzero(sa["x"] == 0.0)[0])
        better, clear = _beats(fw["y"][i], fw["se"][i], sa["y"][j], sa["se"][j], False)
        ok = better and clear
        ev = (f"forward Sarsa(λ = {peak:g}): {fmt_number(fw['y'][i], fw['se'][i])}; Sarsa(0): "
              f"{fmt_number(sa['y'][j], sa['se'][j])} (rule: higher by more than two standard "
              "errors)")
        out.append(Verdict(8, f, c8, AGREES if ok else DISAGREES, ev, below))
    return out


# ------------------------------------------------------------------- beside the paper's words


def claims_side_by_side(results: dict, figures, paper_words: dict) -> list[dict]:
    """The paper's claims about ``figures`` next to this reproduction's verdicts.

    ``results``: ``{figure name: Results or None}``; ``paper_words``: claim number -> what
    the paper says. Verdicts and evidence are :func:`claims`'s, computed from the numbers.
    Returns one dict per claim: ``number``, ``claim``, ``paper``, ``verdict``, ``evidence``,
    ``scale``.
    """
    from ..results import scale_label

    rows = []
    for v in claims({k: results.get(k) for k in figures}):
        if v.figure not in figures:
            continue
        res = results.get(v.figure)
        rows.append(dict(number=v.number, claim=v.claim, paper=paper_words.get(v.number, ""),
                         verdict=v.mark + (" (below paper scale: no evidence either way)"
                                           if v.below_paper_scale else ""),
                         evidence=v.evidence,
                         scale="—" if res is None else scale_label(res)))
    return rows


def claims_markdown(rows: list[dict]) -> str:
    """:func:`claims_side_by_side` as a Markdown table."""
    out = ["| # | the paper says | this reproduction finds | data |", "|---|---|---|---|"]
    for r in rows:
        found = f"**{r['verdict']}** — {r['evidence']}".replace("|", "\\|")
        out.append(f"| {r['number']} | {r['paper']} | {found} | {r['scale']} |")
    return "\n".join(out)


#: each claim's rule (a function of one stored experiment, returning the verdicts of the
#: claims it decides): what an experiment file's ``claims = [...]`` names
RULES = {1: _claims_fig3_left, 2: _claims_fig3_left, 3: _claims_fig3_left,
         4: _claims_fig3_right, 5: _claims_fig4_left, 6: _claims_fig4_right,
         7: _claims_fig4_right, 8: _claims_fig4_right}


def check_claims(fig) -> None:
    """Refuse, naming the file and the key, an experiment that names a claim no rule decides
    (``fig``: a definition read from an experiment file)."""
    bad = [n for n in fig.claims if n not in RULES]
    if bad:
        raise ValueError(f"{fig.source}: claims: no rule decides claim(s) {bad} (the rules: "
                         f"{', '.join(map(str, RULES))}, ftd_lib/repro/paper/claims.py)")
