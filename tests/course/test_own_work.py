"""The contract of :mod:`ftd_lib.course.exercises.own_work` on every Python it names.

Its bytecode fingerprint (a pasted copy of a library function is the library's instructions,
renamed or not) reads CPython's instruction names, which change between versions. On each
interpreter of :data:`KNOWN_PYTHONS` found on this machine (``python3.X`` on the PATH, or
pyenv's), the module is loaded on its own (it needs nothing but the standard library at import)
and must tell a renamed copy from a rewrite; on a version it does not know, ``copies`` must say
"not a copy" (the plain check), never refuse.
"""

import glob
import shutil
import subprocess
from pathlib import Path

import pytest

from ftd_lib.course.exercises import own_work

MODULE = Path(own_work.__file__)

PROBE = r'''
import importlib.util, re, sys
spec = importlib.util.spec_from_file_location("own_work", sys.argv[1])
ow = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ow)

LIBRARY = """
def library(episodes, w0, alpha, lam, gamma):
    w, out = list(w0), []
    for x, r in episodes:
        e = [0.0] * len(w)
        for t in range(len(r)):
            v = sum(wi * xi for wi, xi in zip(w, x[t]))
            v_next = 0.0 if t + 1 == len(r) else sum(wi * xi for wi, xi in zip(w, x[t + 1]))
            delta = r[t] + gamma * v_next - v
            e = [gamma * lam * ei + xi for ei, xi in zip(e, x[t])]
            w = [wi + alpha * delta * ei for wi, ei in zip(w, e)]
            out.append(list(w))
    return out
"""
exec(LIBRARY)

# the library's source pasted in with other names: made by renaming, so a copy by construction
NAMES = dict(library="pasted", episodes="eps", w0="theta", alpha="a", lam="l", gamma="g",
             out="rows", x="feats", r="rew", e="z", t="k", v="now", v_next="nxt", delta="d",
             wi="p", xi="q", ei="zi")
exec(re.sub(r"\w+", lambda m: NAMES.get(m[0], m[0]), LIBRARY))

def rewritten(eps, theta, a, l, g):
    w, rows = list(theta), []
    for feats, rew in eps:
        z = [0.0] * len(w)
        for k, rk in enumerate(rew):
            now = sum(p * q for p, q in zip(w, feats[k]))
            nxt = sum(p * q for p, q in zip(w, feats[k + 1])) if k + 1 < len(rew) else 0.0
            d = rk + g * nxt - now
            z = [zi * g * l + q for zi, q in zip(z, feats[k])]
            w = [p + d * a * zi for p, zi in zip(w, z)]
            rows.append(w[:])
    return rows

known = sys.version_info[:2] in ow.KNOWN_PYTHONS
print(sys.version_info[:2], known, len(ow._fingerprint(library.__code__)) >= ow.COPY_MIN,
      ow.copies(pasted, library), ow.copies(rewritten, library), ow.copies(library, library))
ow.KNOWN_PYTHONS = ()
print("unknown", ow.copies(pasted, library))
'''


def interpreters():
    out = {}
    for major, minor in own_work.KNOWN_PYTHONS:
        found = [shutil.which(f"python{major}.{minor}"), *sorted(glob.glob(
            str(Path.home() / f".pyenv/versions/{major}.{minor}.*/bin/python{major}.{minor}")))]
        for exe in filter(None, found):
            ok = subprocess.run([exe, "-c", "import sys"], capture_output=True).returncode == 0
            if ok:
                out[f"{major}.{minor}"] = exe
                break
    return out


FOUND = interpreters()


@pytest.mark.parametrize("version", [f"{a}.{b}" for a, b in own_work.KNOWN_PYTHONS])
def test_a_pasted_copy_is_told_from_a_rewrite_on_every_known_python(version):
    if version not in FOUND:
        pytest.skip(f"python{version} is not installed here")
    r = subprocess.run([FOUND[version], "-c", PROBE, str(MODULE)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    # known, long enough to fingerprint, the pasted copy caught, the rewrite and the library
    # itself not
    assert first.endswith("True True True False False"), first
    assert second == "unknown False", second  # an unknown version: the plain check


def test_the_python_in_use_is_known():
    import sys

    assert sys.version_info[:2] in own_work.KNOWN_PYTHONS
    assert "3.11" in FOUND  # the project's own
