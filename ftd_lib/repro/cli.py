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

import argparse
import os
import sys

from . import store
from .definitions import (
    DEFAULT_SEED,
    FIGURES,
    SCALES,
    STUDIES,
    check_memory,
    figure,
    parse_sets,
)
from .executors import EXECUTORS, DaskExecutor
from .protocol import run_protocol, two_stage
from .results import DEFAULT_RESULTS, reproduce_command, results_paths
from .runs import ScaleConflict, run_figure
from .study import VARIANT_NAMES


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ftd_lib",
        description="Reproduce van Seijen (2016), Figs. 3-4: forward TD(lambda) with neural "
                    "networks.")
    sub = p.add_subparsers(dest="command", required=True, metavar="command",
                           title="commands (run, reproduce, plan, bench, report)")

    r = sub.add_parser("reproduce", help="compute a figure's data and picture (resumable)",
                       description="Compute (or resume) the data and PNG of a paper figure.")
    r.add_argument("figure", choices=[*FIGURES, *STUDIES, "all"],
                   help="which figure ('all': the paper's four; the studies beyond the "
                        "paper: block-lambda, claim5-study)")
    r.add_argument("--scale", choices=SCALES, required=True,
                   help="quick: seconds, few runs and episodes; paper: the paper's counts")
    r.add_argument("--runs", type=_positive_int, default=None,
                   help="number of independent runs (default: the scale's)")
    r.add_argument("--episodes", type=_positive_int, default=None,
                   help="episodes per run (default: the scale's; fewer than the paper's is "
                        "recorded as below paper scale)")
    r.add_argument("--seed", type=_seed, default=DEFAULT_SEED,
                   help=f"experiment seed (default {DEFAULT_SEED})")
    r.add_argument("--out", default=DEFAULT_RESULTS,
                   help=f"results directory (default {DEFAULT_RESULTS}/)")
    r.add_argument("--device", choices=("cpu", "cuda"), default=None,
                   help="torch device (default: the device the figure's file names where all "
                        "its chunks from that device are in --out -- Fig. 3 left's, made on "
                        "a GPU, are read on any machine -- else cpu)")
    r.add_argument("--workers", type=_positive_int, default=None,
                   help="chunks computed at once, each in its own process (default: the "
                        "number of CPUs, os.cpu_count(); 1 with --device cuda); the numbers "
                        "are the same for any number of workers")
    r.add_argument("--threads", type=_positive_int, default=1,
                   help="torch CPU threads per worker (default 1: on a shared or busy machine "
                        "more threads than free cores slow torch down many times)")
    r.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="where the chunks are computed: local (this machine, --workers "
                        "processes; default) or dask (a Dask cluster: a local one of --workers "
                        "processes, or the one at --scheduler); the numbers are the same")
    r.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="with --executor dask: the address of a running Dask scheduler (dask "
                        "scheduler; dask worker tcp://HOST:PORT --nthreads 1 on each machine)")
    r.add_argument("--chunk-rows", type=_positive_int, default=None,
                   help="most rows (settings x runs) per chunk (default: the figure's, sized "
                        "for a CPU; on a GPU try 20000)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="change one figure's definition: methods=..., alphas=..., lams=... "
                        "(repeatable; the resume command, the two stages of Fig. 4 and the "
                        "overwrite guard follow it)")
    r.add_argument("--variant", choices=VARIANT_NAMES, default=None,
                   help="fig4-left only: a set-up variant of the claim-5 study "
                        "(ftd_lib.repro.study); use its own --out folder")
    r.add_argument("--force", action="store_true",
                   help="allow replacing paper-scale data with a smaller run")
    r.add_argument("--no-progress", action="store_true", help="no progress bars")

    r.add_argument("--dry-run", action="store_true",
                   help="print the plan (chunks, predicted seconds, wall time on --workers) "
                        "and stop: nothing is computed or written")
    r.add_argument("--no-calibrate", action="store_true",
                   help="with --dry-run: seconds from this machine's last calibration (or "
                        "the stored defaults), not measured now")
    r.add_argument("--summary", action="store_true",
                   help="with --dry-run: no chunk lists, only the stages")

    x = sub.add_parser("run", help="compute an experiment file's data and picture (resumable)",
                       description="Compute (or resume) the experiment an experiment file "
                                   "(TOML, experiments/README.md) declares.")
    x.add_argument("file", help="the experiment file, e.g. experiments/fig4-right.toml")
    x.add_argument("--scale", choices=SCALES, default="paper",
                   help="paper: the file's counts (default); quick: what its [quick] changes")
    x.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="change any key of the file: runs=5, task.gamma=0.99, "
                        "grid.alphas=0.01,0.02, network.activation=sigmoid, curves.1.eta=0.1 "
                        "(repeatable)")
    x.add_argument("--out", default=None,
                   help=f"results directory (default: the file's out, else {DEFAULT_RESULTS}/)")
    x.add_argument("--device", choices=("cpu", "cuda"), default=None,
                   help="torch device (default: the file's chunks.device, else cpu)")
    for a in r._actions:  # the same execution options as reproduce
        if a.dest in ("workers", "threads", "executor", "scheduler", "force", "no_progress"):
            x._add_action(a)

    pl = sub.add_parser("plan", help="the chunks still to compute, their predicted cost and "
                                     "the wall time on N workers (nothing is computed)",
                        description="Print, before any work, the chunks of every stage of a "
                                    "reproduction, their predicted run-steps and seconds and "
                                    "the predicted wall time and utilisation on N workers.")
    pl.add_argument("figure", choices=[*FIGURES, *STUDIES, "all"])
    pl.add_argument("--scale", choices=SCALES, required=True)
    pl.add_argument("--workers", type=_positive_int, default=None,
                    help="workers (default: the number of CPUs)")
    pl.add_argument("--out", default=DEFAULT_RESULTS,
                    help="the results directory the reproduction would use (what is stored "
                         "there is not computed again)")
    for a in r._actions:  # what reproduce computes, planned with the same options
        if a.dest in ("runs", "episodes", "seed", "device", "chunk_rows", "set", "variant"):
            pl._add_action(a)
    pl.add_argument("--no-calibrate", action="store_true",
                    help="seconds from this machine's last calibration (or the stored "
                         "defaults), not measured now")
    pl.add_argument("--summary", action="store_true", help="no chunk lists, only the stages")

    b = sub.add_parser("bench", help="time the engine (steps per second)",
                       description="Print the engine's benchmark lines.")
    b.add_argument("--device", choices=("cpu", "cuda"), default=None,
                   help="torch device of the engine (default cpu)")
    b.add_argument("--threads", type=_positive_int, default=None,
                   help="torch CPU threads while measuring (default 1: per core)")
    b.add_argument("--quick", action="store_true",
                   help="tiny sizes: a smoke test, the numbers mean nothing")

    rep = sub.add_parser("report", help="write REPORT.md from the stored results",
                         description="Generate REPORT.md from the stored data.")
    rep.add_argument("--results", default=DEFAULT_RESULTS,
                     help=f"results directory (default {DEFAULT_RESULTS}/)")
    return p


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


