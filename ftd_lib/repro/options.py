"""The command line's options: the parser of ``python -m ftd_lib`` (:func:`build_parser`),
its commands and their options -- what is computed (``--scale``, ``--set`` and its short
forms), how the plan is priced, where and how the chunks are computed. What each command
does with them: :mod:`ftd_lib.repro.cli`.
"""

from __future__ import annotations

import argparse

from .definitions import DEFAULT_SEED, FIGURES, SCALES
from .executors import EXECUTORS
from .keys import experiment_names
from .paper.study import VARIANT_NAMES
from .results import DEFAULT_RESULTS


def _int_at_least(lo: int):
    """An argparse type: an integer >= ``lo``, else a message argparse puts after the option."""

    def parse(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            v = None
        if v is None or v < lo:
            raise argparse.ArgumentTypeError(f"must be an integer >= {lo}, got {s!r}")
        return v

    return parse


_positive_int = _int_at_least(1)
_seed = _int_at_least(0)


def _experiment_options(p, *, scale_required: bool) -> None:
    """The options that choose what is computed, the same for ``run``, ``reproduce`` and
    ``plan``: each count option is a short form of a ``--set`` (``--runs 5`` is ``--set
    runs=5``)."""
    p.add_argument("--scale", choices=SCALES, required=scale_required,
                   default=None if scale_required else "paper",
                   help="paper: the file's counts" + ("" if scale_required else " (default)")
                        + "; quick: what its [quick] changes (seconds)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="change any key of the experiment file: runs=5, task.gamma=0.99, "
                        "grid.alphas=0.01,0.02, grid.lams=0,0.5, methods=sarsa_lambda, "
                        "network.activation=sigmoid, curves.1.eta=0.1 (repeatable; alphas= "
                        "and lams= are short for grid.alphas= and grid.lams=)")
    for flag, key, what in (("--runs", "runs", "independent runs"),
                            ("--episodes", "episodes", "episodes per run"),
                            ("--chunk-rows", "chunks.rows", "most rows (settings x runs) per "
                                                            "chunk; on a GPU try 20000")):
        p.add_argument(flag, type=_positive_int, default=None,
                       help=f"{what} (--set {key}=N)")
    p.add_argument("--seed", type=_seed, default=None, help="experiment seed (--set seed=S; "
                   f"default: the file's, else {DEFAULT_SEED})")
    p.add_argument("--variant", choices=VARIANT_NAMES, default=None,
                   help="fig4-left only: a set-up of the claim-5 study (its keys as --set); "
                        "use its own --out folder")
    p.add_argument("--out", default=None,
                   help=f"results directory (default: the file's out, else {DEFAULT_RESULTS}/)")
    p.add_argument("--device", choices=("cpu", "cuda"), default=None,
                   help="torch device (default: the file's chunks.device where a GPU is "
                        "here or all its chunks from that device are in --out -- Fig. 3 "
                        "left's, made on a GPU, are read on any machine -- else cpu)")
    p.add_argument("--workers", type=_positive_int, default=None,
                   help="chunks computed at once, each in its own process (default: the "
                        "number of CPUs; 1 with --device cuda); the numbers are the same "
                        "for any number of workers")


def _plan_options(p, *, dry_run: bool) -> None:
    if dry_run:
        p.add_argument("--dry-run", action="store_true",
                       help="print the plan (chunks, predicted seconds, wall time on "
                            "--workers) and stop: nothing is computed or written")
    p.add_argument("--no-calibrate", action="store_true",
                   help="seconds from this machine's last calibration (or the stored "
                        "defaults), not measured now")
    p.add_argument("--recalibrate", action="store_true",
                   help="measure the seconds now even where this machine's calibration of "
                        "the same code is under a day old (which is reused otherwise)")
    p.add_argument("--summary", action="store_true", help="no chunk lists, only the stages")


def _execution_options(p) -> None:
    p.add_argument("--threads", type=_positive_int, default=1,
                   help="torch CPU threads per worker (default 1: on a shared or busy machine "
                        "more threads than free cores slow torch down many times)")
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="where the chunks are computed: local (this machine, --workers "
                        "processes; default) or dask (a Dask cluster: a local one of --workers "
                        "processes, or the one at --scheduler); the numbers are the same")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="with --executor dask: the address of a running Dask scheduler (dask "
                        "scheduler; dask worker tcp://HOST:PORT --nthreads 1 on each machine)")
    p.add_argument("--force", action="store_true",
                   help="allow replacing paper-scale data with a smaller run")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ftd_lib",
        description="Run experiment files (experiments/*.toml): the paper's figures "
                    "(van Seijen 2016, Figs. 3-4) and your own.")
    sub = p.add_subparsers(dest="command", required=True, metavar="command",
                           title="commands (run, reproduce, plan, bench, report)")
    names = experiment_names()
    x = sub.add_parser("run", help="compute an experiment file's data and picture (resumable)",
                       description="Compute (or resume) the experiment an experiment file "
                                   "(TOML, experiments/README.md) declares.")
    x.add_argument("file", help="the experiment file (experiments/fig4-right.toml), or a "
                                "name of experiments/ (fig4-right)")
    _experiment_options(x, scale_required=False)
    _execution_options(x)
    _plan_options(x, dry_run=True)

    r = sub.add_parser("reproduce", help="run experiments/NAME.toml (resumable)",
                       description="reproduce NAME is run experiments/NAME.toml: the same "
                                   "options, the same code; 'all': the paper's four figures.")
    r.add_argument("figure", choices=[*names, "all"],
                   help=f"a name of experiments/ ({', '.join(names)}) or 'all' (the paper's "
                        f"four: {', '.join(FIGURES)})")
    _experiment_options(r, scale_required=True)
    _execution_options(r)
    _plan_options(r, dry_run=True)

    pl = sub.add_parser("plan", help="the chunks still to compute, their predicted cost and "
                                     "the wall time on N workers (nothing is computed)",
                        description="Print, before any work, the chunks of every stage of an "
                                    "experiment, their predicted run-steps and seconds and "
                                    "the predicted wall time and utilisation on N workers.")
    pl.add_argument("figure", metavar="FILE|NAME|all",
                    help="an experiment file, a name of experiments/, or 'all' (the paper's "
                         "four figures)")
    _experiment_options(pl, scale_required=False)
    _plan_options(pl, dry_run=False)

    b = sub.add_parser("bench", help="time the engine (steps per second)",
                       description="Print the engine's benchmark lines.")
    b.add_argument("--device", choices=("cpu", "cuda"), default=None,
                   help="torch device of the engine (default cpu)")
    b.add_argument("--threads", type=_positive_int, default=None,
                   help="torch CPU threads while measuring (default 1: per core)")
    b.add_argument("--quick", action="store_true",
                   help="tiny sizes: a smoke test, the numbers mean nothing")
    b.add_argument("--kernel", action="store_true",
                   help="only the compiled kernel's lines: us a run-step of every (task, "
                        "method) pair it runs")

    rep = sub.add_parser("report", help="write REPORT.md from the stored results",
                         description="Generate REPORT.md from the stored data.")
    rep.add_argument("--results", default=DEFAULT_RESULTS,
                     help=f"results directory (default {DEFAULT_RESULTS}/)")
    return p
