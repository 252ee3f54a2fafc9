r"""A paper figure as the course shows it: the stored full-scale data beside a live run, and the
paper's claims next to what the numbers say. Figures 3 and 4 (notebooks 05 and 06) both go
through here.

One call per figure::

    left = compare("fig3-left")      # draws stored | live, says how the stored data was made
                                     # (or the command that makes it, when there is none)
    print(left.summary("stored"))    # the best point of every curve, read from the data
    show_claims(left, right)         # the paper's words, the verdicts, the data behind them

- :func:`stored` reads the committed data (:func:`ftd_lib.repro.results.load_results` on the
  repository's ``results/``), or ``None`` when there is none yet.
- :func:`live_figure` is a small-scale definition of a paper figure (:data:`LIVE`: the default
  grids, runs and episodes; :data:`LIVE_QUICK` under ``CI``), :func:`live` computes it with the
  engine in a scratch folder (nothing is written next to the committed results).
- :class:`Comparison` holds both; ``data`` is the stored figure when there is one, else the
  live run (what the claims and the exercises read).
- :func:`best_points`, :func:`format_best` read the plotted points; :func:`claims_side_by_side`
  puts :data:`PAPER_WORDS` next to the verdicts :func:`ftd_lib.repro.paper.claims.claims` computes.

Every live run uses run ids ``0 .. runs-1`` and the experiment seed
(:data:`ftd_lib.repro.definitions.DEFAULT_SEED`), like the stored data: run ``r`` of a live cell
starts from the same network and sees the same random numbers as run ``r`` of the stored cell
with the same settings (common random numbers, :mod:`ftd_lib.rng`), as long as its episode cap
is the same.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..methods import label
from ..repro.definitions import (
    ALPHA_FIG3_RIGHT,
    DEFAULT_SEED,
    FIGURES,
    STUDIES,
    Figure,
    figure,
    with_grid,
)
from ..repro.plots import plot_results, plot_stored_and_live
from ..repro.results import Results, load_results, missing_message, repo_results_dir, scale_label
from ..repro.runs import run_figure
from ..style import legend_outside, use_style
from . import one_torch_thread, quick

SEED = DEFAULT_SEED

#: Fig. 3 left, live: 0.015 * 2**k, k = -5..3 (0.00047 .. 0.12), points of the paper-scale grid
#: (every second one of :data:`ftd_lib.repro.definitions.ALPHAS_FIG3`)
LIVE_ALPHAS = tuple(float(f"{ALPHA_FIG3_RIGHT * 2.0**k:.6g}") for k in range(-5, 4))

#: the live run beside each stored figure: a few seconds to a minute on a laptop.
#: Fig. 3 left leaves out the online λ-return algorithm: it replays t updates at time t, about
#: T/2 = 50 times the work of the others on 100-step episodes. Control is costly (a batch runs
#: until its longest episode ends), and forward Sarsa(1) on mountain car, K = ∞, adds a flush of
#: a whole episode to every episode, so λ = 1 sits out there; the mountain-car episodes are cut
#: at 500 steps (the stored data: 5000), so a live point there is not the paper's quantity: it
#: shows the machinery and the first episodes.
LIVE = {
    "fig3-left": dict(alphas=LIVE_ALPHAS, runs=3, episodes=5,
                      methods=("td_lambda", "forward_td_lambda", "offline_lambda_return")),
    "fig3-right": dict(lams=(0.0, 0.5, 0.8, 0.9, 0.95, 1.0), runs=3, episodes=5),
    "block-lambda": dict(alphas=LIVE_ALPHAS[1:8], runs=3, episodes=5,
                         methods=("td_lambda", "forward_td_lambda", "block_lambda_return")),
    "fig4-left": dict(lams=(0.0, 0.5, 0.9), alphas=(0.0075, 0.03), runs=2, episodes=4,
                      max_steps=500),
    "fig4-right": dict(lams=(0.0, 0.3, 0.6, 0.9, 1.0), alphas=(0.0075, 0.03), runs=2,
                       episodes=80, max_steps=None),
}
#: smaller still under ``CI`` (:func:`ftd_lib.course.quick`)
LIVE_QUICK = {
    **LIVE,
    "fig4-left": dict(LIVE["fig4-left"], runs=1, episodes=2, max_steps=300),
    "fig4-right": dict(LIVE["fig4-right"], runs=1, episodes=30),
}

#: the paper's words for each claim that :func:`ftd_lib.repro.paper.claims.claims` checks
PAPER_WORDS = {
    1: "Fig. 3 left: forward TD(λ)'s lowest error is below TD(λ)'s; “the performance increase "
       "due to exactly following the general update rule more than makes up for the "
       "performance decrease due to the update delays” (Sec. 7).",
    2: "“Surprisingly, forward TD(λ) outperforms the online λ-return algorithm.”",
    3: "“TD(λ) shows the same behaviour as in the one-state example … the error quickly "
       "diverges.”",
    4: "“The performance at optimal λ is not really affected by η.”",
    5: "“Forward Sarsa(λ) outperforms Sarsa(λ) for all λ values, except for λ = 1.0.”",
    6: "“In this domain, higher values of λ actually reduce the performance of Sarsa(λ).”",
    7: "“The optimal performance of forward Sarsa(λ) is obtained around λ = 0.6 …”",
    8: "“… and is substantially higher than the performance of Sarsa(0).”",
}


def _check_figure(name: str) -> None:
    if name not in FIGURES + STUDIES:
        raise ValueError(f"figure must be one of {', '.join(FIGURES + STUDIES)}, got {name!r}")


# --------------------------------------------------------------------------------------------
# Stored and live data
# --------------------------------------------------------------------------------------------


def results_dir() -> Path:
    """The repository's ``results/`` (:func:`ftd_lib.repro.results.repo_results_dir`)."""
    return repo_results_dir()


