r"""An experiment as a file: a TOML file (read with :mod:`tomllib`) declares everything a run
depends on, and :func:`load_experiment` turns it into a :class:`~ftd_lib.repro.cells.Figure`
(cells, runs, episodes, chunking) that :mod:`ftd_lib.repro.runs` computes with chunks,
resume, workers and provenance. The paper's figures and the studies are such files
(``experiments/``); the keys are listed in ``experiments/README.md`` and in :data:`KEYS`.

The cells: every curve (``methods`` -- one curve each -- or ``[[curves]]`` with their own
:math:`\eta`, :math:`K_{max}`, block length, :math:`\lambda` (``lam``/``lams``) and the
method's own ``params``, :mod:`.curves`) times every :math:`\lambda` (the curve's, else
``[grid]``'s) times every :math:`\alpha` of ``[grid]``, in that order; with ``[[setups]]``
every set-up times every curve (curves named ``"<set-up> / <method>"``). Scales: the file is
the ``paper`` scale (the counts it names), ``[quick]`` what the ``quick`` scale changes.
``--set KEY=VALUE`` changes any key (:func:`apply_sets`). A bad file or key raises
``ValueError`` naming the file and the key, in one line.
"""

from __future__ import annotations

import math

from .. import validate
from ..envs import tasks
from ..methods import IGNORED_SETTINGS, label
from ..methods import method as method_record
from .cells import NO_EPSILON, Cell, Figure, _geom, network_only
from .curves import curves as read_curves
from .keys import (  # noqa: F401  (re-exported: the loader's names)
    ALIASES,
    DEFAULT_SEED,
    KEYS,
    METRICS,
    PROTOCOLS,
    SCALES,
    ExperimentError,
    apply_sets,
    experiment_path,
    experiments_dir,
    merge,
    overrides_of,
    parse_value,
    read_file,
)

# ----------------------------------------------------------------------------- the loader


class _Reader:
    """Checked reads of one file's keys: every error names the file and the key."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, why: str):
        return ExperimentError(f"{self.source}: {key}: {why}")

    def unknown(self, table: dict, allowed, where: str):
        for k in table:
            if k not in allowed:
                raise self.fail(f"{where}{k}", f"unknown key (the keys here: "
                                f"{', '.join(allowed)})")

    def check(self, key, fn, *args):
        try:
            return fn(*args)
        except ValueError as e:
            raise self.fail(key, str(e)) from None

    def table(self, raw, key) -> dict:
        v = raw.get(key, {})
        if not isinstance(v, dict):
            raise self.fail(key, f"must be a table, got {v!r}")
        self.unknown(v, KEYS[key], f"{key}.")
        return v

    def int(self, d, key, name, lo=1, default=None):
        v = d.get(key, default)
        if v is None:
            raise self.fail(name, "missing")
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise self.fail(name, f"must be an integer >= {lo}, got {v!r}")
        return v

    def choice(self, d, key, name, choices, default):
        v = d.get(key, default)
        if v not in choices:
            raise self.fail(name, f"must be one of {', '.join(map(str, choices))}, got {v!r}")
        return v

    def numbers(self, v, name) -> tuple[float, ...]:
        if isinstance(v, dict):  # a geometric grid: centre * ratio**k, k = from..to
            self.unknown(v, ("centre", "ratio", "from", "to"), f"{name}.")
            try:
                return _geom(float(v["centre"]), int(v["from"]), int(v["to"]),
                             float(v["ratio"]))
            except (KeyError, TypeError, ValueError):
                raise self.fail(name, "a geometric grid needs centre, ratio, from, to "
                                "(numbers)") from None
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = [v]  # one value: a grid of one (--set grid.lams=0.5)
        if not isinstance(v, list) or not v:
            raise self.fail(name, f"must be a non-empty list of numbers, got {v!r}")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            raise self.fail(name, f"must be numbers, got {v!r}")
        return tuple(float(x) for x in v)


def load_experiment(path, scale: str = "paper", sets=None) -> tuple[Figure, dict]:
    """The experiment in ``path`` (a file, or a name of ``experiments/``) at ``scale``, with
    the ``--set`` changes ``sets``: ``(figure, run)`` where ``run`` holds what is not the
    figure's definition (``seed``, ``device_kind``, ``out``)."""
    path = experiment_path(path)
    raw = read_file(path)
    if scale not in SCALES:
        raise ExperimentError(f"{path}: scale must be one of {', '.join(SCALES)}, got "
                              f"{scale!r}")
    if scale == "quick":  # the scale first: --set changes what the scale gives
        quick = raw.get("quick", {})
        if not isinstance(quick, dict):
            raise ExperimentError(f"{path}: quick: must be a table")
        raw = merge({k: v for k, v in raw.items() if k != "quick"}, quick)
    raw = apply_sets(raw, sets, f"{path}: --set") if sets else raw
    return build(raw, scale, str(path), overrides=sets)


