"""What made a chunk's numbers beyond its identity: the engine, the library versions and the CPU
path torch took, recorded in every new chunk's metadata and summed up for a figure.

A chunk's identity (:meth:`ftd_lib.repro.chunks.ChunkTask.identity`) holds its numerics version,
so chunks whose numbers must differ are never mixed; the engines of one numerics version are
meant to agree (the compiled kernel and the batched torch engine, bit for bit on the CPU path
they were checked on). Whether they did is for the record to show: :func:`chunk_provenance`
writes down which engine ran, the versions of torch, numba, llvmlite and numpy, and the CPU
path (``torch.backends.cpu.get_cpu_capability()`` and ``ATEN_CPU_CAPABILITY``), and
:func:`figure_provenance` counts the stored pieces a figure was read from
(:mod:`ftd_lib.repro.counts`) by record and says when they differ in any of these. Chunks
written before this record existed (the committed ones) are *unrecorded*: counted and named
so, never recomputed for it.
"""

from __future__ import annotations

import os
import sys

#: the libraries whose versions can change a chunk's numbers
LIBRARIES = ("torch", "numba", "llvmlite", "numpy")
#: the fields of a chunk's record, in order (``engine`` first)
FIELDS = ("engine", *LIBRARIES, "cpu_capability", "aten_cpu_capability")


def _version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def cpu_capability() -> str | None:
    """The vector path torch's CPU kernels take (``"AVX2"``, ``"AVX512"``, ``"DEFAULT"``, ...),
    or ``None`` when torch is not loaded in this process (it is whenever the engine ran)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        return str(torch.backends.cpu.get_cpu_capability())
    except Exception:  # an old torch without it
        return None


def chunk_provenance(engine: str) -> dict:
    """The record of one chunk computed now by ``engine`` (``"kernel"``, ``"batch"``, or the
    runner's name): :data:`FIELDS`, ``None`` where a value is unknown."""
    return {"engine": str(engine), **{lib: _version(lib) for lib in LIBRARIES},
            "cpu_capability": cpu_capability(),
            "aten_cpu_capability": os.environ.get("ATEN_CPU_CAPABILITY")}


def figure_provenance(chunk_metas, methods=None, keys=None) -> dict:
    """The records of the stored pieces a figure was read from, summed up: ``chunk_metas``
    are its chunks' metadata dicts in chunk order (``methods``: each chunk's method;
    ``keys``: each chunk's store key). A chunk read from pieces of another cut
    (:func:`ftd_lib.repro.reuse.rows_from_stored`) names each piece and its record
    (``pieces``); any other chunk is one piece, its own file (:mod:`ftd_lib.repro.counts`).
    A piece read by two chunks counts once (where ``keys`` are given).

    Returns ``{"groups": [{"pieces": n, **record}, ...], "unrecorded": n, "mixed": bool}``:
    one group per distinct record (and method, where given), in order of first appearance;
    ``unrecorded`` counts the pieces without one; ``mixed`` is true when the recorded pieces
    of one method differ in engine, a library version or the CPU path (two methods run by
    two engines are not mixed: each method's numbers come from one).
    """
    groups: list[dict] = []
    unrecorded = 0
    methods = [None] * len(chunk_metas) if methods is None else list(methods)
    keys = list(range(len(chunk_metas))) if keys is None else list(keys)
    pieces: dict = {}  # store key -> (method, record)
    for meta, method, key in zip(chunk_metas, methods, keys, strict=True):
        meta = meta or {}
        for k, rec in (meta.get("pieces") or {key: meta.get("provenance")}).items():
            pieces.setdefault(k, (method, rec))
    fields = ("method", *FIELDS)
    for method, rec in pieces.values():
        if not rec:
            unrecorded += 1
            continue
        rec = {"method": method, **{k: rec.get(k) for k in FIELDS}}
        for g in groups:
            if all(g.get(k) == rec[k] for k in fields):
                g["pieces"] += 1
                break
        else:
            groups.append({"pieces": 1, **rec})
    per_method = [g.get("method") for g in groups]
    mixed = len(per_method) != len(set(per_method))
    return {"groups": groups, "unrecorded": unrecorded, "mixed": mixed}


def label(method: str) -> str:
    from ..methods import label as _label

    return _label(method)


def describe(prov: dict | None) -> list[str]:
    """Lines (markdown list items) for the report: each group, the unrecorded chunks, and a
    warning when the figure mixes engines or versions. ``None`` (a figure stored before
    figures recorded this) reads as unrecorded."""
    if prov is None:
        return ["- numerics provenance: unrecorded (stored before chunks recorded their engine, "
                "library versions and CPU path)"]
    lines = []
    for g in prov.get("groups", []):
        libs = ", ".join(f"{lib} {g.get(lib) or '?'}" for lib in LIBRARIES)
        path = g.get("cpu_capability") or "?"
        if g.get("aten_cpu_capability"):
            path += f", ATEN_CPU_CAPABILITY={g['aten_cpu_capability']}"
        who = f"{label(g['method'])}: " if g.get("method") else ""
        lines.append(f"- {who}{_count(g)} by engine `{g.get('engine')}` ({libs}; "
                     f"CPU path {path})")
    if prov.get("unrecorded"):
        unit = "chunk(s)" if any("chunks" in g for g in prov.get("groups", [])) else "piece(s)"
        lines.append(f"- {prov['unrecorded']} stored {unit} with unrecorded numerics provenance "
                     "(computed before chunks recorded their engine, library versions and CPU "
                     "path)")
    if prov.get("mixed"):
        lines.append("- ⚠ **mixed numerics**: a method's pieces come from different engines, "
                     "library versions or CPU paths (listed above)")
    return lines


def _count(group: dict) -> str:
    """``3 stored piece(s)`` (:mod:`ftd_lib.repro.counts`); ``3 chunk(s)`` for a figure stored
    before the provenance counted pieces (it counted the definition's chunks)."""
    if "pieces" in group:
        return f"{group['pieces']} stored piece(s)"
    return f"{group.get('chunks', '?')} chunk(s)"
