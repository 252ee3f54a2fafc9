r"""The paper's figures and the studies, read from their experiment files (``experiments/``,
:mod:`ftd_lib.repro.experiment`): :func:`figure` gives one at ``quick`` or ``paper`` scale, with
the command line's overrides (runs, episodes, chunk size, a set-up variant, ``--set``).

A figure is a list of *cells* -- one setting of (method, :math:`\alpha`, :math:`\lambda`,
:math:`\gamma`, :math:`\eta`, :math:`K_{max}`) -- each run ``runs`` times with run ids
``0 .. runs-1`` (see :mod:`ftd_lib.repro` for the scales and the metrics). The grids, the
exploration and :math:`\eta` are set in the files, each with the reason for its value.
"""

from __future__ import annotations

import json
import re
import shlex

from .. import validate
from ..methods import method as method_record
from .cells import EPSILON, ETA, Cell, Figure
from .experiment import DEFAULT_SEED, build, experiment_path, merge, read_file

__all__ = ["DEFAULT_SEED", "EPSILON", "ETA", "Cell", "Figure", "figure"]

FIGURES = ("fig3-left", "fig3-right", "fig4-left", "fig4-right")
#: studies beyond the paper: made, stored and reported the same way, not in "all"
STUDIES = ("block-lambda", "claim5-study")
SCALES = ("quick", "paper")


def _grid(name: str, key: str) -> tuple:
    fig = figure(name, "paper")
    return tuple(sorted({getattr(c, key) for c in fig.cells}))


def figure(name: str, scale: str = "quick", runs: int | None = None,
           episodes: int | None = None, chunk_rows: int | None = None,
           variant: str | None = None, grid: dict | None = None) -> Figure:
    """The definition of a paper figure or study (``experiments/<name>.toml``) at a scale;
    ``runs``/``episodes`` override the counts.

    ``variant`` (Fig. 4 left only): the figure under one set-up of the claim-5 study
    (``[[setups]]`` of ``experiments/claim5-study.toml``); its chunks name the set-up, so
    they never mix with the figure's own.

    ``chunk_rows`` overrides how many rows (cells x runs) one chunk holds at most: the
    defaults suit a CPU; a GPU wants far bigger batches (e.g. 20000). Chunks of a different
    size are different chunks (they are not reused across sizes). ``grid`` (e.g.
    ``{"alphas": (0.001, 0.002)}``) rebuilds
    the cells on other methods, step sizes or lambdas (:func:`with_grid`).
    """
    if name not in FIGURES + STUDIES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES + STUDIES)}, got {name!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    path = experiment_path(name)
    raw = read_file(path)
    if chunk_rows is not None:  # the command line's size replaces the file's
        rows = validate.check_int("chunk_rows", chunk_rows, 1)
        raw = merge(raw, {"chunks": {"rows": rows}, "quick": {"chunks": {"rows": rows}}})
    if variant is not None:
        raw = _under_variant(raw, variant)
    fig, _ = build(raw, scale, str(path))
    if grid:
        fig = with_grid(fig, **grid)
    changes = {}
    if runs is not None:
        changes["runs"] = validate.check_int("runs", runs, 1)
    if episodes is not None:
        changes["episodes"] = validate.check_int("episodes", episodes, 1)
    if chunk_rows is not None and "runs" in changes:
        n_runs = changes["runs"]
        if chunk_rows >= n_runs:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = n_runs, chunk_rows // n_runs
        else:
            changes["runs_per_chunk"], changes["cells_per_chunk"] = chunk_rows, 1
    if changes:
        d = {k: getattr(fig, k) for k in fig.__dataclass_fields__}
        d.update(changes)
        fig = Figure(**d)
    check_memory(fig)
    return fig


def chunk_device(name: str, scale: str = "paper") -> str:
    """The device kind (``cpu`` or ``cuda``) the file of figure ``name`` says its chunks are
    computed on (``[chunks] device``; default ``cpu``): Fig. 3 left's stored chunks were made
    on a GPU, and numbers from different kinds of device are kept apart
    (:func:`ftd_lib.repro.chunks.device_kind`)."""
    if name not in FIGURES + STUDIES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES + STUDIES)}, got {name!r}")
    path = experiment_path(name)
    return build(read_file(path), scale, str(path))[1]["device_kind"]