def build(raw: dict, scale: str, source: str, overrides=None) -> tuple[Figure, dict]:
    """A file's tables (``read_file``) at ``scale`` -> ``(figure, run)``."""
    r = _Reader(source)
    r.unknown(raw, KEYS[""], "")
    quick = raw.get("quick", {})
    if not isinstance(quick, dict):
        raise r.fail("quick", "must be a table")
    r.unknown(quick, [k for k in KEYS[""] if k not in ("quick", "paper", "base")], "quick.")
    if scale == "quick":
        raw = merge({k: v for k, v in raw.items() if k != "quick"}, quick)
    name = raw.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        raise r.fail("name", f"must be a file-system-safe name, got {name!r}")
    task_t, net, grid = r.table(raw, "task"), r.table(raw, "network"), r.table(raw, "grid")
    env = task_t.get("name")
    try:
        task = tasks.task(env)
    except ValueError as e:
        raise r.fail("task.name", str(e)) from None
    curves = read_curves(r, raw)
    given = task_t.get("params", {})
    if not isinstance(given, dict):
        raise r.fail("task.params", f"must be a table of name = value, got {given!r}")
    try:
        checked = tasks.check_task_params(env, given)
    except ValueError as e:
        raise r.fail("task.params", str(e)) from None
    task_params = tuple(sorted((k, checked[k]) for k in given))  # (only those given)
    kinds = {method_record(c["method"]).kind for c in curves}
    if len(kinds) > 1:
        raise r.fail("methods", "prediction and control methods cannot share an experiment")
    kind = kinds.pop()
    metric = r.choice(raw, "metric", "metric", tuple(METRICS),
                      "rms_error" if kind == "prediction" else "return")
    if METRICS[metric] != kind:
        raise r.fail("metric", f"{metric} is a {METRICS[metric]} metric; the methods are "
                     f"{kind} methods")
    if kind == "prediction" and not task.evaluation:
        raise r.fail("task.name", f"{env} has no evaluation task (prediction)")
    x = r.choice(raw, "x", "x", ("alpha", "lam"), "lam")
    alphas = tuple(sorted({r.check("grid.alphas", validate.check_alpha, a)
                           for a in r.numbers(grid.get("alphas"), "grid.alphas")}))
    lams = tuple(sorted({r.check("grid.lams", validate.check_unit, "lam", v)
                         for v in r.numbers(grid.get("lams"), "grid.lams")}))
    if x == "lam":
        flat = [c["name"] for c in curves if "lam" in method_record(c["method"]).ignores]
        if flat:
            raise r.fail("x", f"the curve(s) {', '.join(map(repr, flat))} ignore λ: they "
                         "have no points on a λ axis (x = \"alpha\")")
    _check_report(r, r.table(raw, "report"), [c["name"] for c in curves], x)
    runs = r.int(raw, "runs", "runs")
    episodes = r.int(raw, "episodes", "episodes")
    paper = r.table(raw, "paper")
    setups = _setups(r, raw, kind, task, task_t, net, grid)
    cells = []
    for s in setups:
        for c in curves:
            curve = c["name"] if s["curve"] is None else f"{s['curve']} / {label(c['name'])}"
            ignores = method_record(c["method"]).ignores
            for lam in (IGNORED_SETTINGS["lam"],) if "lam" in ignores else c["lams"] or lams:
                for a in alphas:
                    cells.append(Cell(c["method"], a, lam, s["gamma"], c["eta"], c["k_max"],
                                      curve=curve, variant=s["variant"], params=c["params"]))
    chunk_t = r.table(raw, "chunks")
    runs_per_chunk = r.int(chunk_t, "runs", "chunks.runs", default=runs)
    per = chunk_t.get("cells", "method")
    n_methods = len(dict.fromkeys(c["method"] for c in curves))
    unit = {"method": len(cells) // (len(setups) * n_methods) if n_methods else 1,
            "curve": len(lams) * len(alphas), "lambda": len(alphas)}
    if isinstance(per, str):
        if per not in unit:
            raise r.fail("chunks.cells", f"must be an integer >= 1 or one of "
                         f"{', '.join(unit)}, got {per!r}")
        per = unit[per]
    per = r.int({"cells": per}, "cells", "chunks.cells")
    chunk_rows = chunk_t.get("rows") or None  # 0: none (e.g. [quick] undoing the file's)
    if chunk_rows is not None:
        chunk_rows = r.int(chunk_t, "rows", "chunks.rows")
        if chunk_rows >= runs:
            runs_per_chunk, per = runs, chunk_rows // runs
        else:
            runs_per_chunk, per = chunk_rows, 1
    device = r.choice(chunk_t, "device", "chunks.device", ("cpu", "cuda"), "cpu")
    prot = r.table(raw, "protocol")
    protocol = {"kind": r.choice(prot, "kind", "protocol.kind", PROTOCOLS, "fixed")}
    if protocol["kind"] == "pilot":
        protocol.update(pilot_runs=r.int(prot, "pilot_runs", "protocol.pilot_runs",
                                         default=20),
                        final_alphas=r.int(prot, "final_alphas", "protocol.final_alphas",
                                           default=5),
                        max_widenings=r.int(prot, "max_widenings", "protocol.max_widenings",
                                            lo=0, default=3))
    optimise = "alpha" if x == "lam" and len(alphas) > 1 else ""
    if protocol["kind"] == "pilot" and not optimise:
        raise r.fail("protocol.kind", "the pilot protocol chooses alpha per lambda: it needs "
                     "x = \"lam\" and several grid.alphas")
    claims = raw.get("claims", [])  # (known numbers: ftd_lib.repro.paper.claims.check_claims)
    if not isinstance(claims, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in claims):
        raise r.fail("claims", f"must be a list of claim numbers, got {claims!r}")
    notes = raw.get("notes", [])
    if isinstance(notes, str):
        notes = [notes]
    base_spec = setups[0]["spec"] if len(setups) == 1 else {}
    title = _title(r, raw.get("title", name), alphas, lams, task)
    fig = Figure(
        name=name, scale=scale, title=title, task=kind, env=env, x=x, cells=tuple(cells),
        runs=runs, episodes=episodes,
        paper_runs=r.int(paper, "runs", "paper.runs", default=runs),
        paper_episodes=r.int(paper, "episodes", "paper.episodes", default=episodes),
        ylabel=str(raw.get("ylabel", "error" if kind == "prediction" else "return")),
        runs_per_chunk=runs_per_chunk, cells_per_chunk=per,
        epsilon=NO_EPSILON if kind == "prediction" else setups[0]["epsilon"],
        optimise=optimise,
        max_steps=None if kind == "prediction" else _cap(r, task_t, task),
        truncation=None if kind == "prediction" else task_t.get("at_cap", "bootstrap"),
        chunk_rows=chunk_rows, notes=tuple(str(n) for n in notes),
        overrides=overrides_of(overrides),
        variants={s["variant"]: s["spec"] for s in setups if s["variant"]},
        protocol=protocol, claims=tuple(claims), source=source,
        task_title=task.title,
        xlabel=str(raw.get("xlabel", "step size α" if x == "alpha" else "λ")),
        hidden_units=base_spec.get("n_hidden", 50), report=r.table(raw, "report"),
        task_params=task_params,
        paper_counts="paper" in raw,
        setup_notes={s["variant"]: {"choice": s["choice"], "change": s["change"]}
                     for s in setups if s["variant"] and s.get("choice") is not None
                     and raw.get("setups") is not None})
    validate_figure(fig)
    run = {"seed": r.int(raw, "seed", "seed", lo=0, default=DEFAULT_SEED),
           "device_kind": device, "out": raw.get("out"), "setups": setups,
           "report": r.table(raw, "report")}
    return fig, run


