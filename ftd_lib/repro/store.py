"""Results store: chunks written atomically as they finish, so an interrupted run resumes.

A long reproduction (hours at paper scale) is split into *chunks*: sets of rows (one setting
of method, alpha, lambda, ... for one range of runs). Each finished chunk is written at once
to its own file, named by the hash of everything that determines its numbers (settings, run
ids, seed, scale, episodes, environment). On a second start the finished chunks are loaded,
not recomputed; because a run's numbers depend only on ``(seed, run id)``, never on its batch,
the resumed run ends with exactly the numbers an uninterrupted run gives.

Every file is written *atomically*: into a temporary file in the same directory, flushed to
disk, then renamed over the target with :func:`os.replace` (a rename within one file system
is atomic). A crash or ``kill -9`` at any moment leaves either the old file, the new file, or
no file -- never half a file. Leftover temporary files (``.tmp-*``) are ignored, and swept
only when provably stale: a temporary file's name holds its writer's pid and host
(``.tmp-<pid>@<host>~<random>.part``), and it is deleted only when that process is gone (same
host) or the file is older than :data:`STALE_TEMP_S`, so a sweep never takes a file that a
concurrent writer is about to rename; should one vanish anyway (a sweep by an older version),
the writer writes it again.

Every chunk carries a checksum of its arrays (sha256 over names, dtypes, shapes and bytes) in
its metadata, checked on load. A chunk that cannot be read, whose identity, checksum or fields
do not hold, counts as missing: it is recomputed and overwritten, and :func:`load_chunks` says
which file, one line each. Chunks written before the checksum existed (no ``checksum`` in
their metadata) are accepted when their fields are consistent: they cannot be verified, but
they hold committed results, so they are neither recomputed nor rewritten.

Functions
---------
``chunk_key(identity)``            hash of a JSON-able identity (sha256, hex)
``atomic_write_bytes / _text / _json / save_npz_atomic``   the atomic writers
``ChunkStore(root)``               ``has / load / inspect / save / keys / sweep_temp``
``arrays_checksum(arrays)``        the checksum stored with every chunk
``load_chunks(store, ids, checks)``  load many chunks, one line to stderr per unusable file
``check_writable_dir(path, name)``   before any work: can the folder be created and written?
``git_commit()``, ``git_diff()``, ``machine_description(device)``   provenance
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

TMP_PREFIX = ".tmp-"
#: a temporary file older than this is stale whoever wrote it (a write takes well under a
#: second; a day leaves room for clocks, network file systems and stopped processes)
STALE_TEMP_S = 24 * 3600.0
_TMP_NAME = re.compile(r"^\.tmp-(\d+)@([A-Za-z0-9-]*)~")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:63]


def _temp_prefix() -> str:
    """``.tmp-<pid>@<host>~``: who writes the file, so that a sweep can tell if it is stale."""
    return f"{TMP_PREFIX}{os.getpid()}@{_host()}~"


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists (another user's), or we cannot tell: keep its files
    return True


def temp_is_stale(p: Path, now: float | None = None, older_than_s: float = STALE_TEMP_S
                  ) -> bool:
    """Whether a temporary file can be deleted without harming a writer: older than
    ``older_than_s``, or named by a process of this host that is gone."""
    try:
        age = (time.time() if now is None else now) - p.stat().st_mtime
    except OSError:
        return False
    if age >= older_than_s:
        return True
    m = _TMP_NAME.match(p.name)
    return bool(m) and m.group(2) == _host() and not _pid_alive(int(m.group(1)))


def canonical_json(obj) -> str:
    """JSON with sorted keys and no spaces: equal identities give equal strings.

    Floats are written with ``repr`` (shortest round-trip form), so 0.1 and 0.1 + 1e-17 that
    are the same double give the same text, and different doubles give different text.
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def chunk_key(identity: dict) -> str:
    """The sha256 (hex) of the canonical JSON of ``identity``."""
    return hashlib.sha256(canonical_json(identity).encode()).hexdigest()


# ----------------------------------------------------------------------------- atomic writes


def atomic_write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same directory + os.replace)."""
    path = Path(path)
    for attempt in range(3):
        path.parent.mkdir(parents=True, exist_ok=True)
        # ".part", not the target's suffix: a glob for "*.npz" never sees a half-written file
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(), suffix=".part", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give what open() would
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except FileNotFoundError:
            # the temporary file vanished before the rename (swept by another process that
            # does not know it is ours): write it again; the data is still here
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if attempt == 2:
                raise
            continue
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        break
    _fsync_dir(path.parent)
    return path


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def _fsync_dir(d: Path) -> None:
    """Make the rename itself durable (best effort; not every platform allows it)."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path, obj) -> Path:
    return atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_jsonable)
                             + "\n")


