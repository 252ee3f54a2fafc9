r"""The code a chunk's numbers come from, as a digest in the chunk's identity
(:meth:`ftd_lib.repro.chunks.ChunkTask.identity`): change the method, the task's dynamics or the
numerics they call, and no chunk stored before the change is loaded again (as
``joblib.Memory``, DVC and Snakemake key their caches by the code).

What is digested (:func:`code_files`): the source files the computation runs -- the method's
per-run reference (its row's ``reference``) and its compiled pieces (its row's ``compiled``,
and the task's), the engines of its kind (control:
:mod:`ftd_lib.engine.control_run`, the compiled kernel, the per-run driver; prediction:
:mod:`ftd_lib.engine.predict`, :mod:`ftd_lib.algorithms`), the task's environment module --
and every module of ``ftd_lib`` they import, followed import by import (imports inside
functions too; ``from pkg import sub`` follows the submodule, not the package's
``__init__``). Left out on purpose (:data:`NOT_NUMERICS`): the registries and the checks,
whose numbers (gamma, the cap, a method's params) are in the identity already or which only
refuse input, and the orchestration of :mod:`ftd_lib.repro`, :mod:`ftd_lib.course`,
:mod:`ftd_lib.publish`.

Each file is digested by its syntax tree without docstrings (:func:`file_digest`), so a
comment, a docstring or a line break changes nothing; a renamed variable or a changed
operation does. The digest of the whole (:func:`code_digest`) is the sha256 of the files'
digests by path; a chunk's metadata keeps the per-file digests (``code_files``), so a rerun
says which files changed (:func:`why_recomputed`).

A change that keeps every number (a refactor that the golden tests pass,
``tests/engine/test_engine_golden.py``) still changes the digest: the stored chunks are then
re-keyed on purpose with ``python scripts/rekey_code_digest.py`` (never by accident).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path

import numpy as np

PACKAGE = Path(__file__).resolve().parents[1]  # ftd_lib/
ROOT = PACKAGE.parent

#: files (relative to the repository) that hold no arithmetic of a run: registries whose
#: numbers are in a chunk's identity, checks that only refuse input, packages' re-exports
NOT_NUMERICS = ("ftd_lib/__init__.py", "ftd_lib/methods.py", "ftd_lib/envs/tasks.py",
                "ftd_lib/validate.py", "ftd_lib/style.py", "ftd_lib/engine/versions.py",
                "ftd_lib/engine/checks.py", "ftd_lib/engine/__init__.py",
                "ftd_lib/envs/__init__.py", "ftd_lib/references/__init__.py")
#: packages whose code orchestrates, stores or shows runs, never computes one
NOT_NUMERICS_PACKAGES = ("ftd_lib/repro/", "ftd_lib/course/", "ftd_lib/publish/")

#: the engines of each kind of method (files of ``ftd_lib``)
ENGINES = {
    "control": ("engine/control_run.py", "engine/kernel/__init__.py", "engine/reference.py"),
    "prediction": ("engine/predict.py", "algorithms.py"),
}


def _rel(path: Path) -> str:
    """A file's name in a digest: its path in the repository (else its absolute path)."""
    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


@functools.lru_cache(maxsize=512)
def _parsed(path: str, mtime_ns: int) -> tuple[str, tuple[str, ...]]:
    """``(digest, imported files)`` of one file (cached by its modification time)."""
    src = Path(path).read_text(encoding="utf-8")
    tree = ast.parse(src)
    imports = tuple(_imports(tree, Path(path)))
    dump = ast.dump(_strip_docstrings(tree), annotate_fields=False, include_attributes=False)
    return hashlib.sha256(dump.encode()).hexdigest(), imports


def file_digest(path) -> str:
    """The sha256 of the file's syntax tree without docstrings (comments, docstrings and
    layout change nothing)."""
    p = Path(path)
    return _parsed(str(p.resolve()), p.stat().st_mtime_ns)[0]


def _module_file(parts: list[str]) -> Path | None:
    """The file of the module ``ftd_lib.<parts>`` (a module file or a package's
    ``__init__.py``), or ``None``."""
    base = PACKAGE.joinpath(*parts)
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _imports(tree: ast.AST, path: Path):
    """The files of ``ftd_lib`` that ``tree`` (the file ``path``) imports, at any depth of
    the file (imports inside functions too)."""
    path = path.resolve()
    here = list(path.relative_to(PACKAGE).parts[:-1]) if path.is_relative_to(PACKAGE) else []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "ftd_lib":
                    f = _module_file(a.name.split(".")[1:])
                    if f is not None:
                        yield f
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(here):
                    continue
                mod = here[:len(here) - (node.level - 1)] + (node.module or "").split(".")
            elif node.module and node.module.split(".")[0] == "ftd_lib":
                mod = node.module.split(".")
                mod = mod[1:]
            else:
                continue
            mod = [p for p in mod if p]
            subs = [_module_file([*mod, a.name]) for a in node.names if a.name != "*"]
            yield from (f for f in subs if f is not None)  # from pkg import submodule
            if len(subs) < len(node.names) or None in subs:  # names of the module itself
                f = _module_file(mod)
                if f is not None:
                    yield f


