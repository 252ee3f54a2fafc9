r"""One report section for any stored experiment (:func:`experiment_section`): best
:math:`\alpha` per setting with grid-edge marks, the learning curves at the best settings, paired
comparisons and the claims its file names, per set-up where it has several. Titles, axes and
task names come from the experiment (its stored definition), never from a figure's code; what
the file asks of the report (``claims``, ``[report]``) is read from the stored definition or,
for results stored before definitions carried it, from the experiment file that made them
(:func:`options`).

Paired comparisons: every cell of an experiment uses the same run ids (common random numbers:
run r of every cell has the same initial weights and episodes), so two cells are compared run
by run -- the mean difference and its standard error over runs; a difference beyond two
standard errors is *clear*.
"""

from __future__ import annotations

import math

import numpy as np

from ..methods import label
from .paper.claims import AGREES, DISAGREES, best_index, confront, fmt_number
from .results import Results, groups


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    return (["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
            + ["| " + " | ".join(r) + " |" for r in esc])


# ----------------------------------------------------------------------------- the file


def options(res) -> dict:
    """What the experiment asks of the report: ``claims`` (numbers), ``report`` (its
    ``[report]`` table) and ``setups`` (name -> choice, change), from the stored definition,
    else from the experiment file in ``experiments/`` with the same name and set-up."""
    d = res.meta.get("definition", {})
    if "claims" in d and "report" in d:
        return {"claims": list(d["claims"]), "report": dict(d["report"] or {}),
                "setups": dict(d.get("setup_notes") or {})}
    from .experiment import experiments_dir, read_file

    mine = setup_name(res)
    for path in sorted(experiments_dir().glob("*.toml")):
        try:
            raw = read_file(path)
        except ValueError:
            continue
        if raw.get("name") == res.figure and raw.get("setup") == mine:
            return {"claims": list(raw.get("claims", [])), "report": dict(raw.get("report", {})),
                    "setups": {s["name"]: s for s in raw.get("setups", [])}}
    return {"claims": [], "report": {}, "setups": {}}


def setup_name(res) -> str | None:
    """The one named set-up of a stored experiment (``setup = NAME``), else ``None``."""
    names = {c.get("variant") or None for c in res.meta.get("definition", {}).get("cells", [])}
    return names.pop() if len(names) == 1 else None


def from_alpha(res, alpha: float) -> Results:
    """``res`` without the cells whose step size is below ``alpha`` (the grid cut there)."""
    sel = res.arrays["alpha"] >= alpha * (1 - 1e-9)
    arrays = {k: np.asarray(v)[sel] for k, v in res.arrays.items() if k != "__meta__"}
    return Results(res.figure, arrays, res.meta, res.path)


# ----------------------------------------------------------------------------- numbers


def paired(metric: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """Mean and standard error over runs of ``metric[i] - metric[j]`` (nan: a run
    diverged)."""
    d = np.asarray(metric[i], float) - np.asarray(metric[j], float)
    if not np.isfinite(d).all():
        return math.nan, math.nan
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.inf
    return float(d.mean()), se


def learns(res, curve: str, k: int) -> bool:
    """Point ``k`` of ``curve`` learned something: its best-alpha value beats the cell with
    the grid's smallest alpha at the same x (where the network hardly moves) by more than two
    standard errors (of the two means)."""
    s = res.summary()[curve]
    a, st = res.arrays, res.cell_stats()
    x = s["x"][k]
    xname = res.meta["definition"]["x"]
    grid = np.flatnonzero((a["curve"] == curve) & (a[xname] == x))
    low = grid[np.argmin(a["alpha"][grid])]
    y, se, y0, se0 = s["y"][k], s["se"][k], st["mean"][low], st["se"][low]
    if not np.isfinite(y) or low == s["cell"][k]:
        return False
    lower = res.meta["definition"]["task"] == "prediction"
    gain = (y0 - y) if lower else (y - y0)
    return bool(not np.isfinite(y0) or gain > 2 * math.hypot(se, se0))


def _point(res, curve, k, optimise: bool) -> str:
    s = res.summary()[curve]
    cell = fmt_number(s["y"][k], s["se"][k])
    if optimise:
        cell += f" [α = {s['alpha'][k]:.3g}" + (", grid edge" if s["alpha_edge"][k] else "")
        cell += "]" + (" (learns)" if learns(res, curve, k) else "")
    return cell


# ----------------------------------------------------------------------------- tables


def best_tables(res) -> list[str]:
    """Best alpha per setting with grid-edge marks: per curve (x = alpha), or per x and
    curve (x = lambda; each point its best alpha where the experiment optimises it)."""
    d = res.meta["definition"]
    s, a = res.summary(), res.arrays
    curves = list(s)
    lower = d["task"] == "prediction"
    what = "error" if lower else "return"
    out = []
    if d["x"] == "alpha":
        out += [f"Best step size per curve ({'lower' if lower else 'higher'} is better; "
                "*grid edge*: the smallest or largest α tried):", ""]
        rows = []
        for c in curves:
            i = best_index(s[c], lower)
            xs = s[c]["x"]
            edge = ", grid edge" if len(xs) > 1 and xs[i] in (xs.min(), xs.max()) else ""
            row = [label(c), f"{xs[i]:g}{edge}", fmt_number(s[c]["y"][i], s[c]["se"][i])]
            if lower:
                up = int(sum(~(s[c]["y"] <= 1.0)))
                row.append(f"{up} ({int(sum(s[c]['n_diverged'] > 0))} with diverged runs)")
            rows.append(row)
        header = ["curve", "best α", f"{what} at best α (± SE)"]
        if lower:
            header.append(f"α (of {len(s[curves[0]]['x'])}) with error > initial")
        out += table(header, rows) + [""]
        out += [f"{what.capitalize()} per α (mean over runs; ∞ = at least one run "
                "diverged):", ""]
        rows = []
        for x in sorted(set(a["alpha"].tolist())):
            row = [f"{x:g}"]
            for c in curves:
                k = np.flatnonzero(s[c]["x"] == x)
                row.append(fmt_number(s[c]["y"][k[0]]) if len(k) else "")
            rows.append(row)
        return out + table(["α"] + [label(c) for c in curves], rows) + [""]
    opt = bool(d.get("optimise"))
    out += [f"{what.capitalize()} per λ" + (" at its best α" if opt else "")
            + " (mean over runs ± SE" + (", best α in brackets; *grid edge*: the best is "
            "the smallest or largest α tried; **(learns)**: it beats the grid's smallest α "
            "by more than two standard errors" if opt else "") + "):", ""]
    for name, sub in groups(res):
        ss = sub.summary()
        cs = list(ss)
        if name:
            out += [f"*{name}*:", ""]
        rows = []
        for x in sorted(set(sub.arrays["lam"].tolist())):
            row = [f"{x:g}"]
            for c in cs:
                k = np.flatnonzero(ss[c]["x"] == x)
                row.append(_point(sub, c, int(k[0]), opt) if len(k) else "")
            rows.append(row)
        out += table(["λ"] + [label(c) for c in cs], rows) + [""]
    rows = []
    for c in curves:
        i = best_index(s[c], lower)
        rows.append([label(c), f"{s[c]['x'][i]:g}", fmt_number(s[c]["y"][i], s[c]["se"][i])])
    return out + table(["curve", "best λ", f"{what} there"], rows) + [""]


def learning_table(res, points: int = 5) -> list[str]:
    """The learning curve (mean over runs, per episode) of every curve at its best setting,
    at a few episodes."""
    d = res.meta["definition"]
    s, cm = res.summary(), res.arrays["curve_mean"]
    n = cm.shape[1]
    eps = sorted({int(round(e)) for e in np.linspace(0, n - 1, min(points, n))})
    lower = d["task"] == "prediction"
    rows = []
    for c in s:
        i = best_index(s[c], lower)
        cell = int(s[c]["cell"][i])
        setting = setting_label(res, cell)
        rows.append([label(c), setting] + [fmt_number(cm[cell, e]) for e in eps])
    return (["Learning curves at each curve's best setting (per episode, mean over runs):",
             ""]
            + table(["curve", "best setting"] + [f"episode {e + 1}" for e in eps], rows)
            + [""])


def setting_label(res, cell: int) -> str:
    """A cell's setting for people: α, λ where the method reads it (not for one that ignores
    it, :attr:`ftd_lib.methods.Method.ignores`), and the method's own parameters."""
    from ..methods import METHODS

    method = str(res.arrays["method"][cell]) if "method" in res.arrays else ""
    rec = METHODS.get(method)
    parts = [f"α = {res.arrays['alpha'][cell]:.3g}"]
    if rec is None or "lam" not in rec.ignores:
        parts.append(f"λ = {res.arrays['lam'][cell]:g}")
    cells = res.meta.get("definition", {}).get("cells") or []
    params = cells[cell].get("params") if cell < len(cells) else None
    parts += [f"{k} = {v}" for k, v in (params or {}).items()]
    return ", ".join(parts)


def compare_with(res, ref: str) -> list[str]:
    """x = alpha: every curve at its best alpha against curve ``ref`` at its best, paired
    over the runs."""
    s, metric = res.summary(), res.arrays["metric"]
    if ref not in s:
        return []
    lower = res.meta["definition"]["task"] == "prediction"
    i_ref = int(s[ref]["cell"][best_index(s[ref], lower)])
    rows = []
    for c, sc in s.items():
        k = best_index(sc, lower)
        i = int(sc["cell"][k])
        dm, se = paired(metric, i, i_ref)
        if c == ref:
            verdict, diff = "reference", "—"
        elif not np.isfinite(dm):
            verdict, diff = "diverged", "diverged"
        else:
            diff = fmt_number(dm, se)
            better = dm < 0 if lower else dm > 0
            verdict = ("no clear difference" if abs(dm) <= 2 * se
                       else "better" if better else "worse")
        rows.append([label(c), f"{sc['x'][k]:g}", fmt_number(sc["y"][k], sc["se"][k]), diff,
                     verdict])
    n = metric.shape[1]
    return ([f"Every curve at its own best α against {label(ref)} at its best; difference = "
             f"curve − {label(ref)}, paired over the {n} runs (common random numbers), ± one "
             "standard error; *better*/*worse*: beyond two standard errors (each best α "
             "was picked on these same runs, none held out: a best α's lucky runs favour its "
             "curve):", ""]
            + table(["curve", "best α", "at best α (± SE)", "difference (± SE)", "verdict"],
                    rows) + [""])


def pair_rows(res, a: str, b: str) -> list[dict]:
    """x = lambda: per lambda, ``a`` minus ``b``, each at its best alpha, paired over the
    runs: ``lam``, ``diff``, ``se``, ``same`` (the two cells give the same numbers run by
    run: one algorithm there) and ``side`` (``a``, ``b`` or ``""`` within two SE)."""
    s, metric = res.summary(), res.arrays["metric"]
    if a not in s or b not in s:
        return []
    rows = []
    for x in s[a]["x"]:
        i = int(s[a]["cell"][np.flatnonzero(s[a]["x"] == x)[0]])
        k = np.flatnonzero(s[b]["x"] == x)
        if not len(k):
            continue
        j = int(s[b]["cell"][k[0]])
        dm, se = paired(metric, i, j)
        same = bool(np.array_equal(metric[i], metric[j]))
        side = ("" if same or not np.isfinite(dm) or abs(dm) <= 2 * se
                else a if dm > 0 else b)
        rows.append({"lam": float(x), "diff": dm, "se": se, "same": same, "side": side})
    return rows


def clearly(rows: list[dict], a: str, b: str) -> str:
    """Over the lambdas where the two differ: ``a`` clearly ahead at every one, ``b`` clearly
    ahead at some, or a tie within noise at some."""
    rows = [r for r in rows if not r["same"]]
    if any(r["side"] == b for r in rows):
        return f"{label(b)} clearly ahead at some λ"
    if rows and all(r["side"] == a for r in rows):
        return f"{label(a)} clearly ahead at every λ"
    return "a tie within noise at some λ"


def compare_pair(res, a: str, b: str) -> list[str]:
    """x = lambda, per set-up: the table of :func:`pair_rows` and :func:`clearly`'s verdict."""
    header = ["set-up"] if len(groups(res)) > 1 else []
    out, rows = [], []
    for name, sub in groups(res):
        pr = pair_rows(sub, a, b)
        for k, r in enumerate(pr):
            diff = ("the same numbers (one algorithm here)" if r["same"] else "diverged run"
                    if not np.isfinite(r["diff"]) else f"{r['diff']:+.4g} ± {r['se']:.2g}"
                    + (f" ({label(r['side'])} ahead)" if r["side"] else " (within 2 SE)"))
            last = clearly(pr, a, b) if k == len(pr) - 1 else ""
            rows.append(([name] if header else []) + [f"{r['lam']:g}", diff, last])
    if not rows:
        return []
    out += [f"{label(a)} minus {label(b)}, each at its best α, run by run (the same run ids: "
            "the same initial weights and start states) ± its standard error (each best α was "
            "picked on these same runs, none held out):", ""]
    out += table(header + ["λ", f"{label(a)} − {label(b)}", "over the λ where they differ"],
                 rows) + [""]
    if header:  # several set-ups: which verdict under which
        by: dict[str, list[str]] = {}
        for name, sub in groups(res):
            by.setdefault(clearly(pair_rows(sub, a, b), a, b), []).append(f"*{name}*")
        out += [f"- {v[0].upper()}{v[1:]}: under {', '.join(names)}." for v, names in
                by.items()] + [""]
    return out


def confront_named(res) -> list:
    """The claims the experiment's file names, confronted with its numbers (all set-ups)."""
    return confront(res, options(res)["claims"])


def claim_lines(res, numbers) -> list[str]:
    """The named claims confronted with the numbers (:func:`ftd_lib.repro.paper.claims.confront`),
    per set-up where there are several."""
    if not numbers:
        return []
    out = ["Claims:", ""]
    for name, sub in groups(res):
        for v in confront(sub, numbers):
            out += [f"- **{v.mark}**" + (f" under *{name}*" if name else "")
                    + f" — {v.claim}  ", f"  {v.evidence}"]
    return out + [""]


def reread_lines(res, numbers, cuts, setups=None, pair=None) -> list[str]:
    """The named claims again with the step-size grid cut below each of ``cuts`` (no new
    runs), for the set-ups ``setups`` (default: all); with ``pair`` (two methods) also
    :func:`clearly`'s verdict on the cut grid."""
    if not numbers or not cuts:
        return []
    rows = []
    for name, sub in groups(res):
        if setups and name not in setups:
            continue
        for cut in [None, *cuts]:
            part = sub if cut is None else from_alpha(sub, cut)
            extra = [clearly(pair_rows(part, *pair), *pair)] if pair else []
            for v in confront(part, numbers):
                rows.append(([name] if name else []) + [
                    "whole grid" if cut is None else f"{cut:.2g}", str(v.number),
                    {AGREES: "agrees", DISAGREES: "disagrees"}.get(v.status, v.status)]
                    + extra + [v.evidence])
    header = (["set-up"] if any(n for n, _ in groups(res)) else []) + [
        "grid from", "claim", "verdict"] + (
        [f"{label(pair[0])} − {label(pair[1])}, paired"] if pair else []) + ["evidence"]
    return (["The claims again with the step-size grid cut below a step size (the same "
             "runs; rules of `ftd_lib/repro/paper/claims.py`):", ""] + table(header, rows) + [""])


def setups_table(opts: dict) -> list[str]:
    """The set-ups the experiment file declares: name, the choice it varies, the change."""
    s = opts.get("setups") or {}
    if not s:
        return []
    return (["The set-ups (`[[setups]]` of its experiment file), one choice changed at a "
             "time:", ""] + table(["set-up", "choice", "change"],
                                  [[k, v.get("choice", ""), v.get("change", "")]
                                   for k, v in s.items()]) + [""])


def experiment_section(res, png: str | None, provenance: list[str], warning: str | None,
                       heading: str = "##") -> list[str]:
    """REPORT.md's section on one stored experiment ``res`` (``png``: its picture relative to
    the report; ``provenance``: how it was made; ``warning``: the below-scale warning)."""
    d = res.meta["definition"]
    opts = options(res)
    rep = opts["report"]
    out = [f"{heading} {res.meta.get('title') or d.get('title') or res.figure}", ""]
    from ..envs.tasks import TASKS

    task = d.get("task_title") or getattr(TASKS.get(d.get("env")), "title", d.get("env"))
    xlabel = d.get("xlabel") or ("step size α" if d["x"] == "alpha" else "λ")
    out += [f"Task: {task} ({d['task']}); x axis: {xlabel}; y axis: {d.get('ylabel', '')}.",
            ""]
    for note in d.get("notes") or ():
        out += [f"> {note}", ""]
    if warning:
        out += [warning, ""]
    if png:
        out += [f"![{res.figure}]({png})", ""]
    out += setups_table(opts)
    out += best_tables(res)
    out += learning_table(res)
    if d["x"] == "alpha" and rep.get("compare_with"):
        out += compare_with(res, rep["compare_with"])
    if d["x"] == "lam" and rep.get("compare"):
        out += compare_pair(res, *rep["compare"])
    n_div = int(res.arrays["diverged"].sum())
    if n_div:
        out += [f"Diverged runs: {n_div} of {res.arrays['diverged'].size} (drawn off the "
                "chart; an infinite error, or a nan return from then on).", ""]
    out += claim_lines(res, opts["claims"])
    pilot = res.path is not None and (res.path.parent / "pilot" / res.path.name).is_file()
    if not pilot:  # (else: on the pilot's whole grid, in its section)
        out += reread_lines(res, opts["claims"], rep.get("reread_from"),
                            rep.get("reread_setups"), rep.get("compare"))
    return out + ["How it was made:", ""] + provenance + [""]

