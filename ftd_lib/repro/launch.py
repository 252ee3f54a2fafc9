r"""Running an experiment file (``python -m ftd_lib run FILE``): :func:`run_experiment` reads
it (:mod:`ftd_lib.repro.experiment`), then computes it with today's machinery -- chunks,
resume, workers, the Dask executor, provenance (:func:`ftd_lib.repro.runs.run_figure`) --
through its protocol: a fixed grid, or pilot -> widen -> final (:mod:`ftd_lib.repro.protocol`).
:func:`run_command` is the command that resumes it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from .experiment import load_experiment


def run_command(path, scale: str = "paper", sets=(), out=None, device=None) -> str:
    """The shell command that computes (or resumes) the experiment in ``path``."""
    cmd = f"python -m ftd_lib run {shlex.quote(str(path))}"
    if scale != "paper":
        cmd += f" --scale {scale}"
    if out is not None:
        cmd += f" --out {shlex.quote(str(out))}"
    if device is not None:
        cmd += f" --device {device}"
    return cmd + "".join(f" --set {shlex.quote(str(s))}" for s in sets or ())


def out_dir(run: dict, out=None) -> Path:
    """Where the results go: ``out``, else the file's ``out``, else ``results/``."""
    from .results import DEFAULT_RESULTS

    return Path(out if out is not None else run.get("out") or DEFAULT_RESULTS)


def run_experiment(path, scale: str = "paper", sets=(), out=None, *, device=None,
                   command: str | None = None, **kw):
    """Compute (or resume, or only reassemble) the experiment in ``path`` at ``scale`` with
    the ``--set`` changes ``sets``, into ``out`` (default: the file's ``out``, else
    ``results/``); ``device`` (default: the file's ``chunks.device``); ``kw`` go to
    :func:`ftd_lib.repro.runs.run_figure` (workers, threads, executor, runner, progress,
    plot, force). Returns the final :class:`~ftd_lib.repro.results.Results`."""
    fig, run = load_experiment(path, scale, sets)
    device = device or run["device_kind"]
    command = command or run_command(path, scale, sets, out, None if device == run[
        "device_kind"] else device)
    return execute(fig, out_dir(run, out), seed=run["seed"], device=device, command=command,
                   **kw)


def execute(fig, out, *, command: str, final_s: float = 0.0, **kw):
    """Compute a loaded experiment ``fig`` into ``out``: both stages of the step-size
    protocol when its file asks for them (``final_s``: the final stage's predicted seconds,
    for the pilot's ETA), else the one figure; ``kw`` go to
    :func:`ftd_lib.repro.runs.run_figure`. The one path of ``run`` and ``reproduce``."""
    from .protocol import run_protocol
    from .runs import run_figure

    if fig.two_stage:
        return run_protocol(fig, out, runs=fig.runs, command=command, final_s=final_s, **kw)
    return run_figure(fig, out, command=command, **kw)
