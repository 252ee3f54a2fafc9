"""The command line: ``python -m ftd_lib {run,reproduce,plan,bench,report}``
(``ftd_lib/__main__.py``).

::

    python -m ftd_lib run FILE [--scale quick|paper] [--set KEY=VALUE ...] [--out DIR] \\
        [--device cpu|cuda] [--workers N] [--executor local|dask] [--force]
    python -m ftd_lib reproduce {fig3-left,fig3-right,fig4-left,fig4-right,all} \\
        --scale {quick,paper} [--runs N] [--seed S] [--out DIR] [--device cpu|cuda] \\
        [--workers N] [--executor local|dask [--scheduler tcp://HOST:PORT]] [--force] \
        [--set KEY=V1,V2,...]
    python -m ftd_lib reproduce fig4-right --scale paper --set alphas=0.001,0.002 --set lams=0,0.5
    python -m ftd_lib plan {FIGURE,all} --scale {quick,paper} [--workers N] [--out DIR]
    python -m ftd_lib bench
    python -m ftd_lib report [--results DIR]

``reproduce`` computes a figure chunk by chunk (``--workers`` chunks at once, in parallel
processes), storing each finished chunk at once, so an interrupted run (Ctrl-C, kill)
continues where it stopped when the same command is given again. It writes
``DIR/<figure>.npz`` (data and metadata), ``DIR/<figure>.json`` (metadata),
``DIR/<figure>.png`` and refreshes ``DIR/REPORT.md``. ``--executor dask`` computes the chunks on
a Dask cluster instead (:mod:`ftd_lib.repro.executors`): a local one of ``--workers`` processes,
or the one at ``--scheduler``.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import NamedTuple

from . import store
from .counts import counts_text
from .definitions import (
    FIGURES,
    check_memory,
    format_sets,
)
from .executors import EXECUTORS, DaskExecutor
from .experiment import load_experiment
from .keys import experiment_names, experiment_path
from .launch import execute, out_dir, run_command
from .options import build_parser
from .paper.study import variant_sets
from .results import results_paths
from .runs import ScaleConflict, last_session


def _check_at_most(parser, name: str, value: int | None) -> None:
    """Threads and worker processes: at most 4 per CPU (more only thrash, and each worker
    process holds its own torch)."""
    cap = 4 * (os.cpu_count() or 1)
    if value is not None and value > cap:
        parser.error(f"argument {name}: at most {cap} (4 per CPU of this machine), got {value}")


def _fail(parser, command: str, message: str) -> int:
    """A one-line error (no usage text), exit status 2."""
    print(f"{parser.prog} {command}: error: {message}", file=sys.stderr)
    return 2


def _check_device(parser, device: str | None) -> None:
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("argument --device: cuda was asked for but torch sees no CUDA device")


def main(argv=None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "bench":
        return _bench(parser, args)
    if args.command == "report":
        return _report(args)
    jobs = _jobs(parser, args)
    if isinstance(jobs, int):
        return jobs
    workers = args.workers or (1 if args.device == "cuda" else os.cpu_count() or 1)
    if args.command == "plan" or args.dry_run:
        return _plan(jobs, args, workers)
    err = _check_execution(parser, args, args.command)
    if err is not None:
        return err
    workers, executor, err = _start_executor(parser, args, args.command)
    if err is not None:
        return err
    try:
        return _execute(parser, args, jobs, workers, executor)
    finally:
        if executor is not None:
            executor.close()


class Job(NamedTuple):
    """One experiment to compute: its file, its ``--set`` items, its loaded ``figure`` and
    ``run`` (:func:`ftd_lib.repro.experiment.load_experiment`), its output folder and the
    command that resumes it."""

    path: str
    sets: list
    figure: object
    run: dict
    out: Path
    command: str


def _sets(args) -> list[str]:
    """``--set`` items with the count options (``--runs``, ``--episodes``, ``--seed``,
    ``--chunk-rows``) and a ``--variant``'s keys in front: one syntax for every command."""
    sets = [f"{k}={v}" for k, v in (("runs", args.runs), ("episodes", args.episodes),
                                     ("seed", args.seed), ("chunks.rows", args.chunk_rows))
            if v is not None]
    if args.variant is not None:
        sets += variant_sets(args.variant)
    return sets + list(args.set)


def _targets(parser, args):
    """The experiment files a command names: ``all`` (the paper's four), a name of
    ``experiments/`` or a file; an exit status when the file is not there."""
    target = args.figure if args.command != "run" else args.file
    if target == "all":
        if args.set or args.variant:
            return _fail(parser, args.command, "argument --set: changes one experiment; "
                         "name it, not 'all'")
        return [(n, str(experiment_path(n))) for n in FIGURES]
    path = experiment_path(target)
    if not path.is_file():
        what = "file" if args.command == "run" else "figure"
        return _fail(parser, args.command, f"argument {what}: no experiment file "
                     f"{str(path)!r} (names: {', '.join(experiment_names())}, or a path to a "
                     f".toml file)")
    return [(target, str(target) if args.command == "run" or target.endswith(".toml")
             else str(path))]


