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

import math

import numpy as np
from numba import njit

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

    # the task's values, not logic (BatchEnv's obs/reset/step run them): nothing to merge
    default_max_steps = DEFAULT_MAX_STEPS
    start_high = START_HIGH
    scale = staticmethod(scale_obs)
    step_arrays = staticmethod(step_arrays)
    reward_per_step = -1.0


# ----------------------------------------------------------------- compiled (the kernel's pieces)
# The dynamics above in numba's subset, one run at a time, for the compiled kernel's extension
# point (ftd_lib.engine.kernel.extend; the row's ``compiled``): the same expressions, in the
# same order, so that ``check_task`` finds them equal bit for bit.

_PI = float(np.pi)
_TWO_PI = 2 * np.pi
_MV1, _MV2 = float(MAX_VEL_1), float(MAX_VEL_2)
_TORQUES = (-1.0, 0.0, 1.0)


def kernel_params():
    """Acrobot takes no parameters."""
    return (0.0,)


@njit(cache=True, error_model="numpy", inline="always")
def _derivatives(t1, t2, d1, d2, torque):
    """:func:`derivatives` of one state: ``(dd1, dd2)`` (the angles' are the velocities)."""
    m_11 = M1 * LC1 ** 2 + M2 * (L1 ** 2 + LC2 ** 2 + 2 * L1 * LC2 * math.cos(t2)) + I1 + I2
    m_12 = M2 * (LC2 ** 2 + L1 * LC2 * math.cos(t2)) + I2
    phi2 = M2 * LC2 * G * math.cos(t1 + t2 - _PI / 2.0)
    phi1 = (-M2 * L1 * LC2 * (d2 * d2) * math.sin(t2) - 2 * M2 * L1 * LC2 * d2 * d1
            * math.sin(t2) + (M1 * LC1 + M2 * L1) * G * math.cos(t1 - _PI / 2) + phi2)
    dd2 = ((torque + m_12 / m_11 * phi1 - M2 * L1 * LC2 * (d1 * d1) * math.sin(t2) - phi2)
           / (M2 * LC2 ** 2 + I2 - (m_12 * m_12) / m_11))
    dd1 = -(m_12 * dd2 + phi1) / m_11
    return dd1, dd2


@njit(cache=True, error_model="numpy", inline="always")
def _wrap1(v):
    """One angle into [-π, π], as :func:`_wrap`."""
    while v > _PI:
        v -= _TWO_PI
    while v < -_PI:
        v += _TWO_PI
    return v


@njit(cache=True, error_model="numpy", inline="always")
def _obs_into(state, x):
    x[0] = math.cos(state[0])
    x[1] = math.sin(state[0])
    x[2] = math.cos(state[1])
    x[3] = math.sin(state[1])
    x[4] = state[2] / _MV1
    x[5] = state[3] / _MV2


@njit(cache=True, error_model="numpy")
def kernel_reset(sgen, state, x, tp):
    """A start state uniform in [-0.1, 0.1]^4 (four draws of the start stream), as
    :meth:`AcrobotBatch.reset`; its features into ``x``."""
    for j in range(4):
        state[j] = -START_HIGH + 2 * START_HIGH * sgen.random()
    _obs_into(state, x)


@njit(cache=True, error_model="numpy")
def kernel_step(state, action, x, noise, tp):
    """:func:`step_arrays` of one run (RK4 over :data:`DT`): ``state`` in place, features
    into ``x``; returns ``(-1, terminal)``."""
    torque = _TORQUES[action]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    a1, a2 = _derivatives(s0, s1, s2, s3, torque)
    k1 = (s2, s3, a1, a2)
    h = DT / 2
    a1, a2 = _derivatives(s0 + h * k1[0], s1 + h * k1[1], s2 + h * k1[2], s3 + h * k1[3],
                          torque)
    k2 = (s2 + h * k1[2], s3 + h * k1[3], a1, a2)
    a1, a2 = _derivatives(s0 + h * k2[0], s1 + h * k2[1], s2 + h * k2[2], s3 + h * k2[3],
                          torque)
    k3 = (s2 + h * k2[2], s3 + h * k2[3], a1, a2)
    a1, a2 = _derivatives(s0 + DT * k3[0], s1 + DT * k3[1], s2 + DT * k3[2], s3 + DT * k3[3],
                          torque)
    k4 = (s2 + DT * k3[2], s3 + DT * k3[3], a1, a2)
    c = DT / 6.0
    n0 = s0 + c * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
    n1 = s1 + c * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    n2 = s2 + c * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2])
    n3 = s3 + c * (k1[3] + 2 * k2[3] + 2 * k3[3] + k4[3])
    state[0] = _wrap1(n0)
    state[1] = _wrap1(n1)
    state[2] = min(max(n2, -_MV1), _MV1)
    state[3] = min(max(n3, -_MV2), _MV2)
    _obs_into(state, x)
    term = -math.cos(state[0]) - math.cos(state[1] + state[0]) > 1.0
    return -1.0, term
