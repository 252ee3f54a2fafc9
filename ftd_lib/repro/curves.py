r"""An experiment file's curves: ``methods`` (one curve each) or ``[[curves]]``, each with
its own :math:`\eta`, :math:`K_{max}` (or block length), :math:`\lambda` (``lam``/``lams``)
and the method's own ``params``, checked by the method's row; a list of a parameter's values
sweeps it, one curve per value (:func:`swept`). Read by :func:`curves` for
:mod:`ftd_lib.repro.experiment` (``r``: its reader, which names the file and the key of a
bad value).
"""

from __future__ import annotations

from .. import validate
from ..methods import IGNORED_SETTINGS, check_params
from ..methods import method as method_record
from .keys import KEYS


def curves(r, raw) -> list[dict]:
    methods, curves = raw.get("methods"), raw.get("curves")
    if methods is None and curves is None:
        raise r.fail("methods", "missing (or [[curves]])")
    grid = raw.get("grid", {})
    if methods is not None:
        if isinstance(methods, str):
            methods = [methods]  # --set methods=sarsa_lambda
        if not isinstance(methods, list) or not methods or not all(
                isinstance(m, str) for m in methods):
            raise r.fail("methods", f"must be a non-empty list of method ids, got {methods!r}")
        methods = list(dict.fromkeys(methods))
        if isinstance(curves, list):  # both: the curves of these methods, in their order;
            # a method without a curve gets one of its own
            ours = [c for c in curves if isinstance(c, dict) and c.get("method") in methods]
            curves = sorted(ours, key=lambda c: methods.index(c["method"])) + [
                {"method": m} for m in methods if m not in {c["method"] for c in ours}]
            curves.sort(key=lambda c: methods.index(c["method"]))
        elif curves is None:
            curves = [{"method": m} for m in methods]
        else:
            raise r.fail("curves", f"must be an array of tables ([[curves]]), got {curves!r}")
    if not isinstance(curves, list) or not curves:
        raise r.fail("curves", "must be a non-empty array of tables")
    out = []
    for i, c in enumerate(curves):
        where = f"curves.{i}."
        if not isinstance(c, dict):
            raise r.fail(where[:-1], "must be a table")
        r.unknown(c, KEYS["curves"], where)
        m = c.get("method")
        rec = r.check(where + "method", method_record, m)
        if rec.numerics is None:
            raise r.fail(where + "method", f"{m} runs in no engine (it has no numerics "
                         f"version in ftd_lib.methods)")
        out += [curve(r, one, where, m, grid) for one in swept(r, c, where)]
    names = [c["name"] for c in out]
    if len(set(names)) < len(names):
        raise r.fail("curves", f"two curves share a name: {names}")
    return out


def swept(r, c: dict, where: str) -> list[dict]:
    """A curve whose ``params`` give a list of values (``params = { n = [2, 4] }``, or
    ``--set curves.1.params.n=2,4``) is a sweep: one curve per value (per combination, for
    several lists), each checked by the method's row and named by its name (its ``name``, or
    its method) with the swept values (``"n-step n=2"``); one value is a plain curve."""
    given = c.get("params", {})
    if not isinstance(given, dict):
        return [c]
    axes = [(k, v) for k, v in given.items() if isinstance(v, list)]
    if not axes:
        return [c]
    for k, v in axes:
        if not v:
            raise r.fail(f"{where}params.{k}", "an empty list (a sweep needs values)")
        if len(set(map(repr, v))) < len(v):
            raise r.fail(f"{where}params.{k}", f"a value is given twice: {v!r}")
    out = [dict(c, params=dict(given))]
    for k, values in axes:
        out = [dict(o, params={**o["params"], k: v}) for o in out for v in values]
    base = c.get("name", c.get("method"))
    for o in out:
        o["name"] = f"{base} " + " ".join(f"{k}={o['params'][k]}" for k, _ in axes)
    return out


def curve(r, c: dict, where: str, m: str, grid: dict) -> dict:
    """One curve's own keys (``where`` = ``"curves.<i>."``): its ``eta``, ``k_max`` (or
    ``block``), ``lam`` or ``lams`` (else the grid's) and the method's own ``params``
    (checked by its row, :func:`ftd_lib.methods.check_params`). ``k_max = 0`` is refused
    (no cap: leave the key out); a curve named by nobody is named by its method and params."""
    ignores = method_record(m).ignores
    for k in ("lam", "lams", "eta", "k_max", "block"):
        if k in c and {"lams": "lam", "block": "k_max"}.get(k, k) in ignores:
            raise r.fail(where + k, f"{m} does not use it (it ignores "
                         f"{', '.join(ignores)})")
    grid = {k: v for k, v in grid.items() if k not in ignores and not (
        k == "block" and "k_max" in ignores)}
    eta = r.check(where + "eta", validate.check_eta,
                  IGNORED_SETTINGS["eta"] if "eta" in ignores
                  else c.get("eta", grid.get("eta", 0.01)))
    key = next((k for k in ("k_max", "block") if k in c), None)
    src = (where, c) if key else ("grid.", grid)
    key = key or next((k for k in ("k_max", "block") if k in grid), None)
    k_max = None
    if key is not None:
        v = src[1][key]
        if v == 0 and not isinstance(v, bool):
            raise r.fail(src[0] + key, "must be an integer >= 1 (0 is not \"no cap\": for no "
                         "cap leave the key out)")
        k_max = r.check(src[0] + key, validate.check_k_max, v)
    if m == "block_lambda_return" and k_max is None:
        raise r.fail(where + "block", "the block λ-return needs a block length")
    if "lam" in c and "lams" in c:
        raise r.fail(where + "lam", "give lam or lams, not both")
    lams = ()
    if "lam" in c or "lams" in c:
        name = where + ("lam" if "lam" in c else "lams")
        raw = [c["lam"]] if "lam" in c else c["lams"]
        lams = tuple(sorted({r.check(name, validate.check_unit, "lam", v)
                             for v in r.numbers(raw, name)}))
    given = c.get("params", {})
    if not isinstance(given, dict):
        raise r.fail(where + "params", f"must be a table of name = value, got {given!r}")
    try:
        params = check_params(m, given)
    except ValueError as e:
        raise r.fail(where + "params", str(e)) from None
    # only the parameters the file gives are the curve's (a default the row adds later
    # leaves the chunks of the files that did not name it where they are)
    params = tuple(sorted((k, params[k]) for k in given))
    name = c.get("name", m if not params else
                 f"{m} " + " ".join(f"{k}={v}" for k, v in params))
    return {"method": m, "name": str(name), "eta": eta, "k_max": k_max, "lams": lams,
            "params": params}
