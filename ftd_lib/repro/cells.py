r"""A figure as cells: :class:`Cell` (one setting: method, :math:`\alpha`, :math:`\lambda`,
:math:`\gamma`, :math:`\eta`, :math:`K_{max}`) and :class:`Figure` (its cells, runs, episodes,
task and how it is cut into chunks), with the constants every definition shares (:data:`ETA`,
:data:`EPSILON`, the geometric grids of :func:`_geom`). The figures themselves are defined in
:mod:`ftd_lib.repro.definitions` (the paper's) and :mod:`ftd_lib.repro.paper.study` (the claim-5
study).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

#: epsilon-greedy exploration of both control tasks (Sec. 6).
EPSILON = 0.05
#: a prediction figure's epsilon (none): one object, so that equal figures compare equal
NO_EPSILON = float("nan")
#: eta of every forward method unless a curve says otherwise (Sec. 6).
ETA = 0.01

# gamma and the episode caps of the two tasks: the task registry, ftd_lib.envs.tasks


def _geom(centre: float, lo: int, hi: int, ratio: float) -> tuple[float, ...]:
    """centre * ratio**k for k = lo..hi, rounded to 6 significant digits (so ids are stable)."""
    return tuple(float(f"{centre * ratio ** k:.6g}") for k in range(lo, hi + 1))


def network_only(variant: dict) -> bool:
    """Whether a set-up (a variant's spec) changes only the network (units, activation,
    init), which every engine takes (``run_control``), not mountain car's inputs or start
    states (the kernel's alone)."""
    return (variant.get("inputs", "symmetric"), variant.get("start", "bottom")) == (
        "symmetric", "bottom")


# ----------------------------------------------------------------------------- definitions


@dataclass(frozen=True)
class Cell:
    """One setting of a figure: computed for every run id ``0 .. runs-1``.

    ``curve`` is the line of the figure the cell belongs to; ``k_max = None`` means no cap;
    ``variant`` names a set-up variant of ``Figure.variants`` ("": the figure's own set-up);
    ``params`` the method's own parameters (its row's ``params`` in :mod:`ftd_lib.methods`)
    as sorted ``(name, value)`` pairs (``()``: none).
    """

    method: str
    alpha: float
    lam: float
    gamma: float
    eta: float = ETA
    k_max: int | None = None
    curve: str = ""
    variant: str = ""
    params: tuple = ()

    def row(self) -> list[float]:
        """The engine's settings row: alpha, lam, gamma, eta, k_max (0 = no cap)."""
        return [self.alpha, self.lam, self.gamma, self.eta, float(self.k_max or 0)]


@dataclass(frozen=True)
class Figure:
    """A paper figure at one scale: what to compute, and how to cut it into chunks."""

    name: str
    scale: str
    title: str
    task: str  # "prediction" | "control"
    env: str  # "mountain_car" | "cartpole"
    x: str  # "alpha" | "lam": the figure's x axis
    cells: tuple[Cell, ...]
    runs: int
    episodes: int
    paper_runs: int
    paper_episodes: int
    ylabel: str
    runs_per_chunk: int
    cells_per_chunk: int
    epsilon: float = NO_EPSILON
    optimise: str = ""  # "alpha" when each point is the best cell over alpha
    max_steps: int | None = None  # control: episode cap (None: the environment's default)
    # control: what the cap means: "bootstrap" (a time limit: bootstrap from Q(S', A'),
    # Pardo et al. 2018) or "terminal" (value 0 after the last state)
    truncation: str | None = None
    chunk_rows: int | None = None  # set when figure(..., chunk_rows=) overrode the chunking
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: the grid changes asked for (``--set``): ``((key, values), ...)``, sorted by key
    overrides: tuple[tuple[str, tuple], ...] = ()
    # set-up variants of the cells (name -> spec: hidden, inputs, start, init and, overriding
    # the figure's, epsilon, max_steps, truncation); see ftd_lib.repro.paper.study
    variants: dict = field(default_factory=dict)
    # cell counts at which cells were appended (a widening of the step-size grid,
    # ftd_lib.repro.protocol): the cells of each such segment get chunks of their own
    appended_at: tuple[int, ...] = ()
    #: how the step sizes are chosen (:mod:`ftd_lib.repro.protocol`): ``{"kind": "fixed"}``
    #: or ``{"kind": "pilot", "pilot_runs": 20, "final_alphas": 5, "max_widenings": 3}``
    protocol: dict = field(default_factory=lambda: {"kind": "fixed"})
    #: the claims of :mod:`ftd_lib.repro.paper.claims` the experiment confronts (their numbers)
    claims: tuple[int, ...] = ()
    #: the experiment file the definition was read from (:mod:`ftd_lib.repro.experiment`)
    source: str = ""
    #: the task's name for people (the task registry's title) and the x axis's label
    task_title: str = ""
    xlabel: str = ""
    #: the network's hidden units (the engine's and the kernel's default: 50)
    hidden_units: int = 50
    #: the task's own parameters a file gives (``[task] params``: sorted ``(name, value)``
    #: pairs, checked by the task's row, :func:`ftd_lib.envs.tasks.check_task_params`)
    task_params: tuple = ()
    #: what the experiment asks of its report (its file's ``[report]``) and its set-ups'
    #: words (name -> ``{"choice", "change"}``)
    report: dict = field(default_factory=dict)
    setup_notes: dict = field(default_factory=dict)
    #: whether the file names the paper's counts (``[paper]``); else "paper scale" means
    #: nothing for it and the report says so
    paper_counts: bool = True

    @property
    def lower_is_better(self) -> bool:
        return self.task == "prediction"

    @property
    def two_stage(self) -> bool:
        """Whether the step sizes go through the pilot -> widen -> final protocol."""
        return self.protocol.get("kind") == "pilot" and self.optimise == "alpha"

    @property
    def at_paper_scale(self) -> bool:
        return self.runs >= self.paper_runs and self.episodes >= self.paper_episodes

    @property
    def curves(self) -> list[str]:
        return list(dict.fromkeys(c.curve for c in self.cells))

    @property
    def methods(self) -> list[str]:
        return list(dict.fromkeys(c.method for c in self.cells))

    def describe(self) -> dict:
        """JSON-able summary of the definition (stored in the metadata)."""
        d = asdict(self)
        d["cells"] = [{k: (dict(v) if k == "params" else v) for k, v in asdict(c).items()
                       if k != "params" or v} for c in self.cells]
        d["n_cells"] = len(self.cells)
        d["at_paper_scale"] = self.at_paper_scale
        d["epsilon"] = None if math.isnan(self.epsilon) else self.epsilon
        d["overrides"] = {k: list(v) for k, v in self.overrides}
        return d
