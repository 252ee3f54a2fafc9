"""Twelve lazy answers a student once handed in and saw pass (the library's own function
called in the answer cell, its source pasted, a value read off a printed table, the right
shares made by hand), and the messages that misled, each fed to its check: every lazy answer is now
refused with a message that names what is wrong, and every message names the actual mistake.

A lazy answer written in the answer cell is run as a notebook runs it: its source is in
:mod:`linecache` under the cell's file name (IPython keeps every cell there), so a check can
read the cell that called it.
"""

import inspect
import linecache
import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import Linear
from ftd_lib.course import exercises
from ftd_lib.course import live as figures
from ftd_lib.course.exercises import nb01, nb02, nb03, nb04, nb05, nb06
from ftd_lib.course.roles import has
from ftd_lib.envs import mountain_car as mc
from ftd_lib.envs import random_walk as rw
from ftd_lib.envs.random_walk import random_walk_episodes
from ftd_lib.rng import run_generator

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem[:2]: p for p in sorted((REPO / "notebooks").glob("0*.ipynb"))}


@pytest.fixture(autouse=True)
def _no_student():
    exercises.use_student(None)
    yield
    exercises.use_student(None)


def run_cell(source: str, capsys, **scope):
    """Run ``source`` as a notebook cell (its source readable through linecache); returns
    (the namespace, what it printed). The cell's last line is the check call, kept as
    ``result = ...``."""
    name = f"<cell {abs(hash(source))}>"
    lines = source.splitlines(True)
    linecache.cache[name] = (len(source), None, lines, name)
    ns = dict(np=np, mc=mc, rw=rw, algorithms=algorithms, Linear=Linear, figures=figures,
              random_walk_episodes=random_walk_episodes, run_generator=run_generator,
              nb01=nb01, nb02=nb02, nb03=nb03, nb04=nb04, nb05=nb05, nb06=nb06, **scope)
    capsys.readouterr()
    try:
        exec(compile(source, name, "exec"), ns)  # noqa: S102
    finally:
        linecache.cache.pop(name, None)
    return ns, capsys.readouterr().out


def refused(source, capsys, *, says, **scope):
    ns, out = run_cell(source, capsys, **scope)
    assert ns["result"] is False, out
    lines = [ln for ln in out.splitlines() if ln.startswith(("✅", "❌"))]
    assert lines and lines[-1].startswith("❌"), out
    for s in ([says] if isinstance(says, str) else says):
        assert s in out, out
    return out


# ---------------------------------------------------------------- the twelve lazy answers


def test_1_v_true_of_the_papers_walk_is_not_v1_of_yours(capsys):
    v_true = rw.true_values()
    refused("answer = v_true[0]\nresult = nb01.check_value_state1(answer)", capsys,
            says="your answer cell uses v_true", v_true=v_true)
    refused("answer = walk[0]\nresult = nb01.check_value_state1(answer)", capsys,
            says="v(1) of the paper's walk", walk=v_true)
    refused("answer = rw.true_values()[0]\nresult = nb01.check_value_state1(answer)", capsys,
            says="uses true_values")
    exercises.use_student("alice")
    refused("answer = rw.true_values(p_left=nb01.given_bellman()['p_left'])[0]\n"
            "result = nb01.check_value_state1(answer)", capsys, says="uses true_values")


def test_2_discounted_return_is_refused_in_the_answer_cell(capsys):
    from ftd_lib.course.nb01_td_basics import discounted_return

    refused("e = nb01.given_return()\nanswer = discounted_return(e['rewards'], e['gamma'])\n"
            "result = nb01.check_return(answer)", capsys, says="uses discounted_return",
            discounted_return=discounted_return)


@pytest.mark.parametrize("helper", ["n_step_return", "interim_lambda_return",
                                    "interim_returns_vs_horizon"])
