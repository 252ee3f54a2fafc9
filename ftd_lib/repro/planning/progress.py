"""Progress that tells the truth: a figure's (or a stage's) bar of chunks, with the plan's ETA.

tqdm's own estimate divides the time so far by the chunks so far: after one small chunk it
promises far too little, after one large chunk far too much. :class:`FigureBar` counts chunks
(done of planned) and takes its ETA from the cost model instead
(:mod:`ftd_lib.repro.planning.cost`): the predicted seconds of the chunks not yet finished,
scheduled on the workers in the order
they are handed out (:func:`ftd_lib.repro.planning.schedule.list_schedule`), plus the predicted
seconds of the stages still to come (the final stage after a pilot,
:mod:`ftd_lib.repro.protocol`).
"""

from __future__ import annotations

import sys

from .schedule import list_schedule


def format_seconds(s: float) -> str:
    """``1h02m``, ``4m05s`` or ``12s``."""
    s = max(0, int(round(float(s))))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h}h{m:02d}m"
    return f"{m}m{sec:02d}s" if m else f"{sec}s"


class FigureBar:
    """A tqdm bar over the ``costs`` (predicted seconds, in the order the chunks are handed
    out) of the pieces to compute on ``workers`` workers (:mod:`ftd_lib.repro.counts`):
    ``desc`` (figure, scale, stage), pieces done of planned, and in the postfix the plan's ETA
    -- ``unknown`` where the costs were not measured on this machine (``known`` false: no
    calibration) -- and the chunks ``loaded`` from the store. :meth:`finished` marks the
    ``k``-th piece done."""

    def __init__(self, desc: str, costs, workers: int, *, loaded: int = 0,
                 later_s: float = 0.0, disable: bool = False, file=None, known: bool = True):
        from tqdm.auto import tqdm

        self.costs = [float(c) for c in costs]
        self.workers = max(int(workers), 1)
        self.later_s = float(later_s)
        self.loaded = int(loaded)
        self.known = bool(known)
        self.left = set(range(len(self.costs)))
        self.bar = tqdm(total=len(self.costs), desc=desc, unit="piece", disable=disable,
                        file=file or sys.stderr,
                        bar_format="{desc}: {n_fmt}/{total_fmt} pieces |{bar}| "
                                   "[{elapsed}{postfix}]")
        self._show()

    def eta(self) -> float:
        """Predicted seconds until the last stage ends: the unfinished chunks scheduled on
        the workers, plus the later stages."""
        left = [self.costs[k] for k in sorted(self.left)]
        return list_schedule(left, self.workers).makespan + self.later_s

    def _show(self) -> None:
        eta = (f"ETA {format_seconds(self.eta())} (plan)" if self.known else
               "ETA unknown (no calibration on this machine)")
        self.bar.set_postfix_str(f"{eta}, {self.loaded} loaded", refresh=True)

    def finished(self, k: int) -> None:
        self.left.discard(int(k))
        self.bar.update(1)
        self._show()

    def close(self) -> None:
        self.bar.close()