def stored(name: str, results=None) -> Results | None:
    """The committed data of a paper figure (from :func:`results_dir` unless ``results`` names
    a folder), or ``None`` when there is none yet (:func:`compare` then says how to make it)."""
    _check_figure(name)
    return load_results(name, results_dir() if results is None else results)


def live_figure(name: str, *, runs: int | None = None, episodes: int | None = None,
                methods=None, alphas=None, lams=None, max_steps: int | None = -1) -> Figure:
    """A small-scale definition of a paper figure: the paper's curves (``methods``: a subset of
    them) on a grid of ``lams`` times ``alphas`` (each default: :data:`LIVE`, else the paper's
    single value; :func:`ftd_lib.repro.definitions.with_grid`, the command line's ``--set``),
    ``runs`` runs of ``episodes`` episodes, control episodes capped at ``max_steps``
    (``None``: the task's cap), each method computed as one batch."""
    _check_figure(name)
    d = LIVE[name]
    base = figure(name, "paper")

    def pick(value, key, fallback):
        return tuple(value if value is not None else d.get(key, fallback))

    runs = int(d["runs"] if runs is None else runs)
    episodes = int(d["episodes"] if episodes is None else episodes)
    if runs < 1 or episodes < 1:
        raise ValueError(f"runs and episodes must be >= 1, got runs={runs}, episodes={episodes}")
    fig = with_grid(base, methods=pick(methods, "methods", base.methods),
                    alphas=pick(alphas, "alphas", sorted({c.alpha for c in base.cells})),
                    lams=pick(lams, "lams", sorted({c.lam for c in base.cells})))
    cells = fig.cells
    per_method = max(sum(c.method == m for c in cells) for m in {c.method for c in cells})
    changes = dict(scale="quick", cells=cells, runs=runs, episodes=episodes,
                   runs_per_chunk=runs, cells_per_chunk=per_method)
    if base.task == "control":
        cap = d["max_steps"] if max_steps == -1 else max_steps
        changes["max_steps"] = None if cap is None else int(cap)
    return dataclasses.replace(fig, **changes)


def live(name: str, *, seed: int = SEED, **grid) -> Results:
    """A paper figure at a small scale, live (:func:`live_figure`; defaults :data:`LIVE`, or
    :data:`LIVE_QUICK` under ``CI``), computed with the engine in a scratch folder. Same data
    layout as the stored figure (:class:`ftd_lib.repro.results.Results`)."""
    _check_figure(name)
    fig = live_figure(name, **{**(LIVE_QUICK if quick() else LIVE)[name], **grid})
    with tempfile.TemporaryDirectory(prefix="ftd-live-") as d, one_torch_thread():
        res = run_figure(fig, d, seed=seed, progress=False, plot=False)
    res.path = None
    return res


