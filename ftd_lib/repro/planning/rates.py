r"""The seconds of this machine that a plan prices chunks with (:class:`Rates`): measured by
:mod:`~ftd_lib.repro.planning.calibrate`, kept per code digest of what they measured in the
user's cache (:func:`save_rates`, :func:`fresh_rates`: reused for a day while that code is
unchanged), the defaults of the machine this was written on otherwise (:data:`DEFAULT_RATES`,
:func:`machine_rates`). What a chunk costs with them: :mod:`~ftd_lib.repro.planning.cost`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Rates:
    """Seconds on one machine. ``prediction[method] = (a, b, ipe)``: seconds per batch
    iteration, seconds per row and iteration, batch iterations per episode;
    ``control[method]``: seconds per run-step of the compiled kernel; ``chunk_s[task kind]``:
    fixed seconds per chunk; ``worker_start_s``: a worker process's start; ``source``: where the
    numbers come from."""

    prediction: dict = field(default_factory=dict)
    control: dict = field(default_factory=dict)
    chunk_s: dict = field(default_factory=dict)
    worker_start_s: float = 0.0
    source: str = ""
    #: control, per ``"engine/method/task"`` (:func:`engine_key`): ``(a, b)``, seconds per
    #: batch iteration and per run-step (the kernel and the reference: ``a = 0``)
    engines: dict = field(default_factory=dict)
    #: the command's own process, start to exit: the interpreter, the command line's imports
    #: and the engine's (torch; a chunk's identity names the engine's numerics version, so
    #: every command that runs a figure imports it, whoever computes the chunks)
    startup_s: float = 2.4
    #: a first chunk in the command's own process (the compiled code loaded, the evaluation
    #: states built), where it computes the chunks itself (one worker, or one chunk)
    engine_load_s: float = 1.0
    #: the pictures, drawn in the command's own process after each stage that computed
    #: chunks: matplotlib's import (once) and one figure's drawing and saving
    plot_load_s: float = 0.5
    draw_s: float = 0.15
    #: ``{workers: factor}``: how much slower each of that many processes runs when they run
    #: at once (a busy or shared machine, cores shared): N workers started at once against
    #: one (:func:`calibrate_worker_start`); 1 where not measured
    slowdown: dict = field(default_factory=dict)
    #: ``{workers: seconds}``: :attr:`worker_start_s` measured with that many processes at
    #: once (a calibration for one worker count never stands for another's)
    worker_starts: dict = field(default_factory=dict)
    #: ``{"engine/method/task": seconds}`` (:func:`engine_key`): the first chunk of a
    #: (method, task) pair in a fresh process beyond its compute -- the compiled pair loaded
    #: from numba's cache (the extension point's generated module), its code digested --
    #: paid once by every process that computes the pair (:func:`pair_key`)
    pair_load_s: dict = field(default_factory=dict)
    #: the command's bookkeeping in its own process: the code digests of the chunks'
    #: identities (every command that runs a figure), and the stored history the costing
    #: reads (a command that computes control chunks)
    digest_s: float = 0.0
    history_s: float = 0.0
    #: ``{task kind: seconds}``: a process's first chunk of a kind (``prediction``,
    #: ``control``) beyond a warm one, the engine imported -- its first compiled or torch code
    #: loaded, what it builds once -- and ``engine_import_s``: the engine's import in a fresh
    #: process started as a worker is (torch imported). A plan's wall counts them in the
    #: workers' start; a piece's own clock measures them, so the plan's compute counts them
    #: once a process (:func:`~ftd_lib.repro.planning.schedule.stage_compute`)
    kind_load_s: dict = field(default_factory=dict)
    engine_import_s: float = 0.0

    @property
    def calibrated(self) -> bool:
        """Whether these seconds were measured on this machine: not the stored defaults of
        the machine this was written on (:data:`DEFAULT_RATES`), which know neither a new
        method's speed nor the compiling of its code, so a plan priced with them says
        :data:`NO_CALIBRATION` instead of seconds."""
        return not self.source.startswith("defaults")

    def parallel(self, workers: int) -> float:
        """The :attr:`slowdown` of ``workers`` processes at once (1 for one)."""
        return float(self.slowdown.get(str(int(workers)), 1.0)) if workers > 1 else 1.0

    def start(self, workers: int) -> float:
        """Seconds until ``workers`` worker processes started at once are ready
        (:attr:`worker_starts`, else :attr:`worker_start_s`)."""
        return float(self.worker_starts.get(str(int(workers)), self.worker_start_s))

    def pair_load(self, key: str) -> float:
        """:attr:`pair_load_s` of a pair (0 where not measured)."""
        return float(self.pair_load_s.get(key, 0.0))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, d: dict) -> Rates:
        """Rates from their JSON form (:func:`dataclasses.asdict`, as :func:`save_rates` and
        ``scripts/plan_accuracy.py --store`` keep them): fields unknown here left out."""
        r = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**{**r, "prediction": {k: tuple(v) for k, v in r["prediction"].items()},
                      "engines": {k: tuple(v) for k, v in r.get("engines", {}).items()}})


#: measured on the machine this was written on (2 shared AMD EPYC cores, one torch thread,
#: float64; prediction by :func:`calibrate` at a quiet moment; the command's own process --
#: :attr:`Rates.startup_s` to :attr:`Rates.draw_s`, the fields' defaults -- at load 0.1-3):
#: what the plan and the progress bars' ETA use when this machine was never calibrated
#: (:func:`machine_rates`)
DEFAULT_RATES = Rates(
    prediction={"td0": (2.6e-4, 5.0e-6, 110.0), "td_lambda": (2.6e-4, 5.5e-6, 110.0),
                "forward_td_lambda": (3.6e-4, 3.5e-6, 111.0),
                "online_lambda_return": (1.5e-4, 1.4e-6, 6010.0),
                "offline_lambda_return": (2.6e-4, 3.6e-6, 217.0),
                "block_lambda_return": (3.7e-4, 2.0e-6, 211.0)},
    # control: the median compute_s / iterations of the kernel's chunks stored under results/
    # (stored_step_seconds; 38 chunks on this CPU): about 1.0 us a run-step
    control={"sarsa_lambda": 1.04e-6, "forward_sarsa_lambda": 0.99e-6},
    chunk_s={"prediction": 0.15, "control": 0.01}, worker_start_s=2.5,
    source="defaults (2 shared AMD EPYC cores)")


#: what a plan, its progress bar and the plan a run stores say for seconds where this machine was
#: never calibrated (:attr:`Rates.calibrated`)
NO_CALIBRATION = ("unknown (no calibration on this machine: `python -m ftd_lib plan FILE` "
                  "measures it, a few seconds a method, and keeps it)")


def rates_path() -> Path:
    """Where the last calibration of this machine is kept: ``$XDG_CACHE_HOME`` (default
    ``~/.cache``) ``/ftd_lib/rates.json``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ftd_lib" / "rates.json"


