r"""Cart-pole (Barto, Sutton & Anderson 1983), the second control task of the paper's Sec. 6.

The constants and the order of the Euler update are those of the classic ``pole.c`` as
Gymnasium's ``CartPole-v1`` has them (``kinematics_integrator = "euler"``), in float64.

Random streams (see :mod:`ftd_lib.rng`): run ``r`` of experiment seed ``s`` draws its start
states from ``run_generator(s, r, START_STREAM)`` (stream 0, "environment"), four uniforms per
reset in the order ``x, x_dot, theta, theta_dot``. Other stream numbers are the agent's (the
engine uses 100 and 101).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .batch import START_STREAM, BatchEnv  # noqa: F401 (START_STREAM: documented here)

GRAVITY = 9.8
MASS_CART = 1.0
MASS_POLE = 0.1
TOTAL_MASS = MASS_CART + MASS_POLE
LENGTH = 0.5  # half the pole's length
POLEMASS_LENGTH = MASS_POLE * LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # seconds between state updates
THETA_THRESHOLD = 12 * 2 * math.pi / 360  # 12 degrees = 0.2094 rad
X_THRESHOLD = 2.4
START_HIGH = 0.05  # start state ~ U[-0.05, 0.05]^4

# Observation scales of the two velocities (our choice; the paper only says "scaled").
# Measured in float64 with this module's dynamics, non-terminal states:
#   uniformly random actions (20 000 episodes): |x_dot| <= 3.39 (99.9 % <= 1.95),
#                                               |theta_dot| <= 3.39 (99.9 % <= 2.50);
#   always pushing one way: |x_dot| <= 2.0, |theta_dot| <= 2.99;
#   a balancing linear controller with epsilon = 0.05: |x_dot| <= 1.3, |theta_dot| <= 1.5.
# So x_dot / 3.0 and theta_dot / 3.5, clipped to [-1, 1], keep almost every state unclipped
# while leaving resolution for the slow velocities of a balanced pole.
X_DOT_SCALE = 3.0
THETA_DOT_SCALE = 3.5
OBS_SCALE = np.array([X_THRESHOLD, X_DOT_SCALE, THETA_THRESHOLD, THETA_DOT_SCALE])

DEFAULT_MAX_STEPS = 1000  # the paper's cap


def scale_obs(state) -> np.ndarray:
    """Observation in [-1, 1]^4: ``(x / 2.4, x_dot / 3.0, theta / 0.2094, theta_dot / 3.5)``,
    clipped. Clipping of ``x`` and ``theta`` only touches failed (terminal) states."""
    return np.clip(np.asarray(state, dtype=float) / OBS_SCALE, -1.0, 1.0)


def dynamics(x, x_dot, theta, theta_dot, action):
    """One Euler step of one cart-pole, in plain float code: the one source of the dynamics
    (:func:`cartpole_step`, the batched env and the compiled control kernel all run it).
    ``action`` 0 pushes the cart left (-10 N), 1 right (+10 N); returns
    ``(x, x_dot, theta, theta_dot, terminal)``::

        temp      = (F + m_p l theta_dot^2 sin(theta)) / (m_c + m_p)
        theta_acc = (g sin(theta) - cos(theta) temp) / (l (4/3 - m_p cos^2(theta) / (m_c + m_p)))
        x_acc     = temp - m_p l theta_acc cos(theta) / (m_c + m_p)
        x += tau x_dot;  x_dot += tau x_acc;  theta += tau theta_dot;  theta_dot += tau theta_acc
        terminal  = |x| > 2.4 or |theta| > 12 degrees
    """
    force = FORCE_MAG if action == 1 else -FORCE_MAG
    costheta = math.cos(theta)
    sintheta = math.sin(theta)
    temp = (force + POLEMASS_LENGTH * (theta_dot * theta_dot) * sintheta) / TOTAL_MASS
    thetaacc = (GRAVITY * sintheta - costheta * temp) / (
        LENGTH * (4.0 / 3.0 - MASS_POLE * (costheta * costheta) / TOTAL_MASS))
    xacc = temp - POLEMASS_LENGTH * thetaacc * costheta / TOTAL_MASS
    x, x_dot, theta, theta_dot = (x + TAU * x_dot, x_dot + TAU * xacc, theta + TAU * theta_dot,
                                  theta_dot + TAU * thetaacc)
    return x, x_dot, theta, theta_dot, abs(x) > X_THRESHOLD or abs(theta) > THETA_THRESHOLD


compiled_dynamics = njit(cache=True, error_model="numpy")(dynamics)


@njit(cache=True, error_model="numpy")
def _step_rows(state, actions, new, term):
    for i in range(state.shape[0]):
        new[i, 0], new[i, 1], new[i, 2], new[i, 3], term[i] = compiled_dynamics(
            state[i, 0], state[i, 1], state[i, 2], state[i, 3], actions[i])


def cartpole_step(state, action: int) -> tuple[np.ndarray, bool]:
    """One step of one cart-pole (:func:`dynamics`): ``state = (x, x_dot, theta,
    theta_dot)``; returns ``(state', terminal)``."""
    if action not in (0, 1):
        raise ValueError(f"action must be 0 or 1, got {action!r}")
    *new, terminal = dynamics(*(float(v) for v in state), int(action))
    return np.array(new), bool(terminal)


def step_arrays(state: np.ndarray, actions: np.ndarray):
    """:func:`dynamics` on a batch ``(B, 4)`` (every row stepped); ``(state', term)``."""
    state = np.ascontiguousarray(state, dtype=np.float64)
    new, term = np.empty_like(state), np.empty(len(state), dtype=bool)
    _step_rows(state, np.asarray(actions, dtype=np.int64), new, term)
    return new, term


class CartPoleBatch(BatchEnv):
    r"""Cart-pole, B independent runs stepped together (numpy, float64).

    **Dynamics**: the classic pole.c constants (as Gymnasium's CartPole-v1): gravity 9.8,
    cart mass 1.0, pole mass 0.1, pole half-length 0.5, force 10 N, tau = 0.02 s, explicit
    Euler in Gymnasium's "euler" order (positions updated with the old velocities); see
    :func:`cartpole_step`. The raw state is :attr:`state`, shape ``(B, 4)``, columns
    ``(x, x_dot, theta, theta_dot)``.

    **Actions**: 2 discrete, ``0`` pushes the cart left, ``1`` right.

    **Observation**: ``(x / 2.4, x_dot / 3.0, theta / 0.2094, theta_dot / 3.5)`` clipped to
    [-1, 1]^4 (the velocity scales are our choice, measured: see the module's constants).

    **Reward**: +1 every step, the failing step included (as Gymnasium).

    **Termination**: ``|theta| > 12`` degrees (0.2094 rad) or ``|x| > 2.4``.
    **Truncation**: after ``max_steps`` steps (default 1000, the paper's cap); a step that
    terminates is never also truncated.

    **Start state**: uniform in [-0.05, 0.05]^4, from the run's own stream
    ``run_generator(seed, run_id, START_STREAM)`` (stream 0), four draws per reset.

    **Paper settings** (Sec. 6, Fig. 4 right): epsilon-greedy with epsilon = 0.05,
    eta = 0.01, episodes capped at 1000 steps, the return averaged over the first 1000
    episodes, 200 runs.

    Interface as :class:`ftd_lib.envs.mountain_car.MountainCarBatch`: ``reset(mask=None)``
    returns the observations ``(B, 4)``; ``step(actions, active=None)`` returns
    ``(obs (B, 4), reward (B,), terminal (B,), truncated (B,))``; inactive rows are not
    advanced, draw nothing, and get reward 0 and terminal/truncated False; stepping a row that
    ended without a ``reset`` raises ``RuntimeError``; ``steps`` counts steps since reset.
    """

    obs_dim = 4
    n_actions = 2

    state_dim = 4
    start_block = 256

    # the task's values, not logic (BatchEnv's obs/reset/step run them): nothing to merge
    default_max_steps = DEFAULT_MAX_STEPS
    start_high = START_HIGH
    scale = staticmethod(scale_obs)
    step_arrays = staticmethod(step_arrays)
    reward_per_step = 1.0
