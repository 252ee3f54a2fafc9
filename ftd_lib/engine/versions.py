"""The numerics version of every method an engine runs, and the key stored results of a
method are kept under (:func:`numerics_version`)."""

from __future__ import annotations

from .. import methods as _methods

#: The numerics version of every method an engine runs (from :mod:`ftd_lib.methods`): what a
#: stored result's numbers depend on (the engine, the environments, the random streams, the
#: network's arithmetic). Stored chunks are keyed by it and by the digest of the code that
#: computes them (:mod:`ftd_lib.repro.code`). Bump a method's version (its record in
#: :mod:`ftd_lib.methods`)
#: whenever a change alters any of its numbers; ``tests/engine/test_engine_golden.py`` fails when
#: numbers change without a bump. Control is at 2: truncation at an episode cap bootstraps.
NUMERICS_VERSION = _methods.NUMERICS_VERSION
CONTROL_METHODS = _methods.CONTROL


def numerics_version(method: str) -> str:
    """``"<method>-v<N>"``: the key under which results of ``method`` are stored."""
    if method not in NUMERICS_VERSION:
        raise ValueError(f"method must be one of {tuple(NUMERICS_VERSION)}, got {method!r}")
    return f"{method}-v{NUMERICS_VERSION[method]}"