def _machine_id() -> dict:
    from ..store import machine_description

    m = machine_description()
    return {"cpu": m["cpu"], "cpu_count": m["cpu_count"], "platform": m["platform"]}


def save_rates(rates: Rates, path=None, code: str | None = None) -> Path:
    """Keep ``rates`` as this machine's (the progress bar's ETA reads them back), with when
    they were measured and ``code``, the digest of the code they timed
    (:func:`calibration_code`).

    The file keeps this machine's fresh calibrations of other code too (``by_code``: those
    under :data:`CALIBRATION_FRESH_S` old), so a researcher who plans two experiments in turn
    measures each once; its ``rates`` (what :func:`machine_rates` reads: the run's ETA and
    its stored plan) are all of them merged, the newest's wherever two measured the same."""
    import time

    from ..store import atomic_write_json

    path = Path(path or rates_path())
    now = time.time()
    by_code = {}
    try:
        old = json.loads(path.read_text())
        if isinstance(old, dict) and old.get("machine") == _machine_id():
            by_code = {k: v for k, v in (old.get("by_code") or {}).items()
                       if isinstance(v, dict) and k != str(code)
                       and 0 <= now - float(v.get("saved") or 0.0) <= CALIBRATION_FRESH_S}
    except (OSError, ValueError, TypeError):
        pass
    by_code[str(code)] = {"rates": asdict(rates), "saved": now}
    return atomic_write_json(path, {"machine": _machine_id(), "rates": _merged(by_code),
                                    "saved": now, "code": code, "by_code": by_code})