def _check_report(r, rep: dict, names: list[str], x: str) -> None:
    """``[report]``'s curve names are curves of the file (``compare_with`` one, on an
    x = alpha axis; ``compare`` two, on an x = lam axis): anything else is refused in one
    line, not a comparison left out of the report without a word."""
    def one(key, v):
        if not isinstance(v, str) or v not in names:
            raise r.fail(key, f"no curve {v!r} (the curves: {', '.join(map(repr, names))})")

    if "compare_with" in rep:
        one("report.compare_with", rep["compare_with"])
        if x != "alpha":
            raise r.fail("report.compare_with", "compares each curve at its best α: it needs "
                         "x = \"alpha\" (x = \"lam\" takes report.compare = [A, B])")
    if "compare" in rep:
        v = rep["compare"]
        if not isinstance(v, list) or len(v) != 2:
            raise r.fail("report.compare", f"must be two curve names [A, B], got {v!r}")
        for name in v:
            one("report.compare", name)
        if x != "lam":
            raise r.fail("report.compare", "compares two curves per λ: it needs x = \"lam\" "
                         "(x = \"alpha\" takes report.compare_with = NAME)")


def _title(r, title, alphas, lams, task) -> str:
    def one(xs, what):
        return f"{xs[0]:g}" if len(xs) == 1 else f"best of {len(xs)} {what}"
    try:
        return str(title).format(alpha=one(alphas, "α"), lam=one(lams, "λ"), task=task.title)
    except (KeyError, IndexError, ValueError) as e:
        raise r.fail("title", f"{{alpha}}, {{lam}} and {{task}} may be filled in; {e}") from None