def _jobs(parser, args):
    """Every experiment the command names, loaded and checked before any work -- the file,
    the changes, the claims it names, the report's lines, the output folder, memory -- or an
    exit status (one line)."""
    from .paper.claims import check_claims

    targets = _targets(parser, args)
    if isinstance(targets, int):
        return targets
    sets = _sets(args)
    jobs = []
    for name, path in targets:
        try:
            fig, run = load_experiment(path, args.scale, sets)
            check_claims(fig)
            format_sets(fig.overrides)  # what the report prints of the changes
            out = out_dir(run, args.out)
            if args.command != "plan" and not getattr(args, "dry_run", False):
                store.check_writable_dir(out if args.out is None else args.out, "--out")
            check_memory(fig)
        except ValueError as e:
            return _fail(parser, args.command, str(e))
        if args.command == "reproduce":
            command = reproduce_line(name, args, out)
        else:
            command = run_command(path, args.scale, sets, args.out, args.device)
        jobs.append(Job(path, sets, fig, run, out, command))
    return jobs


def reproduce_line(name: str, args, out) -> str:
    """The ``reproduce`` command as asked for (what resumes it)."""
    cmd = f"python -m ftd_lib reproduce {name} --scale {args.scale}"
    for flag, v in (("--runs", args.runs), ("--episodes", args.episodes), ("--seed", args.seed),
                    ("--out", args.out), ("--device", args.device),
                    ("--chunk-rows", args.chunk_rows)):
        if v is not None:
            cmd += f" {flag} {shlex.quote(str(v))}"
    if args.threads != 1:
        cmd += f" --threads {args.threads}"
    if args.variant is not None:
        cmd += f" --variant {shlex.quote(args.variant)}"
    return cmd + "".join(f" --set {shlex.quote(str(s))}" for s in args.set)


def _resume(args, job: Job) -> str:
    """The command that resumes what was asked for: ``all`` if all figures were, with the
    options that matter for resuming."""
    command = job.command
    if getattr(args, "figure", None) == "all":
        command = command.replace(f" reproduce {job.figure.name} ", " reproduce all ", 1)
    for flag, v in (("--workers", args.workers), ("--scheduler", args.scheduler)):
        if v is not None:
            command += f" {flag} {v}"
    if args.executor != "local":
        command += f" --executor {args.executor}"
    return command + (" --force" if args.force else "")


def _device(args, job: Job) -> str:
    """``--device``, else :func:`ftd_lib.repro.planning.plan.default_device`."""
    if args.device is not None:
        return args.device
    from .planning.plan import default_device

    return default_device(job.figure, job.out, job.run)


def _execute(parser, args, jobs, workers, executor) -> int:
    for job in jobs:
        device = _device(args, job)
        usual = "cpu" if args.command == "reproduce" else job.run["device_kind"]
        if args.device is None and device != usual:  # what resumes it reads the same chunks
            job = job._replace(command=job.command + f" --device {device}")
        kw = dict(seed=job.run["seed"], device=device, progress=not args.no_progress,
                  force=args.force, workers=workers, threads=args.threads, executor=executor)
        final_s = 0.0 if args.no_progress or not job.figure.two_stage else \
            _final_stage_s(job, device, workers)
        try:
            res = execute(job.figure, job.out, command=job.command, final_s=final_s, **kw)
        except ScaleConflict as e:
            return _fail(parser, args.command, str(e))
        except KeyboardInterrupt:
            chunk_dir = results_paths(job.figure.name, job.out)["chunks"]
            print(f"\ninterrupted: {job.figure.name}: pieces finished and stored: "
                  f"{len(store.ChunkStore(chunk_dir).keys())}, under {chunk_dir}; run\n    "
                  f"{_resume(args, job)}\nto resume.", file=sys.stderr)
            return 130
        print(session_line(res, job.out))
    from .report import write_report

    for out in dict.fromkeys(j.out for j in jobs):
        print(f"report: {write_report(out)}")
    return 0


def session_line(res, out) -> str:
    """What a run did, in one line: runs, episodes, the chunks loaded and computed and the
    pieces computed (:func:`ftd_lib.repro.counts.counts_text`, as ``REPORT.md`` says them),
    wall seconds, the files written."""
    m = last_session(res.meta)
    paths = results_paths(res.figure, out)
    return (f"{res.figure}: {m['runs']} runs x {m['episodes']} episodes, "
            f"{counts_text(m['chunks'])}, {m['elapsed_s']:.1f} s -> {paths['npz']}, "
            f"{paths['png']}")


def _check_execution(parser, args, command: str):
    """The execution options checked before any work: an exit status, or None when they hold."""
    _check_device(parser, args.device)
    _check_at_most(parser, "--threads", args.threads)
    _check_at_most(parser, "--workers", args.workers)
    if args.scheduler is not None and args.executor != "dask":
        return _fail(parser, command, f"argument --scheduler: only with --executor dask "
                     f"(--executor {args.executor} given; choose from {', '.join(EXECUTORS)})")
    if args.scheduler is not None and args.workers is not None:
        return _fail(parser, command, "argument --workers: the cluster at --scheduler has "
                     "its own workers (dask worker ... --nworkers N)")
    return None


