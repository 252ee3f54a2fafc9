r"""How many chunks a session read and computed: two counts, each with one name, everywhere.

- A **chunk** is one of the definition's (:func:`ftd_lib.repro.chunks.cut_chunks`: a block of
  cells times a block of runs); a figure has ``total`` of them, and each is either
  ``loaded`` (read from the store, in any cut) or ``computed`` (some of its rows computed
  now): ``total = loaded + computed``.
- A **piece** is what one computation stored (one file of the store): a chunk's missing rows,
  whole, split by cost for the workers (:mod:`ftd_lib.repro.planning.cut`) or only the new
  runs of a chunk whose runs grew. A session's ``pieces`` are those it computed (at least one
  per chunk computed); the provenance (:mod:`ftd_lib.repro.provenance`) counts the pieces a
  figure was read from.

:func:`chunk_counts` computes them (a run's ``chunks`` metadata, the plan's), :func:`counts_text`
says them (the command line's summary, ``REPORT.md``, the plan).
"""

from __future__ import annotations


def chunk_counts(total: int, loaded: int, pieces) -> dict:
    """``{"total", "loaded", "computed", "pieces"}`` (and ``"grown"``: the pieces that only
    computed new runs, where any did) of a figure of ``total`` chunks, ``loaded`` of them read
    from the store, the others computed as ``pieces`` (the tasks computed)."""
    total, loaded = int(total), int(loaded)
    if not 0 <= loaded <= total:
        raise ValueError(f"loaded: {loaded} chunks loaded of {total}")
    pieces = list(pieces)
    out = {"total": total, "loaded": loaded, "computed": total - loaded,
           "pieces": len(pieces)}
    grown = sum(getattr(t, "prefix_runs", None) is not None for t in pieces)
    if grown:
        out["grown"] = grown
    return out


def normal(ch: dict) -> dict:
    """A stored ``chunks`` record in :func:`chunk_counts`'s form: records written before the
    pieces were counted apart called the pieces ``computed``."""
    ch = dict(ch or {})
    if "pieces" in ch or "total" not in ch:
        return ch
    return {**ch, "pieces": ch.get("computed", 0),
            "computed": int(ch["total"]) - int(ch.get("loaded", 0))}


def counts_text(ch: dict, *, planned: bool = False) -> str:
    """``6 chunks: 2 loaded, 4 computed in 7 pieces (3 of them grown: only their new runs)``;
    ``planned``: what a plan will do (``stored``, ``to compute``)."""
    c = normal(ch)
    done, todo = ("stored", "to compute") if planned else ("loaded", "computed")
    text = (f"{c.get('total', '?')} chunk{'' if c.get('total') == 1 else 's'}: "
            f"{c.get('loaded', '?')} {done}, "
            f"{c.get('computed', '?')} {todo}")
    if c.get("computed"):
        text += f" in {c.get('pieces', '?')} piece{'' if c.get('pieces') == 1 else 's'}"
        if c.get("grown"):
            text += f" ({c['grown']} of them grown: only their new runs)"
    return text
