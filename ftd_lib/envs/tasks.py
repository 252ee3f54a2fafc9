r"""The one registry of the control tasks: the paper's two (mountain car, cart-pole) and those
beyond it (acrobot; Puddle World, a stochastic one).

Everything a figure, the engine adapter or a notebook needs to know about a task, in one
place: its discount :math:`\gamma`, its episode cap, how a raw state becomes the network's
input, the actions' names, the reward per step (or the range it stays in), the noise its
steps draw and the batched environment class.

The contract (:func:`ftd_lib.envs.task_check.check_task` checks it): the dynamics are a pure
function :meth:`Task.transition` of the states, the actions and -- for a stochastic task --
``noise`` uniform draws in [0, 1) a step (``Task.noise``), which the batched environment
takes from each run's own noise stream (:meth:`ftd_lib.envs.batch.BatchEnv._draw_noise`,
:mod:`ftd_lib.rng`), never from a global generator; so a run is the same run alone or in
any batch, whole trajectories included. The
dynamics and the constants stay in the environment modules (:mod:`ftd_lib.envs.mountain_car`,
:mod:`ftd_lib.envs.cartpole`); the caps are read from them (``DEFAULT_MAX_STEPS``), not
written again here.

Choices the paper leaves open, made here
----------------------------------------
:math:`\gamma`
    Mountain car (evaluation and control): :math:`\gamma = 1`, the undiscounted episodic task
    of Sutton & Barto; every episode ends (near-optimal policy / step cap), the value of a
    state is minus the expected steps to the goal, and the paper's evaluation task has true
    values :math:`-(\text{steps to goal})` only for :math:`\gamma = 1`.
    Cart-pole: :math:`\gamma = 0.99`. The paper does not say. With reward +1 per step and
    episodes cut at 1000 steps, :math:`\gamma = 1` would make the target "steps left before
    failure or the cut" -- up to 1000, and not a function of the state, since the cut depends
    on time, which the network does not see. :math:`\gamma = 0.99` bounds every value by 100
    (horizon ~100 steps, still 5x a failing episode's length early on) and makes the
    truncation at 1000 steps almost invisible (:math:`0.99^{1000} \approx 4\cdot 10^{-5}`).
    The reported return is undiscounted (steps balanced), as in the paper.
episode cap
    Cart-pole 1000 steps (the paper's); mountain car: the paper gives none, we use 5000
    (``mountain_car.DEFAULT_MAX_STEPS``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..methods import Param, check_param_values
from ..validate import check_number
from . import acrobot, cartpole, mountain_car, puddle_world


@dataclass(frozen=True)
class Task:
    """One control task: ``name`` (the id the engine and the figures use), ``gamma``,
    ``max_steps`` (the episode cap), ``reward`` (per step, undiscounted; where it varies, a
    plain step's) and ``reward_range`` (``(lo, hi)`` a step; ``None``: always ``reward``),
    ``noise`` (uniform draws of the run's noise stream a step; 0: deterministic),
    ``action_names``,
    ``state_names``, ``batch_cls`` (the batched environment), the task's own functions
    ``_obs``/``_step`` behind :meth:`obs` and :meth:`step_arrays`, ``kernel``: the
    compiled control kernel (:mod:`ftd_lib.engine.kernel`) runs it (else ``run_control``'s
    ``engine="auto"`` takes the batch), and ``evaluation``: it has an evaluation task with
    true values, so prediction experiments run on it."""

    name: str
    title: str
    gamma: float
    max_steps: int
    reward: float
    action_names: tuple[str, ...]
    state_names: tuple[str, ...]
    batch_cls: type
    _obs: object
    _step: object
    kernel: bool = False
    #: an evaluation (prediction) task with true values exists (``engine.run_prediction``)
    evaluation: bool = False
    #: uniform draws of a run's noise stream a step (a stochastic task; 0: deterministic)
    noise: int = 0
    #: the range of one step's reward (``None``: always ``reward``)
    reward_range: tuple[float, float] | None = None
    #: the task's own parameters (:class:`ftd_lib.methods.Param`): keywords of ``batch_cls``
    #: and of ``_step``, checked by :func:`check_task_params`
    params: tuple[Param, ...] = ()
    #: its compiled dynamics for the kernel's extension point
    #: (:mod:`ftd_lib.engine.kernel.extend`): a module under ``ftd_lib`` with ``kernel_params``,
    #: ``kernel_reset``, ``kernel_step`` (or ``"module:prefix"``: ``<prefix>_reset``, ...);
    #: ``None``: none
    compiled: str | None = None
    #: the box of raw states ``((lo, hi), ...)``, one pair a state variable, that
    #: ``check_task`` draws states from to step the compiled dynamics beside the numpy ones:
    #: the whole state space, so that some steps end the episode (``None``: no compiled
    #: dynamics to check)
    state_box: tuple[tuple[float, float], ...] | None = None

    @property
    def rewards(self) -> tuple[float, float]:
        """``(lo, hi)`` of one step's reward."""
        return (self.reward, self.reward) if self.reward_range is None else self.reward_range

    @property
    def n_actions(self) -> int:
        return len(self.action_names)

    @property
    def n_in(self) -> int:
        """The network's input size: the observation's length."""
        return self.batch_cls.obs_dim

    def obs(self, states) -> np.ndarray:
        """The network's inputs, in [-1, 1], of raw states ``(..., d)``."""
        return self._obs(np.asarray(states, dtype=float))

    def transition(self, states, actions, noise=None, **params):
        """Every row of raw ``states`` ``(N, d)`` stepped once with its ``noise`` ``(N,
        self.noise)`` (a stochastic task; ``None`` for a deterministic one) and the task's
        ``params`` (checked, :func:`check_task_params`): ``(states', terminal, reward)``,
        ``reward`` ``(N,)``."""
        checked = check_task_params(self.name, params)
        params = {k: checked[k] for k in params}  # (those given: the step's defaults are the row's)
        states = np.asarray(states, dtype=float)
        if self.noise:
            if noise is None or np.shape(noise) != (len(states), self.noise):
                raise ValueError(f"noise must have shape {(len(states), self.noise)} for "
                                 f"{self.name}, got {None if noise is None else np.shape(noise)}")
            out = self._step(states, actions, np.asarray(noise, dtype=float), **params)
        elif noise is not None:
            raise ValueError(f"{self.name} is deterministic: noise must be None")
        else:
            out = self._step(states, actions, **params)
        if len(out) == 2:
            out = (*out, np.full(len(states), self.reward))
        return out

    def step_arrays(self, states, actions, noise=None) -> tuple[np.ndarray, np.ndarray]:
        """Every row of raw ``states`` ``(N, d)`` stepped once: ``(states', terminal)``
        (:meth:`transition` without the reward)."""
        return self.transition(states, actions, noise)[:2]


def _mc_obs(s):
    return mountain_car.scale_obs(s[..., 0], s[..., 1])


def _mc_step(s, actions):
    x, v, term = mountain_car.step_arrays(s[:, 0], s[:, 1], actions)
    return np.stack([x, v], axis=1), term


TASKS: dict[str, Task] = {t.name: t for t in (
    Task("mountain_car", "mountain car", gamma=1.0, max_steps=mountain_car.DEFAULT_MAX_STEPS,
         reward=-1.0, action_names=("push left", "no push", "push right"),
         state_names=("position x", "velocity v"), batch_cls=mountain_car.MountainCarBatch,
         _obs=_mc_obs, _step=_mc_step, kernel=True, evaluation=True,
         compiled="engine.kernel.env:mountain_car",
         state_box=((mountain_car.X_MIN, mountain_car.X_MAX),
                    (-mountain_car.V_MAX, mountain_car.V_MAX))),
    Task("cartpole", "cart-pole", gamma=0.99, max_steps=cartpole.DEFAULT_MAX_STEPS,
         reward=1.0, action_names=("push left", "push right"),
         state_names=("cart position x", "cart velocity", "pole angle θ", "pole velocity"),
         batch_cls=cartpole.CartPoleBatch, _obs=cartpole.scale_obs,
         _step=cartpole.step_arrays, kernel=True, compiled="engine.kernel.env:cartpole",
         state_box=((-2.5, 2.5), (-3.0, 3.0), (-0.25, 0.25), (-3.5, 3.5))),
    Task("acrobot", "acrobot", gamma=1.0, max_steps=acrobot.DEFAULT_MAX_STEPS, reward=-1.0,
         action_names=("torque -1", "no torque", "torque +1"),
         state_names=("angle θ1", "angle θ2", "velocity θ1'", "velocity θ2'"),
         batch_cls=acrobot.AcrobotBatch, _obs=acrobot.scale_obs, _step=acrobot.step_arrays,
         compiled="envs.acrobot",
         state_box=((-np.pi, np.pi), (-np.pi, np.pi), (-acrobot.MAX_VEL_1, acrobot.MAX_VEL_1),
                    (-acrobot.MAX_VEL_2, acrobot.MAX_VEL_2))),
    Task("puddle_world", "Puddle World", gamma=1.0, max_steps=puddle_world.DEFAULT_MAX_STEPS,
         reward=-1.0, action_names=("up", "down", "right", "left"), state_names=("x", "y"),
         batch_cls=puddle_world.PuddleWorldBatch, _obs=puddle_world.scale_obs,
         _step=puddle_world.step_arrays, noise=puddle_world.NOISE,
         reward_range=puddle_world.REWARD_RANGE, compiled="envs.puddle_world",
         params=(Param("noise_sd", lambda v: check_number("noise_sd", v, minimum=0.0,
                                                           exclusive=False),
                       default=puddle_world.NOISE_SD, example=0.03,
                       doc="standard deviation of the moves' Gaussian noise"),),
         state_box=((0.0, 1.0), (0.0, 1.0))),
)}


def check_task_params(name: str, params=None) -> dict:
    """``params`` (a dict, or ``None``) checked against the row of task ``name`` as a
    method's are (:func:`ftd_lib.methods.check_param_values`): every key one of its
    :class:`~ftd_lib.methods.Param`, every value through its check, the defaults filled in;
    a ``ValueError`` names the task and the parameter otherwise."""
    return check_param_values(name, params, task(name).params)


def task(name: str) -> Task:
    """The registry's entry for ``name`` (``"mountain_car"``, ``"cartpole"``, ...)."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {name!r}") from None


def gamma(name: str) -> float:
    """The task's discount (see the module docstring for why)."""
    return task(name).gamma
