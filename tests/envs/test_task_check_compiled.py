"""``check_task``'s "compiled = batch" check is proven by the wrong compiled dynamics it
finds: each mutant below is the row's own compiled pieces with one thing wrong (wrapped in
Python, so nothing new is compiled), and each must fail the check, naming where. Among them
the two a researcher's port got through before the check took the task's parameters and
states over the whole state space: a step that ignores the task's parameter and a goal of
the wrong size. About 10 s."""

import dataclasses

import numpy as np
import pytest

from ftd_lib.envs import cartpole as C
from ftd_lib.envs import task_check as tc
from ftd_lib.envs import tasks
from ftd_lib.methods import Param


def _pieces(name):
    return tc.compiled_pieces(tasks.task(name))


def ignores_its_parameter():
    params, reset, step = _pieces("puddle_world")
    return (lambda **kw: params()), reset, step  # every noise_sd runs the default


def goal_of(name, test):
    params, reset, step = _pieces(name)

    def moved_goal(state, a, x, noise, tp):
        r, _ = step(state, a, x, noise, tp)
        return r, test(state)
    return params, reset, moved_goal


def unclipped_features():
    params, reset, step = _pieces("cartpole")

    def unclipped(state, a, x, noise, tp):
        out = step(state, a, x, noise, tp)
        x[:] = state / C.OBS_SCALE
        return out
    return params, reset, unclipped


def reward_sign():
    params, reset, step = _pieces("puddle_world")

    def flat(state, a, x, noise, tp):
        r, term = step(state, a, x, noise, tp)
        return max(r, -1.0), term  # the puddles' penalty forgotten
    return params, reset, flat


#: (task, mutant pieces, the words of the failure)
MUTANTS = {
    "ignores the task's parameter": ("puddle_world", ignores_its_parameter,
                                     "at noise_sd = 0.03, run 3, step 0: the compiled step"),
    "goal radius 1.95 for 1.9": ("puddle_world",
                                 lambda: goal_of("puddle_world", lambda s: s[0] + s[1] >= 1.95),
                                 "at the defaults, run 3, step 24: .* another end"),
    "mountain car's goal at x >= 0.45": ("mountain_car",
                                        lambda: goal_of("mountain_car", lambda s: s[0] >= 0.45),
                                        "at the defaults, from the state .* another end"),
    "cart-pole's features unclipped": ("cartpole", unclipped_features,
                                       "at the defaults, run 3, step 9: .* another features"),
    "the puddles' penalty forgotten": ("puddle_world", reward_sign,
                                       "at the defaults, run 3, step 26: .* another reward"),
}


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_check_task_finds_each_mutant_of_the_compiled_dynamics(mutant):
    name, make, words = MUTANTS[mutant]
    with pytest.raises(tc.TaskCheckError, match=f"check_task.'{name}'.: compiled = batch: "
                       + words):
        tc.check_compiled(tasks.task(name), pieces=make())


@pytest.mark.parametrize("mutant", ["goal radius 1.95 for 1.9", "mountain car's goal at x >= 0.45",
                                     "cart-pole's features unclipped",
                                     "the puddles' penalty forgotten"])
def test_the_states_over_the_box_alone_find_the_mutants_of_the_step(mutant):
    """Without the runs' trajectories (which reach few goals), the steps from states over the
    row's state_box find each mutant of the step."""
    name, make, _ = MUTANTS[mutant]
    with pytest.raises(tc.TaskCheckError, match="from the state .* gives another"):
        tc._compiled_states(tasks.task(name), make(), {}, 0, 2000)


def test_the_check_runs_every_parameter_at_its_default_and_its_example():
    line = tc.check_compiled(tasks.task("puddle_world"))
    assert "at 2 parameter point(s)" in line and "noise_sd = 0.03: " in line
    assert tc.parameter_points(tasks.task("puddle_world")) == [{}, {"noise_sd": 0.03}]
    # every registered task with compiled dynamics reaches terminal ends at every point
    for t in tasks.TASKS.values():
        if t.compiled is not None:
            ends = line_ends(tc.check_compiled(t))
            assert ends and all(sum(e) > 0 for e in ends), t.name


def line_ends(line):
    import re

    return [tuple(map(int, m)) for m in re.findall(r": (\d+) \+ (\d+)", line)]


def test_a_parameter_without_an_example_and_a_box_without_a_goal_fail():
    t = tasks.task("puddle_world")
    bare = dataclasses.replace(t, params=(dataclasses.replace(t.params[0], example=None),))
    with pytest.raises(tc.TaskCheckError, match="'noise_sd' has no example other than its "
                       "default"):
        tc.check_compiled(bare)
    same = dataclasses.replace(t, params=(Param("noise_sd", float, default=0.01, example=0.01),))
    with pytest.raises(tc.TaskCheckError, match="no example other than its default"):
        tc.check_compiled(same)
    # mountain car from the bottom of the valley only: its random walks never reach the goal
    low = dataclasses.replace(tasks.task("mountain_car"), state_box=((-0.6, -0.4), (0.0, 0.0)))
    with pytest.raises(tc.TaskCheckError, match="no terminal end was compared"):
        tc.check_compiled(low)
    with pytest.raises(tc.TaskCheckError, match="state_box must give"):
        tc.check_compiled(dataclasses.replace(low, state_box=None))
    assert np.isfinite(np.array(tasks.task("acrobot").state_box)).all()