def _numerics(rel: str) -> bool:
    return rel not in NOT_NUMERICS and not rel.startswith(NOT_NUMERICS_PACKAGES)


def closure(roots) -> dict[str, str]:
    """``{path: digest}`` of the files ``roots`` (paths) and every file of ``ftd_lib`` they
    import, import by import, but for :data:`NOT_NUMERICS` (not followed either)."""
    out: dict[str, str] = {}
    todo = [Path(r).resolve() for r in roots]
    while todo:
        p = todo.pop()
        rel = _rel(p)
        if rel in out or not _numerics(rel):
            continue
        digest, imports = _parsed(str(p), p.stat().st_mtime_ns)
        out[rel] = digest
        todo.extend(imports)
    return dict(sorted(out.items()))


def method_file(method: str) -> Path | None:
    """The file of ``method``'s per-run reference (its row's ``reference``)."""
    from ..methods import METHODS

    rec = METHODS.get(method)
    if rec is None or rec.reference is None:
        return None
    if ":" in rec.reference:
        return _module_file(rec.reference.partition(":")[0].split("."))
    return PACKAGE / "algorithms.py"


def task_file(env: str) -> Path | None:
    """The module of the environment ``env`` (a control task's batched environment, else
    ``ftd_lib/envs/<env>.py``)."""
    from ..envs.tasks import TASKS

    if env in TASKS:
        import sys

        return Path(sys.modules[TASKS[env].batch_cls.__module__].__file__)
    f = PACKAGE / "envs" / f"{env}.py"
    return f if f.is_file() else None


def compiled_files(method: str, env: str) -> list[Path]:
    """The modules of the compiled pieces the kernel's extension point runs
    (:mod:`ftd_lib.engine.kernel.extend`): the method's row's ``compiled`` and the task's,
    where they name one (the kernel finds them by name, not by an import)."""
    from ..envs.tasks import TASKS
    from ..methods import METHODS

    names = [getattr(METHODS.get(method), "compiled", None),
             getattr(TASKS.get(env), "compiled", None)]
    return [f for f in (_module_file(n.partition(":")[0].split(".")) for n in names if n)
            if f is not None]


def code_files(kind: str, method: str, env: str) -> dict[str, str]:
    """``{path: digest}`` of every file a chunk of ``method`` (``kind``: ``"control"`` or
    ``"prediction"``) on ``env`` runs (see the module docstring), the compiled pieces of the
    method and the task included (:func:`compiled_files`)."""
    roots = [PACKAGE / f for f in ENGINES[kind]]
    roots += [f for f in (method_file(method), task_file(env)) if f is not None]
    if kind == "control":
        roots += compiled_files(method, env)
    return closure(roots)


def digest_of(files: dict[str, str]) -> str:
    """The digest of a set of files: sha256 of their ``{path: digest}`` as sorted JSON."""
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


def code_digest(kind: str, method: str, env: str) -> str:
    """:func:`digest_of` :func:`code_files`: the ``code`` of a chunk's identity."""
    return digest_of(code_files(kind, method, env))


def task_code(task) -> tuple[str, dict[str, str]]:
    """``(digest, files)`` of a :class:`ftd_lib.repro.chunks.ChunkTask`."""
    files = code_files(task.task, task.method, task.env)
    return digest_of(files), files


# ----------------------------------------------------------------------------- why recomputed


def _without_code(ident: dict) -> str:
    from .store import canonical_json

    return canonical_json({k: v for k, v in ident.items() if k != "code"})


#: the identity's fields that say how a figure's cells were cut into chunks (a batch re-cuts
#: them by cost, so chunks of older code may hold the same cells under another cut)
_CUT = ("code", "run_ids", "settings")


def _uncut(ident: dict) -> str:
    from .store import canonical_json

    return canonical_json({k: v for k, v in ident.items() if k not in _CUT})


