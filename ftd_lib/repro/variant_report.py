r"""REPORT.md's sections on Fig. 4 left under a set-up variant of the claim-5 study.

``python -m ftd_lib reproduce fig4-left --scale paper --variant NAME --out
results/variants/<slug>`` computes Fig. 4 left (both stages of the step-size protocol,
:mod:`ftd_lib.repro.protocol`) under one set-up variant of :mod:`ftd_lib.repro.study`. For
every such folder this module writes a section: the figure's own table (the one of Fig. 4
left, :func:`ftd_lib.repro.report._figure_section`), claim 5 by the rule of
:mod:`ftd_lib.repro.claims`, the difference forward minus Sarsa(:math:`\lambda`) per
:math:`\lambda` beside the default set-up's, and a reading computed from the numbers. Where
only stage 1 is stored (the pilot, ``<slug>/pilot/``), the section uses it and says so.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .claims import _beats, claims, fmt_number
from .results import load_results, results_paths
from .study_report import _md_table, _paired

FIGURE = "fig4-left"
VARIANTS_DIR = "variants"
FORWARD, SARSA = "forward_sarsa_lambda", "sarsa_lambda"
LOW_LAMBDA = 0.4  # "low lambda": where neither method learns under the default set-up


def variant_name(res) -> str | None:
    """The set-up variant the stored figure was computed under (from its definition's cells),
    or ``None`` (the default set-up, or cells of several variants)."""
    names = {c.get("variant") or None  # the default set-up: no key, or ""
             for c in res.meta.get("definition", {}).get("cells", [])}
    return names.pop() if len(names) == 1 and None not in names else None


def stored_variants(results_dir) -> list[tuple[Path, object, bool]]:
    """``(folder, results, stage_1_only)`` for every folder under ``<results>/variants/``
    that holds Fig. 4 left under a set-up variant: the figure itself, or, while stage 2 is
    missing, its pilot (``<folder>/pilot/``, ``stage_1_only`` true)."""
    base = Path(results_dir) / VARIANTS_DIR
    if not base.is_dir():
        return []
    out = []
    for d in sorted(p for p in base.iterdir() if p.is_dir()):
        res, stage1 = load_results(FIGURE, d), False
        if res is None:
            res, stage1 = load_results(FIGURE, d / "pilot"), True
        if res is not None and variant_name(res) is not None:
            out.append((d, res, stage1))
    return out


def heading(name: str, stage1: bool) -> str:
    return (f"## Fig. 4 left under the '{name}' set-up (claim 5 again)"
            + (" — stage 1 only" if stage1 else ""))


def claim5(res):
    """Claim 5 on ``res`` by the rule of :mod:`ftd_lib.repro.claims` (a Verdict)."""
    return next(v for v in claims({FIGURE: res}) if v.number == 5)


def side(lam: float, a: float, sa: float, b: float, sb: float) -> str:
    """Who is ahead at one lambda, forward (``a ± sa``) against Sarsa(lambda) (``b ± sb``),
    by the comparison of claims.py (means; clear when more than two standard errors)."""
    if lam == 0:
        return "one algorithm (K = 1)"
    if a == b:
        return "equal (forward not better)"
    better, clear = _beats(a, sa, b, sb, False)
    who = "forward" if better else "Sarsa(λ)"
    return f"{who} ahead" + ("" if clear else " within 2 SE")


def comparison_rows(res) -> list[dict]:
    """Per lambda: both methods' best-alpha return (``forward``, ``sarsa``: ``(y, se,
    alpha)``), the paired difference forward minus Sarsa(lambda) over the same run ids, each
    at its best alpha (``diff``, ``diff_se``), and :func:`side`."""
    s, metric = res.summary(), res.arrays["metric"]
    f, b = s[FORWARD], s[SARSA]
    rows = []
    for lam in f["x"]:
        i, j = int(np.flatnonzero(f["x"] == lam)[0]), int(np.flatnonzero(b["x"] == lam)[0])
        d, dse = _paired(metric, int(f["cell"][i]), int(b["cell"][j]))
        rows.append({"lam": float(lam),
                     "forward": (float(f["y"][i]), float(f["se"][i]), float(f["alpha"][i])),
                     "sarsa": (float(b["y"][j]), float(b["se"][j]), float(b["alpha"][j])),
                     "diff": d, "diff_se": dse,
                     "side": side(lam, f["y"][i], f["se"][i], b["y"][j], b["se"][j])})
    return rows


def _diff(r: dict | None) -> str:
    if r is None:
        return ""
    if r["lam"] == 0:
        return r["side"]
    d = (f"{r['diff']:+.0f} ± {r['diff_se']:.2g}" if np.isfinite(r["diff"])
         else "diverged run")
    return f"{d} ({r['side']})"


def comparison_table(rows: list[dict], default: list[dict] | None, runs=None,
                     default_runs=None) -> list[str]:
    """forward − Sarsa(lambda) per lambda under the variant (``runs`` runs), beside the
    default set-up's (``default_runs``)."""
    by = {r["lam"]: r for r in default or []}
    header = ["λ", f"forward − Sarsa(λ), this variant ({runs} runs)"]
    if default:
        header.append(f"forward − Sarsa(λ), this project's set-up (Fig. 4 left, "
                      f"{default_runs} runs)")
    return _md_table(header, [[f"{r['lam']:g}", _diff(r)]
                              + ([_diff(by.get(r["lam"]))] if default else []) for r in rows])


