"""A student's build function run in a child process: the grader hands it inputs, and only the
outputs come back.

:class:`Remote` is what the grader hands a check in place of the student's function. It holds
the function's source (the submission's top-level imports, definitions and plain assignments up
to the exercise: :func:`ftd_lib.grader.submission.function_source`) and its code object,
compiled in the grader but never run there (so the checks' "pasted copy of the library"
fingerprint still applies). Called, it sends the arguments to a child process
(``python -m ftd_lib.grader.child``, started once per function), which runs the source in a
fresh namespace and calls the function. Before the call the child replaces the code of every
library function the exercise asks the student to write (the check's ``refuse``) with one that
raises :class:`~ftd_lib.course.exercises.Borrowed`: an alias, a wrapper, ``functools.partial``
or ``sys.setprofile(None)`` all reach that code, so the library's own answer cannot run.

The reply is data only (JSON: numbers, arrays, lists and which list items were one object), so
nothing the child sends can run in the grader. A call that takes longer than
:data:`TIMEOUT` seconds ends the child.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import types

import numpy as np

#: seconds one call of a student's function may take in the child
TIMEOUT = 120.0


# ---------------------------------------------------------------------------- the wire format


def encode(value, _ids=None):
    """``value`` as JSON-able data: arrays with their dtype, lists and tuples with which items
    are one object (the rows of ``w += ...; out.append(w)``); anything else by its type's name."""
    if value is None or isinstance(value, (bool, str)):
        return {"v": value}
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return {"v": value.item() if hasattr(value, "item") else value}
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return {"nd": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, (list, tuple)):
        ids = [id(x) for x in value]
        first = {i: ids.index(i) for i in ids}
        return {"seq": [encode(x) for x in value], "same": [first[i] for i in ids],
                "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    return {"other": type(value).__name__}


class Opaque:
    """What the grader gets for a value it does not rebuild (an object of the student's)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<{self.name} object>"


def decode(data):
    """The value :func:`encode` described (list items that were one object are one again)."""
    if "v" in data:
        return data["v"]
    if "nd" in data:
        return np.asarray(data["nd"], dtype=np.dtype(data["dtype"]))
    if "seq" in data:
        items = [decode(x) for x in data["seq"]]
        items = [items[j] for j in data["same"]]
        return tuple(items) if data["tuple"] else items
    if "dict" in data:
        return {decode(k) if not isinstance(decode(k), list) else str(k): decode(v)
                for k, v in data["dict"]}
    return Opaque(str(data.get("other", "unknown")))


def _send(stream, payload: bytes) -> None:
    stream.write(struct.pack("<Q", len(payload)) + payload)
    stream.flush()


def _receive(stream) -> bytes | None:
    head = stream.read(8)
    if len(head) < 8:
        return None
    (n,) = struct.unpack("<Q", head)
    return stream.read(n)


# ------------------------------------------------------------------------------ the grader side


class Remote:
    """A student's function ``name`` defined by ``source``, run in a child process when called
    (see the module's docstring). ``__code__`` is its code compiled in the grader, unrun."""

    __ftd_remote__ = True

    def __init__(self, name: str, source: str, folder: str | None = None):
        self.__name__ = self.__qualname__ = name
        self.source, self.folder = source, folder
        self.__code__ = _code_of(source, name)
        self._proc = None

    def __repr__(self):
        return f"<student function {self.__name__}>"

    def _start(self):
        import pickle

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([p for p in sys.path if p] + [env.get(
            "PYTHONPATH", "")])
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "ftd_lib.grader.child"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.folder, env=env)
        _send(self._proc.stdin, pickle.dumps(dict(source=self.source, name=self.__name__)))

    def call(self, args, kwargs, refuse=()):
        """Run the function on ``args``/``kwargs`` in the child, refusing the library functions
        ``refuse``; the result, or the student's exception raised here again (``Borrowed`` when
        a refused function ran, ``NotImplementedError`` for the skeleton)."""
        import pickle

        from ..course.exercises import Borrowed

        if self._proc is None or self._proc.poll() is not None:
            self._start()
        names = [f"{f.__module__}:{f.__qualname__}" for f in refuse]
        try:
            _send(self._proc.stdin, pickle.dumps(dict(args=args, kwargs=kwargs, refuse=names)))
        except (BrokenPipeError, OSError):
            self.close()
            raise RuntimeError("the function's cell could not be run in a fresh process") from None
        reply = _read_with_timeout(self._proc, TIMEOUT)
        if reply is None:
            self.close()
            raise TimeoutError(f"it ran for more than {TIMEOUT:g} s (or its process died)")
        out = json.loads(reply)
        if "ok" in out:
            return decode(out["ok"])
        kind, message = out["error"]
        if kind == "Borrowed":
            raise Borrowed(message)
        if kind == "NotImplementedError":
            raise NotImplementedError(message)
        raise type(kind, (Exception,), {})(message)

    def __call__(self, *args, **kwargs):
        return self.call(args, kwargs)

    def close(self):
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 -- interpreter shutdown
            pass


def _read_with_timeout(proc, seconds: float) -> bytes | None:
    import threading

    box: list = []
    t = threading.Thread(target=lambda: box.append(_receive(proc.stdout)), daemon=True)
    t.start()
    t.join(seconds)
    return box[0] if box else None


def _code_of(source: str, name: str):
    """The code object of function ``name`` defined at the top of ``source`` (compiled, not
    run), or ``None``."""
    try:
        module = compile(source, "<student>", "exec")
    except SyntaxError:
        return None
    found = None
    for c in module.co_consts:
        if isinstance(c, types.CodeType) and c.co_name == name:
            found = c
    return found


# ------------------------------------------------------------------------------- the child side


#: the library functions refused that ran in this child (even where the student's code caught
#: their exception)
_HIT: list = []


def _poison(names) -> None:
    """Make each library function ``module:qualname`` raise ``Borrowed`` wherever it is called
    from, and note that it ran (:data:`_HIT`): its code object replaced (every alias, wrapper
    and ``functools.partial`` shares the function object), and, where that cannot be done, the
    name rebound in every loaded module."""
    import importlib

    from ..course.exercises import Borrowed

    for full in names:
        mod_name, _, qual = full.partition(":")
        try:
            obj = importlib.import_module(mod_name)
            for part in qual.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            continue
        short = qual.rsplit(".", 1)[-1]
        if isinstance(obj, types.FunctionType) and not obj.__code__.co_freevars:
            glue = {"_B": Borrowed, "_N": short, "_H": _HIT}
            exec("def _p(*a, **k):\n    _H.append(_N)\n    raise _B(_N)", glue)  # noqa: S102
            obj.__globals__.update({k: v for k, v in glue.items() if k != "_p"})
            obj.__code__ = glue["_p"].__code__
            obj.__kwdefaults__ = obj.__defaults__ = None
            continue

        def poisoned(*a, _name=short, **k):
            _HIT.append(_name)
            raise Borrowed(_name)

        for m in list(sys.modules.values()):
            if getattr(m, short, None) is obj:
                setattr(m, short, poisoned)


def main() -> None:  # pragma: no cover - run in the child process
    import pickle

    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # the student's prints go to stderr, never into the replies
    proto_in = sys.stdin.buffer
    job = pickle.loads(_receive(proto_in))
    ns: dict = {"__name__": "__student__"}
    try:
        exec(compile(job["source"], "<student>", "exec"), ns)  # noqa: S102
        fn = ns[job["name"]]
        ready = None
    except BaseException as e:  # noqa: BLE001 -- the student's cell may raise anything
        fn, ready = None, (type(e).__name__, f"its cell raised {type(e).__name__}: {e}")
    poisoned: set = set()
    while True:
        raw = _receive(proto_in)
        if raw is None:
            return
        call = pickle.loads(raw)
        new = [n for n in call["refuse"] if n not in poisoned]
        _poison(new)
        poisoned.update(new)
        if ready is not None:
            reply = {"error": list(ready)}
        else:
            _HIT.clear()
            try:
                reply = {"ok": encode(fn(*call["args"], **call["kwargs"]))}
            except BaseException as e:  # noqa: BLE001 -- the student's code may raise anything
                reply = {"error": [type(e).__name__, str(e)]}
            if _HIT:
                reply = {"error": ["Borrowed", _HIT[0]]}
        _send(proto_out, json.dumps(reply).encode())


if __name__ == "__main__":  # pragma: no cover
    main()
