"""One report section for any experiment (ftd_lib/repro/sections.py), on stores made by
planted runners (no engine): titles and task names from the experiment, best α with grid-edge
marks, paired comparisons per set-up, the claims the file names and only those. About 10 s."""

import numpy as np
import pytest

from ftd_lib.repro import sections
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.experiment import experiment_path, load_experiment
from ftd_lib.repro.launch import run_experiment
from ftd_lib.repro.paper.claims import AGREES, DISAGREES
from ftd_lib.repro.report import render
from ftd_lib.repro.runs import run_figure


def _runner(gain):
    """Returns -3000 plus ``gain(task, alpha, lam)`` per row, +5 on odd runs for every cell
    alike (so a paired difference has no noise)."""
    def run(task, *, device, progress):
        a, lam = task.settings[:, 0], task.settings[:, 1]
        y = -3000.0 + 5.0 * (task.run_ids % 2) + gain(task, a, lam)
        return {"values": np.repeat(y[:, None], task.n_episodes, axis=1),
                "diverged": np.zeros(task.rows, bool)}

    run.name = "planted-v1"
    return run


# under 'zero output layer' both methods learn with alpha, forward Sarsa(lambda > 0) more
ZERO_WINS = _runner(lambda t, a, lam: 1e5 * a * (1 + (t.method == "forward_sarsa_lambda")
                                                 * lam) * (t.variant["name"] ==
                                                           "zero output layer"))


def test_a_study_with_set_ups_is_read_per_set_up(tmp_path):
    res = run_figure(figure("claim5-study", "quick"), tmp_path, runner=ZERO_WINS,
                     progress=False, plot=False)
    parts = dict(sections.groups(res))
    assert len(parts) == 9 and set(parts["small weights"].arrays["curve"]) == {
        "sarsa_lambda", "forward_sarsa_lambda"}
    pair = ("forward_sarsa_lambda", "sarsa_lambda")
    z = sections.pair_rows(parts["zero output layer"], *pair)
    # the same runs at their best alphas (0.015): the difference is forward's extra lambda
    assert z[-1]["lam"] == 0.8 and z[-1]["diff"] == pytest.approx(1e5 * 0.015 * 0.8)
    assert z[-1]["se"] == 0 and z[0]["same"]  # lambda = 0: one algorithm, the same numbers
    assert sections.clearly(z, *pair) == "forward Sarsa(λ) clearly ahead at every λ"
    d = sections.pair_rows(parts["as in Fig. 4"], *pair)
    assert all(r["same"] for r in d)  # nothing learned: the two give the same numbers
    assert sections.clearly(d, *pair) == "a tie within noise at some λ"
    text = render(tmp_path)
    assert "## Claim 5: mountain car control under set-up variants, best α per λ" in text
    assert "**✔ agrees** under *zero output layer*" in text
    assert "**✘ disagrees** under *as in Fig. 4*" in text
    assert "| small weights | weight initialisation: the scale |" in text


def test_clearly_by_hand():
    a, b = "forward_sarsa_lambda", "sarsa_lambda"
    rows = [{"lam": 0.0, "same": True, "side": ""},
            {"lam": 0.4, "same": False, "side": b}, {"lam": 0.8, "same": False, "side": a}]
    assert sections.clearly(rows, a, b) == "Sarsa(λ) clearly ahead at some λ"
    rows[1]["side"] = ""  # within two standard errors
    assert sections.clearly(rows, a, b) == "a tie within noise at some λ"
    rows[1]["side"] = a
    assert sections.clearly(rows, a, b) == "forward Sarsa(λ) clearly ahead at every λ"


def test_a_new_experiment_is_reported_by_its_own_words(tmp_path):
    """A researcher's file on cart-pole, named and titled its own way: the section's title
    and task come from it, no claim of the paper is judged on it (it names none), and the
    paper's claims about Fig. 4 right stay without data."""
    f = tmp_path / "mine.toml"
    f.write_text('name = "my-cartpole"\ntitle = "My cart-pole test on {task}"\n'
                 'methods = ["sarsa_lambda"]\nruns = 2\nepisodes = 3\n'
                 '[task]\nname = "cartpole"\ncap = 50\n'
                 '[grid]\nalphas = [0.001, 0.002, 0.004]\nlams = [0.0, 0.5]\n')
    best_high = _runner(lambda t, a, lam: 1e4 * a)  # the largest alpha is best: a grid edge
    run_experiment(f, out=tmp_path / "o", runner=best_high, progress=False, plot=False)
    text = render(tmp_path / "o")
    sec = text[text.index("## My cart-pole test on cart-pole"):]
    assert "Task: cart-pole (control)" in sec
    assert "[α = 0.004, grid edge]" in sec
    assert "Claims:" not in sec
    assert "The paper's claims" not in text and "no data" not in text  # only the folder's
    assert text.startswith("# Report: My cart-pole test on cart-pole")


def test_claims_are_judged_where_the_file_names_them(tmp_path):
    """Fig. 4 right's methods on another task, with claim 5 named: judged on that data."""
    f = tmp_path / "c5.toml"
    f.write_text(f'base = "{experiment_path("fig4-right")}"\nname = "c5"\nclaims = [5]\n'
                 'runs = 2\nepisodes = 2\nprotocol.kind = "fixed"\n'
                 'grid.lams = [0.0, 0.5]\ngrid.alphas = [0.001, 0.002]\ntask.cap = 20\n')
    fwd = _runner(lambda t, a, lam: 100 * lam * (t.method == "forward_sarsa_lambda"))
    res = run_experiment(f, out=tmp_path / "o", runner=fwd, progress=False, plot=False)
    assert load_experiment(f)[0].claims == (5,)
    verdicts = [v for v in sections.confront_named(res)]
    assert [(v.number, v.status, v.figure) for v in verdicts] == [(5, AGREES, "c5")]
    assert DISAGREES not in {v.status for v in verdicts}


def test_a_researchers_changed_definition_is_not_called_the_papers_grid(tmp_path):
    """A file beyond the paper, run with a --set, said "(not the paper's grid)"; now
    it says "(not the file's definition)", and the paper's figures keep their words."""
    f = tmp_path / "mine.toml"
    f.write_text('name = "my-cartpole"\ntitle = "My cart-pole test on {task}"\n'
                 'methods = ["sarsa_lambda"]\nruns = 2\nepisodes = 3\n'
                 '[task]\nname = "cartpole"\ncap = 50\n'
                 '[grid]\nalphas = [0.001, 0.002]\nlams = [0.0]\n')
    run_experiment(f, "paper", ["grid.alphas=[0.001, 0.004]"], out=tmp_path / "o",
                   runner=_runner(lambda t, a, lam: 0.0), progress=False, plot=False)
    text = render(tmp_path / "o")
    line = next(ln for ln in text.splitlines() if "definition changed" in ln)
    assert line.endswith("(not the file's definition)") and "paper" not in line
    run_experiment("fig4-right", "quick", ["grid.alphas=[0.03]"], out=tmp_path / "p",
                   runner=_runner(lambda t, a, lam: 0.0), progress=False, plot=False)
    line = next(ln for ln in render(tmp_path / "p").splitlines() if "definition changed" in ln)
    assert line.endswith("(not the paper's grid)")
