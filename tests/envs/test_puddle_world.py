"""Puddle World (Sutton 1996), a stochastic task added in its own file
(ftd_lib/envs/puddle_world.py) and one registry row: noise in every step from the run's own
stream, a reward that varies. The task contract and ``check_task`` take such a task as it
is (``Task.noise``, ``Task.reward_range``, "a run alone = the same run in a batch" over whole
trajectories), and find a task that draws its noise elsewhere. About 20 s."""

import dataclasses

import numpy as np
import pytest

from ftd_lib.engine import Settings, run_control
from ftd_lib.envs import puddle_world as P
from ftd_lib.envs import task_check as tc
from ftd_lib.envs import tasks

T = tasks.task("puddle_world")


def test_puddle_world_by_hand():
    # the puddles' depth: 0.1 on a segment, 0 from 0.1 away, both added where they cross
    s = np.array([[0.3, 0.75], [0.3, 0.9], [0.45, 0.75], [0.9, 0.9], [0.45, 0.55]])
    np.testing.assert_allclose(P.depth(s), [0.1, 0.0, 0.2, 0.0, 0.1], atol=1e-15)
    # a move up from (0.3, 0.6) with noise draws (u1, u2) = (1 - e^-1/2, 0): a normal pair
    # (1, 0), so x moves by 0.01, y by 0.05; then 0.05 below the first puddle's edge... inside
    new, term, r = T.transition(np.array([[0.3, 0.6]]), np.array([0]),
                                np.array([[1 - np.exp(-0.5), 0.0]]))
    np.testing.assert_allclose(new, [[0.31, 0.65]], atol=1e-15)
    assert not term[0]
    np.testing.assert_allclose(r, [-1.0 - 400 * (0.1 - 0.1)], atol=1e-12)
    new, term, r = T.transition(np.array([[0.96, 0.96]]), np.array([2]),
                                np.array([[1 - np.exp(-0.5), 0.25]]))  # normals (0, 1)
    np.testing.assert_allclose(new, [[1.0, 0.97]], atol=1e-15)  # clipped at the wall
    assert term[0] and r[0] == -1.0  # the goal: x + y >= 1.9
    assert T.rewards == (-81.0, -1.0) and T.noise == 2


def test_starts_are_never_in_the_goal_and_noise_is_the_run_s_own():
    env = P.PuddleWorldBatch(0, np.arange(200))
    env.reset()
    assert (env.state.sum(axis=1) < P.GOAL).all()
    env.step(np.zeros(200, dtype=np.int64))
    alone = P.PuddleWorldBatch(0, [17])
    alone.reset()
    alone.step(np.zeros(1, dtype=np.int64))
    np.testing.assert_array_equal(alone.last_noise[0], env.last_noise[17])
    np.testing.assert_array_equal(alone.state[0], env.state[17])


def test_check_task_takes_a_stochastic_task():
    lines = tc.check_task("puddle_world")
    assert "noise: 2 draws a step, and it changes the step" in lines[2]
    assert lines[4].startswith("compiled = batch:") and "bit for bit" in lines[4]
    assert lines[5].startswith("bounds:") and "rewards in [-81, -1]" in lines[5]


class _GlobalNoise(P.PuddleWorldBatch):
    def _draw_noise(self, active):  # noise from numpy's global generator: batch-dependent
        self.last_noise = np.random.default_rng(len(self.run_ids)).random(
            (self.n_runs, self.noise_dim))
        return self.last_noise


def _noiseless(state, actions, noise):
    return P.step_arrays(state, actions, np.full_like(noise, 0.5))


class _NoiselessBatch(P.PuddleWorldBatch):  # declares noise, draws it, never uses it
    def step(self, actions, active=None):
        active = self._mask(active, "active")
        self._draw_noise(active)
        new, term, r = _noiseless(self.state, np.asarray(actions), np.zeros((self.n_runs, 2)))
        return self._advance(new, term, active, r)


@pytest.mark.parametrize("change, check, words", [
    (dict(batch_cls=_GlobalNoise), tc.check_run_alone, "run's own stream"),
    (dict(noise=0), tc.check_interface, "the row declares noise = 0"),
    (dict(_step=_noiseless, batch_cls=_NoiselessBatch), tc.check_scalar_equals_batch,
     "other noise gives the same step"),
    (dict(_step=_noiseless), tc.check_scalar_equals_batch, "with the noise it drew"),
    (dict(reward_range=(-41.0, -1.0)), tc.check_bounds, "outside the row's range"),
    (dict(reward_range=None), tc.check_bounds, "outside the row's range [-1, -1]"),
])
def test_check_task_finds_a_broken_stochastic_contract(change, check, words):
    broken = dataclasses.replace(T, **change)
    with pytest.raises(tc.TaskCheckError) as e:
        check(broken)
    assert "check_task('puddle_world')" in str(e.value) and words in str(e.value), str(e.value)


def test_a_bad_noise_argument_is_refused():
    with pytest.raises(ValueError, match="noise must have shape"):
        T.transition(np.zeros((2, 2)), np.zeros(2, int))
    with pytest.raises(ValueError, match="deterministic: noise must be None"):
        tasks.task("acrobot").transition(np.zeros((1, 4)), np.zeros(1, int), np.zeros((1, 1)))


def test_the_engines_run_a_stochastic_task_a_run_the_same_alone_or_in_a_batch():
    """The batch and the reference agree on Puddle World (returns exactly, weights to
    1e-10), and run 2 gives the same numbers alone and among four, in a batch of width 2."""
    s = Settings.make(alpha=[0.01, 0.03, 0.003, 0.01], lam=0.9, gamma=1.0)
    kw = dict(env="puddle_world", max_steps=60)
    ref = run_control("forward_sarsa_lambda", s, 5, [0, 1, 2, 3], 3, engine="reference", **kw)
    got = run_control("forward_sarsa_lambda", s, 5, [0, 1, 2, 3], 3, width=2, engine="batch",
                      **kw)
    assert got.engine == "batch"
    np.testing.assert_array_equal(got.returns, ref.returns)
    np.testing.assert_allclose(got.final_weights, ref.final_weights, rtol=0, atol=1e-10)
    alone = run_control("forward_sarsa_lambda", s.select([2]), 5, [2], 3, engine="batch", **kw)
    np.testing.assert_array_equal(alone.returns[0], got.returns[2])
    np.testing.assert_array_equal(alone.final_weights[0], got.final_weights[2])
    assert (got.returns < -got.lengths).any()  # a puddle was met: the reward varies