def test_3_the_return_helpers_are_refused(helper, capsys):
    from ftd_lib.course.nb02_lambda_return import interim_returns_vs_horizon
    from ftd_lib.returns import interim_lambda_return, n_step_return

    scope = dict(n_step_return=n_step_return, interim_lambda_return=interim_lambda_return,
                 interim_returns_vs_horizon=interim_returns_vs_horizon)
    exercises.use_student("alice")
    call = {"n_step_return": "n_step_return(e['rewards'], e['values'], 0, 2, e['gamma'])",
            "interim_lambda_return": "interim_lambda_return(e['rewards'], e['values'], 0, 3, "
                                     "e['gamma'], e['lam'])",
            "interim_returns_vs_horizon": "interim_returns_vs_horizon(e['rewards'], "
                                          "e['values'], 0, e['gamma'], e['lam'])[2]"}[helper]
    check = "check_n_step_return" if helper == "n_step_return" else (
        "check_interim_lambda_return")
    refused(f"e = nb02.given_episode()\nanswer = {call}\nresult = nb02.{check}(answer)",
            capsys, says=f"uses {helper}", **scope)


def _students_td_lambda():
    """The worked solution's TD(λ) (the student's own code)."""
    for c in nbformat.read(NOTEBOOKS["02"], as_version=4).cells:
        if "def my_td_lambda" in c.source and "### BEGIN SOLUTION" in c.source:
            code = c.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
            ns = dict(np=np)
            exec(code.split("\n\nfrom ftd_lib.approx")[0], ns)  # noqa: S102
            return ns["my_td_lambda"]
    raise AssertionError("no worked TD(λ)")


def test_4_figure1_digits_and_a_pasted_td_lambda_are_refused(capsys):
    from ftd_lib.course.nb02_lambda_return import figure1_data, figure1_episode_ends

    mine = _students_td_lambda()
    scope = dict(my_td_lambda=mine, figure1_data=figure1_data,
                 figure1_episode_ends=figure1_episode_ends)
    refused("fig1_point = figure1_episode_ends(figure1_data())['td_lambda'][0]\n"
            "result = nb02.check_td_lambda(my_td_lambda, fig1_point)", capsys,
            says="uses figure1_episode_ends", **scope)
    data = figure1_data()
    exercises.use_student("alice")  # alpha 0.2 is not alice's: the paper's digits are wrong
    assert nb02.given_figure1_point()["alpha"] != 0.2
    digits = float(figure1_episode_ends(data)["td_lambda"][0])
    refused("result = nb02.check_td_lambda(my_td_lambda, digits)", capsys,
            says="a point of the paper's Figure 1", digits=digits, **scope)
    # the library's TD(λ) pasted in under another name
    src = inspect.getsource(algorithms.td_lambda).replace("def td_lambda(", "def mine(")
    src = re.sub(r"\bepisodes\b", "eps", src)
    ns = dict(vars(algorithms))
    exec(src, ns)  # noqa: S102
    assert nb02.check_td_lambda(ns["mine"], digits) is False
    assert "copy of the library's own td_lambda" in capsys.readouterr().out


def test_5_values_per_episode_is_refused(capsys):
    from ftd_lib.course.nb03_one_state_divergence import values_per_episode

    refused("e = nb03.given_think()\nvalues_answer = values_per_episode(e['alpha'], e['T'], "
            "e['v0'], e['n_episodes'], 'td_lambda')[1:]\n"
            "result = nb03.check_think(0.0, values_answer)", capsys,
            says="uses values_per_episode", values_per_episode=values_per_episode)


def test_6_td_lambda_replacing_is_refused_and_not_named_beside_the_exercise(capsys):
    from ftd_lib.course.nb03_one_state_divergence import td_lambda_replacing

    src = ("e = nb03.given_replacing()\nW = td_lambda_replacing(one_state_episodes(1, "
           "T=e['T']), np.zeros(1), alpha=e['alpha'], lam=1.0, gamma=1.0)\n"
           "answer = float(W[-1, 0])\nresult = nb03.check_beta_replacing(answer)")
    from ftd_lib.envs import one_state_episodes

    refused(src, capsys, says="uses td_lambda_replacing",
            td_lambda_replacing=td_lambda_replacing, one_state_episodes=one_state_episodes)
    for c in nbformat.read(NOTEBOOKS["03"], as_version=4).cells:
        assert "td_lambda_replacing" not in c.source, c.source[:80]
        assert "values_per_episode" not in c.source or not has(c, "exercise")


