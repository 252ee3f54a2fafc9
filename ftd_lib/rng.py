"""Per-run random streams, so that a run's numbers never depend on the batch it shares.

Every independent run ``i`` of an experiment owns its own generators, seeded from
``(seed, run_id[i], stream)`` through :class:`numpy.random.SeedSequence`. A batch of runs
draws one number per run per call, vectorised, from per-run buffers that are refilled one
run at a time (so the cost of the per-run generators is paid once every ``block`` draws).

A run draws only when it is ``active``; which other runs share its batch, and how many, does
not change the numbers it sees.
"""

from __future__ import annotations

import numpy as np

INIT_STREAM = 100  # stream of a run's initial weights (ftd_lib.engine.initial_weights)
AGENT_STREAM = 101  # stream of a run's exploration (epsilon-greedy)


def run_generator(seed: int, run_id: int, stream: int = 0) -> np.random.Generator:
    """The generator of one run and one named stream (e.g. 0 = environment, 1 = agent)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), int(run_id),
                                                                        int(stream)])))


class RunStreams:
    """Vectorised draws from per-run generators.

    Parameters
    ----------
    seed : int
        Experiment seed.
    run_ids : array of int
        The global id of each run in the batch (its row). Run ``r`` of seed ``s`` sees the same
        numbers in any batch.
    stream : int
        Which stream of each run this object serves.
    kind : ``"uniform"`` or ``"normal"``
        Distribution of the buffered draws (standard uniform on [0, 1) or standard normal).
    block : int
        Buffer length per run.
    """

    def __init__(self, seed: int, run_ids, stream: int = 0, kind: str = "uniform",
                 block: int = 512):
        if kind not in ("uniform", "normal"):
            raise ValueError(f"kind must be 'uniform' or 'normal', got {kind!r}")
        self.run_ids = np.asarray(run_ids, dtype=np.int64)
        self.seed, self.stream = int(seed), int(stream)
        self.kind = kind
        self.block = int(block)
        self.gens = [run_generator(seed, r, stream) for r in self.run_ids]
        n = len(self.gens)
        self.buf = np.empty((n, self.block))
        for i in range(n):
            self._refill(i)
        self.ptr = np.zeros(n, dtype=np.int64)
        self._rows = np.arange(n)

    def _refill(self, i: int) -> None:
        g = self.gens[i]
        self.buf[i] = g.random(self.block) if self.kind == "uniform" else g.standard_normal(
            self.block)

    def assign(self, rows, run_ids) -> None:
        """Give the rows ``rows`` to the runs ``run_ids``: each starts that run's stream
        afresh, exactly as if the run had had this row from the beginning (how a batch takes
        its next run when one ends)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
        for i, r in zip(rows.tolist(), run_ids.tolist(), strict=True):
            self.gens[i] = run_generator(self.seed, r, self.stream)
            self._refill(i)
        self.ptr[rows] = 0
        self.run_ids[rows] = run_ids

    def take(self, rows) -> None:
        """Keep only the rows ``rows``, in that order (a batch dropping finished rows); each
        kept run's stream goes on exactly where it was."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        self.gens = [self.gens[i] for i in rows.tolist()]
        self.buf = self.buf[rows]
        self.ptr = self.ptr[rows]
        self.run_ids = self.run_ids[rows]
        self._rows = np.arange(len(rows))

    def draw(self, active=None) -> np.ndarray:
        """One draw for every run (shape ``(B,)``); only ``active`` runs consume their stream.

        Inactive runs get ``nan`` and their stream is left untouched.
        """
        if active is None:
            active = np.ones(len(self.gens), dtype=bool)
        out = np.full(len(self.gens), np.nan)
        rows = self._rows[active]
        out[rows] = self.buf[rows, self.ptr[rows]]
        self.ptr[rows] += 1
        for i in rows[self.ptr[rows] == self.block]:
            self._refill(i)
            self.ptr[i] = 0
        return out