def _start_executor(parser, args, command: str):
    """``(workers, executor, error)``: the worker count and a started Dask executor where one
    was asked for (a scheduler is reached now, before any work), or an exit status in
    ``error``."""
    # torch reads OMP_NUM_THREADS when it is first imported (by the engine, later); if it is
    # already loaded, set its thread count directly
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(args.threads)
    workers = args.workers or (1 if args.device == "cuda" else os.cpu_count() or 1)
    executor = None
    if args.executor == "dask":
        try:
            executor = DaskExecutor(args.scheduler, threads=args.threads, name="--scheduler",
                                    workers=None if args.scheduler else workers)
            if args.scheduler:
                executor.start()
        except ValueError as e:
            return None, None, _fail(parser, command, f"argument {e}")
    return workers, executor, None


def _final_stage_s(job: Job, device: str, workers: int) -> float:
    """The final stage's predicted wall time, its widenings included (this machine's last
    calibration, else the defaults), for the pilot's ETA."""
    from .planning.cost import Costing, history_dirs
    from .planning.plan import plan_experiment

    stages = plan_experiment(job.figure, job.out, workers, Costing(None, history_dirs(job.out)),
                             seed=job.run["seed"], device=device).stages
    return sum(s.wall_s for s in stages if s.name.startswith("final"))


def _plan(jobs, args, workers: int) -> int:
    """``plan`` (and ``run``/``reproduce --dry-run``): the plan
    (:mod:`ftd_lib.repro.planning.plan`) for the experiments and options the command would be
    given."""
    from .planning.calibrate import calibrate, stored_rate_lines
    from .planning.cost import (
        Costing,
        calibration_code,
        fresh_rates,
        history_dirs,
        machine_rates,
        save_rates,
    )
    from .planning.plan import methods_to_calibrate, plan_experiment, plan_lines

    if args.no_calibrate:
        rates = machine_rates()
    else:
        pred, ctrl, engines = methods_to_calibrate([j.figure for j in jobs])
        code = calibration_code(pred, ctrl, engines)
        rates, why = (None, "--recalibrate") if getattr(args, "recalibrate", False) else \
            fresh_rates(code, pred, ctrl, engines)
        if rates is not None and (workers < 2 or str(workers) in rates.slowdown
                                  or workers > (os.cpu_count() or 1)):
            print(f"calibration {why}", file=sys.stderr, flush=True)
        else:
            why = why or f"none for {workers} workers"
            print(f"calibrating on this machine (a few seconds a method; {why}) ...",
                  file=sys.stderr, flush=True)
            rates = calibrate(pred, ctrl, worker_start=workers > 1, workers=workers,
                              engines=engines)
            if workers <= (os.cpu_count() or 1):  # (a start measured with as many processes)
                save_rates(rates, code=code)  # the progress bars' ETA uses them
    plans, devices, notes = [], [], set()
    for job in jobs:
        devices.append(_device(args, job))
        costing = Costing(rates, history_dirs(job.out))
        plans.append(plan_experiment(job.figure, job.out, workers, costing,
                                     seed=job.run["seed"], device=devices[-1]))
        notes |= costing.notes
    outs = ", ".join(dict.fromkeys(str(j.out) for j in jobs))
    # (a file beyond the paper has no paper scale: its "paper" scale is its own counts)
    scale = ("the file's counts" if args.scale == "paper"
             and not any(j.figure.paper_counts for j in jobs) else f"{args.scale} scale")
    print(f"plan: {' '.join(j.figure.name for j in jobs)} at {scale} on {workers} "
          f"workers, --out {outs}, chunks of device {', '.join(sorted(set(devices)))}; "
          f"seconds: {rates.source}")
    for line in plan_lines(plans, chunks=not args.summary, rates=rates, notes=notes):
        print(line)
    for line in stored_rate_lines(rates):
        print(line)
    return 0


def _bench(parser, args) -> int:
    _check_device(parser, args.device)
    _check_at_most(parser, "--threads", args.threads)
    threads = 1 if args.threads is None else args.threads
    if args.kernel:
        from ..engine.bench import kernel_lines

        for line in kernel_lines(quick=args.quick, repeats=1 if args.quick else 5):
            print(line, flush=True)
        return 0
    from ..engine.bench import run_bench

    for line in run_bench(device=args.device or "cpu", threads=threads, quick=args.quick):
        print(line, flush=True)
    return 0


def _report(args) -> int:
    from .report import write_report

    if not os.path.isdir(args.results):
        what = "not a directory" if os.path.exists(args.results) else "no such directory"
        print(f"error: argument --results: {what}: {args.results}", file=sys.stderr)
        return 2
    print(write_report(args.results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
