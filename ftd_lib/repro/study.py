r"""Claim 5, which set-up choice decides it: a sensitivity study of Fig. 4 left (mountain car).

Claim 5 (van Seijen, 2016, Sec. 6, Fig. 4 left): forward Sarsa(:math:`\lambda`) beats
Sarsa(:math:`\lambda`) for every :math:`\lambda < 1`. This reproduction disagrees: within 50
episodes neither method learns for :math:`\lambda \le 0.4`, and Sarsa(:math:`\lambda`) learns
at no :math:`\lambda`. The paper leaves several choices of the set-up open (:data:`CHOICES`);
this study changes one at a time (:data:`VARIANTS`) and asks, for each, at
:math:`\lambda \in \{0, 0.4, 0.8\}`, for the best-:math:`\alpha` return of both methods and
whether claim 5 then holds (the rule of :mod:`ftd_lib.repro.claims`).

It is a figure like the paper's (``python -m ftd_lib reproduce claim5-study --scale paper``:
chunks, resume, progress bar, report). Every cell names its variant; a chunk holds one
variant and one method, and its identity holds the variant's spec, so no chunk of the study
collides with another variant's or with Fig. 4's. The runner is the compiled kernel
(:func:`ftd_lib.engine.kernel.run_tasks`) with the variant's parameters
(:func:`run_variant`); the default variant is the set-up of Fig. 4.

The scale is reduced but honest: 40 runs (the paper: 200) x the paper's 50 episodes, one
step-size grid for all, :data:`ALPHAS` (factor 2, :math:`1.5\cdot 10^{-5}` to 0.015: below,
nothing is learned in 50 episodes; above, Sarsa(:math:`\lambda`) diverges on Fig. 4's grid).
Its reading (the table, the verdicts, REPORT.md's section) is
:mod:`ftd_lib.repro.study_report`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..envs import tasks
from ..methods import CONTROL, label
from .cells import EPSILON, ETA, Cell, Figure, _geom

STUDY = "claim5-study"
LAMBDAS = (0.0, 0.4, 0.8)
#: 11 step sizes 0.015 * 2**k, k = -10..0
ALPHAS = _geom(0.015, -10, 0, 2.0)
RUNS, EPISODES = 40, 50
#: the alpha-grid's lower edge, the one choice that needs no computation: the best alpha over
#: the default variant's grid cut below these edges (Fig. 4's grid started at 0.015 * 2**-8)
GRID_EDGES = (_geom(0.015, -8, -8, 2.0)[0], _geom(0.015, -6, -6, 2.0)[0],
              _geom(0.015, -4, -4, 2.0)[0])


@dataclass(frozen=True)
class Variant:
    r"""One set-up: the default (Fig. 4's) with one choice changed.

    ``hidden``: ``"tanh"``/``"sigmoid"``; ``init``: ``"uniform"`` (every weight uniform in
    :math:`\pm 1/\sqrt{\text{fan-in}}`), ``"zero-output"`` (the same, output layer 0: every
    :math:`\hat Q = 0` at first, optimistic under rewards of -1) or ``"small"`` (the uniform
    draw times 0.1); ``inputs``: ``"symmetric"`` ([-1, 1]) or ``"unit"`` ([0, 1]);
    ``start``: ``"bottom"`` (:math:`x \sim U[-0.6, -0.4)`, :math:`v = 0`) or ``"anywhere"``
    (uniform over the state space); the episode cap, what happens at it, :math:`\gamma`,
    :math:`\epsilon`.
    """

    name: str
    choice: str  # the set-up choice it varies
    change: str  # what it does instead of the default
    hidden: str = "tanh"
    init: str = "uniform"
    inputs: str = "symmetric"
    start: str = "bottom"
    max_steps: int = tasks.task("mountain_car").max_steps
    truncation: str = "bootstrap"
    gamma: float = tasks.gamma("mountain_car")
    epsilon: float = EPSILON

    def spec(self, cap: int | None = None) -> dict:
        """What a chunk of this variant needs (``Figure.variants``); ``cap``: at most."""
        ms = self.max_steps if cap is None else min(self.max_steps, cap)
        return dict(hidden=self.hidden, init=self.init, inputs=self.inputs, start=self.start,
                    max_steps=ms, truncation=self.truncation, epsilon=self.epsilon)


DEFAULT = "as in Fig. 4"
VARIANTS = (
    Variant(DEFAULT, "—", "tanh units, uniform init, inputs in [-1, 1], cap 5000 steps "
            "(bootstraps), γ = 1, starts at the bottom, ε = 0.05"),
    Variant("sigmoid units", "hidden activation", "logistic sigmoid hidden units (Tesauro's "
            "backpropagation)", hidden="sigmoid"),
    Variant("zero output layer", "weight initialisation: the output layer",
            "output weights and bias 0: every Q = 0 at first (optimistic under −1 rewards)",
            init="zero-output"),
    Variant("small weights", "weight initialisation: the scale",
            "every initial weight times 0.1", init="small"),
    Variant("inputs in [0, 1]", "input scaling", "position and velocity scaled to [0, 1]",
            inputs="unit"),
    Variant("cap is terminal", "what happens at the episode cap",
            "the 5000th step ends the episode like the goal (value 0 after it)",
            truncation="terminal"),
    Variant("cap 1000", "the episode cap", "episodes cut at 1000 steps (bootstrapping)",
            max_steps=1000),
    Variant("γ = 0.99", "γ", "discount 0.99", gamma=0.99),
    Variant("start anywhere", "the start-state distribution",
            "start states uniform over all positions and velocities", start="anywhere"),
)
VARIANT_NAMES = tuple(v.name for v in VARIANTS)

#: every set-up choice of the control experiments: (choice, what the paper says, what this
#: project chose, how the study tests it)
CHOICES = (
    ("hidden activation", "backpropagation \"as Tesauro (1994)\" (who used sigmoids)",
     "tanh", "variant *sigmoid units*"),
    ("weight initialisation", "not given",
     "uniform in ±1/√fan-in (PyTorch's default), output layer included",
     "variants *zero output layer* and *small weights*"),
    ("input scaling", "\"scaled to numbers within the range [-1, 1]\" (evaluation task)",
     "position and velocity mapped linearly onto [-1, 1]", "variant *inputs in [0, 1]*"),
    ("episode cap", "not given (cart-pole: 1000 steps)", "5000 steps",
     "variant *cap 1000*"),
    ("what happens at the cap", "not given",
     "a time limit: the last target bootstraps from Q(S', A')", "variant *cap is terminal*"),
    ("γ", "not given for control (evaluation: 1 implied by the true values)", "1",
     "variant *γ = 0.99*"),
    ("start states", "\"the standard mountain car task\" (Sutton & Barto: x ~ U[-0.6, -0.4), "
     "v = 0)", "as Sutton & Barto", "variant *start anywhere*"),
    ("ε", "0.05", "0.05", "stated by the paper: not varied"),
    ("η, K_max", "η = 0.01, no K_max", "η = 0.01, no K_max",
     "stated by the paper; K_max ≥ 21 changes nothing at λ ≤ 0.8 (K = 1, 6, 21); "
     "η touches forward Sarsa(λ) only: not varied"),
    ("the α grid's lower edge", "not given (\"we optimized α\")",
     "0.015·2^k from k = −8, widened downwards while the best sat at the edge",
     "the default variant's grid cut at 0.015·2^k, k = −8, −6, −4 (no new runs)"),
    ("one network per action", "stated", "one network per action",
     "stated by the paper: not varied"),
    ("traces of Sarsa(λ)", "not given", "accumulating traces over all weights",
     "not varied (replacing traces have no meaning for a network's gradient)"),
)


def variant(name: str) -> Variant:
    for v in VARIANTS:
        if v.name == name:
            return v
    raise ValueError(f"variant must be one of {VARIANT_NAMES}, got {name!r}")


def study_figure(scale: str) -> Figure:
    """The study as a figure: every variant x method x lambda x alpha, one chunk per
    (variant, method, lambda) and 40 runs (quick: 2 runs, 2 episodes, 200-step caps)."""
    quick = scale == "quick"
    lams = (0.0, 0.8) if quick else LAMBDAS
    alphas = (0.00375, 0.015) if quick else ALPHAS
    cap = 200 if quick else None
    cells = tuple(Cell(m, a, lam, v.gamma, ETA, None, curve=f"{v.name} / {label(m)}",
                       variant=v.name)
                  for v in VARIANTS for m in CONTROL for lam in lams for a in alphas)
    return Figure(
        name=STUDY, scale=scale,
        title="Claim 5: mountain car control under set-up variants, best α per λ",
        task="control", env="mountain_car", x="lam", cells=cells,
        runs=2 if quick else RUNS, episodes=2 if quick else EPISODES,
        paper_runs=200, paper_episodes=50, ylabel="average return, first episodes",
        runs_per_chunk=2 if quick else RUNS, cells_per_chunk=len(alphas),
        epsilon=EPSILON, optimise="alpha", max_steps=cap, truncation="bootstrap",
        variants={v.name: v.spec(cap) for v in VARIANTS},
        notes=("a sensitivity study (ftd_lib.repro.study): one set-up choice changed at a "
               "time; eta = 0.01; one network per action.",))


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
    w0 = initial_weights_of(spec, task.seed, task.run_ids, t.n_in, t.n_actions)
    return run_tasks(task.method, settings, task.seed, task.run_ids,
                     task.n_episodes, env=task.env, init=lambda i: w0[i],
                     epsilon=task.epsilon, max_steps=task.max_steps,
                     truncation=task.truncation or "bootstrap", progress=progress,
                     hidden=spec["hidden"], inputs=spec["inputs"], start=spec["start"])
