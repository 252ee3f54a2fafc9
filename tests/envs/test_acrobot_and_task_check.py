"""Acrobot, a task added in its own file (ftd_lib/envs/acrobot.py) and one registry row, and
``check_task``, the check a researcher runs on a new task: it passes on every registered task
and finds each broken contract it names. About 5 s."""

import dataclasses

import numpy as np
import pytest

from ftd_lib.envs import acrobot as A
from ftd_lib.envs import task_check as tc
from ftd_lib.envs import tasks


def energy(s):
    """The acrobot's mechanical energy (kinetic of both links + potential), which the
    equations of motion conserve when no torque acts."""
    t1, t2, d1, d2 = np.asarray(s, float).T
    d11 = A.M1 * A.LC1 ** 2 + A.M2 * (A.L1 ** 2 + A.LC2 ** 2 + 2 * A.L1 * A.LC2 * np.cos(t2)) \
        + A.I1 + A.I2
    d12 = A.M2 * (A.LC2 ** 2 + A.L1 * A.LC2 * np.cos(t2)) + A.I2
    d22 = A.M2 * A.LC2 ** 2 + A.I2
    kinetic = 0.5 * d11 * d1 ** 2 + d12 * d1 * d2 + 0.5 * d22 * d2 ** 2
    return kinetic - (A.M1 * A.LC1 + A.M2 * A.L1) * A.G * np.cos(t1) \
        - A.M2 * A.LC2 * A.G * np.cos(t1 + t2)


def test_acrobot_conserves_energy_without_torque_to_rk4s_order(monkeypatch):
    """From rest at (1.0, 0.5) rad, 4 s without torque: the energy drifts only by RK4's
    error, which shrinks about 16-fold (order 4) when the step halves; a wrong term in the
    equations of motion would leave a drift that does not vanish."""
    drift = []
    for dt in (0.1, 0.05):
        monkeypatch.setattr(A, "DT", dt)
        s = np.array([[1.0, 0.5, 0.0, 0.0]])
        e0 = energy(s)[0]
        for _ in range(int(round(4 / dt))):
            s, term = A.step_arrays(s, np.array([1]))  # action 1: no torque
        drift.append(abs(energy(s)[0] - e0) / abs(e0))
    assert drift[1] < 1e-4 and drift[0] / drift[1] > 10


def test_acrobot_hangs_still_and_ends_above_the_line():
    s, term = A.step_arrays(np.zeros((1, 4)), np.array([1]))
    assert np.abs(s).max() < 1e-15 and not term[0]
    up = np.array([[np.pi, 0.0, 0.0, 0.0]])  # both links straight up: tip 2 above the pivot
    assert A.step_arrays(up, np.array([1]))[1][0]
    torque = A.step_arrays(np.zeros((2, 4)), np.array([0, 2]))[0]
    assert torque[0, 3] < 0 < torque[1, 3]  # the torque turns the second link


@pytest.mark.parametrize("name", list(tasks.TASKS))
def test_check_task_passes_on_every_registered_task(name):
    lines = tc.check_task(name)
    assert [ln.split(":")[0] for ln in lines] == [
        "interface", "seeding", "scalar step = batch step",
        "a run alone = the same run in a batch", "compiled = batch", "bounds"]


class _BatchDependentStart(A.AcrobotBatch):
    def reset(self, mask=None):
        out = super().reset(mask)
        self.state[:, 0] += 1e-3 * np.arange(self.n_runs)  # a start that depends on the row
        return out


class _Unscaled(A.AcrobotBatch):
    def obs(self):
        return np.concatenate([A.scale_obs(self.state)[:, :4], self.state[:, 2:]], axis=1)


def _coupled(state, actions):  # rows that see each other: the batch mean leaks in
    new, term = A.step_arrays(state, actions)
    return new + 1e-9 * new.mean(axis=0), term


@pytest.mark.parametrize("change, check, words", [
    (dict(action_names=("left", "right")), tc.check_interface, "interface"),
    (dict(max_steps=499), tc.check_interface, "cap"),
    (dict(batch_cls=_BatchDependentStart), tc.check_seeding, "seeding"),
    (dict(_step=_coupled), tc.check_scalar_equals_batch, "scalar step = batch step"),
    (dict(batch_cls=_Unscaled, _obs=lambda s: s), tc.check_bounds, "outside [-1, 1]"),
    (dict(reward=1.0), tc.check_bounds, "reward"),
])
def test_check_task_finds_each_broken_contract(change, check, words):
    broken = dataclasses.replace(tasks.task("acrobot"), **change)
    with pytest.raises(tc.TaskCheckError) as e:
        check(broken)
    assert "check_task('acrobot')" in str(e.value) and words in str(e.value)