def _resume_command(args, name: str, command: str) -> str:
    """The command that resumes what was asked for: ``all`` if all figures were, with the
    options that matter for resuming."""
    if args.figure == "all":
        command = command.replace(f" reproduce {name} ", " reproduce all ", 1)
    if getattr(args, "workers", None) is not None:
        command += f" --workers {args.workers}"
    if getattr(args, "executor", "local") != "local":
        command += f" --executor {args.executor}"
    if getattr(args, "scheduler", None):
        command += f" --scheduler {args.scheduler}"
    if args.force:
        command += " --force"
    return command


def _check_device(parser, device: str | None) -> None:
    if device == "cuda":
        import torch

        if not torch.cuda.is_available():
            parser.error("argument --device: cuda was asked for but torch sees no CUDA device")


def main(argv=None) -> int:
    os.environ.setdefault("MPLBACKEND", "Agg")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        return _reproduce(parser, args)
    if args.command == "run":
        return _run(parser, args)
    if args.command == "bench":
        return _bench(parser, args)
    if args.command == "plan":
        return _plan(parser, args, args.workers or os.cpu_count() or 1)
    return _report(args)


def _figures(parser, args, command: str):
    """``(names, figures, grid, error)``: the figures ``reproduce`` (or ``plan``) computes
    with their definitions, before any work -- the changes, counts that cannot fit in
    memory -- or an exit status in ``error``."""
    names = FIGURES if args.figure == "all" else (args.figure,)
    if args.set and args.figure == "all":
        return names, None, None, _fail(parser, command, "argument --set: changes one "
                                        "figure's definition; name the figure, not 'all'")
    try:
        grid = parse_sets(args.set)
        figs = {name: figure(name, args.scale, runs=args.runs, episodes=args.episodes,
                               chunk_rows=args.chunk_rows, variant=args.variant,
                               grid=grid)
                for name in names}
    except ValueError as e:
        return names, None, None, _fail(parser, command, f"argument {e}")
    return names, figs, grid, None