def _lams(rows, pred) -> str:
    xs = [f"{r['lam']:g}" for r in rows if 0 < r["lam"] < 1 and pred(r["side"])]
    return "at λ ∈ {" + ", ".join(xs) + "}" if xs else "at no λ"


def _best(rows, key) -> str:
    k = max(rows, key=lambda r: r[key][0] if np.isfinite(r[key][0]) else -math.inf)
    return f"{fmt_number(k[key][0], k[key][1])} at λ = {k['lam']:g}"


def _low(rows, key) -> str:
    ys = [r[key][0] for r in rows if 0 < r["lam"] <= LOW_LAMBDA]
    return f"{fmt_number(min(ys))} to {fmt_number(max(ys))}" if ys else "n/a"


def reading(name: str, res, rows: list[dict], default_res, default: list[dict] | None,
            stage1: bool) -> str:
    """One plain paragraph, every number and verdict computed from ``rows`` (the variant)
    and ``default`` (this project's Fig. 4 left, or ``None``)."""
    v = claim5(res)
    ahead = lambda s: s == "forward ahead"  # noqa: E731
    behind = lambda s: s == "Sarsa(λ) ahead"  # noqa: E731
    text = (f"Under the *{name}* set-up claim 5 **{v.status}** by the rule of "
            f"`ftd_lib/repro/claims.py`")
    if default_res is not None:
        text += (f"; under this project's set-up (Fig. 4 left above) it "
                 f"**{claim5(default_res).status}**")
    text += (f". Forward Sarsa(λ) is ahead by more than two standard errors "
             f"{_lams(rows, ahead)} and behind by more than two {_lams(rows, behind)}"
             + (f" (this project's set-up: ahead {_lams(default, ahead)}, behind "
                f"{_lams(default, behind)})" if default else "")
             + "; at the other λ < 1 the two are within noise. ")
    text += (f"At λ ∈ (0, {LOW_LAMBDA:g}] Sarsa(λ)'s best-α returns range from "
             f"{_low(rows, 'sarsa')} and forward Sarsa(λ)'s from {_low(rows, 'forward')}"
             + (f" (this project's set-up: {_low(default, 'sarsa')} and "
                f"{_low(default, 'forward')})" if default else "")
             + f". The best over λ: Sarsa(λ) {_best(rows, 'sarsa')}, forward Sarsa(λ) "
             f"{_best(rows, 'forward')}"
             + (f" (this project's set-up: {_best(default, 'sarsa')} and "
                f"{_best(default, 'forward')})" if default else "") + ".")
    if stage1:
        text += (f" These are stage 1's {res.meta.get('runs')} runs only: a pilot, whose "
                 "verdict may change at the paper's 200 runs.")
    return text


def variant_section(res, stage1: bool, default_res, report_dir: Path, parts) -> list[str]:
    """REPORT.md's section on Fig. 4 left under a set-up variant (``res``: its figure, or
    its pilot where ``stage1``), beside ``default_res`` (this project's Fig. 4
    left, or ``None``). ``parts``: the report's own section builders (``figure_section``,
    ``pilot_section``, ``below_warning`` of :mod:`.report`, which calls this module: passed
    in, so that the two modules do not import each other)."""
    from .study import variant

    _figure_section, _pilot_section = parts.figure_section, parts.pilot_section
    _below_warning = parts.below_warning

    name = variant_name(res)
    png = results_paths(FIGURE, res.path.parent)["png"]
    rel = os.path.relpath(png, report_dir).replace(os.sep, "/") if png.is_file() else None
    sec = _figure_section(FIGURE, res, rel, [claim5(res)])
    sec = [x for x in sec if x != _below_warning(res)]
    where = os.path.relpath(res.path.parent, report_dir).replace(os.sep, "/")
    label = (f"> **A set-up variant, not the paper's set-up as this project chose it** (that "
             f"is Fig. 4 left above): *{name}* — {variant(name).change} (the claim-5 study's "
             f"variant, `ftd_lib/repro/study.py`). Data in `{where}/`.")
    if stage1:
        label += (f" **Stage 1 only ({res.meta.get('runs')} runs)**: the pilot of the "
                  "step-size protocol (the whole step-size grid); stage 2 (200 runs at the 5 "
                  "step sizes around each pilot best) is not stored yet.")
    rows = comparison_rows(res)
    default = comparison_rows(default_res) if default_res is not None else None
    extra = ["Forward Sarsa(λ) minus Sarsa(λ), each at its best α, run by run (both see the "
             "same run ids: the same initial weights and start states) ± its SE; in brackets "
             "who is ahead by the comparison of claims.py (the means, clear beyond two "
             "standard errors):", ""]
    extra += comparison_table(rows, default, res.meta.get("runs"),
                              default_res.meta.get("runs") if default else None) + [""]
    extra += ["Reading:", "", reading(name, res, rows, default_res, default, stage1), ""]
    k = sec.index("How it was made:")
    body = sec[2:k]
    while body and body[0] == "":  # the below-scale warning's blank line
        body = body[1:]
    out = [heading(name, stage1), "", label, ""] + body + extra + sec[k:]
    if not stage1:
        out += _pilot_section(FIGURE, res.path.parent, report_dir)
    return out


def variant_sections(results_dir, report_dir, default_res, parts) -> list[str]:
    """Every stored variant's :func:`variant_section` (none when ``<results>/variants/``
    holds no Fig. 4 left under a variant); ``parts`` as there."""
    out = []
    for _, res, stage1 in stored_variants(results_dir):
        out += variant_section(res, stage1, default_res, Path(report_dir), parts)
    return out
