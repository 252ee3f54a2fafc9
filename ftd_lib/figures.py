"""The paper's figures, each made by one function: start here to find the code behind a figure.

van Seijen (2016), *Effective Multi-step Temporal-Difference Learning for Non-Linear Function
Approximation*. ``figure_1()`` ... ``figure_4()`` return a :class:`PaperFigure`: the data of
each panel and the picture (a bare matplotlib figure: no display needed). Figures 1 and 2 are
computed on the spot (seconds); Figures 3 and 4 are read from the stored results (``results/``,
made by ``python -m ftd_lib reproduce``), and a panel without stored data shows the command that
makes it.

============  ======================================  ============  ===========================  ==
paper         what                                    entry point   made by (ftd_lib.repro.…)    nb
============  ======================================  ============  ===========================  ==
Fig. 1        random walk: RMS error against time     figure_1()    paper.fig1.figure1_data      02
Fig. 2 left   the one-state example (a picture)       --            --                           03
Fig. 2 right  one-state example: error against α      figure_2()    paper.fig2.figure2_data      03
Fig. 3 left   mountain car evaluation: error vs α     figure_3()    definitions, runs            05
Fig. 3 right  forward TD(λ): error vs λ for η, K_max  figure_3()    definitions, runs            05
Fig. 4 left   mountain car control: return vs λ       figure_4()    definitions, protocol, runs  06
Fig. 4 right  cart-pole control: return vs λ          figure_4()    definitions, protocol, runs  06
study         claim 5 under set-up variants (Fig. 4)  --            paper.study, sections        --
study         block λ-return (PPO) vs forward TD(λ)   --            paper.block_study            07
============  ======================================  ============  ===========================  ==

``nb``: the notebook that shows it. The studies go beyond the paper (``python -m ftd_lib
reproduce claim5-study | block-lambda``; their sections in ``results/REPORT.md``). Figures 3
and 4 are defined (grids, methods, tasks, runs) in experiment files, ``experiments/<name>.toml``
(``repro.definitions.figure(name, scale)`` reads them),
computed chunk by chunk by ``repro.runs.run_figure`` (Fig. 4 at paper scale through the two
stages of ``repro.protocol.run_protocol``) and drawn by ``repro.plots.plot_results``; the
paper's claims about them are checked by ``repro.paper.claims`` (``results/REPORT.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .repro.paper.fig1 import FIG1_SEED, figure1_data, plot_figure1
from .repro.paper.fig2 import RUNS as FIG2_RUNS
from .repro.paper.fig2 import figure2_data, plot_figure2
from .repro.plots import plot_results
from .repro.results import load_results, repo_results_dir, reproduce_command
from .style import RC

#: the table above: (paper figure, what, entry point, made by (in ftd_lib.repro), notebook)
TABLE = (
    ("Fig. 1", "random walk: RMS error against time", "figure_1()", "paper.fig1.figure1_data",
     "02"),
    ("Fig. 2 left", "the one-state example (a picture)", "", "", "03"),
    ("Fig. 2 right", "one-state example: error against α", "figure_2()", "paper.fig2.figure2_data",
     "03"),
    ("Fig. 3 left", "mountain car evaluation: error vs α", "figure_3()", "definitions, runs",
     "05"),
    ("Fig. 3 right", "forward TD(λ): error vs λ for η, K_max", "figure_3()",
     "definitions, runs", "05"),
    ("Fig. 4 left", "mountain car control: return vs λ", "figure_4()",
     "definitions, protocol, runs", "06"),
    ("Fig. 4 right", "cart-pole control: return vs λ", "figure_4()",
     "definitions, protocol, runs", "06"),
    ("study", "claim 5 under set-up variants (Fig. 4)", "", "paper.study, sections", ""),
    ("study", "block λ-return (PPO) vs forward TD(λ)", "", "paper.block_study", "07"),
)


def table_markdown() -> str:
    """:data:`TABLE` as a markdown table (``docs/reproduction.md``'s)."""
    rows = ["| paper | what | entry point (`ftd_lib.figures`) | made by (`ftd_lib.repro.…`) "
            "| notebook |", "| --- | --- | --- | --- | --- |"]
    for paper, what, entry, made_by, nb in TABLE:
        code = ", ".join(f"`{m}`" for m in made_by.split(", ")) if made_by else "—"
        rows.append(f"| {paper} | {what} | {f'`{entry}`' if entry else '—'} | {code} | "
                    f"{nb or '—'} |")
    return "\n".join(rows)


@dataclass
class PaperFigure:
    """One of the paper's figures as made here: ``panels`` (panel name -> its data: a dict for
    Figs. 1-2, a :class:`ftd_lib.repro.results.Results` or ``None`` when nothing is stored for
    Figs. 3-4) and ``fig`` (the matplotlib figure, one axes per panel)."""

    name: str
    panels: dict = field(default_factory=dict)
    fig: object = None


def _canvas(n_panels: int, width: float):
    import matplotlib as mpl
    from matplotlib.figure import Figure

    with mpl.rc_context(RC):
        fig = Figure(figsize=(width, RC["figure.figsize"][1] * (1.1 if n_panels > 1 else 1.0)))
        axes = fig.subplots(1, n_panels, squeeze=False)[0]
    return fig, list(axes)


def figure_1(*, seed: int = FIG1_SEED) -> PaperFigure:
    """Fig. 1: TD(λ), the online and the offline λ-return algorithm on the random walk, λ = 1,
    α = 0.2; RMS error over the states, divided by the initial one, at every time step of the
    first 3 episodes (one seeded run). Panel ``""``:
    :func:`ftd_lib.repro.paper.fig1.figure1_data`."""
    data = figure1_data(seed=seed)
    fig, (ax,) = _canvas(1, 8.5)
    plot_figure1(data, ax=ax)
    fig.tight_layout()
    return PaperFigure("Figure 1", {"": data}, fig)


def figure_2(*, runs: int = FIG2_RUNS) -> PaperFigure:
    """Fig. 2 right: the one-state example, λ = 1; the error at the end of each episode,
    averaged over the first 10 episodes, against α, TD(λ) and the λ-return algorithm, over
    ``runs`` seeded runs. Panel ``"right"``: :func:`ftd_lib.repro.paper.fig2.figure2_data` (Fig.
    2 left
    is a picture of the task, not data)."""
    data = figure2_data(runs=runs)
    fig, (ax,) = _canvas(1, 7.0)
    plot_figure2(data, ax=ax)
    fig.tight_layout()
    return PaperFigure("Figure 2", {"right": data}, fig)


def _stored_pair(number: int, results) -> PaperFigure:
    folder = repo_results_dir() if results is None else results
    names = (f"fig{number}-left", f"fig{number}-right")
    fig, axes = _canvas(2, 14.0)
    panels = {}
    for side, name, ax in zip(("left", "right"), names, axes, strict=True):
        res = load_results(name, folder)
        panels[side] = res
        if res is None:
            ax.axis("off")
            ax.text(0.5, 0.5, f"no stored data for {name}\n\nmake it with\n"
                    f"{reproduce_command(name, 'paper')}", ha="center", va="center",
                    family="monospace", transform=ax.transAxes)
        else:
            plot_results(res, ax=ax)
    fig.tight_layout()
    return PaperFigure(f"Figure {number}", panels, fig)


def figure_3(results=None) -> PaperFigure:
    """Fig. 3, mountain car evaluation (left: the four methods against α, λ = 0.9; right:
    forward TD(λ) against λ for η = 0.01, 0.1, 0.3 and K_max = 50), from the stored results in
    ``results`` (default: the repository's ``results/``). Panels ``"left"``, ``"right"``."""
    return _stored_pair(3, results)


def figure_4(results=None) -> PaperFigure:
    """Fig. 4, control (left: mountain car; right: cart-pole), the average return against λ
    with the best α per point, Sarsa(λ) and forward Sarsa(λ), from the stored results in
    ``results`` (default: the repository's ``results/``). Panels ``"left"``, ``"right"``."""
    return _stored_pair(4, results)