def _jsonable(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def save_npz_atomic(path, compress: bool = True, **arrays) -> Path:
    """``np.savez(_compressed)`` into memory, then :func:`atomic_write_bytes`."""
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, **arrays)
    return atomic_write_bytes(path, buf.getvalue())


def load_npz(path) -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` file as a plain dict (file closed on return)."""
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


# ----------------------------------------------------------------------------- chunk store


def arrays_checksum(arrays: dict) -> str:
    """``"sha256:<hex>"`` over every array's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(json.dumps([name, a.dtype.str, list(a.shape)]).encode())
        h.update(a.tobytes())
    return "sha256:" + h.hexdigest()


def verify_checksum(arrays: dict, meta: dict) -> str | None:
    """``None`` if ``meta`` holds no checksum (written before checksums: unverifiable) or it
    matches ``arrays``; else what is wrong."""
    want = meta.get("checksum")
    if want is None:
        return None
    if want != arrays_checksum(arrays):
        return "its arrays do not match their checksum (changed after they were written)"
    return None


def read_meta(arrays: dict, key: str = "__meta__") -> tuple[dict | None, str | None]:
    """Pop and parse the JSON metadata stored in ``arrays[key]``: ``(meta, None)``, or
    ``(None, what is wrong)``; no metadata at all is ``({}, None)``."""
    raw = arrays.pop(key, None)
    if raw is None:
        return {}, None
    try:
        meta = json.loads(str(raw))
    except ValueError:
        return None, "its metadata is not JSON"
    if not isinstance(meta, dict):
        return None, "its metadata is not a JSON object"
    return meta, None


class ChunkStore:
    """A directory of finished chunks, one ``<key>.npz`` per chunk.

    Each file holds the chunk's arrays plus ``__identity__`` (the canonical JSON the key was
    hashed from) and ``__meta__`` (JSON: compute time, device, ..., and ``checksum``, see
    :func:`arrays_checksum`). :meth:`load` checks the stored identity against the requested
    one, so a file can never be mistaken for another chunk's, and the checksum (when there is
    one); an unreadable or inconsistent file counts as missing (and is recomputed).
    """

    def __init__(self, root):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.npz"

    def has(self, key: str) -> bool:
        return self.path(key).is_file()

    def keys(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("*.npz") if not p.name.startswith(TMP_PREFIX))

    def save(self, identity: dict, arrays: dict[str, np.ndarray], meta: dict | None = None
             ) -> Path:
        key = chunk_key(identity)
        payload = {k: np.asarray(v) for k, v in arrays.items()}
        meta = {**(meta or {}), "checksum": arrays_checksum(payload)}
        payload["__identity__"] = np.array(canonical_json(identity))
        payload["__meta__"] = np.array(json.dumps(meta, default=_jsonable))
        return save_npz_atomic(self.path(key), **payload)

    def load(self, identity: dict, check: Callable[[dict], str | None] | None = None
             ) -> tuple[dict[str, np.ndarray], dict] | None:
        """``(arrays, meta)`` of a finished chunk, or ``None`` if it is not (validly) there."""
        return self.inspect(identity, check)[0]

    def inspect(self, identity: dict, check: Callable[[dict], str | None] | None = None
                ) -> tuple[tuple[dict[str, np.ndarray], dict] | None, str | None]:
        """``((arrays, meta), None)`` for a valid chunk; ``(None, None)`` when there is no
        file; ``(None, what is wrong)`` when the file is there but unusable: unreadable, its
        identity not the requested one, its metadata not JSON, its checksum wrong, or
        ``check(arrays)`` (the caller's consistency test: fields, shapes) returns a reason."""
        p = self.path(chunk_key(identity))
        if not p.is_file():
            return None, None
        try:
            data = load_npz(p)
        except Exception as e:  # a foreign or damaged file: treat as not done
            return None, f"it cannot be read ({type(e).__name__})"
        ident = data.pop("__identity__", None)
        if ident is None or str(ident) != canonical_json(identity):
            return None, "its identity does not match its name"
        meta, problem = read_meta(data)
        if problem is None:
            problem = verify_checksum(data, meta)
        if problem is None and check is not None:
            try:
                problem = check(data)
            except Exception as e:  # a check that trips over the data: the data is bad
                problem = f"its fields are inconsistent ({type(e).__name__}: {e})"
        if problem is not None:
            return None, problem
        return (data, meta), None

    def sweep_temp(self, older_than_s: float = STALE_TEMP_S) -> int:
        """Delete stale temporary files (see :func:`temp_is_stale`: their writer is gone, or
        they are older than ``older_than_s``); never one a live writer may still rename.
        Returns how many were deleted."""
        if not self.root.is_dir():
            return 0
        n = 0
        now = time.time()
        for p in self.root.glob(TMP_PREFIX + "*"):
            if temp_is_stale(p, now, older_than_s):
                with contextlib.suppress(OSError):
                    p.unlink()
                    n += 1
        return n


def chunk_metas(root):
    """``(identity, metadata)`` of every chunk file under ``root`` (a figure's chunk
    folder), in file order; unreadable files are skipped. What earlier runs measured --
    compute seconds, the engine's counts -- read without loading the arrays' checks."""
    for p in sorted(Path(root).glob("*.npz")):
        if p.name.startswith(TMP_PREFIX):
            continue
        try:
            with np.load(p) as z:
                yield json.loads(str(z["__identity__"])), json.loads(str(z["__meta__"]))
        except Exception:  # unreadable: no record
            continue


def load_chunks(store: ChunkStore, identities, checks=None, *, say=None, limit: int = 5
                ) -> list:
    """Load many chunks (``(arrays, meta)`` or ``None`` each, as :meth:`ChunkStore.load`).

    Each unusable file (there, but damaged or inconsistent: it will be recomputed) is named in
    one line through ``say`` (default: stderr), at most ``limit`` lines and then one line with
    the count of the others."""
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    out, bad = [], []
    checks = [None] * len(identities) if checks is None else list(checks)
    for ident, check in zip(identities, checks, strict=True):
        res, problem = store.inspect(ident, check)
        out.append(res)
        if problem is not None:
            bad.append((store.path(chunk_key(ident)), problem))
    for path, problem in bad[:limit]:
        say(f"recomputing damaged chunk {path}: {problem}")
    if len(bad) > limit:
        say(f"recomputing {len(bad) - limit} more damaged chunks under {store.root}")
    return out


def check_writable_dir(path, name: str = "out") -> Path:
    """Make sure the folder ``path`` exists (created if need be) and a file can be written in
    it, before any work is done; else ``ValueError`` saying so in one line (naming ``name``)."""
    p = Path(path)
    if str(path) == "":
        raise ValueError(f"{name}: empty path")
    if p.exists() and not p.is_dir():
        raise ValueError(f"{name}: {p} exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{name}: cannot create the directory {p}: {e.strerror or e}") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(), suffix=".part", dir=p)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        raise ValueError(f"{name}: cannot write in the directory {p}: {e.strerror or e}"
                         ) from None
    return p


# ----------------------------------------------------------------------------- provenance


def git_commit(cwd=None) -> dict:
    """``{"commit": sha or None, "dirty": bool or None}`` of the repository holding ftd_lib."""
    cwd = Path(cwd) if cwd else Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                            capture_output=True, text=True, timeout=10, check=True).stdout
        return {"commit": sha, "dirty": bool(st.strip())}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


#: the files whose changes :func:`git_diff` keeps: code and experiment definitions
CODE_FILES = ("*.py", "*.toml")


def git_diff(cwd=None) -> str:
    """The uncommitted changes to the code and the experiment files (``*.py``, ``*.toml``) of
    the repository holding ftd_lib, as a patch: ``git diff HEAD`` of the tracked files and
    every untracked, not ignored one as a new file; ``""`` when there are none or git cannot
    tell. What :func:`git_commit`'s ``dirty`` does not say: what the changes were."""
    cwd = Path(cwd) if cwd else Path(__file__).resolve().parent
    try:
        def git(*args, check=True):
            return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                  timeout=30, check=check).stdout

        cwd = git("rev-parse", "--show-toplevel").strip()  # paths from the repository's root
        top = cwd
        out = [git("diff", "HEAD", "--", *CODE_FILES)]
        for f in git("ls-files", "--others", "--exclude-standard", "-z", "--", *CODE_FILES,
                     ).split("\0"):
            if f:  # (exit status 1: the files differ)
                out.append(subprocess.run(["git", "diff", "--no-index", "--", "/dev/null", f],
                                          cwd=top, capture_output=True, text=True,
                                          timeout=30).stdout)
        return "".join(out)
    except (OSError, subprocess.SubprocessError):
        return ""


def device_name(device: str = "cpu") -> str:
    """A readable name of the torch device (GPU model, or the CPU's processor string)."""
    if str(device).startswith("cuda"):
        try:
            import torch

            if torch.cuda.is_available():
                return torch.cuda.get_device_name(torch.device(device))
        except Exception:
            pass
    return _cpu_name()


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_description(device: str = "cpu") -> dict:
    """Where the numbers were computed: OS, Python, CPU count, torch version and device.

    Does not import torch just for this (slow to import); the thread count is read only when
    torch is already loaded (it is whenever the engine ran).
    """
    try:
        from importlib.metadata import version

        torch_version = version("torch")
    except Exception:
        torch_version = None
    torch_mod = sys.modules.get("torch")
    threads = None
    if torch_mod is not None:
        with contextlib.suppress(Exception):
            torch_version = torch_mod.__version__
            threads = torch_mod.get_num_threads()
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": _cpu_name(),
        "cpu_count": os.cpu_count(),
        "torch": torch_version,
        "torch_threads": threads,
        "device": str(device),
        "device_name": device_name(device),
    }
