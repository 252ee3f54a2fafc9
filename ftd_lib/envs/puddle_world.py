r"""Puddle World (Sutton 1996, "Generalization in reinforcement learning: successful examples
using sparse coarse coding", Fig. 3): a stochastic task beyond the paper, added as a
researcher would -- this file and one row of :data:`ftd_lib.envs.tasks.TASKS` -- and the
project's example of a task with noise in its steps and a reward that varies.

**State** :math:`(x, y) \in [0, 1]^2`; **start** uniform over the square outside the goal
(two draws of the run's start stream per try, tried again while in the goal).
**Actions** 4: up, down, right, left, each a move of 0.05 plus Gaussian noise of standard
deviation 0.01 in each coordinate -- two uniform draws of the run's own noise stream a step
(:data:`NOISE`, :attr:`ftd_lib.envs.batch.BatchEnv.noise_dim`), made normal by Box-Muller
(:func:`gaussian`) -- then clipped to the square. **Goal** (terminal) :math:`x + y \ge 1.9`.
**Reward** -1 a step, and -400 times the depth into each puddle (the distance inside its
edge; puddles of radius 0.1 around the segments (0.1, 0.75)-(0.45, 0.75) and (0.45, 0.4)-
(0.45, 0.8); where they overlap the depths add): in [-81, -1] (:data:`REWARD_RANGE`).
**Cap** 500 steps (Sutton's runs had none; ours needs one). **Observation** (the network's
input, in [-1, 1]^2): :math:`(2x - 1, 2y - 1)`. **Parameter** ``noise_sd`` (the task's
``params``, :data:`ftd_lib.envs.tasks.TASKS`): the moves' noise, 0.01 by default; 0 makes the
moves exact (the reward still varies in the puddles).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .batch import BatchEnv

STEP, NOISE_SD = 0.05, 0.01
MOVES = np.array([[0.0, STEP], [0.0, -STEP], [STEP, 0.0], [-STEP, 0.0]])
PUDDLES = (((0.1, 0.75), (0.45, 0.75)), ((0.45, 0.4), (0.45, 0.8)))
RADIUS, PENALTY = 0.1, 400.0
GOAL = 1.9
NOISE = 2  # uniform draws a step
_TWO_PI = 2 * np.pi
REWARD_RANGE = (-1.0 - PENALTY * RADIUS * len(PUDDLES), -1.0)
DEFAULT_MAX_STEPS = 500


@njit(cache=True, error_model="numpy")
def normal_pair(u1, u2):
    r"""Two standard normals from two uniforms in [0, 1) (Box-Muller):
    :math:`\sqrt{-2\ln(1-u_1)}\,(\cos 2\pi u_2, \sin 2\pi u_2)`, through the C library's
    ``log1p``, ``cos``, ``sin`` (numpy's own may be SIMD versions on some CPUs that round
    otherwise): one function for the numpy step and the compiled one, so they agree."""
    r = math.sqrt(-2.0 * math.log1p(-u1))
    return r * math.cos(_TWO_PI * u2), r * math.sin(_TWO_PI * u2)


@njit(cache=True, error_model="numpy")
def _gaussian_into(u, out):
    for i in range(u.shape[0]):
        out[i, 0], out[i, 1] = normal_pair(u[i, 0], u[i, 1])


def gaussian(u: np.ndarray) -> np.ndarray:
    """Two standard normals a row from two uniforms in [0, 1) a row (:func:`normal_pair`)."""
    u = np.ascontiguousarray(u, dtype=np.float64)
    out = np.empty((len(u), 2))
    _gaussian_into(u, out)
    return out


def depth(state: np.ndarray) -> np.ndarray:
    """How far each state ``(N, 2)`` is inside the puddles: the sum over puddles of
    ``max(0, RADIUS - distance to its segment)``."""
    out = np.zeros(len(state))
    for a, b in PUDDLES:
        a, b = np.asarray(a), np.asarray(b)
        ab = b - a
        t = np.clip(((state - a) @ ab) / (ab @ ab), 0.0, 1.0)
        dist = np.linalg.norm(state - (a + t[:, None] * ab), axis=1)
        out += np.maximum(0.0, RADIUS - dist)
    return out


def step_arrays(state: np.ndarray, actions: np.ndarray, noise: np.ndarray,
                noise_sd: float = NOISE_SD):
    """Every row of ``state`` ``(N, 2)`` stepped once with its ``noise`` ``(N, 2)`` (uniform
    draws) and the moves' noise of standard deviation ``noise_sd`` (the task's parameter,
    default 0.01): ``(state', terminal, reward)``."""
    s = np.asarray(state, dtype=np.float64)
    move = MOVES[np.asarray(actions, dtype=np.int64)] + noise_sd * gaussian(noise)
    new = np.clip(s + move, 0.0, 1.0)
    reward = -1.0 - PENALTY * depth(new)
    return new, new.sum(axis=1) >= GOAL, reward


def scale_obs(state) -> np.ndarray:
    return 2.0 * np.asarray(state, dtype=float) - 1.0


class PuddleWorldBatch(BatchEnv):
    """Puddle World, B independent runs stepped together (numpy, float64), each with its own
    start and noise streams; the interface of :class:`ftd_lib.envs.cartpole.CartPoleBatch`."""

    obs_dim = 2
    n_actions = 4
    state_dim = 2
    noise_dim = NOISE

    def __init__(self, seed: int, run_ids, max_steps: int | None = DEFAULT_MAX_STEPS,
                 noise_sd: float = NOISE_SD):
        super().__init__(seed, run_ids, max_steps)
        self.noise_sd = float(noise_sd)

    def obs(self) -> np.ndarray:
        return scale_obs(self.state)

    def reset(self, mask=None) -> np.ndarray:
        todo = self._mask(mask, "mask").copy()
        while todo.any():  # a start in the goal is drawn again (same stream, in order)
            for j in range(self.state_dim):
                self.state[todo, j] = self._starts.draw(todo)[todo]
            todo &= self.state.sum(axis=1) >= GOAL
        return self._started(self._mask(mask, "mask"))

    def step(self, actions, active=None):
        active = self._mask(active, "active")
        a = self._check_actions(actions, active)
        noise = np.where(active[:, None], self._draw_noise(active), 0.5)
        new, term, reward = step_arrays(self.state, np.where(active, a, 0), noise,
                                        self.noise_sd)
        return self._advance(new, term, active, reward)


# ----------------------------------------------------------------- compiled (the kernel's pieces)
# The dynamics above in numba's subset, one run at a time, for the compiled kernel's extension
# point (ftd_lib.engine.kernel.extend; the row's ``compiled``): every operation in the order
# the numpy code takes it, so that ``check_task`` finds them equal bit for bit.

# each puddle's (a_x, a_y, ab_x, ab_y, ab . ab), ab = b - a, as :func:`depth` computes them
_PUDDLE_CONSTS = tuple(
    (float(a[0]), float(a[1]), float(ab[0]), float(ab[1]), float(ab @ ab))
    for a, ab in ((np.asarray(a), np.asarray(b) - np.asarray(a)) for a, b in PUDDLES))
_MOVES = tuple((float(m[0]), float(m[1])) for m in MOVES)


def kernel_params(noise_sd=NOISE_SD):
    """The compiled parameters: ``(noise_sd,)``."""
    return (float(noise_sd),)


@njit(cache=True, error_model="numpy")
def kernel_reset(sgen, state, x, tp):
    """A start state from the start stream (two draws a try, again while in the goal), as
    :meth:`PuddleWorldBatch.reset`; its features into ``x``."""
    while True:
        state[0] = sgen.random()
        state[1] = sgen.random()
        if not state[0] + state[1] >= GOAL:
            break
    x[0] = 2.0 * state[0] - 1.0
    x[1] = 2.0 * state[1] - 1.0


@njit(cache=True, error_model="numpy")
def kernel_step(state, action, x, noise, tp):
    """:func:`step_arrays` of one run: ``state`` in place, features into ``x``; returns
    ``(reward, terminal)``."""
    noise_sd = tp[0]
    g0, g1 = normal_pair(noise[0], noise[1])
    mx, my = _MOVES[action]
    nx = min(max(state[0] + (mx + noise_sd * g0), 0.0), 1.0)
    ny = min(max(state[1] + (my + noise_sd * g1), 0.0), 1.0)
    deep = 0.0
    for k in range(len(_PUDDLE_CONSTS)):
        ax, ay, abx, aby, ab2 = _PUDDLE_CONSTS[k]
        t = min(max(((nx - ax) * abx + (ny - ay) * aby) / ab2, 0.0), 1.0)
        dx = nx - (ax + t * abx)
        dy = ny - (ay + t * aby)
        deep = deep + max(0.0, RADIUS - math.sqrt(dx * dx + dy * dy))
    state[0] = nx
    state[1] = ny
    x[0] = 2.0 * nx - 1.0
    x[1] = 2.0 * ny - 1.0
    return -1.0 - PENALTY * deep, nx + ny >= GOAL
