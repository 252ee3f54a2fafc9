"""ftd_lib.figures: one entry point per paper figure, and one table from figure to code."""

import re
from pathlib import Path

import numpy as np
import pytest

from ftd_lib import figures
from ftd_lib.repro.paper import fig1, fig2
from ftd_lib.repro.results import load_results, repo_results_dir

REPRODUCTION = Path(__file__).resolve().parents[2] / "docs" / "reproduction.md"


def _docstring_rows():
    lines = figures.__doc__.splitlines()
    rule = [i for i, line in enumerate(lines) if line.startswith("====")]
    return [line for line in lines[rule[1] + 1:rule[2]]]


def test_the_docstring_table_and_the_reproduction_guides_table_are_one():
    rows = _docstring_rows()
    assert len(rows) == len(figures.TABLE)
    for line, (paper, what, entry, made_by, nb) in zip(rows, figures.TABLE, strict=True):
        cols = re.split(r"\s{2,}", line.strip())
        assert cols == [paper, what, entry or "--", made_by or "--", nb or "--"]
    assert figures.table_markdown() in REPRODUCTION.read_text()


def test_every_entry_point_and_every_named_function_exists():
    import importlib

    for _, _, entry, made_by, _ in figures.TABLE:
        if entry:
            assert callable(getattr(figures, entry.removesuffix("()")))
        for name in filter(None, made_by.split(", ")):
            try:  # a module of ftd_lib.repro (paper.study), or a function in one
                importlib.import_module(f"ftd_lib.repro.{name}")
                continue
            except ModuleNotFoundError:
                mod, _, attr = name.rpartition(".")
            assert callable(getattr(importlib.import_module(f"ftd_lib.repro.{mod}"), attr))


def test_figure_1_is_fig1s_data_and_picture():
    f = figures.figure_1(seed=3)
    want = fig1.figure1_data(seed=3)
    for m, y in want["curves"].items():
        np.testing.assert_array_equal(f.panels[""]["curves"][m], y)
    ax = f.fig.axes[0]
    assert [line.get_label() for line in ax.get_lines()][:3] == ["TD(λ)", "online λ-return",
                                                            "offline λ-return"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), want["curves"]["td_lambda"])


def test_figure_2_is_fig2s_data():
    f = figures.figure_2(runs=50)
    want = fig2.figure2_data(runs=50)
    for m in ("td_lambda", "online_lambda_return"):
        np.testing.assert_array_equal(f.panels["right"][m], want[m])
    assert f.panels["right"]["best_alpha_online_lambda_return"] == 1.0  # the paper's α = 1


@pytest.mark.parametrize("number", [3, 4])
def test_figures_3_and_4_read_the_stored_results(number):
    f = getattr(figures, f"figure_{number}")()
    for side in ("left", "right"):
        stored = load_results(f"fig{number}-{side}", repo_results_dir())
        if stored is None:
            assert f.panels[side] is None
        else:
            np.testing.assert_array_equal(f.panels[side]["metric"], stored["metric"])
    assert len(f.fig.axes) == 2


def test_a_missing_stored_figure_shows_the_command(tmp_path):
    f = figures.figure_4(tmp_path)
    assert f.panels == {"left": None, "right": None}
    texts = [t.get_text() for ax in f.fig.axes for t in ax.texts]
    assert any("python -m ftd_lib reproduce fig4-left --scale paper" in t for t in texts)
