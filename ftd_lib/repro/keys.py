r"""The keys of an experiment file (:data:`KEYS`), reading one (:func:`read_file`, with its
``base`` file under it) and the command line's ``--set KEY=VALUE`` (:func:`apply_sets`): a
dotted key reaches any key of the file; a bad item raises :class:`ExperimentError` naming it.
The experiment itself is built by :mod:`ftd_lib.repro.experiment`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

#: every key of an experiment file; a table's keys under its name
KEYS = {
    "": ("name", "title", "methods", "curves", "x", "metric", "ylabel", "xlabel", "runs",
         "episodes", "seed", "claims", "notes", "task", "network", "grid", "chunks",
         "protocol", "paper", "quick", "setups", "setup", "base", "out", "report"),
    "task": ("name", "gamma", "cap", "at_cap", "start", "inputs", "params"),
    "network": ("hidden_units", "activation", "init"),
    "grid": ("alphas", "lams", "eta", "k_max", "block", "epsilon"),
    "curves": ("name", "method", "eta", "k_max", "block", "lam", "lams", "params"),
    "setups": ("name", "choice", "change", "task", "network", "grid"),
    "chunks": ("runs", "cells", "rows", "device"),
    "protocol": ("kind", "pilot_runs", "final_alphas", "max_widenings"),
    "paper": ("runs", "episodes"),
    "report": ("compare_with", "compare", "reread_from", "reread_setups"),
}
METRICS = {"rms_error": "prediction", "return": "control"}
PROTOCOLS = ("fixed", "pilot")
SCALES = ("quick", "paper")
DEFAULT_SEED = 2016


class ExperimentError(ValueError):
    """A bad experiment file or key: one line naming the file and the key."""


def experiments_dir() -> Path:
    """The repository's ``experiments/`` folder (next to the ``ftd_lib`` package)."""
    return Path(__file__).resolve().parents[2] / "experiments"


def experiment_path(name_or_path) -> Path:
    """A file's path: a path as given, or a name of ``experiments/`` (``"fig3-left"``)."""
    p = Path(name_or_path)
    if p.suffix == ".toml":
        return p
    return experiments_dir() / f"{p}.toml"


def experiment_names() -> tuple[str, ...]:
    """The names of ``experiments/`` (each ``NAME.toml``: ``reproduce NAME``, ``plan NAME``)."""
    return tuple(sorted(p.stem for p in experiments_dir().glob("*.toml")))


def read_file(path) -> dict:
    """The file's tables as a dict, with its ``base`` file (a path relative to it) under it."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise ExperimentError(f"{path}: no such experiment file") from None
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{path}: not TOML: {e}") from None
    base = raw.pop("base", None)
    if base is None:
        return raw
    if not isinstance(base, str):
        raise ExperimentError(f"{path}: base: must be a file name, got {base!r}")
    return merge(read_file(path.parent / base), raw)


def merge(a: dict, b: dict) -> dict:
    """``a`` with ``b``'s keys on top; tables merge key by key, anything else is replaced."""
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


# ----------------------------------------------------------------------------- --set


def parse_value(text: str):
    """A ``--set`` value: TOML (``0.5``, ``[1, 2]``, ``"tanh"``, ``true``), else a comma list
    of numbers (``0.001,0.002``) or of words (``sarsa_lambda,forward_sarsa_lambda``), else the
    text as it is."""
    text = text.strip()
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        pass
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 1:
        try:
            return [tomllib.loads(f"v = {p}")["v"] for p in parts]
        except tomllib.TOMLDecodeError:
            return parts
    return text


#: the short names of ``--set`` that ``reproduce`` has always taken (``lams=`` is refused
#: where a curve has its own lambda, :func:`_check_short_lams`)
ALIASES = {"alphas": "grid.alphas", "lams": "grid.lams"}


def _check_short_lams(raw: dict, item, where: str) -> None:
    """``lams=`` reads as "the experiment's lambdas", but it is the grid's, which a curve with
    its own ``lam``/``lams`` (e.g. n-step Sarsa as forward Sarsa(1)) does not take: refused
    then, naming those curves and the two long forms, rather than leaving them unchanged
    without a word (or changing what they are)."""
    own = [(f"curves.{i}.{k}", c.get("name", c.get("method")), c[k])
           for i, c in enumerate(raw.get("curves") or []) if isinstance(c, dict)
           for k in ("lam", "lams") if k in c]
    if own:
        value = str(item).partition("=")[2]
        raise ExperimentError(
            f"{where} {item}: {', '.join(f'{n!r} has {k} = {v}' for k, n, v in own)} of its "
            f"own, which lams= would not change; say which: --set grid.lams={value} (the "
            f"curves without their own) or --set {own[0][0]}={value}")


