r"""A figure's stored data (:class:`Results`: arrays + metadata), how to find and read it, and the
commands that make it.

``load_results("fig3-left")`` gives the stored data (or ``None``); ``reproduce_command`` the
exact shell command that computes (or resumes) it; ``missing_message`` what a notebook says
when there is none yet; ``scale_label`` one line on how big the stored run was.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import store
from .definitions import DEFAULT_SEED, FIGURES, STUDIES, figure, format_sets

DEFAULT_RESULTS = "results"

@dataclass
class Results:
    """A figure's stored data: arrays plus metadata.

    Arrays: ``method``, ``curve`` (str), ``alpha``, ``lam``, ``gamma``, ``eta``, ``k_max``
    (0 = no cap) per cell; ``metric`` and ``diverged`` of shape ``(cells, runs)``;
    ``curve_mean`` of shape ``(cells, episodes)``: the per-episode value averaged over runs.
    """

    figure: str
    arrays: dict
    meta: dict
    path: Path | None = None

    def __getitem__(self, k):
        return self.arrays[k]

    @property
    def scale(self) -> str:
        return self.meta.get("scale", "?")

    @property
    def at_paper_scale(self) -> bool:
        return bool(self.meta.get("definition", {}).get("at_paper_scale", False))

    def cell_stats(self) -> dict[str, np.ndarray]:
        """Per cell: mean over runs, standard error, number of diverged runs."""
        m = self.arrays["metric"]
        n = m.shape[1]
        with np.errstate(invalid="ignore"):
            mean = m.mean(axis=1)
            se = m.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(len(m))
        se = np.where(np.isfinite(mean), se, np.inf)
        return {"mean": mean, "se": se, "n_diverged": self.arrays["diverged"].sum(axis=1)}

    def summary(self) -> dict[str, dict[str, np.ndarray]]:
        """Per curve, the plotted points: ``x``, ``y``, ``se``, ``alpha`` (the best alpha where
        the figure optimises it), ``alpha_edge`` (``"low"``/``"high"`` where that best alpha is
        the smallest/largest of its grid, else ``""``), ``n_diverged`` and ``cell`` (the cell
        index)."""
        return summarize(self)


def groups(res) -> list[tuple[str | None, Results]]:
    """``[(set-up, its cells as a Results whose curves are the methods), ...]`` for an
    experiment with several set-ups (``[[setups]]``), else ``[(None, res)]``."""
    cells = res.meta.get("definition", {}).get("cells", [])
    names = list(dict.fromkeys(c.get("variant") or "" for c in cells))
    if len(names) < 2 or len(cells) != len(res.arrays["curve"]):
        return [(None, res)]
    out = []
    for name in names:
        sel = np.array([(c.get("variant") or "") == name for c in cells])
        arrays = {k: np.asarray(v)[sel] for k, v in res.arrays.items() if k != "__meta__"}
        arrays["curve"] = arrays["method"].copy()
        out.append((name, Results(res.figure, arrays, res.meta, res.path)))
    return out


def summarize(res: Results) -> dict[str, dict[str, np.ndarray]]:
    a = res.arrays
    xname = res.meta["definition"]["x"]
    lower = res.meta["definition"]["task"] == "prediction"
    st = res.cell_stats()
    # non-finite means are the worst possible value when choosing the best cell
    score = np.where(np.isfinite(st["mean"]), st["mean"], np.inf if lower else -np.inf)
    out = {}
    for curve in dict.fromkeys(a["curve"].tolist()):
        idx = np.flatnonzero(a["curve"] == curve)
        xs = sorted(set(a[xname][idx].tolist()))
        best = []
        for x in xs:
            group = idx[a[xname][idx] == x]
            pick = np.argmin(score[group]) if lower else np.argmax(score[group])
            best.append(group[pick])
        best = np.asarray(best, dtype=np.int64)
        # where alpha is optimised: is the best alpha the smallest or largest of its grid?
        # (then a better one may lie outside: the grid should be widened)
        edge = np.zeros(len(best), dtype="<U5")
        if res.meta["definition"].get("optimise"):
            for k, (x, b) in enumerate(zip(xs, best, strict=True)):
                grid = a["alpha"][idx[a[xname][idx] == x]]
                if len(set(grid.tolist())) > 1 and np.isfinite(st["mean"][b]):
                    edge[k] = ("low" if a["alpha"][b] == grid.min() else
                               "high" if a["alpha"][b] == grid.max() else "")
        out[curve] = {"x": np.asarray(xs), "y": st["mean"][best], "se": st["se"][best],
                      "alpha": a["alpha"][best], "n_diverged": st["n_diverged"][best],
                      "cell": best, "method": a["method"][best], "alpha_edge": edge}
    return out


def results_paths(figure_name: str, results_dir=DEFAULT_RESULTS) -> dict[str, Path]:
    d = Path(results_dir)
    return {"npz": d / f"{figure_name}.npz", "json": d / f"{figure_name}.json",
            "png": d / f"{figure_name}.png", "chunks": d / "chunks" / figure_name}


def load_results(figure_name: str, results_dir=DEFAULT_RESULTS, scale: str | None = None
                 ) -> Results | None:
    """The stored data of a figure (arrays + metadata), or ``None`` when there is none.

    ``scale`` (``quick``/``paper``): return ``None`` unless the stored data has that scale.
    The metadata is read from inside the ``.npz`` (the ``.json`` next to it is a copy for
    people), so data and metadata always belong together.
    """
    check_name(figure_name)
    p = results_paths(figure_name, results_dir)["npz"]
    if not p.is_file():
        return None
    try:
        arrays = store.load_npz(p)
    except Exception as e:
        problem = f"it cannot be read ({type(e).__name__})"
    else:
        meta, problem = store.read_meta(arrays)
        if problem is None:
            problem = store.verify_checksum(arrays, meta) or results_problem(arrays, meta)
    if problem is not None:  # as if it were not there; its chunks rebuild it
        print(f"ignoring {p}: {problem}", file=sys.stderr, flush=True)
        return None
    res = Results(figure_name, arrays, meta, p)
    if scale is not None and res.scale != scale:
        return None
    return res


def check_name(figure_name) -> str:
    """A figure's or an experiment's name (its files' stem): a paper figure, a study, or any
    name an experiment file gives (no path separator, not empty)."""
    if figure_name in FIGURES + STUDIES:
        return figure_name
    if (not isinstance(figure_name, str) or not figure_name or "/" in figure_name
            or "\\" in figure_name or figure_name.startswith(".")):
        raise ValueError(f"figure must be one of {', '.join(FIGURES + STUDIES)} or an "
                         f"experiment's name, got {figure_name!r}")
    return figure_name


RESULT_FIELDS = ("method", "curve", "alpha", "lam", "gamma", "eta", "k_max", "metric",
                 "diverged", "curve_mean")


def results_problem(arrays: dict, meta: dict) -> str | None:
    """What is inconsistent in a figure's stored arrays and metadata, or ``None``."""
    missing = [k for k in RESULT_FIELDS if k not in arrays]
    if missing:
        return f"field(s) missing: {', '.join(missing)}"
    d = meta.get("definition")
    if not isinstance(d, dict) or not {"x", "task"} <= set(d):
        return "its metadata has no figure definition"
    n = arrays["method"].shape
    if len(n) != 1 or any(arrays[k].shape != n for k in RESULT_FIELDS[:7]):
        return "its per-cell fields have different lengths"
    m = arrays["metric"]
    runs = meta.get("runs", m.shape[-1] if m.ndim else None)
    episodes = meta.get("episodes", arrays["curve_mean"].shape[-1])
    if (m.shape != (n[0], runs) or arrays["diverged"].shape != m.shape
            or arrays["curve_mean"].shape != (n[0], episodes)):
        return "its metric, diverged or curve_mean has the wrong shape"
    if d["x"] not in arrays:
        return f"its x axis ({d['x']}) is not stored"
    return None


def repo_results_dir() -> Path:
    """The repository's ``results/`` folder, wherever the caller runs.

    Notebooks run inside ``notebooks/``, so the relative :data:`DEFAULT_RESULTS` would miss
    it: this is the first of the working directory and its parents that holds the ``ftd_lib``
    package, else the folder next to the installed package.
    """
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "ftd_lib" / "__init__.py").is_file():
            return d / DEFAULT_RESULTS
    return Path(__file__).resolve().parents[2] / DEFAULT_RESULTS