@dataclass
class Comparison:
    """A paper figure's stored data (``None`` until it is computed) and a live run of it."""

    name: str
    stored: Results | None
    live: Results

    @property
    def data(self) -> Results:
        """The stored figure when there is one, else the live run."""
        return self.stored if self.stored is not None else self.live

    @property
    def source(self) -> str:
        """``"stored"`` or ``"live"``: where :attr:`data` comes from."""
        return "stored" if self.stored is not None else "live"

    def about(self, command: bool = False) -> str:
        """Where the stored data comes from (with ``command``, the command that made it: for
        the notes, not for a slide), or the commands that make it."""
        if self.stored is None:
            return missing_message(self.name) + "\nUntil then, the live run stands in for it."
        line = f"{self.name}: stored, {scale_label(self.stored)}"
        return line + (f"\n    made by: {self.stored.meta.get('command')}" if command else "")

    def summary(self, which: str = "stored") -> str:
        """The best point of every curve of the stored figure or of the live run, with the
        scale it was computed at (:func:`format_best`)."""
        if which not in ("stored", "live"):
            raise ValueError(f"which must be 'stored' or 'live', got {which!r}")
        res = self.stored if which == "stored" else self.live
        if res is None:
            return f"no stored data for {self.name} yet: see the command above"
        control = res.meta["definition"]["task"] == "control"
        what = "best mean return over α, per λ" if control else "lowest mean error per curve"
        return f"{which} ({scale_label(res)}): {what}\n{format_best(res)}"

    def plot(self, figsize=(14.0, 4.9), which: str = "both"):
        """The stored figure (or how to make it) beside the live run (``which="both"``), or
        one of them across the whole width (``"stored"``, ``"live"``: a slide each); the
        legend off the data (:func:`ftd_lib.style.legend_outside`: beside one panel, under
        two). Returns the matplotlib figure."""
        if which not in ("both", "stored", "live"):
            raise ValueError(f"which must be 'both', 'stored' or 'live', got {which!r}")
        if which == "both" or (which == "stored" and self.stored is None):
            fig = plot_stored_and_live(self.stored, self.live, self.name, figsize=figsize)
            for ax in fig.axes:
                ax.title.set_fontsize("medium")
            fig._suptitle.set_fontsize("large")
            _fold_long_ylabels(fig)
            fig.tight_layout()  # again, for the sizes set here
            legend_outside(fig, where="bottom")
            return fig
        import matplotlib.pyplot as plt

        use_style()
        fig, ax = plt.subplots(figsize=figsize)
        res = self.stored if which == "stored" else self.live
        plot_results(res, ax=ax)
        ax.set_title(f"{figure(self.name, 'paper').title}\n{which}: {scale_label(res)}",
                     fontsize="medium")
        legend_outside(fig, where="right")
        return fig


