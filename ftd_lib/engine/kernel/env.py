"""The kernel's environments: the tasks' own dynamics (:func:`ftd_lib.envs.cartpole.dynamics`,
:func:`ftd_lib.envs.mountain_car.dynamics`, compiled), their start states drawn one at a time
from the run's start stream, and their observations, as the batched envs compute them."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...envs import cartpole as _cp
from ...envs import mountain_car as _mc
from ...envs.tasks import TASKS

# the tasks' numbers in the compiled branches; their sizes and caps are the registry's
CARTPOLE, MOUNTAIN_CAR = 0, 1
ENVS = {"cartpole": CARTPOLE, "mountain_car": MOUNTAIN_CAR}
N_IN_ARR = np.array([TASKS[name].n_in for name in ENVS], dtype=np.int64)  # by env number
# set-up variants (the claim-5 study, ftd_lib.repro.paper.study); the first of each is the default
INPUTS = {"symmetric": 0, "unit": 1}  # mountain car's features in [-1, 1] (Sec. 6) or [0, 1]
# mountain car's start states: x ~ U[-0.6, -0.4), v = 0 (Sutton & Barto), or uniform over the
# whole state space (x ~ U[X_MIN, X_MAX), v ~ U[-V_MAX, V_MAX), two draws of the start stream)
STARTS = {"bottom": 0, "anywhere": 1}

# the batched envs' constants, as their numpy expressions evaluate them
_CP_START_LOW = -_cp.START_HIGH
_CP_START_SPAN = 2 * _cp.START_HIGH
_CP_SCALE = tuple(float(s) for s in _cp.OBS_SCALE)
_MC_SPAN = _mc.START_HIGH - _mc.START_LOW
_MC_X_RANGE = _mc.X_MAX - _mc.X_MIN
_MC_V_SPAN = 2 * _mc.V_MAX
_cp_dynamics = _cp.compiled_dynamics
_mc_dynamics = _mc.compiled_dynamics


@njit(cache=True, error_model="numpy")
def env_reset(env, sgen, state, x, inputs=0, start=0):
    """A start state from the run's start stream; its features into ``x`` (``inputs``,
    ``start``: mountain car's variants, :data:`INPUTS`, :data:`STARTS`)."""
    if env == CARTPOLE:
        for j in range(4):
            state[j] = _CP_START_LOW + _CP_START_SPAN * sgen.random()
    elif start == 0:
        state[0] = _mc.START_LOW + _MC_SPAN * sgen.random()
        state[1] = 0.0
    else:
        state[0] = _mc.X_MIN + _MC_X_RANGE * sgen.random()
        state[1] = -_mc.V_MAX + _MC_V_SPAN * sgen.random()
    env_obs(env, state, x, inputs)


@njit(cache=True, error_model="numpy")
def env_obs(env, state, x, inputs=0):
    """The scaled observation of ``state`` into ``x``: mountain car's in [-1, 1] (``inputs``
    0) or [0, 1] (``inputs`` 1)."""
    if env == CARTPOLE:
        for j in range(4):
            x[j] = min(max(state[j] / _CP_SCALE[j], -1.0), 1.0)
    elif inputs == 0:
        x[0] = 2.0 * (state[0] - _mc.X_MIN) / _MC_X_RANGE - 1.0
        x[1] = state[1] / _mc.V_MAX
    else:
        x[0] = (state[0] - _mc.X_MIN) / _MC_X_RANGE
        x[1] = (state[1] + _mc.V_MAX) / _MC_V_SPAN


@njit(cache=True, error_model="numpy")
def env_step(env, state, action, x, inputs=0):
    """One step of the task's dynamics (``state`` in place) with ``action``; features into
    ``x``; returns ``(reward, terminal)``."""
    if env == CARTPOLE:
        state[0], state[1], state[2], state[3], term = _cp_dynamics(
            state[0], state[1], state[2], state[3], action)
        reward = 1.0
    else:
        state[0], state[1], term = _mc_dynamics(state[0], state[1], action)
        reward = -1.0
    env_obs(env, state, x, inputs)
    return reward, term


# the paper's tasks as pieces of the extension point (:mod:`.extend`; their rows' ``compiled``
# is "engine.kernel.env:cartpole" / "engine.kernel.env:mountain_car"): one reset and one step
# for both, the task named by its code in the parameters ``tp`` (functions, not a factory's:
# numba caches module-level functions only), so both share one compiled run per method


def cartpole_params():
    """Cart-pole takes no parameters: ``tp`` holds its code (:data:`CARTPOLE`)."""
    return (float(CARTPOLE),)


def mountain_car_params():
    """Mountain car takes no parameters (its set-up variants are the hand kernels'): ``tp``
    holds its code (:data:`MOUNTAIN_CAR`)."""
    return (float(MOUNTAIN_CAR),)


@njit(cache=True, error_model="numpy")
def paper_reset(sgen, state, x, tp):
    """:func:`env_reset` of the paper's task coded in ``tp[0]`` (its set-up)."""
    env_reset(int(tp[0]), sgen, state, x)


@njit(cache=True, error_model="numpy")
def paper_step(state, action, x, noise, tp):
    """:func:`env_step` of the paper's task coded in ``tp[0]`` (its set-up)."""
    return env_step(int(tp[0]), state, action, x)


cartpole_reset = mountain_car_reset = paper_reset
cartpole_step = mountain_car_step = paper_step
