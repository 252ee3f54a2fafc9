"""A task's own parameters (its row's ``params`` in ftd_lib/envs/tasks.py), shown with Puddle
World's ``noise_sd``: checked by the row (a bool, a string, a negative value or an unknown name
refused naming it), passed to the environment and its pure step, part of a chunk's identity
only where a file gives them, and run by the engines. About 5 s."""

import numpy as np
import pytest

from ftd_lib.engine import Settings, run_control
from ftd_lib.envs import puddle_world as pw
from ftd_lib.envs.tasks import TASKS, check_task_params
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.experiment import ExperimentError, build, load_experiment
from ftd_lib.repro.keys import read_file


def test_the_row_checks_them_and_fills_in_the_defaults():
    assert check_task_params("puddle_world") == {"noise_sd": 0.01}
    assert check_task_params("puddle_world", {"noise_sd": 0}) == {"noise_sd": 0.0}
    assert check_task_params("cartpole") == {}
    for bad, says in [({"noise_sd": True}, "noise_sd must be a finite number >= 0"),
                      ({"noise_sd": "0.1"}, "noise_sd must be a finite number >= 0"),
                      ({"noise_sd": -0.1}, "noise_sd must be a finite number >= 0"),
                      ({"slip": 0.5}, "puddle_world has no parameter 'slip'")]:
        with pytest.raises(ValueError, match=says):
            check_task_params("puddle_world", bad)
    with pytest.raises(ValueError, match="cartpole has no parameter 'slip' .*none"):
        check_task_params("cartpole", {"slip": 0.5})


def test_without_noise_the_moves_are_exact_by_hand():
    """noise_sd = 0: from (0.5, 0.2) "up" is (0.5, 0.25) and "left" (0.45, 0.2), whatever
    the draws; the default's noise moves them."""
    s = np.array([[0.5, 0.2], [0.5, 0.2]])
    u = np.array([[0.3, 0.9], [0.7, 0.1]])
    new, term, reward = TASKS["puddle_world"].transition(s, np.array([0, 3]), u,
                                                           noise_sd=0.0)
    np.testing.assert_array_equal(new, [[0.5, 0.25], [0.45, 0.2]])
    assert not term.any() and reward.tolist() == [-1.0, -1.0]
    noisy = TASKS["puddle_world"].transition(s, np.array([0, 3]), u)[0]
    assert not np.allclose(noisy, new)
    env = pw.PuddleWorldBatch(0, [0, 1], noise_sd=0.0)
    env.reset()
    before = env.state.copy()
    env.step(np.array([2, 1]))
    np.testing.assert_allclose(env.state - before, [[0.05, 0.0], [0.0, -0.05]], atol=1e-15)


def test_the_engines_run_them_and_the_default_given_changes_nothing():
    s = Settings.make(alpha=[0.01], lam=[0.9], gamma=1.0)
    kw = dict(env="puddle_world", max_steps=30, engine="batch")
    base = run_control("sarsa_lambda", s, 3, [0], 2, **kw)
    same = run_control("sarsa_lambda", s, 3, [0], 2, task_params={"noise_sd": 0.01}, **kw)
    exact = run_control("sarsa_lambda", s, 3, [0], 2, task_params={"noise_sd": 0.0}, **kw)
    ref = run_control("sarsa_lambda", s, 3, [0], 2, task_params={"noise_sd": 0.0},
                      **dict(kw, engine="reference"))
    np.testing.assert_array_equal(base.returns, same.returns)
    assert not np.array_equal(base.returns, exact.returns)
    np.testing.assert_array_equal(exact.returns, ref.returns)
    with pytest.raises(ValueError, match="task_params.slip: puddle_world has no parameter"):
        run_control("sarsa_lambda", s, 3, [0], 2, task_params={"slip": 1.0}, **kw)


def _puddle_file(tmp_path, extra=""):
    p = tmp_path / "puddle.toml"
    p.write_text('name = "puddle"\nx = "alpha"\nruns = 2\nepisodes = 2\n'
                 'methods = ["sarsa_lambda"]\n[task]\nname = "puddle_world"\n' + extra
                 + '[grid]\nalphas = [0.01]\nlams = [0.9]\n')
    return p


def test_an_experiment_file_gives_them_and_they_key_the_chunks(tmp_path):
    plain = cut_chunks(load_experiment(_puddle_file(tmp_path), "paper")[0])
    fig, _ = load_experiment(_puddle_file(tmp_path, "params = { noise_sd = 0.05 }\n"), "paper")
    assert fig.task_params == (("noise_sd", 0.05),)
    task = cut_chunks(fig)[0]
    assert task.task_params == {"noise_sd": 0.05}
    assert task.identity("r", "cpu")["task_params"] == {"noise_sd": 0.05}
    assert "task_params" not in plain[0].identity("r", "cpu")  # none given: as before
    raw = read_file(_puddle_file(tmp_path))
    for item, says in [("task.params.noise_sd=true", "noise_sd must be a finite number"),
                       ("task.params.noise_sd='\"0.1\"'", "noise_sd must be a finite number"),
                       ("task.params.slip=0.2", "puddle_world has no parameter 'slip'")]:
        with pytest.raises(ExperimentError, match=f"task.params: .*{says}"):
            load_experiment(_puddle_file(tmp_path), "paper", [item])
    assert build(raw, "paper", "f")[0].task_params == ()