def _fold_long_ylabels(fig) -> None:
    """A y-label longer than its panel is high is folded onto two lines (at its comma, else
    near its middle): at full length it reached past the panel into the suptitle's line."""
    fig.draw_without_rendering()
    renderer = fig._get_renderer()
    for ax in fig.axes:
        label = ax.yaxis.label
        text = label.get_text()
        if "\n" in text or not text or (label.get_window_extent(renderer).height
                                         <= 0.95 * ax.bbox.height):
            continue
        cut = text.find(", ") + 1 if ", " in text else text.rfind(" ", 0, len(text) // 2 + 1)
        if cut > 0:
            label.set_text(text[:cut].rstrip() + "\n" + text[cut:].lstrip())


def compare(name: str, *, results=None, seed: int = SEED, plot: bool = True,
            figsize=(14.0, 4.9), which: str = "both", **grid) -> Comparison:
    """A paper figure in one call: the stored data (:func:`stored`), a live run (:func:`live`,
    ``grid`` overrides :data:`LIVE`), one line on where the stored data comes from (or the
    command that makes it), and both drawn side by side (``figsize`` in inches; ``which``:
    :meth:`Comparison.plot`'s, ``"stored"`` for the stored figure alone, full width)."""
    c = Comparison(name, stored(name, results), live(name, seed=seed, **grid))
    print(c.about())
    if plot:
        c.plot(figsize, which=which)
    return c


# --------------------------------------------------------------------------------------------
# Reading the numbers
# --------------------------------------------------------------------------------------------


def best_points(res: Results) -> dict:
    """Per curve, its best plotted point -- the lowest error (prediction) or the highest return
    (control; each point already the best over α) -- as ``x``, ``y``, ``se``, ``alpha``, and how
    many of its ``n_x`` points have diverged runs (``n_x_diverged``). The whole curves are
    ``res.summary()``."""
    lower = res.meta["definition"]["task"] == "prediction"
    out = {}
    for curve, s in res.summary().items():
        y = np.where(np.isfinite(s["y"]), s["y"], np.inf if lower else -np.inf)
        i = int(np.argmin(y) if lower else np.argmax(y))
        out[curve] = dict(x=float(s["x"][i]), y=float(s["y"][i]), se=float(s["se"][i]),
                          alpha=float(s["alpha"][i]),
                          n_x_diverged=int(np.sum(s["n_diverged"] > 0)), n_x=len(s["x"]))
    return out


def format_best(res: Results, digits: int | None = None) -> str:
    """The plotted numbers for people. Prediction: one line per curve, its best point and how
    many points have diverged runs. Control: per method and λ the best mean return over α,
    the α that gave it and the runs that diverged there (a mean over runs with a diverged run
    is ``nan``), flagged ⚠ when that α is the smallest or largest of the grid tried (a better
    one may lie outside it)."""
    if res.meta["definition"]["task"] == "prediction":
        digits = 3 if digits is None else digits
        xname = "α" if res.meta["definition"]["x"] == "alpha" else "λ"
        lines = []
        for curve, b in best_points(res).items():
            y = f"{b['y']:.{digits}f}" if math.isfinite(b["y"]) else "∞ (diverged)"
            lines.append(f"{label(curve):22s} best {xname} = {b['x']:<8g} error {y}   "
                         f"{xname} with diverged runs: {b['n_x_diverged']} of {b['n_x']}")
        return "\n".join(lines)
    digits = 1 if digits is None else digits
    lines = []
    for curve, s in res.summary().items():
        lines.append(f"{label(curve)}:")
        edges = s.get("alpha_edge", [""] * len(s["x"]))
        for lam, y, a, nd, edge in zip(s["x"], s["y"], s["alpha"], s["n_diverged"], edges,
                                       strict=True):
            if math.isfinite(y):
                flag = f"   ⚠ α at the grid's {edge} edge" if edge else ""
                lines.append(f"  λ = {lam:<4g} return {y:9.{digits}f}   at α = {a:<7g} "
                             f"diverged runs {nd}{flag}")
            else:
                lines.append(f"  λ = {lam:<4g} a run diverged at every α of the grid")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The paper's claims
# --------------------------------------------------------------------------------------------


def claims_side_by_side(results: dict) -> list[dict]:
    """The paper's claims about the figures named in ``results`` (``{figure name: Results,
    Comparison or None}``) next to this reproduction's verdicts
    (:func:`ftd_lib.repro.paper.claims.claims_side_by_side`, with :data:`PAPER_WORDS`)."""
    from ..repro.paper.claims import claims_side_by_side as side_by_side

    data = {k: v.data if isinstance(v, Comparison) else v for k, v in results.items()}
    return side_by_side(data, tuple(data), PAPER_WORDS)


def claims_markdown(rows: list[dict]) -> str:
    """:func:`claims_side_by_side` as a Markdown table."""
    from ..repro.paper.claims import claims_markdown as markdown

    return markdown(rows)


def show_claims(*comparisons: Comparison):
    """The claims table of these figures (stored data where there is some, else the live runs)
    as Markdown, shown in the notebook; returns the rows."""
    from IPython.display import Markdown, display

    rows = claims_side_by_side({c.name: c for c in comparisons})
    display(Markdown(claims_markdown(rows)))
    return rows