def test_7_histories_are_no_longer_handed_in_for_k1(capsys):
    assert list(inspect.signature(nb04.check_k1_is_td0).parameters) == ["lam_max", "target"]
    episodes = random_walk_episodes(3, run_generator(0, 0))
    W_td0 = algorithms.td0(episodes, np.zeros(10), approx=Linear(10), alpha=0.1, gamma=1.0)
    assert nb04.check_k1_is_td0(0.01, W_td0) is False
    assert "target must be one number" in capsys.readouterr().out
    # TD(0)'s target is the answer of (b), the one-step return, not ρ
    e = nb04.given_k1()
    rho = e["reward"] + e["gamma"] * (1 - 0.01) * e["v_next"]
    assert nb04.check_k1_is_td0(0.01, rho) is False
    out = capsys.readouterr().out
    assert "that is ρ_0" in out and out.strip().splitlines()[-1].startswith("❌")


def test_8_rho_is_asked_before_the_listing_shows_line_13():
    cells = nbformat.read(NOTEBOOKS["04"], as_version=4).cells
    rho_cell = next(i for i, c in enumerate(cells) if "nb04.check_rho(" in c.source)
    listing = next(i for i, c in enumerate(cells)  # the listing's first half: lines 1-16
                   if "algorithm1_markdown(1, 16" in c.source)
    assert rho_cell < listing
    heading = next(c.source for c in cells[:rho_cell][::-1] if c.source.startswith("### "))
    assert heading.startswith("### Exercise 1 — the ρ-recursion")


def test_9_mc_true_value_is_refused(capsys):
    assert nb05.check_true_value(lambda x, v: mc.true_value(x, v)) is False
    assert "library's own true_value" in capsys.readouterr().out


def _experiment_answers():
    """(a) and (c) of notebook 05's exercise 3 for the current id, from the stored data."""
    e = nb05.given_experiment()
    res = figures.stored("fig3-right")
    s = res.summary()
    errors = [float(res["metric"][s[f"η = {eta:g}"]["cell"][np.isclose(
        s[f"η = {eta:g}"]["x"], e["lam"])][0], e["runs"]].mean()) for eta in nb05.ETAS]
    return [math.ceil(math.log(eta) / math.log(e["lam"])) for eta in nb05.ETAS], errors


def test_10_a_made_up_result_or_a_changed_prediction_does_not_pass(capsys, monkeypatch):
    """Notebook 05's exercise 3: the check reads the stored results itself (it takes none from
    the student: a made-up object with a summary() has nowhere to go); a prediction
    passes only as recorded before the measurement, whatever the data say, and a different one
    after the measurement was shown is refused, in the record and in the check."""
    monkeypatch.setattr(nb05, "_RECORDED", {})
    monkeypatch.setattr(nb05, "_SHOWN", set())
    assert list(inspect.signature(nb05.check_eta_experiment).parameters) == [
        "K_etas", "prediction", "errors"]
    Ks, errors = _experiment_answers()
    assert nb05.check_eta_experiment(Ks, "stays", errors) is False  # nothing recorded yet
    assert "record your prediction first" in capsys.readouterr().out
    why = "a shorter K cuts the lambda-return sooner, like a smaller lambda"
    assert nb05.record_prediction("stays", why) is True
    assert nb05.check_eta_experiment(Ks, "stays", errors) is True  # the data say it rises
    out = capsys.readouterr().out
    assert "they disagree" in out and "Correct: you predicted it" not in out
    assert nb05.record_prediction("rises", why) is False  # after the reveal
    assert "stays 'stays'" in capsys.readouterr().out
    assert nb05.check_eta_experiment(Ks, "rises", errors) is False
    assert "changed since you recorded 'stays'" in capsys.readouterr().out
    made_up = [0.3, 0.3, 0.3]  # numbers that are not the stored results
    assert nb05.check_eta_experiment(Ks, "stays", made_up) is False
    assert not nb05.record_prediction("stays", "because")  # a why of one word


