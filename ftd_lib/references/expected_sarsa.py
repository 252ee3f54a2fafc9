r"""Expected Sarsa (van Seijen, van Hasselt, Whiteson & Wiering 2009; Sutton & Barto 2018,
Sec. 6.6; with a network, Sec. 10.2), one run live on one environment,
:math:`\epsilon`-greedy, one network per action: the per-run reference of the method
``expected_sarsa`` (:mod:`ftd_lib.methods`). Beyond the paper: the library's worked example
of a target that depends on the policy's probabilities
(:func:`ftd_lib.references.common.epsilon_greedy_probs`), which its hand-worked episode checks
at :math:`0 < \epsilon < 1`. It shares Sarsa(:math:`\lambda`)'s conventions
(:mod:`ftd_lib.references.common`): the run's own streams, the episode cap, divergence.
"""

from __future__ import annotations

from .common import ControlRun, epsilon_greedy_probs, one_step_control
from .template import GAMMA, REWARDS, HandWorked, T, q, update


def expected_value(q2, epsilon) -> float:
    r""":math:`\bar V(S') = \sum_a \pi(a|S')\hat Q(S', a)` under :math:`\epsilon`-greedy, a
    Python sum in the actions' order (the same bits on every CPU)."""
    return sum(p * v for p, v in zip(epsilon_greedy_probs(q2, epsilon), q2, strict=True))


def expected_sarsa(env, w0, *, approx, alpha, lam, gamma, n_episodes, agent, epsilon=0.05,
                   truncation="bootstrap", div_bound=1e6) -> ControlRun:
    r"""Episodic semi-gradient Expected Sarsa: after each step :math:`(S, A, R, S')`

    .. math::
        \theta_A \leftarrow \theta_A + \alpha\Big(R + \gamma\sum_a\pi(a|S')\hat Q(S', a|\theta)
        - \hat Q(S, A|\theta)\Big)\nabla\hat Q(S, A|\theta_A),

    :math:`\pi` the :math:`\epsilon`-greedy policy of :math:`\hat Q(S', \cdot)` (the values
    the next action is chosen from, with the weights before the update); 0 after a terminal
    state; a cap with ``truncation="bootstrap"`` bootstraps from :math:`\bar V(S_T)`.
    ``lam`` is not used (the contract's argument). Other arguments and the returned
    :class:`~ftd_lib.references.common.ControlRun` as
    :func:`ftd_lib.references.sarsa_lambda.sarsa_lambda`.
    """
    return one_step_control(
        expected_sarsa_update, env, w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma,
        n_episodes=n_episodes, agent=agent, epsilon=epsilon, truncation=truncation,
        div_bound=div_bound)


def expected_sarsa_update(p, w, e, s, a, R, v, a2, q2):
    r"""One step of Expected Sarsa (:func:`.common.one_step_control`'s ``update``; no
    traces): :math:`\theta_A \mathrel{+}= \alpha(R + \gamma\bar V(S') - v)\nabla\hat
    Q(S, A|\theta_A)`, :math:`\bar V(S') = 0` after the end."""
    v_next = 0.0 if a2 is None else expected_value(q2, p.epsilon)
    w = w.copy()
    w[a] = w[a] + p.alpha * (R + p.gamma * v_next - v) * p.approx.grad(w[a], s)
    return w, e


def hand_expected_sarsa(w0, epsilon, lam=None):
    r"""Expected Sarsa on the template, worked by hand: at each step the greedy action of
    :math:`\hat Q(S_{t+1}, \cdot)` (the first of the two on a tie), its probability
    :math:`1 - \epsilon + \epsilon/2`, the other's :math:`\epsilon/2`, and the update towards
    :math:`R_{t+1} + \gamma(\pi_0\hat Q(S_{t+1}, 0) + \pi_1\hat Q(S_{t+1}, 1))` (0 after the
    last step)."""
    w = w0.copy()
    for t in range(T):
        v_next = 0.0
        if t + 1 < T:
            q0, q1 = q(w, t + 1, 0), q(w, t + 1, 1)
            greedy = 0 if q0 >= q1 else 1
            p0 = epsilon / 2 + (1 - epsilon if greedy == 0 else 0.0)
            p1 = epsilon / 2 + (1 - epsilon if greedy == 1 else 0.0)
            v_next = p0 * q0 + p1 * q1
        w = update(w, t, REWARDS[t] + GAMMA * v_next)
    return w


#: the hand-worked episode (:mod:`.template`): at epsilon = 1 (pi uniform) and at two
#: epsilons below 1, where the target weighs the greedy action more (the exploration draws
#: are forced either way, :class:`.template.ForcedAgent`)
HAND_WORKED = {"expected_sarsa": HandWorked(hand_expected_sarsa, (
    {"epsilon": 1.0}, {"epsilon": 0.5}, {"epsilon": 0.1}))}
