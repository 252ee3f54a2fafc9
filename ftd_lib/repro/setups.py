r"""A set-up other than the engines' default, run (the ``[network]`` keys and mountain car's
``task.start``/``task.inputs`` of an experiment file, :mod:`ftd_lib.repro.experiment`): the
compiled kernel with the set-up's activation, initial weights, network size, inputs and start
states (:func:`run_variant`), the initial weights drawn by :func:`initial_weights_of`. The
claim-5 study (:mod:`ftd_lib.repro.paper.study`) is one user; any file with such keys is
another.
"""

from __future__ import annotations

import numpy as np

from ..envs import tasks


def initial_weights_of(spec: dict, seed: int, run_ids, n_in: int, n_actions: int,
                       n_hidden: int = 50) -> np.ndarray:
    """The runs' initial weights ``(N, A, P)`` (reference layout ``[W1, b1, w2, b2]``) under
    the variant's ``init``: the engine's uniform draw (:func:`ftd_lib.engine.initial_weights`),
    with the output layer zeroed (``"zero-output"``) or scaled by 0.1 (``"small"``)."""
    from ..engine import initial_weights

    w = initial_weights(seed, run_ids, n_in, n_hidden, n_nets=n_actions).reshape(
        len(run_ids), n_actions, -1)
    if spec["init"] == "zero-output":
        w[..., n_hidden * (n_in + 1):] = 0.0  # w2 and b2
    elif spec["init"] == "small":
        w = w * 0.1
    elif spec["init"] != "uniform":
        raise ValueError(f"init must be 'uniform', 'zero-output' or 'small', got "
                         f"{spec['init']!r}")
    return w


def run_variant(task, settings, *, progress: bool = False):
    """The runner of a study chunk: the compiled kernel with the chunk's variant on its
    ``settings`` rows (:class:`ftd_lib.engine.Settings`); returns a
    :class:`ftd_lib.engine.ControlResult`."""
    from ..engine.kernel import run_tasks

    spec = task.variant
    t = tasks.task(task.env)
    n_hidden = spec.get("n_hidden", 50)
    w0 = initial_weights_of(spec, task.seed, task.run_ids, t.n_in, t.n_actions, n_hidden)
    return run_tasks(task.method, settings, task.seed, task.run_ids,
                     task.n_episodes, env=task.env, init=lambda i: w0[i],
                     epsilon=task.epsilon, max_steps=task.max_steps,
                     truncation=task.truncation or "bootstrap", progress=progress,
                     n_hidden=n_hidden, hidden=spec["hidden"], inputs=spec["inputs"],
                     start=spec["start"])