def _cap(r, task_t, task):
    cap = task_t.get("cap", task.max_steps)
    return r.int({"cap": cap}, "cap", "task.cap")


def _setups(r, raw, kind, task, task_t, net, grid) -> list[dict]:
    """The set-ups (each: ``variant`` name or "", ``curve`` prefix or None, ``gamma``,
    ``epsilon``, ``spec`` for the chunks); one when the file has no ``[[setups]]``."""
    many = raw.get("setups")
    named = raw.get("setup")
    if many is not None and named is not None:
        raise r.fail("setup", "give setup = NAME or [[setups]], not both")
    items = [{}] if many is None else many
    if not isinstance(items, list) or not items:
        raise r.fail("setups", "must be a non-empty array of tables")
    out = []
    for i, s in enumerate(items):
        where = "" if many is None else f"setups.{i}."
        if not isinstance(s, dict):
            raise r.fail(where[:-1], "must be a table")
        r.unknown(s, KEYS["setups"], where)
        t = merge(task_t, s.get("task", {}))
        n = merge(net, s.get("network", {}))
        g = merge(grid, s.get("grid", {}))
        r.unknown(t, KEYS["task"], where + "task.")
        r.unknown(n, KEYS["network"], where + "network.")
        check_setup_keys(r, task.name, task, where, t, n)
        gamma = r.check(where + "task.gamma", validate.check_unit, "gamma",
                        t.get("gamma", task.gamma))
        eps = r.check(where + "grid.epsilon", validate.check_unit, "epsilon",
                      g.get("epsilon", 0.05))
        spec = {"hidden": r.choice(n, "activation", where + "network.activation",
                                   ("tanh", "sigmoid"), "tanh"),
                "init": r.choice(n, "init", where + "network.init",
                                 ("uniform", "zero-output", "small"), "uniform"),
                "inputs": r.choice(t, "inputs", where + "task.inputs",
                                   ("symmetric", "unit"), "symmetric"),
                "start": r.choice(t, "start", where + "task.start",
                                  ("bottom", "anywhere"), "bottom")}
        hidden_units = r.int(n, "hidden_units", where + "network.hidden_units", default=50)
        if hidden_units != 50:
            spec["n_hidden"] = hidden_units
        at_cap = r.choice(t, "at_cap", where + "task.at_cap", ("bootstrap", "terminal"),
                          "bootstrap")
        default = (spec["hidden"], spec["init"], spec["inputs"], spec["start"]) == (
            "tanh", "uniform", "symmetric", "bottom") and "n_hidden" not in spec
        if kind == "prediction":
            for k in ("cap", "at_cap"):
                if k in t:
                    raise r.fail(where + f"task.{k}", "prediction runs evaluation episodes "
                                 "to their end (no cap)")
            if not default:
                bad = next(k for k, v in (("network.activation", spec["hidden"] != "tanh"),
                                          ("network.init", spec["init"] != "uniform"),
                                          ("task.inputs", spec["inputs"] != "symmetric"),
                                          ("task.start", spec["start"] != "bottom"),
                                          ("network.hidden_units", "n_hidden" in spec)) if v)
                raise r.fail(where + bad, "prediction runs the paper's network and inputs "
                             "only (set-ups are for control)")
            out.append({"variant": "", "curve": None, "gamma": gamma, "epsilon": eps,
                        "spec": {}})
            continue
        cap = _cap(r, t, task)
        if many is not None:
            cap = min(cap, _cap(r, task_t, task))  # the experiment's cap bounds every set-up
        name = s.get("name") if many is not None else named
        if name is None and not default:  # a set-up nobody named: named by its changes
            name = ", ".join(f"{k}={v}" for k, v in spec.items()
                             if v != {"hidden": "tanh", "init": "uniform", "inputs": "symmetric",
                                      "start": "bottom"}.get(k))
        if name is not None and not isinstance(name, str):
            raise r.fail(where + "name" if many is not None else "setup",
                         f"must be a name, got {name!r}")
        out.append({"variant": name or "", "curve": name if many is not None else None,
                    "gamma": gamma, "epsilon": eps, "choice": s.get("choice", ""),
                    "change": s.get("change", ""),
                    "spec": {**spec, "max_steps": cap, "truncation": at_cap, "epsilon": eps}
                    if name else {}})
    return out


