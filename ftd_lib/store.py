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
no file -- never half a file. Leftover temporary files (``.tmp-*``) are ignored and swept.

Functions
---------
``chunk_key(identity)``            hash of a JSON-able identity (sha256, hex)
``atomic_write_bytes / _text / _json / save_npz_atomic``   the atomic writers
``ChunkStore(root)``               ``has / load / save / keys / sweep_temp``
``git_commit()``, ``machine_description(device)``   provenance for the metadata
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TMP_PREFIX = ".tmp-"


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
    path.parent.mkdir(parents=True, exist_ok=True)
    # ".part", not the target's suffix: a glob for "*.npz" never sees a half-written file
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".part", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give what open() would
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
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


class ChunkStore:
    """A directory of finished chunks, one ``<key>.npz`` per chunk.

    Each file holds the chunk's arrays plus ``__identity__`` (the canonical JSON the key was
    hashed from) and ``__meta__`` (JSON: compute time, device, ...). :meth:`load` checks the
    stored identity against the requested one, so a file can never be mistaken for another
    chunk's; an unreadable file counts as missing (and is recomputed).
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
        payload = dict(arrays)
        payload["__identity__"] = np.array(canonical_json(identity))
        payload["__meta__"] = np.array(json.dumps(meta or {}, default=_jsonable))
        return save_npz_atomic(self.path(key), **payload)

    def load(self, identity: dict) -> tuple[dict[str, np.ndarray], dict] | None:
        """``(arrays, meta)`` of a finished chunk, or ``None`` if it is not (validly) there."""
        p = self.path(chunk_key(identity))
        if not p.is_file():
            return None
        try:
            data = load_npz(p)
        except Exception:  # a foreign or damaged file: treat as not done
            return None
        ident = data.pop("__identity__", None)
        meta = data.pop("__meta__", None)
        if ident is None or str(ident) != canonical_json(identity):
            return None
        return data, (json.loads(str(meta)) if meta is not None else {})

    def sweep_temp(self, older_than_s: float = 0.0) -> int:
        """Delete leftover temporary files (from a killed writer). Returns how many."""
        if not self.root.is_dir():
            return 0
        n = 0
        now = time.time()
        for p in self.root.glob(TMP_PREFIX + "*"):
            with contextlib.suppress(OSError):
                if now - p.stat().st_mtime >= older_than_s:
                    p.unlink()
                    n += 1
        return n


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