def _device(args, name: str, grid) -> str:
    """``--device``, else :func:`ftd_lib.repro.plan.stored_device`: the device whose chunks
    of the figure are all in ``--out`` (read, not computed again), else cpu."""
    if args.device is not None:
        return args.device
    from .plan import stored_device

    return stored_device(name, args.scale, **_plan_options(args, grid))


def _reproduce(parser, args) -> int:
    if args.dry_run:  # the plan for any number of workers, on this machine or another
        return _plan(parser, args, args.workers or os.cpu_count() or 1)
    err = _check_execution(parser, args, "reproduce")
    if err is not None:
        return err
    try:  # before any work: the output folder
        store.check_writable_dir(args.out, "--out")
    except ValueError as e:
        return _fail(parser, "reproduce", f"argument {e}")
    names, figs, grid, err = _figures(parser, args, "reproduce")
    if err is not None:
        return err
    workers, executor, err = _start_executor(parser, args, "reproduce")
    if err is not None:
        return err
    try:
        return _reproduce_figures(parser, args, names, figs, grid, workers, executor)
    finally:
        if executor is not None:
            executor.close()


def _reproduce_figures(parser, args, names, figs, grid, workers, executor) -> int:
    for name in names:
        fig = figs[name]
        device = _device(args, name, grid)
        command = reproduce_command(name, args.scale, args.out, runs=args.runs,
                                      seed=args.seed, device=device,
                                      chunk_rows=args.chunk_rows, episodes=args.episodes,
                                      grid=fig.overrides)
        if args.threads != 1:
            command += f" --threads {args.threads}"
        if args.variant is not None:
            command += f" --variant '{args.variant}'"
        kw = dict(seed=args.seed, device=device, progress=not args.no_progress,
                  force=args.force, workers=workers, threads=args.threads, executor=executor)
        try:
            if two_stage(fig) and args.episodes is None and args.chunk_rows is None:
                # control at paper scale: pilot over the full grid, then 200 runs around
                # each curve's best step size (ftd_lib.repro.protocol)
                res = run_protocol(name, args.out, runs=args.runs, variant=args.variant,
                                   grid=grid, command=command,
                                   final_s=_final_stage_s(args, name, grid, device, workers),
                                   **kw)
            else:
                res = run_figure(fig, args.out, command=command, **kw)
        except ScaleConflict as e:
            parser.error(str(e))
        except KeyboardInterrupt:
            n = len(store.ChunkStore(results_paths(name, args.out)["chunks"]).keys())
            print(f"\ninterrupted: {name}: chunks finished and stored: {n}, under "
                  f"{results_paths(name, args.out)['chunks']}; run\n    "
                  f"{_resume_command(args, name, command)}\nto resume.",
                  file=sys.stderr)
            return 130
        m = res.meta
        paths = results_paths(name, args.out)
        print(f"{name}: {m['runs']} runs x {m['episodes']} episodes, {m['chunks']['computed']} "
              f"chunks computed, {m['chunks']['loaded']} loaded, {m['elapsed_s']:.1f} s -> "
              f"{paths['npz']}, {paths['png']}")
    from .report import write_report

    print(f"report: {write_report(args.out)}")
    return 0


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


def _executor(parser, args, command: str):
    """:func:`_check_execution`, then :func:`_start_executor`."""
    err = _check_execution(parser, args, command)
    return (None, None, err) if err is not None else _start_executor(parser, args, command)


