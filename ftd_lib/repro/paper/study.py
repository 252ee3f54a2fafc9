r"""Claim 5, which set-up choice decides it: a sensitivity study of Fig. 4 left (mountain car).

Claim 5 (van Seijen, 2016, Sec. 6, Fig. 4 left): forward Sarsa(:math:`\lambda`) beats
Sarsa(:math:`\lambda`) for every :math:`\lambda < 1`. This reproduction disagrees: within 50
episodes neither method learns for :math:`\lambda \le 0.4`, and Sarsa(:math:`\lambda`) learns
at no :math:`\lambda`. The paper leaves several choices of the set-up open (:data:`CHOICES`);
this study changes one at a time (:data:`VARIANTS`) and asks, for each, at
:math:`\lambda \in \{0, 0.4, 0.8\}`, for the best-:math:`\alpha` return of both methods and
whether claim 5 then holds (the rule of :mod:`ftd_lib.repro.paper.claims`).

It is an experiment file like the paper's figures (``experiments/claim5-study.toml``, its
set-ups ``[[setups]]``; ``python -m ftd_lib reproduce claim5-study --scale paper``: chunks,
resume, progress bar, report). Every cell names its variant; a chunk holds one
variant and one method, and its identity holds the variant's spec, so no chunk of the study
collides with another variant's or with Fig. 4's. The runner is the compiled kernel
(:func:`ftd_lib.engine.kernel.run_tasks`) with the variant's parameters
(:func:`ftd_lib.repro.setups.run_variant`); the default variant is the set-up of Fig. 4.

The scale is reduced but honest: 40 runs (the paper: 200) x the paper's 50 episodes, one
step-size grid for all, :data:`ALPHAS` (factor 2, :math:`1.5\cdot 10^{-5}` to 0.015: below,
nothing is learned in 50 episodes; above, Sarsa(:math:`\lambda`) diverges on Fig. 4's grid).
Its reading (REPORT.md's section: per set-up and lambda both methods' best-alpha returns,
the paired difference, claim 5 per set-up, and claim 5 again on the default set-up's grid cut
below 0.015 * 2**k, k = -8, -6, -4) is the generic one of :mod:`ftd_lib.repro.sections`, as
the file's ``[report]`` asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...envs import tasks
from ..cells import EPSILON, _geom

STUDY = "claim5-study"
LAMBDAS = (0.0, 0.4, 0.8)
#: 11 step sizes 0.015 * 2**k, k = -10..0
ALPHAS = _geom(0.015, -10, 0, 2.0)
RUNS, EPISODES = 40, 50


@dataclass(frozen=True)
class Variant:
    r"""One set-up of the study: the default (Fig. 4's) with one choice changed, as
    ``[[setups]]`` of ``experiments/claim5-study.toml`` declares it.

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


def _variants() -> tuple[Variant, ...]:
    """The study's set-ups, read from its experiment file (the one place they are written)."""
    from ..definitions import figure, study_setups

    fig = figure(STUDY, "paper")
    gamma = {c.variant: c.gamma for c in fig.cells}
    out = []
    for s in study_setups(STUDY):
        spec = fig.variants[s["name"]]
        out.append(Variant(s["name"], s.get("choice", ""), s.get("change", ""),
                           hidden=spec["hidden"], init=spec["init"], inputs=spec["inputs"],
                           start=spec["start"], max_steps=spec["max_steps"],
                           truncation=spec["truncation"], gamma=gamma[s["name"]],
                           epsilon=spec["epsilon"]))
    return tuple(out)


DEFAULT = "as in Fig. 4"
VARIANTS = _variants()
VARIANT_NAMES = tuple(v.name for v in VARIANTS)

def variant_sets(name: str) -> list[str]:
    """A set-up of the claim-5 study as ``--set`` items on Fig. 4 left (``reproduce fig4-left
    --variant NAME``): its name, title, and the task, network and grid keys it changes."""
    from ..definitions import format_value, study_setups

    s = {x["name"]: x for x in study_setups()}.get(name)
    if s is None:
        raise ValueError(f"variant must be one of {VARIANT_NAMES}, got {name!r}")
    title = f"Mountain car control, best α per λ (Fig. 4 left) — set-up variant: {name}"
    out = [f"setup={format_value(name)}", f"title={format_value(title)}"]
    for table in ("task", "network", "grid"):
        out += [f"{table}.{k}={format_value(v)}" for k, v in s.get(table, {}).items()]
    return out


def variant(name: str) -> Variant:
    for v in VARIANTS:
        if v.name == name:
            return v
    raise ValueError(f"variant must be one of {VARIANT_NAMES}, got {name!r}")