def study_setups(name: str = "claim5-study") -> list[dict]:
    """The ``[[setups]]`` of a study's file (each: ``name``, ``choice``, ``change`` and the
    keys it changes)."""
    return list(read_file(experiment_path(name)).get("setups", []))


def _under_variant(raw: dict, name: str) -> dict:
    """Fig. 4 left's file under a set-up of the claim-5 study."""
    if raw.get("name") != "fig4-left":
        raise ValueError(f"variant: only fig4-left has set-up variants, got figure "
                         f"{raw.get('name')!r}")
    setups = {s["name"]: s for s in study_setups()}
    if name not in setups:
        raise ValueError(f"variant must be one of {tuple(setups)}, got {name!r}")
    s = setups[name]
    over = {k: s[k] for k in ("task", "network", "grid") if k in s}
    return merge(raw, {**over, "setup": name,
                       "title": f"{raw['title']} — set-up variant: {name}",
                       "notes": [*raw.get("notes", []), f"set-up variant {name!r} "
                                 f"(ftd_lib.repro.paper.study): {s.get('change', '')}."]})




# ----------------------------------------------------------------------------- --set


#: what ``--set KEY=V1,V2,...`` may change in a figure's definition (:func:`with_grid`)
GRID_KEYS = ("methods", "alphas", "lams")


def _number(text: str) -> str:
    """A number as the command line writes it: the shortest form that reads back the same."""
    v = float(text)
    return f"{v:g}" if float(f"{v:g}") == v else repr(v)


