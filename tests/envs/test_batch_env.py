"""BatchEnv's default obs/reset/step: a task that declares its pieces gets them, a task that
declares neither a piece nor the method refuses with the class and the attribute named."""

from __future__ import annotations

import numpy as np
import pytest

from ftd_lib.envs.batch import BatchEnv


class Undeclared(BatchEnv):
    obs_dim = n_actions = state_dim = 2


class Declared(Undeclared):
    start_high = 0.0  # a start at the origin: zero is a declaration, not a missing one
    scale = staticmethod(lambda s: s / 2)
    reward_per_step = 0.5

    @staticmethod
    def step_arrays(states, actions):
        return states + actions[:, None], states[:, 0] > 0.5


def _step_started(env):
    env.needs_reset[:] = False  # started by hand: the reset itself would refuse
    return env.step(np.zeros(2, dtype=int))


@pytest.mark.parametrize(("call", "attribute"), [
    (lambda env: env.reset(), "start_high"),
    (lambda env: env.obs(), "scale"),
    (_step_started, "step_arrays"),
])
def test_a_task_that_declares_nothing_is_refused_naming_class_and_attribute(call, attribute):
    with pytest.raises(ValueError, match=f"Undeclared sets no {attribute}"):
        call(Undeclared(0, [0, 1]))


def test_a_declared_task_runs_its_pieces():
    env = Declared(0, [0, 1], max_steps=5)
    np.testing.assert_array_equal(env.reset(), np.zeros((2, 2)))
    obs, reward, term, trunc = env.step(np.array([1, 0]), active=np.array([True, False]))
    np.testing.assert_array_equal(env.state, [[1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(obs, [[0.5, 0.5], [0.0, 0.0]])
    np.testing.assert_array_equal(reward, [0.5, 0.0])
    np.testing.assert_array_equal(term, [False, False])
    _, _, term, _ = env.step(np.array([0, 0]), active=np.array([True, False]))
    np.testing.assert_array_equal(term, [True, False])