def apply_sets(raw: dict, sets, where: str = "--set") -> dict:
    """``raw`` with each ``KEY=VALUE`` of ``sets`` applied (``grid.alphas=0.01,0.02``,
    ``task.gamma=0.99``, ``curves.1.eta=0.1``: a dotted path; a number picks an element of
    an array of tables). A bad item raises naming ``where`` and the item."""
    out = merge({}, raw)
    seen = set()
    for item in sets or ():
        key, eq, text = str(item).partition("=")
        if key.strip() == "lams":
            _check_short_lams(out, item, where)
        key = ALIASES.get(key.strip(), key.strip())
        if not eq or not key:
            raise ExperimentError(f"{where} {item}: expected KEY=VALUE")
        if key in seen:
            raise ExperimentError(f"{where} {item}: {key} is set twice")
        seen.add(key)
        if not text.strip():
            raise ExperimentError(f"{where} {item}: an empty value")
        *path, last = key.split(".")
        node = out
        for part in path:
            nxt = _child(node, part, item, where)
            if nxt is None:
                nxt = {}
                node[part] = nxt
            elif isinstance(node, dict) and isinstance(nxt, dict):
                nxt = dict(nxt)
                node[part] = nxt
            elif isinstance(nxt, list):
                nxt = [dict(x) if isinstance(x, dict) else x for x in nxt]
                if isinstance(node, list):
                    node[int(part)] = nxt
                else:
                    node[part] = nxt
            node = nxt
        value = parse_value(text)
        if isinstance(node, list):
            _child(node, last, item, where)
            node[int(last)] = value
        elif isinstance(node, dict):
            node[last] = value
        else:
            raise ExperimentError(f"{where} {item}: {'.'.join(path)} is not a table")
        _check_known(key, item, where)
    return out


def _child(node, part, item, where):
    if isinstance(node, list):
        if not part.isdigit() or int(part) >= len(node):
            raise ExperimentError(f"{where} {item}: no element {part} (there are {len(node)})")
        return node[int(part)]
    if not isinstance(node, dict):
        raise ExperimentError(f"{where} {item}: {part} is inside a value, not a table")
    return node.get(part)


def _check_known(key: str, item, where):
    parts = [p for p in key.split(".") if not p.isdigit()]
    if parts[0] in SCALES:  # [quick] holds the same keys
        parts = parts[1:] or parts
    table = "" if len(parts) == 1 else parts[0]
    if parts[:2] in (["curves", "params"], ["task", "params"]) and len(parts) == 3:
        return  # a method's or a task's own parameter: its row checks the name
    if table == "setups" and len(parts) > 2:
        table = parts[1]
    if table not in KEYS and len(parts) > 1:
        raise ExperimentError(f"{where} {item}: unknown key {key!r}")
    name = parts[-1] if table else parts[0]
    if name not in KEYS.get(table, KEYS[""]):
        raise ExperimentError(f"{where} {item}: unknown key {key!r} (the keys of "
                              f"[{table or 'the top level'}]: {', '.join(KEYS[table])})")


#: ``--set`` keys that count or place the work, not change what is computed: the report
#: states them elsewhere (runs, episodes, seed) and they are not ``Figure.overrides``
COUNT_KEYS = ("runs", "episodes", "seed", "out", "chunks.rows", "chunks.runs",
              "chunks.cells", "chunks.device")


def overrides_of(sets) -> tuple:
    """The ``--set`` items as ``Figure.overrides`` (``((key, values), ...)``, sorted), but
    for the :data:`COUNT_KEYS`."""
    out = {}
    for item in sets or ():
        key, _, text = str(item).partition("=")
        key = ALIASES.get(key.strip(), key.strip())
        if key in COUNT_KEYS:
            continue
        v = parse_value(text)
        out[key] = tuple(v) if isinstance(v, list) else (v,)
    return tuple(sorted(out.items()))
