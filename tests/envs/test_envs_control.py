"""Mountain car and cart-pole: batched vs scalar dynamics, per-run streams, hand-checked
edge cases, the evaluation policy's measured near-optimality."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ftd_lib.envs import cartpole as cp
from ftd_lib.envs import mountain_car as mc

# ----------------------------------------------------------------------------------------
# mountain car: batched step == scalar step
# ----------------------------------------------------------------------------------------


def _random_mc_states(rng, n):
    x = rng.uniform(mc.X_MIN, mc.X_MAX, n)
    v = rng.uniform(-mc.V_MAX, mc.V_MAX, n)
    # edge rows: at / near the left wall moving left, near the goal moving right, fast
    x[:20] = mc.X_MIN + rng.uniform(0, 0.02, 20)
    v[:20] = -rng.uniform(0, mc.V_MAX, 20)
    x[20:40] = mc.X_MAX - rng.uniform(0, 0.03, 20)
    v[20:40] = rng.uniform(0, mc.V_MAX, 20)
    v[40:50] = mc.V_MAX * rng.choice([-1, 1], 10)
    return x, v


def _steps_equal_scalar_steps(env, rng, scalar, reward_per_step):
    """Three rounds of random actions on random ~70 % of ``env``'s rows: each active row
    moves as ``scalar(state_row, action) -> (state_row', terminal)`` says, with the task's
    reward; an inactive row is not advanced and reports nothing; the observations are the
    task's scaling of the states; rows that ended are reset between rounds. Returns how many
    active rows were checked and whether any ended."""
    B, n_checked, ended = env.n_runs, 0, False
    for _ in range(3):
        before = env.state.copy()
        actions = rng.integers(0, env.n_actions, B)
        active = rng.random(B) < 0.7
        obs, reward, term, trunc = env.step(actions, active)
        for i in range(B):
            if active[i]:
                s2, t2 = scalar(before[i], int(actions[i]))
                assert np.array_equal(env.state[i], s2) and bool(term[i]) == t2
                assert reward[i] == reward_per_step
                n_checked += 1
            else:  # inactive rows: not advanced, nothing reported
                assert np.array_equal(env.state[i], before[i])
                assert reward[i] == 0.0 and not term[i] and not trunc[i]
        assert np.array_equal(obs, env.obs())
        ended |= bool(term.any())
        # rows that ended are reset before the next round (steps must not touch them)
        env.reset(term)
    return n_checked, ended


def test_mountain_car_batch_step_equals_scalar_step():
    rng = np.random.default_rng(0)
    B = 400
    env = mc.MountainCarBatch(0, np.arange(B))
    env.reset()
    x, v = _random_mc_states(rng, B)
    env.state[:, 0], env.state[:, 1] = x, v
    assert np.array_equal(env.obs(), mc.scale_obs(x, v))

    def scalar(s, a):
        x2, v2, t2 = mc.mountain_car_step(s[0], s[1], a)
        return np.array([x2, v2]), t2

    n_checked, ended = _steps_equal_scalar_steps(env, rng, scalar, -1.0)
    assert n_checked > 600
    assert ended  # the goal rows were exercised


def test_mountain_car_goal_terminates():
    # x = 0.49, v = 0.02, full right: v' = 0.021 - 0.0025 cos(1.47) ~ 0.0207, x' = 0.5107 -> 0.5
    x, v, term = mc.mountain_car_step(0.49, 0.02, 2)
    assert term and x == mc.X_MAX and 0.02 < v < 0.021
    # x = 0.4, v = 0.01, no throttle: v' = 0.01 - 0.0025 cos(1.2) ~ 0.0091, x' ~ 0.409
    x, v, term = mc.mountain_car_step(0.4, 0.01, 1)
    assert not term and 0.40 < x < 0.41
    env = mc.MountainCarBatch(1, [0, 1], max_steps=1)
    env.reset()
    env.state[:] = [[0.49, 0.02], [0.4, 0.01]]
    obs, reward, term, trunc = env.step(np.array([2, 1]))
    assert term.tolist() == [True, False]
    assert trunc.tolist() == [False, True]  # a terminating step is never also truncated
    assert obs[0, 0] == 1.0  # the goal's scaled position is exactly 1
    with pytest.raises(RuntimeError):
        env.step(np.array([1, 1]))


def test_mountain_car_left_wall_zeroes_velocity_and_velocity_is_bounded():
    # x = -1.19, v = -0.03, full left: v' ~ -0.031 + 0.0025 * 0.911 ~ -0.0287, x' < -1.2
    x, v, term = mc.mountain_car_step(-1.19, -0.03, 0)
    assert x == mc.X_MIN and v == 0.0 and not term
    # away from the wall the velocity is kept: v' = -0.011 - 0.0025 cos(-3) ~ -0.0085
    x, v, _ = mc.mountain_car_step(-1.0, -0.01, 0)
    assert x > mc.X_MIN and v == pytest.approx(-0.011 - 0.0025 * math.cos(-3.0))
    # at the valley bottom gravity is ~0; full throttle at the speed limit stays at the limit
    _, v, _ = mc.mountain_car_step(-math.pi / 6, mc.V_MAX, 2)
    assert v == mc.V_MAX
    _, v, _ = mc.mountain_car_step(-math.pi / 6, -mc.V_MAX, 0)
    assert v == -mc.V_MAX


def test_mountain_car_truncates_at_max_steps():
    assert mc.MountainCarBatch(0, [0]).max_steps == 5000
    env = mc.MountainCarBatch(3, [0, 1, 2], max_steps=10)
    env.reset()
    for t in range(1, 11):
        _, reward, term, trunc = env.step(np.ones(3, dtype=int))  # no throttle: no goal
        assert not term.any() and reward.tolist() == [-1.0] * 3
        assert trunc.all() == (t == 10) and trunc.any() == (t == 10)
    assert env.steps.tolist() == [10, 10, 10]
    with pytest.raises(RuntimeError):
        env.step(np.ones(3, dtype=int))
    env.reset(np.array([True, False, True]))
    assert env.steps.tolist() == [0, 10, 0]
    env.step(np.ones(3, dtype=int), active=np.array([True, False, True]))


def test_mountain_car_bad_input():
    env = mc.MountainCarBatch(0, [0, 1])
    with pytest.raises(RuntimeError):  # never reset
        env.step(np.array([1, 1]))
    env.reset()
    with pytest.raises(ValueError):
        env.step(np.array([1, 3]))
    with pytest.raises(ValueError):
        env.step(np.array([1, 1, 1]))
    with pytest.raises(ValueError):
        mc.mountain_car_step(0.0, 0.0, 3)
    with pytest.raises(ValueError):
        mc.MountainCarBatch(0, [0], max_steps=0)


# ----------------------------------------------------------------------------------------
# per-run streams: a run's numbers do not depend on its batch
# ----------------------------------------------------------------------------------------


def test_start_states_do_not_depend_on_the_batch():
    seed, run = 11, 5
    others = [0, 1, run, 9, 2, 3, 40]
    k = others.index(run)
    for cls in (mc.MountainCarBatch, cp.CartPoleBatch):
        alone = cls(seed, [run])
        batch = cls(seed, others)
        rng = np.random.default_rng(1)
        starts_alone, starts_batch = [], []
        for _ in range(6):
            starts_alone.append(alone.reset()[0].copy())
            # other rows reset at random; our row is reset every other call only
            mask = rng.random(7) < 0.5
            mask[k] = False
            batch.reset(mask)  # our row draws nothing here
            mask = rng.random(7) < 0.5
            mask[k] = True
            starts_batch.append(batch.reset(mask)[k].copy())
        assert np.array_equal(np.array(starts_alone), np.array(starts_batch))
        assert len({tuple(s) for s in starts_alone}) == 6  # really random
        # another run id gives other start states
        assert not np.array_equal(cls(seed, [run + 1]).reset(), cls(seed, [run]).reset())


def test_mountain_car_start_distribution():
    env = mc.MountainCarBatch(2, np.arange(2000))
    env.reset()
    x, v = env.state[:, 0], env.state[:, 1]
    assert np.all(v == 0) and x.min() >= -0.6 and x.max() < -0.4
    assert x.min() < -0.59 and x.max() > -0.41  # fills the range
    env = cp.CartPoleBatch(2, np.arange(2000))
    env.reset()
    assert np.abs(env.state).max() <= 0.05 and np.abs(env.state).max() > 0.049


def test_evaluation_reward_noise_does_not_depend_on_the_batch():
    seed, run = 4, 3
    ids = [7, run, 0, 1, 2, 8, 9]
    k = ids.index(run)
    alone = mc.MountainCarEvaluation(seed, [run])
    batch = mc.MountainCarEvaluation(seed, ids)
    alone.reset()
    batch.reset()
    rng = np.random.default_rng(0)
    r_alone, r_batch = [], []
    for _ in range(60):
        if rng.random() < 0.5:  # our row sits out a step in the batch (and in its twin)
            act = rng.random(7) < 0.5
            act[k] = False
            _, r, term, _ = batch.step(act & ~batch.needs_reset)
            batch.reset(term)
            continue
        _, r1, t1, _ = alone.step()
        alone.reset(t1)
        act = (rng.random(7) < 0.5) & ~batch.needs_reset
        act[k] = True
        _, r7, t7, _ = batch.step(act)
        batch.reset(t7)
        r_alone.append(r1[0])
        r_batch.append(r7[k])
        assert np.array_equal(alone.state[0], batch.state[k])
    assert r_alone == r_batch and len(set(r_alone)) == len(r_alone)


def test_record_episodes_match_the_batch_and_the_contract():
    seed = 9
    ids = [4, 2, 6]
    batch = mc.record_episodes_batch(seed, ids, 2)
    for k, run in enumerate(ids):
        alone = mc.record_episodes(seed, run, 2)
        assert len(alone) == 2
        for (f1, r1), (f2, r2) in zip(alone, batch[k], strict=True):
            assert np.array_equal(f1, f2) and np.array_equal(r1, r2)
            T = len(r1)
            assert f1.shape == (T + 1, 2) and r1.shape == (T,)
            assert f1[-1, 0] == 1.0 and np.all(f1[:-1, 0] < 1.0)  # last row: the goal
            assert np.all(np.abs(f1) <= 1.0)
            assert 50 < T < 200
    # the two runs' episodes differ (own start states, own noise)
    assert not np.array_equal(batch[0][0][1][:10], batch[1][0][1][:10])


def test_evaluation_rewards_are_normal_mean_minus_one_std_two():
    env = mc.MountainCarEvaluation(0, np.arange(100))
    env.reset()
    rewards = []
    for _ in range(200):
        _, r, term, trunc = env.step()
        assert not trunc.any()  # the evaluation cap is a safety net only
        rewards.append(r)
        env.reset(term)
    r = np.concatenate(rewards)  # 20 000 draws
    assert abs(r.mean() + 1.0) < 5 * 2.0 / math.sqrt(r.size)
    assert abs(r.std() - 2.0) < 0.05


# ----------------------------------------------------------------------------------------
# mountain car evaluation task: policy, true values, evaluation states
# ----------------------------------------------------------------------------------------


def test_true_value_is_minus_the_number_of_steps():
    assert mc.true_value(0.5, 0.0) == 0.0
    assert mc.true_value(0.49, 0.02) == -1.0  # pushes right (v > f(0.49)) and arrives
    env = mc.MountainCarEvaluation(5, np.arange(6))
    env.reset()
    start = env.state.copy()
    length = np.zeros(6, dtype=int)
    active = np.ones(6, dtype=bool)
    while active.any():
        _, _, term, _ = env.step(active)
        length += active
        active &= ~term
    for i in range(6):
        assert mc.true_value(*start[i]) == -length[i]
        # scalar roll with the scalar step and scalar policy
        x, v, t, done = start[i, 0], start[i, 1], 0, False
        while not done:
            x, v, done = mc.mountain_car_step(x, v, mc.evaluation_policy(x, v))
            t += 1
        assert t == length[i]


def test_evaluation_policy_reaches_the_goal_from_every_start_and_everywhere():
    starts = np.linspace(mc.START_LOW, mc.START_HIGH, 401)
    _, steps = mc._roll_policy(starts, np.zeros_like(starts), mc.evaluation_policy,
                               max_steps=1000)
    assert steps.min() > 50 and steps.max() < 130
    xs, vs = np.meshgrid(np.linspace(mc.X_MIN, mc.X_MAX - 1e-3, 60),
                         np.linspace(-mc.V_MAX, mc.V_MAX, 60))
    _, steps = mc._roll_policy(xs.ravel(), vs.ravel(), mc.evaluation_policy, max_steps=1000)
    assert steps.max() < 200
    # scalar and array calls agree, and the policy only uses full throttle
    x, v = xs.ravel()[::37], vs.ravel()[::37]
    a = mc.evaluation_policy(x, v)
    assert [mc.evaluation_policy(float(p), float(q)) for p, q in zip(x, v, strict=True)] == \
        a.tolist()
    assert set(a.tolist()) == {0, 2}


def test_best_steps_to_goal_is_a_real_action_sequence():
    assert mc.best_steps_to_goal(0.49, 0.02, resolution=300) == (1, [0])
    for x0 in (-0.6, -0.47, -0.41):
        steps, actions = mc.best_steps_to_goal(x0, 0.0, resolution=300)
        assert len(actions) == steps
        x, v, done = x0, 0.0, False
        for a in actions[:-1]:
            x, v, done = mc.mountain_car_step(x, v, a)
            assert not done
        assert mc.mountain_car_step(x, v, actions[-1])[2]
        assert steps <= -mc.true_value(x0, 0.0)  # the search is at least as good as the policy


def test_evaluation_policy_is_near_optimal():
    rep = mc.policy_optimality_report(n_starts=12, resolution=300)
    assert rep["best_steps"].shape == (12,)
    assert np.all(rep["best_steps"] <= rep["search_steps"])
    assert np.all(rep["best_steps"] <= rep["policy_steps"])
    # measured (12 starts, resolution 300): 98.5 vs 97.8 steps (1.007); the textbook
    # velocity rule takes 119.5 (1.22)
    assert rep["ratio"] <= 1.03
    assert rep["max_ratio"] <= 1.10
    assert rep["velocity_rule_ratio"] >= 1.15
    assert rep["policy_mean"] == pytest.approx(rep["policy_steps"].mean())


def test_evaluation_states():
    obs, values, states = mc.evaluation_states(300, seed=3, return_states=True)
    assert obs.shape == (300, 2) and values.shape == (300,) and states.shape == (300, 2)
    assert np.array_equal(obs, mc.scale_obs(states[:, 0], states[:, 1]))
    assert np.all(np.abs(obs) <= 1.0) and np.all(obs[:, 0] < 1.0)  # no terminal state
    assert np.all(values <= -1) and np.all(values == np.round(values))
    for i in range(0, 300, 25):
        assert mc.true_value(*states[i]) == values[i]
    # on-policy: states all along the trajectories, from the start to the last step
    assert values.min() < -90 and values.max() > -15
    assert np.abs(states[:, 1]).max() > 0.04
    assert len({tuple(s) for s in states}) == 300
    obs2, values2 = mc.evaluation_states(300, seed=3)
    assert np.array_equal(obs, obs2) and np.array_equal(values, values2)
    assert not np.array_equal(obs, mc.evaluation_states(300, seed=4)[0])


# ----------------------------------------------------------------------------------------
# cart-pole
# ----------------------------------------------------------------------------------------


def test_cartpole_batch_step_equals_scalar_step():
    rng = np.random.default_rng(1)
    B = 300
    env = cp.CartPoleBatch(0, np.arange(B))
    env.reset()
    env.state[:] = rng.uniform(-1, 1, (B, 4)) * [2.4, 2.0, 0.21, 3.0]
    assert np.array_equal(env.obs(), cp.scale_obs(env.state))
    n_checked, ended = _steps_equal_scalar_steps(env, rng, cp.cartpole_step, 1.0)
    assert n_checked > 400 and ended


def test_cartpole_fails_at_the_thresholds():
    assert cp.THETA_THRESHOLD == pytest.approx(0.2094, abs=1e-4)
    # position: x' = x + 0.02 x_dot
    assert cp.cartpole_step([2.39, 1.0, 0.0, 0.0], 1)[1]  # x' = 2.41
    assert not cp.cartpole_step([2.38, 0.5, 0.0, 0.0], 1)[1]  # x' = 2.39
    assert cp.cartpole_step([-2.39, -1.0, 0.0, 0.0], 0)[1]
    # angle: theta' = theta + 0.02 theta_dot
    assert cp.cartpole_step([0.0, 0.0, 0.2, 1.0], 1)[1]  # 0.22 > 0.2094
    assert not cp.cartpole_step([0.0, 0.0, 0.2, 0.4], 1)[1]  # 0.208 < 0.2094
    assert cp.cartpole_step([0.0, 0.0, -0.2, -1.0], 0)[1]
    env = cp.CartPoleBatch(0, [0, 1, 2])
    env.reset()
    env.state[:] = [[2.39, 1.0, 0, 0], [0, 0, 0.2, 0.4], [0, 0, -0.2, -1.0]]
    obs, reward, term, trunc = env.step(np.array([1, 1, 0]))
    assert term.tolist() == [True, False, True] and not trunc.any()
    assert reward.tolist() == [1.0, 1.0, 1.0]  # the failing step is rewarded too
    assert obs[0, 0] == 1.0 and obs[2, 2] == -1.0  # clipped


def test_cartpole_physics_by_hand():
    # pole upright and at rest: theta_acc = -F / (m_total l (4/3 - m_p / m_total)) * ...
    s, _ = cp.cartpole_step([0.0, 0.0, 0.0, 0.0], 1)
    temp = 10.0 / 1.1
    theta_acc = -temp / (0.5 * (4 / 3 - 0.1 / 1.1))
    x_acc = temp - 0.05 * theta_acc / 1.1
    # Euler: positions move with the old (zero) velocities
    assert s[0] == 0.0 and s[2] == 0.0
    assert s[1] == pytest.approx(0.02 * x_acc) and s[3] == pytest.approx(0.02 * theta_acc)
    assert s[3] < 0 < s[1]  # pushing the cart right tips the pole left


def _balance(s):
    return (0.05 * s[:, 0] + 0.2 * s[:, 1] + s[:, 2] + 0.3 * s[:, 3] > 0).astype(int)


def test_cartpole_truncates_at_1000():
    env = cp.CartPoleBatch(0, np.arange(4))
    assert env.max_steps == 1000
    env.reset()
    for t in range(1, 1001):
        _, _, term, trunc = env.step(_balance(env.state))
        assert not term.any()
        assert trunc.all() == (t == 1000) and trunc.any() == (t == 1000)
    assert env.steps.tolist() == [1000] * 4


def test_cartpole_observations_in_unit_box_and_rarely_clipped():
    env = cp.CartPoleBatch(5, np.arange(500))
    rng = np.random.default_rng(0)
    obs = env.reset()
    seen, clipped, n = [obs], 0, 0
    for _ in range(100):
        obs, _, term, trunc = env.step(rng.integers(0, 2, 500))
        seen.append(obs)
        live = ~term
        clipped += np.sum(np.abs(obs[live][:, [1, 3]]) == 1.0)
        n += live.sum()
        obs = env.reset(term | trunc)
    seen = np.concatenate(seen)
    assert np.all(np.abs(seen) <= 1.0)
    assert np.abs(seen).max(axis=0).min() > 0.3  # every coordinate is used
    assert clipped <= 0.005 * n  # the velocity scales cover the velocities seen
    assert env.obs_dim == 4 and env.n_actions == 2 and env.n_runs == 500
    me = mc.MountainCarBatch(0, [1, 2])
    assert me.obs_dim == 2 and me.n_actions == 3 and me.n_runs == 2 and me.state.shape == (2, 2)
