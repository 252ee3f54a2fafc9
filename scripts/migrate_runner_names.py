"""One-off migration: the chunks of Figs. 3 left and right stored under the old
runner names (``engine-<hash of the code>``) renamed to today's (``engine-<method>-v<N>``,
:func:`ftd_lib.repro.chunks.engine_runner_name`).

The prediction methods are still at numerics version 1 (:mod:`ftd_lib.methods`), the version
they were computed at, so only the name in each chunk's identity changes: the arrays and the
metadata are copied as they are (the metadata gains ``migrated_from``, the old key). Each new
identity must be one of today's chunks of the experiment, else nothing is written.
``tests/repro/test_experiments_bit_for_bit.py`` reassembles the committed arrays from the
migrated chunks bit for bit, and ``tests/repro/test_migrated_chunks.py`` recomputes a few rows
of each with today's engine.

    python scripts/migrate_runner_names.py            # results/ in place
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ftd_lib.repro import store
from ftd_lib.repro.chunks import cut_chunks, engine_runner_name
from ftd_lib.repro.experiment import load_experiment

OLD = {"fig3-left": "engine-547ca30f5986", "fig3-right": "engine-d139e6f4174d"}


def migrate(results: Path, name: str, old_runner: str) -> int:
    fig, run = load_experiment(Path("experiments") / f"{name}.toml")
    want = {store.chunk_key(t.identity(engine_runner_name(t.method), run["device_kind"]))
            for t in cut_chunks(fig, run["seed"])}
    cstore = store.ChunkStore(results / "chunks" / name)
    n = 0
    for key in cstore.keys():
        data = store.load_npz(cstore.path(key))
        ident = json.loads(str(data.pop("__identity__")))
        meta = json.loads(str(data.pop("__meta__")))
        if ident["runner"] != old_runner:
            continue
        ident["runner"] = engine_runner_name(ident["method"])
        if store.chunk_key(ident) not in want:
            raise SystemExit(f"{cstore.path(key)}: renamed, it is none of {name}'s chunks")
        meta.pop("checksum", None)
        cstore.save(ident, {k: np.asarray(v) for k, v in data.items()},
                    {**meta, "migrated_from": key})
        cstore.path(key).unlink()
        n += 1
    return n


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    for fig_name, runner in OLD.items():
        print(f"{fig_name}: {migrate(root, fig_name, runner)} chunks renamed")