def stored_by_code(cstore, idents) -> tuple[dict, dict]:
    """The stored chunks of other code than ``idents``: ``(same, alike)``, ``same`` keyed by
    an identity without its code (the same chunk), ``alike`` by one without its code and its
    cut (the same method, task and figure in chunks cut otherwise); each value the newest
    such chunk's ``(code, code_files)`` (by its ``finished`` time)."""
    want = {_without_code(i) for i in idents}
    want_uncut = {_uncut(i) for i in idents}
    codes = {i.get("code") for i in idents}
    found: tuple[dict, dict] = ({}, {})
    if not want:
        return found
    for key in cstore.keys():
        try:
            with np.load(cstore.path(key)) as z:
                ident = json.loads(str(z["__identity__"]))
                meta = json.loads(str(z["__meta__"])) if "__meta__" in z.files else {}
        except Exception:  # unreadable: no record
            continue
        if ident.get("code") in codes:
            continue
        rec = (ident.get("code"), meta.get("code_files"), float(meta.get("finished") or 0.0))
        for table, k, keys in ((found[0], _without_code(ident), want),
                               (found[1], _uncut(ident), want_uncut)):
            if k in keys and (k not in table or rec[2] >= table[k][2]):
                table[k] = rec
    return tuple({k: v[:2] for k, v in t.items()} for t in found)


def why_recomputed(cstore, tasks, idents, missing) -> list[str]:
    """One line per method whose chunks ``missing`` (indices) are recomputed while chunks of
    its older code are stored (the same chunks, or its cells cut otherwise): how many chunks
    and cells, and which files changed since the newest of them was stored (or that it was
    stored without a code digest)."""
    same, alike = stored_by_code(cstore, [idents[i] for i in missing])
    per: dict = {}
    for i in missing:
        old = same.get(_without_code(idents[i])) or alike.get(_uncut(idents[i]))
        if old is None:
            continue
        t = tasks[i]
        rec = per.setdefault(t.method, {"chunks": 0, "cells": set(), "files": set(),
                                        "unknown": False})
        rec["chunks"] += 1
        rec["cells"].update(int(c) for c in np.unique(t.cell_index))
        now = task_code(t)[1]
        if old[1] is None:
            rec["unknown"] = True
        else:
            rec["files"].update(f for f in set(now) | set(old[1])
                                if now.get(f) != old[1].get(f))
    lines = []
    for method, rec in per.items():
        what = (", ".join(sorted(rec["files"])) if rec["files"] else
                "stored without a record of its files" if rec["unknown"] else "?")
        lines.append(f"recomputing {rec['chunks']} chunk(s), {len(rec['cells'])} cell(s) of "
                     f"{method}: its code changed since they were stored ({what})")
    return lines


# ----------------------------------------------------------------------------- re-keying


def rekey_store(folder, *, changed: bool = False) -> dict[str, int]:
    """Give the engine's chunks in the chunk folder ``folder`` today's code digest: those
    stored without one (before chunks were keyed by their code: the one-time migration) and,
    with ``changed``, those stored under another digest (after a change the golden tests
    show keeps every number). Only chunks of today's numerics version (the engine runner's
    name, :func:`ftd_lib.repro.chunks.engine_runner_name`) are touched; the arrays are copied as
    they are, the metadata gains ``code_files`` and ``rekeyed_from`` (the old key), and the
    old file is removed. Returns ``{"rekeyed": n, "kept": n}``."""
    from ..engine.versions import numerics_version
    from .store import ChunkStore, chunk_key, load_npz

    cstore = ChunkStore(folder)
    n = kept = 0
    for key in cstore.keys():
        data = load_npz(cstore.path(key))
        ident = json.loads(str(data.pop("__identity__")))
        meta = json.loads(str(data.pop("__meta__")))
        try:
            today = f"engine-{numerics_version(ident['method'])}"  # (the engine runner's name)
        except (KeyError, ValueError):  # a method no longer run: not ours to touch
            kept += 1
            continue
        if ident.get("runner") != today or ("code" in ident and not changed):
            kept += 1
            continue
        files = code_files(ident["task"], ident["method"], ident["env"])
        if ident.get("code") == digest_of(files):
            kept += 1
            continue
        ident["code"] = digest_of(files)
        meta.pop("checksum", None)
        cstore.save(ident, {k: np.asarray(v) for k, v in data.items()},
                    {**meta, "code_files": files, "rekeyed_from": key})
        if chunk_key(ident) != key:
            cstore.path(key).unlink()
        n += 1
    return {"rekeyed": n, "kept": kept}


def chunk_folders(results) -> list[Path]:
    """Every chunk folder under a results folder (``.../chunks/<figure>/``)."""
    return sorted(p for p in Path(results).rglob("chunks/*") if p.is_dir())