def scale_label(res: Results) -> str:
    """The one label of a result's scale, used everywhere (plots, summaries, claims): ``paper
    scale: 200 runs × 50 episodes`` or ``below paper scale: 2 runs × 4 episodes (paper:
    200 × 50), cap 400 steps``. "Paper scale" means the paper's run and episode counts, not
    the ``--scale`` a run was started with."""
    m = res.meta
    if not m.get("definition", {}).get("paper_counts", True):  # beyond the paper
        s = f"{m.get('runs')} runs × {m.get('episodes')} episodes"
    else:
        s = (f"{'paper scale' if res.at_paper_scale else 'below paper scale'}: "
             f"{m.get('runs')} runs × {m.get('episodes')} episodes")
    if not res.at_paper_scale:
        s += f" (paper: {m.get('paper_runs')} × {m.get('paper_episodes')})"
    cap = m.get("definition", {}).get("max_steps")
    if cap is not None:
        s += f", cap {cap} steps"
    return s


def reproduce_command(figure_name: str, scale: str = "paper", results_dir=DEFAULT_RESULTS,
                      runs: int | None = None, seed: int | None = None,
                      device: str | None = None, chunk_rows: int | None = None,
                      episodes: int | None = None, grid=None) -> str:
    """The exact shell command that computes (or resumes) a figure's data; ``grid``: the
    definition's ``--set`` changes (``Figure.overrides`` or a dict, :func:`format_sets`)."""
    figure(figure_name, scale)  # validates the names
    cmd = f"python -m ftd_lib reproduce {figure_name} --scale {scale}"
    if runs is not None:
        cmd += f" --runs {int(runs)}"
    if episodes is not None:
        cmd += f" --episodes {int(episodes)}"
    if seed is not None and int(seed) != DEFAULT_SEED:
        cmd += f" --seed {int(seed)}"
    if str(results_dir) != DEFAULT_RESULTS:
        cmd += f" --out {results_dir}"
    if device and device != "cpu":
        cmd += f" --device {device}"
    if chunk_rows is not None:
        cmd += f" --chunk-rows {int(chunk_rows)}"
    return cmd + format_sets(grid or ())


def missing_message(figure_name: str, results_dir=DEFAULT_RESULTS) -> str:
    """What a notebook prints when a figure's data is not there yet."""
    return (f"No stored data for {figure_name} in {results_dir}/. Compute it with\n"
            f"    {reproduce_command(figure_name, 'paper', results_dir)}\n"
            f"(hours on a CPU; resumable) or, in seconds at quick scale,\n"
            f"    {reproduce_command(figure_name, 'quick', results_dir)}")