def _run(parser, args) -> int:
    """``run FILE``: an experiment file through :func:`ftd_lib.repro.launch.run_experiment`."""
    from .claims import check_claims
    from .experiment import load_experiment
    from .launch import out_dir, run_command, run_experiment

    try:  # before any work: the file, the changes, the output folder, memory
        fig, run = load_experiment(args.file, args.scale, args.set)
        check_claims(fig)
        out = out_dir(run, args.out)
        store.check_writable_dir(out, "--out")
        check_memory(fig)
    except ValueError as e:
        return _fail(parser, "run", str(e))
    workers, executor, err = _executor(parser, args, "run")
    if err is not None:
        return err
    command = run_command(args.file, args.scale, args.set, args.out, args.device)
    try:
        res = run_experiment(args.file, args.scale, args.set, args.out, device=args.device,
                             command=command, progress=not args.no_progress,
                             force=args.force, workers=workers, threads=args.threads,
                             executor=executor)
    except ScaleConflict as e:
        return _fail(parser, "run", str(e))
    except KeyboardInterrupt:
        n = len(store.ChunkStore(results_paths(fig.name, out)["chunks"]).keys())
        print(f"\ninterrupted: {fig.name}: chunks finished and stored: {n}, under "
              f"{results_paths(fig.name, out)['chunks']}; run\n    {command}"
              + (f" --workers {args.workers}" if args.workers else "") + "\nto resume.",
              file=sys.stderr)
        return 130
    finally:
        if executor is not None:
            executor.close()
    m = res.meta
    paths = results_paths(fig.name, out)
    print(f"{fig.name}: {m['runs']} runs x {m['episodes']} episodes, {m['chunks']['computed']} "
          f"chunks computed, {m['chunks']['loaded']} loaded, {m['elapsed_s']:.1f} s -> "
          f"{paths['npz']}, {paths['png']}")
    from .report import write_report

    print(f"report: {write_report(out)}")
    return 0




def _plan_options(args, grid) -> dict:
    """:func:`ftd_lib.repro.plan.plan_figure`'s figure options from ``reproduce``'s (or
    ``plan``'s) arguments."""
    return dict(out=args.out, seed=args.seed, runs=args.runs, episodes=args.episodes,
                chunk_rows=args.chunk_rows, variant=args.variant, grid=grid)


def _final_stage_s(args, name: str, grid, device: str, workers: int) -> float:
    """The final stage's predicted wall time, its widenings included (this machine's last
    calibration, else the defaults), for the pilot's ETA; 0 when there is no bar."""
    if args.no_progress:
        return 0.0
    from .cost import Costing, history_dirs
    from .plan import plan_figure

    stages = plan_figure(name, "paper", workers, Costing(None, history_dirs(args.out)),
                         device=device, **_plan_options(args, grid)).stages
    return sum(s.wall_s for s in stages if s.name.startswith("final"))


def _plan(parser, args, workers: int) -> int:
    """``plan`` (and ``reproduce --dry-run``): the plan of :mod:`ftd_lib.repro.plan`, for
    the figures and options ``reproduce`` would be given."""
    from .cost import Costing, calibrate, history_dirs, machine_rates, save_rates
    from .plan import methods_to_calibrate, plan_figure, plan_lines

    names, _figs, grid, err = _figures(parser, args, args.command)
    if err is not None:
        return err
    if getattr(args, "no_calibrate", False):
        rates = machine_rates()
    else:
        print("calibrating on this machine (a few seconds a method) ...", file=sys.stderr,
              flush=True)
        pred, ctrl = methods_to_calibrate(names, args.scale)
        rates = calibrate(pred, ctrl, worker_start=workers > 1, workers=workers)
        if workers <= (os.cpu_count() or 1):  # (a start measured with as many processes)
            save_rates(rates)  # the progress bars' ETA uses them
    costing = Costing(rates, history_dirs(args.out))
    devices = {n: _device(args, n, grid) for n in names}
    plans = [plan_figure(n, args.scale, workers, costing, device=devices[n],
                         **_plan_options(args, grid)) for n in names]
    on = sorted(set(devices.values()))
    print(f"plan: {' '.join(names)} at {args.scale} scale on {workers} workers, --out "
          f"{args.out}, chunks of device {', '.join(on)}; seconds: {rates.source}")
    for line in plan_lines(plans, chunks=not getattr(args, "summary", False)):
        print(line)
    _print_stored_rates(rates)
    return 0


def _print_stored_rates(rates) -> None:
    """The control kernel's seconds per run-step in the stored chunks made on this CPU beside
    the rates used (a busy machine calibrates slow)."""
    from .cost import COMMITTED_STORES, stored_step_seconds
    from .store import machine_description

    stored = stored_step_seconds(COMMITTED_STORES,
                                 machine_description()["cpu"])
    for m, (s, n) in sorted(stored.items()):
        used = rates.control.get(m)
        print(f"check: {m} {1e6 * s:.2f} µs a run-step in {n} stored chunks made on this CPU"
              + (f", {1e6 * used:.2f} µs in the rates used" if used else ""))


def _bench(parser, args) -> int:
    _check_device(parser, args.device)
    _check_at_most(parser, "--threads", args.threads)
    from ..engine.bench import run_bench

    threads = 1 if args.threads is None else args.threads
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