def test_11_the_greedy_share_is_measured_by_the_check(capsys):
    assert list(inspect.signature(nb06.check_greedy_probability).parameters) == [
        "mountain_car", "cart_pole"]
    eps = nb06.given_epsilon()["epsilon"]
    assert nb06.check_greedy_probability(1 - eps + eps / 3, 1 - eps + eps / 2) is True
    out = capsys.readouterr().out
    assert out.count("measured by the check") == 2
    assert nb06.check_greedy_probability(1 - eps, 1 - eps) is False
    assert "forgets that the random draw" in capsys.readouterr().out
    # the shares it printed are measurements, not the prediction it asks for
    shares = [float(x) for x in re.findall(r"greedy one (0\.\d+) of the time", out)]
    assert len(shares) == 2 and all(abs(s - p) < 0.01 for s, p in zip(
        shares, (1 - eps + eps / 3, 1 - eps + eps / 2), strict=True))
    exact = [nb06.measure_greedy_share(q, eps) for q in (nb06.Q_MOUNTAIN_CAR, nb06.Q_CART_POLE)]
    assert nb06.check_greedy_probability(*exact) is False
    assert capsys.readouterr().out.count("that is a measured share") == 2


def test_12_velocity_policy_inside_the_loop_is_refused(capsys):
    def my_steps(x0, v0):
        x, v, n = x0, v0, 0
        while True:
            x, v, terminal = mc.mountain_car_step(x, v, mc.velocity_policy(x, v))
            n += 1
            if terminal:
                return n

    assert nb06.check_heuristic_steps(my_steps) is False
    assert "library's own velocity_policy" in capsys.readouterr().out


# ------------------------------------------------------------------ the misleading messages


def _worked(nb: str, name: str) -> str:
    for c in nbformat.read(NOTEBOOKS[nb], as_version=4).cells:
        if f"def {name}" in c.source and "### BEGIN SOLUTION" in c.source:
            return c.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
    raise AssertionError(name)


def _define(code: str, name: str):
    from collections import deque

    from ftd_lib.returns import k_bound

    ns = dict(np=np, deque=deque, k_bound=k_bound)
    exec(code.split("\n\nfrom ftd_lib.approx")[0], ns)  # noqa: S102
    return ns[name]


def test_aliased_rows_are_named_in_02(capsys):
    code = _worked("02", "my_td_lambda")
    assert "w = w + alpha * delta * e" in code
    aliased = _define(code.replace("w = w + alpha * delta * e", "w += alpha * delta * e"),
                      "my_td_lambda")
    assert nb02.check_td_lambda(aliased, 0.5) is False
    out = capsys.readouterr().out
    assert "all your rows are the same array" in out and "out.append(w.copy())" in out
    assert "Usual cause" not in out  # not blamed on the terminal, the decay or λ = 0


def test_aliased_rows_are_named_in_04(capsys):
    code = _worked("04", "my_forward_td_lambda")
    update = "w = w + alpha * (U - approx.value(w, phi)) * approx.grad(w, phi)"
    assert code.count(update) == 2
    aliased = _define(code.replace(update, "w += alpha * (U - approx.value(w, phi)) * "
                                           "approx.grad(w, phi)"), "my_forward_td_lambda")
    assert nb04.check_algorithm1(aliased) is False
    out = capsys.readouterr().out
    assert "all your rows are the same array" in out
    assert "no update yet" not in out and "first update" not in out


