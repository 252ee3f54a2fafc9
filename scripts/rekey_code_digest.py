"""Give stored chunks today's code digest (:func:`ftd_lib.repro.code.rekey_store`).

Once: the chunks stored before chunks were keyed by their code get the digest of
today's code, which computes their numbers (their numerics version is today's, and
``tests/engine/test_engine_golden.py`` holds today's engines to the golden numbers recorded at
that version). ``tests/repro/test_experiments_bit_for_bit.py`` then reassembles every committed
figure from them, computing nothing, and ``tests/repro/test_migrated_chunks.py`` recomputes a
few rows with today's engine.

After a change that keeps every number (a refactor; the golden tests pass), ``--changed``
re-keys the chunks stored under the old digest too. Never run it after a change of numbers:
bump the method's numerics version instead (``ftd_lib/methods.py``).

    python scripts/rekey_code_digest.py [RESULTS] [--changed]     # default: results/
"""

from __future__ import annotations

import sys

from ftd_lib.repro.code import chunk_folders, rekey_store

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    changed = "--changed" in sys.argv[1:]
    for folder in chunk_folders(args[0] if args else "results"):
        counts = rekey_store(folder, changed=changed)
        print(f"{folder}: {counts['rekeyed']} re-keyed, {counts['kept']} kept")
