r"""Compile (or load from numba's cache) the prediction loops of :mod:`.prediction` -- TD(0)
and forward TD(:math:`\lambda`), paper Sec. 5, Algorithm 1 -- with one episode of two steps
each, so that a first ``run_recorded(..., engine="kernel")`` does not wait for the compiler
(``binder/postBuild`` calls it beside :func:`ftd_lib.engine.kernel.warm`). A module of its own:
the files a stored chunk's code digest covers (:mod:`ftd_lib.repro.code`) do not import it, so
warming changes no stored result's identity.
"""

from __future__ import annotations

import numpy as np


def warm_prediction() -> None:
    """Run each of :data:`.prediction.PREDICTION_RUNS` once on a two-step episode."""
    from .. import Settings, initial_weights, run_recorded
    from .prediction import PREDICTION_RUNS

    settings = Settings.make(alpha=0.01, lam=0.5, gamma=1.0)
    episode = (np.linspace(-1.0, 1.0, 6).reshape(3, 2), -np.ones(2))
    for method in PREDICTION_RUNS:
        run_recorded(method, [[episode]], initial_weights(1, np.arange(1), 2), settings,
                     engine="kernel")