def test_a_missing_last_row_is_named_not_blamed_on_the_flush(capsys):
    code = _worked("04", "my_forward_td_lambda")
    line = next(ln for ln in code.splitlines(True) if ln.strip().startswith("out[-1] = w"))
    fn = _define(code.replace(line, ""), "my_forward_td_lambda")
    assert nb04.check_algorithm1(fn) is False
    out = capsys.readouterr().out
    assert "out[-1] = w" in out and "only the last row of an episode differs" in out


def test_weights_that_never_move_are_named(capsys):
    def frozen(episodes, w0, **kw):
        return np.array([np.array(w0, float) for _, r in episodes for _ in r])

    assert nb04.check_algorithm1(frozen) is False
    assert "your weights never move" in capsys.readouterr().out


def test_pushing_left_at_rest_is_named_not_a_counting_hint(capsys):
    def my_steps(x0, v0):
        x, v, n = x0, v0, 0
        while True:
            x, v, terminal = mc.mountain_car_step(x, v, 2 if v > 0 else 0)
            n += 1
            if terminal:
                return n

    assert nb06.check_heuristic_steps(my_steps) is False
    out = capsys.readouterr().out
    assert "At rest (v = 0) your car pushes left" in out and "Count every call" not in out


def test_no_message_prints_the_solution_loop(capsys):
    assert nb06.check_heuristic_steps(lambda x0, v0: 84) is False
    out = capsys.readouterr().out
    assert "a = 2 if v >= 0" not in out and "mountain_car_step(x, v, a)" not in out


def test_no_correct_summary_after_a_wrong_part(capsys):
    e = nb03.given_think()
    assert nb03.check_think(0.0, [0.0] * e["n_episodes"]) is False
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("✅ Correct: (a)")
    assert out.strip().splitlines()[-1].startswith("❌ Not yet: 1 of 2 parts right")
    assert nb04.check_k1_is_td0(0.0099, 3.5) is False  # a lam_max just below the largest
    out = capsys.readouterr().out
    assert "✅" not in out.strip().splitlines()[-1]


def test_plural_answers_are_plural(capsys):
    e = nb03.given_think()
    nb03.check_think(0.0, [5.0] * e["n_episodes"])
    assert "values after episodes 1..4 are off" in capsys.readouterr().out
    v = [1 - (-1) ** n * (1 - e["v0"]) for n in range(1, e["n_episodes"] + 1)]
    assert nb03.check_think(0.0, v) is True
    assert "values after episodes 1..4 are right" in capsys.readouterr().out


def test_a_list_for_one_number_gets_a_shape_message_alone(capsys):
    assert nb01.check_return([4.0951]) is False
    out = capsys.readouterr().out
    assert "one number, not a list" in out and "gamma" not in out


def test_claims_do_not_use_the_exercise_symbols():
    from ftd_lib.repro.paper.claims import AGREES, DISAGREES, Verdict

    marks = [Verdict(number=1, figure="4", claim="c", status=s, evidence="e").mark
             for s in (AGREES, DISAGREES)]
    assert not any(sym in m for m in marks for sym in ("✅", "❌")), marks


def test_the_rule_on_library_code_is_said_to_students():
    cells = nbformat.read(NOTEBOOKS["01"], as_version=4).cells
    text = " ".join(c.source for c in cells[:8])
    assert "pastes the source of" in text and "counts as unanswered" in text


def test_a_half_filled_skeleton_gets_one_message_that_the_weights_never_move(capsys):
    from ftd_lib.course.roles import is_solution

    cells = nbformat.read(NOTEBOOKS["04"], as_version=4).cells
    src = next(c.source for c in cells if has(c, "exercise") and not is_solution(c)
               and "def my_forward_td_lambda" in c.source)
    src = re.sub(r"\n\s*raise NotImplementedError\([^)]*\)", "", src)
    ns, _ = run_cell(src.split("nb04.check_algorithm1")[0], capsys)
    assert nb04.check_algorithm1(ns["my_forward_td_lambda"]) is False
    out = capsys.readouterr().out
    assert out.count("❌") == 1 and "your weights never move" in out