def format_value(v) -> str:
    """One ``--set`` value as the command line writes it, read back the same by
    :func:`ftd_lib.repro.keys.parse_value`: a number in its shortest form, ``true``/``false``,
    a word as it is (``sigmoid``, ``terminal``), any other text, list or table as TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _number(str(v))
    if isinstance(v, str):
        try:
            return _number(v)
        except ValueError:
            pass
        return v if re.fullmatch(r"[A-Za-z_][\w\-]*", v) and v not in ("true", "false",
                                                                        "inf", "nan") \
            else json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {format_value(x)}" for k, x in v.items()) + " }"
    return json.dumps(str(v), ensure_ascii=False)


def format_sets(overrides) -> str:
    """The ``--set`` options that give ``overrides`` (``Figure.overrides`` or a dict), e.g.
    ``" --set alphas=0.001,0.002 --set lams=0,0.5"`` ("" for none); any value -- a number, a
    word (``network.activation=sigmoid``), text, a list or a table -- is written so that the
    command line reads it back the same (quoted for the shell where it must be)."""
    items = overrides.items() if isinstance(overrides, dict) else overrides
    return "".join(
        " --set " + shlex.quote(f"{k}=" + ",".join(format_value(v) for v in vals))
        for k, vals in sorted(items))


def _check_grid(fig: Figure, key: str, values) -> tuple:
    def bad(why):
        return ValueError(f"--set {key}={','.join(map(str, values))}: {why}")

    if not values:
        raise bad("no values")
    if key == "methods":
        for m in values:
            try:
                rec = method_record(m)
            except ValueError as e:
                raise bad(str(e)) from None
            if rec.kind != fig.task:
                raise bad(f"{fig.name} is a {fig.task} figure; {m} is a {rec.kind} method")
            if rec.numerics is None:
                raise bad(f"{m} runs in no engine (it has only a per-run reference)")
        return tuple(dict.fromkeys(values))
    check = validate.check_alpha if key == "alphas" else (
        lambda v: validate.check_unit("lams", v))
    try:
        return tuple(sorted({check(v) for v in values}))
    except ValueError as e:
        raise bad(str(e)) from None


def with_grid(fig: Figure, *, methods=None, alphas=None, lams=None) -> Figure:
    """``fig`` with its cells rebuilt on other ``methods``, step sizes ``alphas`` or ``lams``
    (each ``None``: the figure's own): every curve of the figure (method, eta, K_max) that
    belongs to one of the methods (with its gamma and set-up variant; in the order of
    ``methods`` when given) -- a method new to the figure gets one curve of its own, eta =
    :data:`ETA`, no K_max -- times every lambda times every alpha, in that order. A
    chunk holds the same share of the grid as before (one method's cells, one curve's, or the
    same count). Bad values raise ``ValueError`` naming ``--set``. The changes are recorded
    in ``overrides``."""
    asked = {k: v for k, v in (("methods", methods), ("alphas", alphas), ("lams", lams))
             if v is not None}
    if not asked:
        return fig
    asked = {k: _check_grid(fig, k, tuple(v)) for k, v in asked.items()}
    methods = asked.get("methods", tuple(fig.methods))
    alphas = asked.get("alphas", tuple(sorted({c.alpha for c in fig.cells})))
    lams = asked.get("lams", tuple(sorted({c.lam for c in fig.cells})))
    # a curve: its method, name, eta, K_max, gamma and set-up variant (the claim-5 study)
    curves = list(dict.fromkeys((c.method, c.curve, c.eta, c.k_max, c.gamma, c.variant,
                                 c.params) for c in fig.cells if c.method in methods))
    gamma = fig.cells[0].gamma
    curves += [(m, m, ETA, None, gamma, "", ()) for m in methods if m not in fig.methods]
    if "methods" in asked:  # the methods' order, stable within one
        curves.sort(key=lambda c: methods.index(c[0]))
    cells = tuple(Cell(m, a, lam, g, eta, k, curve=curve, variant=v, params=p)
                  for m, curve, eta, k, g, v, p in curves for lam in lams for a in alphas)

    def per(attr, cs):  # cells of one method (or one curve) of a cell list
        return max(sum(getattr(c, attr) == getattr(x, attr) for c in cs) for x in cs)

    chunk = fig.cells_per_chunk
    if chunk == per("method", fig.cells):
        chunk = per("method", cells)
    elif chunk == per("curve", fig.cells):
        chunk = per("curve", cells)
    overrides = dict(fig.overrides) | asked
    return Figure(**{**{k: getattr(fig, k) for k in fig.__dataclass_fields__},
                     "cells": cells, "cells_per_chunk": chunk,
                     "overrides": tuple(sorted(overrides.items()))})


#: bytes one row (a cell times a run) costs before anything is computed: its settings, run id
#: and cell index in the chunk list and in the chunks' identities (Python lists, hashed as
#: JSON), its metric and diverged flag in the results. Measured: about 550.
ROW_BYTES = 600


def memory_estimate(fig: Figure) -> dict[str, int]:
    """Bytes a figure needs in memory, whatever the runner: ``runs`` (the per-row bookkeeping
    of every cell x run, :data:`ROW_BYTES` each) and ``episodes`` (the per-episode curves of
    every cell and of one chunk's rows, a few copies)."""
    rows = len(fig.cells) * fig.runs
    chunk = min(rows, fig.cells_per_chunk * fig.runs_per_chunk)
    return {"runs": rows * ROW_BYTES,
            "episodes": (2 * len(fig.cells) + 4 * chunk) * fig.episodes * 8}


def check_memory(fig: Figure, available: int | None = None) -> None:
    """Refuse, before any work, a figure whose run or episode count cannot fit in memory
    (instead of minutes of building chunk lists, then numpy's ArrayMemoryError)."""
    need = memory_estimate(fig)
    total = sum(need.values())
    available = validate.available_memory() if available is None else available
    if available is None or total <= available:
        return
    what = max(need, key=need.get)  # "runs" or "episodes"
    count = fig.runs if what == "runs" else fig.episodes
    raise ValueError(
        f"--{what} {count}: {fig.name} ({len(fig.cells)} cells x {fig.runs} runs x "
        f"{fig.episodes} episodes) would need about {total / 2**30:.3g} GiB of memory, more "
        f"than the {available / 2**30:.3g} GiB available; ask for fewer {what}")


#: lambda grid of Figs. 3 right and 4; Fig. 3 right's fixed
#: step size; the step sizes of Fig. 3 left and of Fig. 4 (read from their files)
LAMBDAS = _grid("fig4-left", "lam")
ALPHA_FIG3_RIGHT = _grid("fig3-right", "alpha")[0]
ALPHAS_FIG3 = _grid("fig3-left", "alpha")
ALPHAS_FIG4 = _grid("fig4-left", "alpha")
FIG4_METHODS = ("sarsa_lambda", "forward_sarsa_lambda")