#: task keys only some tasks have: the key -> the tasks that have it
TASK_ONLY_KEYS = {"start": ("mountain_car",), "inputs": ("mountain_car",)}


def check_setup_keys(r, env: str, task, where: str, t: dict, n: dict) -> None:
    """Keys the task cannot run, refused at load in one line: a task key another task owns
    (:data:`TASK_ONLY_KEYS`, mountain car's ``start`` and ``inputs``, which only the compiled
    kernel runs). A ``[network]`` (units, activation, init) is a plain parameter of every
    engine (``run_control``), so it runs on every task."""
    for k, owners in TASK_ONLY_KEYS.items():
        if k in t and env not in owners:
            raise r.fail(f"{where}task.{k}", f"a key of {', '.join(owners)} only; {env} has "
                         f"none (its keys: name, gamma, cap, at_cap, params)")


def validate_figure(fig: Figure) -> None:
    """What only the whole definition can tell: every method runs on the task (a set-up of
    the network only runs in every engine; mountain car's inputs and starts in the
    kernel)."""
    for c in fig.cells:
        if (c.variant and not network_only(fig.variants.get(c.variant, {}))
                and "kernel" not in method_record(c.method).engines):
            raise ExperimentError(
                f"{fig.source}: setup: set-up {c.variant!r} needs the compiled kernel, and "
                f"{c.method} has none (a set-up other than the engines' default runs there)")
    if math.isnan(fig.epsilon) and fig.task == "control":
        raise ExperimentError(f"{fig.source}: grid.epsilon: must be a number")
