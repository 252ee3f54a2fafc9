"""What made a chunk's numbers beyond its identity: the engine, the library versions and the CPU
path torch took, recorded in every new chunk's metadata and summed up for a figure.

A chunk's identity (:meth:`ftd_lib.repro.chunks.ChunkTask.identity`) holds its numerics version,
so chunks whose numbers must differ are never mixed; the engines of one numerics version are
meant to agree (the compiled kernel and the batched torch engine, bit for bit on the CPU path
they were checked on). Whether they did is for the record to show: :func:`chunk_provenance`
writes down which engine ran, the versions of torch, numba, llvmlite and numpy, and the CPU
path (``torch.backends.cpu.get_cpu_capability()`` and ``ATEN_CPU_CAPABILITY``), and
:func:`figure_provenance` says when one figure was assembled from chunks that differ in any of
these. Chunks written before this record existed (the committed ones) are *unrecorded*: counted
and named so, never recomputed for it.
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


def figure_provenance(chunk_metas, methods=None) -> dict:
    """The records of a figure's chunks (their metadata dicts, in chunk order; ``methods``:
    each chunk's method) summed up.

    Returns ``{"groups": [{"chunks": n, **record}, ...], "unrecorded": n, "mixed": bool}``:
    one group per distinct record (and method, where given), in order of first appearance;
    ``unrecorded`` counts the chunks without one; ``mixed`` is true when the recorded chunks
    of one method differ in engine, a library version or the CPU path (two methods run by
    two engines are not mixed: each method's numbers come from one).
    """
    groups: list[dict] = []
    unrecorded = 0
    methods = [None] * len(chunk_metas) if methods is None else list(methods)
    keys = ("method", *FIELDS)
    for meta, method in zip(chunk_metas, methods, strict=True):
        rec = (meta or {}).get("provenance")
        if not rec:
            unrecorded += 1
            continue
        rec = {"method": method, **{k: rec.get(k) for k in FIELDS}}
        for g in groups:
            if all(g.get(k) == rec[k] for k in keys):
                g["chunks"] += 1
                break
        else:
            groups.append({"chunks": 1, **rec})
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
        lines.append(f"- {who}{g['chunks']} chunk(s) by engine `{g.get('engine')}` ({libs}; "
                     f"CPU path {path})")
    if prov.get("unrecorded"):
        lines.append(f"- {prov['unrecorded']} chunk(s) with unrecorded numerics provenance "
                     "(computed before chunks recorded their engine, library versions and CPU "
                     "path)")
    if prov.get("mixed"):
        lines.append("- ⚠ **mixed numerics**: a method's chunks come from different engines, "
                     "library versions or CPU paths (listed above)")
    return lines
