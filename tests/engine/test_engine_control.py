"""Batched Sarsa(lambda) and forward Sarsa(lambda) against the per-run reference
(:func:`ftd_lib.algorithms.sarsa_lambda`, :func:`ftd_lib.algorithms.forward_sarsa_lambda`,
through ``run_control(..., engine="reference")``).

A small vectorised toy task (a noisy corridor, per-run random streams like the real envs)
keeps the test fast and shows that the reference and the batch run any env with the batched
interface.
"""

import numpy as np
import pytest
import torch

from ftd_lib.engine import Settings, run_control
from ftd_lib.rng import RunStreams


class Corridor:
    """B runs of a noisy 1-d corridor: actions left/right/stay, reward -1 a step, terminal at
    position >= 1, truncated after ``max_steps``. Observations (position, sin(3 position))."""

    n_actions = 3
    obs_dim = 2

    def __init__(self, seed, run_ids, max_steps=25):
        self.noise = RunStreams(seed, run_ids, stream=0)
        self.B = len(run_ids)
        self.max_steps = max_steps
        self.pos = np.zeros(self.B)
        self.t = np.zeros(self.B, dtype=int)

    def assign(self, rows, run_ids):
        self.noise.assign(rows, run_ids)
        self.t[rows] = 0

    def take(self, rows):
        self.noise.take(rows)
        self.pos, self.t = self.pos[rows], self.t[rows]
        self.B = len(rows)

    def _obs(self):
        return np.stack([self.pos, np.sin(3 * self.pos)], 1)

    def reset(self, mask=None):
        m = np.ones(self.B, bool) if mask is None else np.asarray(mask)
        u = self.noise.draw(m)
        self.pos[m] = u[m] - 0.5
        self.t[m] = 0
        return self._obs()

    def step(self, actions, active=None):
        a = np.ones(self.B, bool) if active is None else np.asarray(active)
        u = self.noise.draw(a)
        move = np.array([-0.15, 0.3, 0.0])[np.asarray(actions)]
        self.pos[a] = np.clip(self.pos[a] + move[a] + 0.2 * (u[a] - 0.5), -1.0, 1.2)
        self.t[a] += 1
        term = a & (self.pos >= 1.0)
        trunc = a & ~term & (self.t >= self.max_steps)
        return self._obs(), np.where(a, -1.0, 0.0), term, trunc


ROWS = [  # alpha, lam, gamma, eta, k_max
    (0.02, 0.9, 1.0, 0.01, None),
    (0.05, 0.5, 0.95, 0.1, None),
    (0.01, 1.0, 1.0, 0.01, None),
    (0.03, 0.0, 1.0, 0.01, None),
    (0.02, 0.8, 0.99, 0.3, 3),
]


def _settings(rows):
    a, lam, g, eta, km = zip(*rows, strict=True)
    return Settings.make(alpha=a, lam=lam, gamma=g, eta=eta, k_max=list(km))


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("width", [None, 2])
@pytest.mark.parametrize("truncation", ["bootstrap", "terminal"])
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_control_rows_match_the_per_run_version(method, truncation, width, device):
    """Every task equals the per-run reference, whether it has a row from the start (width
    None: all tasks at once) or waits in the queue for a row (width 2, 5 tasks), for both
    meanings of the episode cap."""
    seed, n_ep = 4, 6
    run_ids = np.array([0, 1, 2, 3, 1])
    kw = dict(env=Corridor, n_hidden=16, truncation=truncation)
    res = run_control(method, _settings(ROWS), seed, run_ids, n_ep, device=device, width=width,
                      engine="batch", **kw)
    ref = run_control(method, _settings(ROWS), seed, run_ids, n_ep, engine="reference", **kw)
    assert ref.engine == "reference" and not res.diverged.any()
    assert (res.lengths == 25).any() and (res.lengths < 25).any()  # both kinds of ends
    np.testing.assert_array_equal(res.returns, ref.returns)
    np.testing.assert_array_equal(res.lengths, ref.lengths)
    np.testing.assert_allclose(res.final_weights, ref.final_weights, rtol=0, atol=1e-10)
    assert (res.lengths.sum(1) == res.n_steps).all() and (res.n_steps == -res.returns.sum(1)).all()


@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
def test_bootstrapping_at_the_cap_changes_the_numbers(method):
    kw = dict(env=Corridor, n_hidden=16)
    a = run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="bootstrap", **kw)
    b = run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="terminal", **kw)
    assert not np.allclose(a.final_weights, b.final_weights)
    with pytest.raises(ValueError, match="truncation"):
        run_control(method, _settings(ROWS), 4, np.arange(5), 6, truncation="cap", **kw)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
@pytest.mark.parametrize("width", [None, 3])
def test_a_control_run_does_not_depend_on_its_batch(method, width, device):
    seed, n_ep = 9, 5
    big = run_control(method, _settings(ROWS * 2), seed, np.arange(10), n_ep, env=Corridor,
                      n_hidden=16, device=device, width=width)
    assert big.width == (10 if width is None else width)
    for b in (1, 7):
        alone = run_control(method, _settings([ROWS[b % 5]]), seed, [b], n_ep, env=Corridor,
                            n_hidden=16, device=device)
        np.testing.assert_array_equal(alone.returns[0], big.returns[b])
        np.testing.assert_array_equal(alone.final_weights[0], big.final_weights[b])


def test_diverging_control_run_is_frozen_and_reported():
    s = Settings.make(alpha=[50.0, 0.02], lam=0.9, gamma=1.0)
    res = run_control("sarsa_lambda", s, 0, [0, 1], 8, env=Corridor, n_hidden=16,
                      div_bound=1e3)
    assert res.diverged[0] and not res.diverged[1]
    k = res.diverged_at[0]
    assert np.all(np.isnan(res.returns[0, k:])) and np.all(np.isfinite(res.returns[1]))
