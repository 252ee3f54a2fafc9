r"""Acrobot (Sutton 1996; Sutton & Barto 2018, Sec. 11.3 of the first edition's "Acrobot"), as
Gymnasium's Acrobot-v1 writes it: a two-link pendulum, torque on the joint between the links;
swing the tip above a line one link's length over the pivot. A task beyond the paper, added
as a researcher would: this file and one row of :data:`ftd_lib.envs.tasks.TASKS`.

**Dynamics** (:func:`derivatives`: "the book" equations, Gymnasium's ``book_or_nips="book"``):
links of mass 1, length 1, centre of mass 0.5, moment of inertia 1, gravity 9.8; one step is
one classic Runge-Kutta (RK4) step of 0.2 s with the torque held; the angles are then wrapped
into [-π, π], the velocities clipped to ±4π and ±9π.
**State** ``(θ1, θ2, θ1', θ2')``; **start** uniform in [-0.1, 0.1]^4 from the run's own
stream (four draws per reset). **Actions** 3: torque -1, 0, +1. **Reward** -1 every step.
**Termination** :math:`-\cos\theta_1 - \cos(\theta_1 + \theta_2) > 1`; **cap** 500 steps
(Gymnasium's). **Observation** (the network's input, in [-1, 1]^6):
:math:`(\cos\theta_1, \sin\theta_1, \cos\theta_2, \sin\theta_2, \theta_1'/4\pi,
\theta_2'/9\pi)`.
"""

from __future__ import annotations

import numpy as np

from .batch import BatchEnv

DT = 0.2
M1 = M2 = 1.0
L1 = 1.0
LC1 = LC2 = 0.5
I1 = I2 = 1.0
G = 9.8
MAX_VEL_1, MAX_VEL_2 = 4 * np.pi, 9 * np.pi
TORQUES = np.array([-1.0, 0.0, 1.0])
START_HIGH = 0.1
DEFAULT_MAX_STEPS = 500


def derivatives(s: np.ndarray, torque: np.ndarray) -> np.ndarray:
    r""":math:`(\theta_1', \theta_2', \theta_1'', \theta_2'')` of states ``s`` ``(N, 4)``
    under ``torque`` ``(N,)`` (the book's equations of motion)."""
    t1, t2, d1, d2 = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    m_11 = M1 * LC1 ** 2 + M2 * (L1 ** 2 + LC2 ** 2 + 2 * L1 * LC2 * np.cos(t2)) + I1 + I2
    m_12 = M2 * (LC2 ** 2 + L1 * LC2 * np.cos(t2)) + I2
    phi2 = M2 * LC2 * G * np.cos(t1 + t2 - np.pi / 2.0)
    phi1 = (-M2 * L1 * LC2 * d2 ** 2 * np.sin(t2) - 2 * M2 * L1 * LC2 * d2 * d1 * np.sin(t2)
            + (M1 * LC1 + M2 * L1) * G * np.cos(t1 - np.pi / 2) + phi2)
    dd2 = ((torque + m_12 / m_11 * phi1 - M2 * L1 * LC2 * d1 ** 2 * np.sin(t2) - phi2)
           / (M2 * LC2 ** 2 + I2 - m_12 ** 2 / m_11))
    dd1 = -(m_12 * dd2 + phi1) / m_11
    return np.stack([d1, d2, dd1, dd2], axis=1)


def _wrap(x: np.ndarray) -> np.ndarray:
    """Angles into [-π, π] (Gymnasium's ``wrap``: whole turns added or taken away)."""
    x = x.copy()
    two_pi = 2 * np.pi
    while np.any(hi := x > np.pi):
        x[hi] -= two_pi
    while np.any(lo := x < -np.pi):
        x[lo] += two_pi
    return x


def step_arrays(state: np.ndarray, actions: np.ndarray):
    """Every row of ``state`` ``(N, 4)`` stepped once (RK4 over :data:`DT`):
    ``(state', terminal)``."""
    s = np.asarray(state, dtype=np.float64)
    torque = TORQUES[np.asarray(actions, dtype=np.int64)]
    k1 = derivatives(s, torque)
    k2 = derivatives(s + DT / 2 * k1, torque)
    k3 = derivatives(s + DT / 2 * k2, torque)
    k4 = derivatives(s + DT * k3, torque)
    new = s + DT / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    new[:, 0], new[:, 1] = _wrap(new[:, 0]), _wrap(new[:, 1])
    new[:, 2] = np.clip(new[:, 2], -MAX_VEL_1, MAX_VEL_1)
    new[:, 3] = np.clip(new[:, 3], -MAX_VEL_2, MAX_VEL_2)
    term = -np.cos(new[:, 0]) - np.cos(new[:, 1] + new[:, 0]) > 1.0
    return new, term


def scale_obs(state) -> np.ndarray:
    """The network's inputs of raw states ``(..., 4)``: cosines, sines and scaled
    velocities, ``(..., 6)``, in [-1, 1]."""
    s = np.asarray(state, dtype=float)
    t1, t2, d1, d2 = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    return np.stack([np.cos(t1), np.sin(t1), np.cos(t2), np.sin(t2), d1 / MAX_VEL_1,
                     d2 / MAX_VEL_2], axis=-1)


class AcrobotBatch(BatchEnv):
    """Acrobot, B independent runs stepped together (numpy, float64); the interface of
    :class:`ftd_lib.envs.cartpole.CartPoleBatch`."""

    obs_dim = 6
    n_actions = 3
    state_dim = 4
    start_block = 256

    def __init__(self, seed: int, run_ids, max_steps: int | None = DEFAULT_MAX_STEPS):
        super().__init__(seed, run_ids, max_steps)

    def obs(self) -> np.ndarray:
        return scale_obs(self.state)

    def reset(self, mask=None) -> np.ndarray:
        return self._started_uniform(self._mask(mask, "mask"), START_HIGH)

    def step(self, actions, active=None):
        active = self._mask(active, "active")
        a = self._check_actions(actions, active)
        new, term = step_arrays(self.state, np.where(active, a, 1))
        return self._advance(new, term, active, -1.0)
