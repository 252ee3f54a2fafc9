r"""A set-up other than the engines' default, run (the ``[network]`` keys and mountain car's
``task.start``/``task.inputs`` of an experiment file, :mod:`ftd_lib.repro.experiment`): the
compiled kernel with the set-up's activation, initial weights
(:func:`ftd_lib.engine.initial_weights` with its ``init``), network size, inputs and start
states (:func:`run_variant`). The claim-5 study (:mod:`ftd_lib.repro.paper.study`) is one
user; any file with such keys is another.
"""

from __future__ import annotations

from ..envs import tasks


def run_variant(task, settings, *, progress: bool = False):
    """The runner of a study chunk: the compiled kernel with the chunk's variant on its
    ``settings`` rows (:class:`ftd_lib.engine.Settings`); returns a
    :class:`ftd_lib.engine.ControlResult`."""
    from ..engine import initial_weights
    from ..engine.kernel import run_tasks

    spec = task.variant
    t = tasks.task(task.env)
    n_hidden = spec.get("n_hidden", 50)
    w0 = initial_weights(task.seed, task.run_ids, t.n_in, n_hidden, n_nets=t.n_actions,
                         init=spec["init"]).reshape(len(task.run_ids), t.n_actions, -1)
    return run_tasks(task.method, settings, task.seed, task.run_ids,
                     task.n_episodes, env=task.env, init=lambda i: w0[i],
                     epsilon=task.epsilon, max_steps=task.max_steps,
                     truncation=task.truncation or "bootstrap", progress=progress,
                     n_hidden=n_hidden, hidden=spec["hidden"], inputs=spec["inputs"],
                     start=spec["start"])