#: the fields of :class:`Rates` that map a method, task, engine or worker count to seconds
#: (merged across calibrations); the others are one number, the newest calibration's
_PER_KEY = ("prediction", "control", "chunk_s", "engines", "slowdown", "worker_starts",
            "pair_load_s", "kind_load_s")


def _merged(by_code: dict) -> dict:
    """The calibrations ``by_code`` as one: every method's, task's and engine's seconds, the
    newest's where two measured the same; the newest's single numbers (start-up, ...)."""
    entries = sorted(by_code.values(), key=lambda v: float(v.get("saved") or 0.0))
    out = dict(entries[-1]["rates"])
    for k in _PER_KEY:
        out[k] = {}
        for e in entries:
            out[k].update(e["rates"].get(k) or {})
    return out


#: how long a calibration is reused by ``plan`` and ``--dry-run`` (same machine, same code)
CALIBRATION_FRESH_S = 24 * 3600.0


def calibration_code(prediction=(), control=(), engines=()) -> str:
    """The digest of the code a calibration of these methods times
    (:func:`ftd_lib.repro.code.code_files` of each, with their tasks): a changed engine,
    method or task is measured again."""
    from ..code import code_files, digest_of

    files: dict = {}
    for m in prediction:
        files.update(code_files("prediction", m, "mountain_car"))
    for m, env in control:
        files.update(code_files("control", m, env))
    for _e, m, env, _params in engines:
        files.update(code_files("control", m, env))
    return digest_of(files)


def fresh_rates(code: str, prediction=(), control=(), engines=(), path=None,
                max_age_s: float = CALIBRATION_FRESH_S) -> tuple[Rates | None, str]:
    """This machine's saved calibration when it can stand for a new one: the same machine
    and code (``code``, :func:`calibration_code`), under ``max_age_s`` old, covering every
    method and engine asked for, and measuring a worker's first chunk of each kind
    (:attr:`Rates.kind_load_s`). ``(rates, "")``, or ``(None, why not)``."""
    import time

    try:
        saved = json.loads(Path(path or rates_path()).read_text())
    except (OSError, ValueError):
        return None, "no calibration saved on this machine"
    if not isinstance(saved, dict) or saved.get("machine") != _machine_id():
        return None, "the saved calibration is another machine's"
    mine = (saved.get("by_code") or {}).get(code)  # (a file of before by_code: its one code)
    if mine is None and saved.get("code") == code:
        mine = saved
    if not isinstance(mine, dict):
        return None, "the code changed since the saved calibration"
    age = time.time() - float(mine.get("saved") or 0.0)
    if not 0 <= age <= max_age_s:
        return None, f"the saved calibration is {age / 3600:.0f} h old"
    r = machine_rates(path)
    if not (set(prediction) <= set(r.prediction) and {m for m, _ in control} <= set(r.control)
            and {engine_key(e, m, env) for e, m, env, _ in engines} <= set(r.engines)):
        return None, "the saved calibration does not cover these methods"
    if not r.kind_load_s:  # (saved before they were measured: the compute would be short)
        return None, "the saved calibration does not measure a worker's first chunks"
    return r, f"reused from {age:.0f} s ago (same machine and code; --recalibrate measures again)"


def machine_rates(path=None) -> Rates:
    """The rates last calibrated on this machine (:func:`save_rates`), else
    :data:`DEFAULT_RATES`."""
    try:
        saved = json.loads(Path(path or rates_path()).read_text())
        if saved["machine"] == _machine_id():
            return Rates.from_json(saved["rates"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return DEFAULT_RATES


def engine_key(engine: str, method: str, env: str) -> str:
    """The key of a control pair's rates in :attr:`Rates.engines`: ``"engine/method/task"``."""
    return f"{engine}/{method}/{env}"
