"""The measured run time of every code cell of the notebooks, stored apart from them
(:data:`PATH`, ``notebooks/run_times.json``), so that the lecture plan's minutes do not move when a
notebook is merely re-executed, and the committed notebooks carry no timestamps.

A run time is what nbclient records while it executes a cell from a fresh kernel:
``shell.execute_reply`` minus ``iopub.execute_input`` in ``cell.metadata.execution``
(:func:`measured`). ``python scripts/refresh_notebooks.py`` executes a notebook, stores the times
of the cells that have none yet (a new cell, or one whose code changed since it was timed) with
the machine and its load, and strips the timestamps from the notebook (:func:`strip`); with
``--remeasure`` it replaces every time of the notebooks it runs. The file is keyed by notebook and
cell id (nbformat 4.5's ``cell.id``, which jupytext keeps when it syncs the ``.md``), each time
with the SHA-1 of the code it timed, so a changed cell is seen as unmeasured.

:func:`seconds` is what :func:`ftd_lib.publish.lectures.run_seconds` reads.
"""

from __future__ import annotations

import functools
import hashlib
import json
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PATH = REPO / "notebooks" / "run_times.json"
REFRESH = "python scripts/refresh_notebooks.py"
ABOUT = ("Measured run time (seconds) of every code cell of the notebooks, by notebook and cell "
         "id, each with the SHA-1 of the code it timed; read by the lecture plan "
         "(ftd_lib/publish/lectures.py, run_seconds). Written by python "
         "scripts/refresh_notebooks.py (new or changed cells only; --remeasure: all), with the "
         "machine and its load in 'runs'.")


def source_sha1(cell) -> str:
    """The SHA-1 (first 12 hex digits) of the cell's source: the code a run time belongs to."""
    src = cell.get("source", "")
    src = "".join(src) if isinstance(src, list) else src
    return hashlib.sha1(src.encode("utf-8")).hexdigest()[:12]


def _stamp(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00"))


def measured(nb) -> dict:
    """``{cell id: seconds}`` from nbclient's timestamps in the cells of an executed notebook
    (``shell.execute_reply`` minus ``iopub.execute_input``); code cells without them are left
    out."""
    out = {}
    for cell in nb["cells"]:
        ex = cell.get("metadata", {}).get("execution", {})
        if cell.get("cell_type") == "code" and "iopub.execute_input" in ex \
                and "shell.execute_reply" in ex:
            out[cell["id"]] = max(0.0, (_stamp(ex["shell.execute_reply"])
                                        - _stamp(ex["iopub.execute_input"])).total_seconds())
    return out


def strip(nb) -> int:
    """Remove the volatile ``metadata.execution`` (nbclient's timestamps) from every cell of
    ``nb``, in place; the number of cells that had it."""
    n = 0
    for cell in nb["cells"]:
        if "execution" in cell.get("metadata", {}):
            del cell["metadata"]["execution"]
            n += 1
    return n


def load(path: Path = PATH) -> dict:
    """The stored file (an empty one where there is none)."""
    if not Path(path).exists():
        return {"about": ABOUT, "notebooks": {}}
    return json.loads(Path(path).read_text(encoding="utf-8"))


def dump(data: dict, path: Path = PATH) -> None:
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                          encoding="utf-8")


def missing(stem: str, nb, data: dict) -> list:
    """The ids of the code cells of ``nb`` (notebook ``stem``) without a stored time for their
    present code."""
    cells = data.get("notebooks", {}).get(stem, {}).get("cells", {})
    return [c["id"] for c in nb["cells"] if c.get("cell_type") == "code"
            and cells.get(c["id"], {}).get("source_sha1") != source_sha1(c)]


def record(data: dict, stem: str, nb, times: dict, run: dict, remeasure: bool = False) -> list:
    """Store ``times`` (``{cell id: seconds}``, :func:`measured`) of notebook ``stem`` into
    ``data``, in place: only for the cells without a stored time for their present code, or for
    all with ``remeasure``; the entries of cells no longer in ``nb`` go. ``run`` (the machine,
    its load, the date) is recorded beside them when any time is written. The ids written."""
    entry = data.setdefault("notebooks", {}).setdefault(stem, {"cells": {}, "runs": []})
    data.setdefault("about", ABOUT)
    ids = {c["id"] for c in nb["cells"] if c.get("cell_type") == "code"}
    entry["cells"] = {k: v for k, v in entry["cells"].items() if k in ids}
    todo = ids if remeasure else set(missing(stem, nb, data))
    by_id = {c["id"]: c for c in nb["cells"]}
    written = sorted(k for k in todo if k in times)
    for k in written:
        entry["cells"][k] = {"seconds": round(float(times[k]), 6),
                             "source_sha1": source_sha1(by_id[k])}
    if written:
        if remeasure and len(written) == len(ids):
            entry["runs"] = []
        entry["runs"].append(dict(run, cells=len(written)))
    return written


@functools.lru_cache(maxsize=1)
def _index(path: str) -> dict:
    out = {}
    for stem, entry in load(Path(path)).get("notebooks", {}).items():
        for k, v in entry.get("cells", {}).items():
            out[k] = (stem, float(v["seconds"]))
    return out


def stored() -> dict:
    """``{cell id: (notebook stem, seconds)}`` over every notebook of the stored file."""
    return _index(str(PATH))


def seconds(cell) -> float:
    """The stored run time of a code cell (0 for a markdown cell); ValueError naming the command
    that measures it for a code cell the file does not have."""
    if cell.get("cell_type") != "code":
        return 0.0
    hit = stored().get(cell.get("id"))
    if hit is None:
        first = (cell.get("source") or "").strip().splitlines()[:1]
        raise ValueError(f"cell {cell.get('id')!r} ({first[0][:50] if first else ''!r}): no "
                         f"measured run time in notebooks/run_times.json; run {REFRESH} NN "
                         "(executes notebook NN and stores the times of its new cells)")
    return hit[1]
