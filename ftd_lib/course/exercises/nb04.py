r"""Self-checks for notebook 04 (forward TD(:math:`\lambda`)). The right answers are computed
here with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import forward_td_lambda
from ...approx import Linear
from ...returns import advance_time, extend_horizon, interim_lambda_return, k_bound
from . import Solution, check_close, missing, verdict


def check_k(answer, *, eta: float = 0.05, gamma: float = 1.0, lam: float = 0.8) -> bool:
    r"""Exercise 1: K of the K-bounded :math:`\lambda`-return for :math:`\eta` and
    :math:`\gamma\lambda` (the smallest K with :math:`(\gamma\lambda)^K \le \eta`)."""
    if missing(answer):
        return False
    K = k_bound(gamma, lam, eta)
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "K must be a whole number.")
    if math.isinf(K) or a != K:
        gl = gamma * lam
        hint = ("(γλ)^K is still above η: K is too small" if a < K else
                "a smaller K already gives (γλ)^K ≤ η")
        if not (a >= 1 and float(a).is_integer()):
            hint = "K is a whole number >= 1"
        return verdict(False, "", f"Not yet: {hint} (γλ = {gl:g}, η = {eta:g}).")
    return verdict(True, f"Correct: K = {K}.", "")


def check_next_target(answer, *, U: float = 2.0, rho: float = 0.8, delta_p: float = 0.5,
                      gamma: float = 1.0, lam: float = 0.5, K: int = 4) -> bool:
    r"""Exercise 2: from :math:`U = G_t^{\lambda|t+K}`, :math:`\rho_t` and
    :math:`\delta'_{t+K}`, the next K-bounded return :math:`G_{t+1}^{\lambda|t+1+K}`
    (App. B: one step later in time, then one step more horizon)."""
    if missing(answer):
        return False
    t = 0
    g = advance_time(U, rho, gamma, lam)  # G_{t+1}^{lambda|t+K}
    expected = extend_horizon(g, delta_p, t + 1, t + K, gamma, lam)  # G_{t+1}^{lambda|t+K+1}
    return check_close(answer, expected, name="G_{t+1}^{λ|t+1+K}", rtol=1e-6,
                       hint="First U ← (U − ρ)/γλ, then add (γλ)^(K−1) δ'.")


def check_first_update(answer, theta_index=None, *, lam: float = 0.5, gamma: float = 1.0,
                       eta: float = 0.1) -> bool:
    r"""Exercise 3: in which pass of Algorithm 1's loop (the pass at time step t observes
    :math:`R_{t+1}` and :math:`S_{t+1}`; t counts from 0) is the first update made, for this
    :math:`\lambda, \gamma, \eta`, in an episode longer than K? With ``theta_index`` also: which
    weight vector :math:`\theta_j` of Sec. 5's definition does that update produce?"""
    if missing(answer):
        return False
    K = k_bound(gamma, lam, eta)
    if math.isinf(K):
        raise ValueError("choose gamma * lam < 1 for this exercise")
    T = int(K) + 5
    x = np.ones((T + 1, 1))
    x[-1] = 0.0
    trace = []
    forward_td_lambda([(x, np.ones(T))], np.zeros(1), approx=Linear(1), alpha=0.1, lam=lam,
                      gamma=gamma, eta=eta, trace=trace)
    first = next(s["t"] for s in trace if s["updated"] is not None)
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "The answer must be a time step (a whole number).")
    ok = verdict(a == first, f"Correct: the first update is made in the pass at t = {first}, "
                 "when the queue holds K states.",
                 "Not yet: in which pass is the queue F full for the first time? (t counts "
                 "from 0; the pass at t observes S_{t+1}.)")
    if theta_index is None:
        return ok
    try:
        j = float(theta_index)
    except (TypeError, ValueError):
        return verdict(False, "", "theta_index must be a whole number j (of θ_j).") and ok
    ok_j = verdict(j == first + 1, f"Correct: it produces θ_{first + 1} = θ_K; before it, "
                   "θ_t = θ_0 for t < K.", "Not yet: Sec. 5 numbers the weights after the "
                   "update that uses the horizon t + K; the pass at time step t ends with "
                   "θ_{t+1}.")
    return ok and ok_j


#: Exercise 4: an episode with values V(S_j | theta_{j-1}) that change along it (so delta'
#: differs from the TD error); t and h of the identity G^{lam|h+1} = G^{lam|h} + ...
HORIZON = dict(rewards=[1.0, 0.0, 2.0, -1.0], values=[0.0, 0.5, 1.0, 0.8, 0.0], gamma=0.9,
               lam=0.5, t=0, h=2)


def check_horizon_extension(g_h, delta_p, g_h1) -> bool:
    r"""Exercise 4: on ``HORIZON``, :math:`G_t^{\lambda|h}` by eq. (2), :math:`\delta'_h`, and
    :math:`G_t^{\lambda|h+1}` by the horizon-extension identity; the last is compared with
    eq. (2) at horizon h + 1."""
    if missing(g_h) or missing(delta_p) or missing(g_h1):
        return False
    e = HORIZON
    r, v, g, lam, t, h = e["rewards"], e["values"], e["gamma"], e["lam"], e["t"], e["h"]
    ok1 = check_close(g_h, interim_lambda_return(r, v, t, h, g, lam), name=f"G_{t}^(λ|{h})",
                      rtol=1e-6, hint="Eq. (2): weights (1−λ)λ^(n−1), the rest on the "
                      "longest return.")
    ok2 = check_close(delta_p, r[h] + g * v[h + 1] - v[h], name=f"δ'_{h}", rtol=1e-6,
                      hint="δ'_h = R_{h+1} + γ V(S_{h+1}|θ_h) − V(S_h|θ_{h−1}): values[h+1] "
                      "and values[h].")
    ok3 = check_close(g_h1, interim_lambda_return(r, v, t, h + 1, g, lam),
                      name=f"G_{t}^(λ|{h + 1}) from the identity", rtol=1e-6,
                      hint="Add (γλ)^(h−t) δ'_h to G^(λ|h).")
    return ok1 and ok2 and ok3


def check_k1_is_td0(lam_max, W_forward, W_td0, *, eta: float = 0.01,
                    gamma: float = 1.0) -> bool:
    r"""Exercise 5: the largest :math:`\lambda` with K = 1 (for ``eta`` and ``gamma``), and the
    weights of forward TD(:math:`\lambda`) with K = 1 against TD(0)'s on the same episodes
    (equal to rounding, and not all equal to the start)."""
    if missing(lam_max) or missing(W_forward) or missing(W_td0):
        return False
    ok1 = check_close(lam_max, eta / gamma, name="the largest λ with K = 1", rtol=1e-9,
                      hint="K = 1 when (γλ)^1 ≤ η already.")
    try:
        a, b = np.asarray(W_forward, dtype=float), np.asarray(W_td0, dtype=float)
    except (TypeError, ValueError):
        return verdict(False, "", "W_forward and W_td0 must be arrays of weights.") and ok1
    if a.shape != b.shape or a.ndim != 2 or len(a) < 2:
        return verdict(False, "", f"W_forward {a.shape} and W_td0 {b.shape} must be the weights "
                       "after every step (2-d, the same shape).") and ok1
    if np.allclose(a, a[0]):
        return verdict(False, "", "These weights never change: give the learners some "
                       "episodes with non-zero errors.") and ok1
    ok2 = verdict(bool(np.allclose(a, b, rtol=0, atol=1e-12)), "Correct: with K = 1 forward "
                  "TD(λ) makes TD(0)'s updates, step for step.", "Not yet: the weights differ "
                  f"(largest difference {np.max(np.abs(a - b)):.3g}); is K = 1?")
    return ok1 and ok2


SETUP = """
import numpy as np
from ftd_lib import algorithms
from ftd_lib.approx import Linear
from ftd_lib.course.exercises import nb04
from ftd_lib.envs import random_walk_episodes
from ftd_lib.returns import interim_lambda_return
from ftd_lib.rng import run_generator
"""

SOLUTIONS = (
    Solution(
        key="nb04.ex1", title="Exercise 1, K from η",
        hint=r"$K$ is the smallest whole number with $(\gamma\lambda)^K \le \eta$: take logarithms "
             r"(both are negative, so the inequality turns) and round up.",
        worked=r"""
            $K = \lceil \log 0.05 / \log 0.8 \rceil = \lceil (-2.996)/(-0.2231) \rceil =
            \lceil 13.43 \rceil = 14$. Check: $0.8^{13} = 0.055 > 0.05$ and
            $0.8^{14} = 0.044 \le 0.05$.
        """,
        code="""
            import math
            K_answer = math.ceil(math.log(0.05) / math.log(0.8))
            nb04.check_k(K_answer, eta=0.05, gamma=1.0, lam=0.8)
        """,
        setup=SETUP,
        checks=r"$K = \lceil \log\eta/\log\gamma\lambda \rceil$ (Sec. 5, eq. 5).",
        wrong=("13: rounded down, so (γλ)^K is still above η",
               "log(0.8)/log(0.05) ≈ 0.07: the ratio upside down"),
    ),
    Solution(
        key="nb04.ex2", title="Exercise 2, the next K-bounded return",
        hint=r"First one step later in time, $U \leftarrow (U - \rho_t)/\gamma\lambda$ (eq. 7), "
             r"which gives $G_{t+1}^{\lambda|t+K}$; then one step more horizon with weight "
             r"$(\gamma\lambda)^{K-1}$ (eq. 6, $h - (t+1) = K - 1$).",
        worked=r"""
            $G_{t+1}^{\lambda|t+K} = (2.0 - 0.8)/0.5 = 2.4$, then
            $G_{t+1}^{\lambda|t+1+K} = 2.4 + 0.5^{3} \cdot 0.5 = 2.4625$. In Algorithm 1 the
            order is the other way round in the loop (add $c_{final}\,\delta'$, update, then
            the $\rho$-step), but it is the same pair of identities.
        """,
        code="""
            U, rho, delta_p, gl, K = 2.0, 0.8, 0.5, 1.0 * 0.5, 4
            U = (U - rho) / gl                 # G_{t+1}^(λ|t+K)
            next_target_answer = U + gl ** (K - 1) * delta_p
            nb04.check_next_target(next_target_answer, U=2.0, rho=0.8, delta_p=0.5,
                                   gamma=1.0, lam=0.5, K=4)
        """,
        setup=SETUP,
        checks="the ρ-step then the horizon step: $(U-\\rho)/\\gamma\\lambda + "
               "(\\gamma\\lambda)^{K-1}\\delta'$.",
        wrong=("2.4: the horizon step forgotten", "2.525: weight (γλ)^(K−2) on δ' (the horizon "
               "counted from t, not t + 1)"),
    ),
    Solution(
        key="nb04.ex3", title="Exercise 3, the first update",
        hint=r"$K = \lceil \log 0.1/\log 0.5 \rceil = 4$. The update of $S_0$ needs the horizon "
             r"$0 + K$: the pass that observes $S_K$ is the pass at time step $t = K-1$.",
        worked=r"""
            With $\gamma\lambda = 0.5$ and $\eta = 0.1$, $K = 4$. The pass of the loop at time
            step $t$ observes $R_{t+1}$ and $S_{t+1}$; the target of $S_0$,
            $G_0^{\lambda|K}$, needs everything up to $S_K$, so it is ready in the pass at
            $t = K - 1 = 3$ (then $i = K-1$ and `ready` turns true). That update produces
            Sec. 5's $\theta_K = \theta_4$: the paper writes $\theta_t = \theta_0$ for
            $1 \le t < K$ and
            $\theta_{t+K} = \theta_{t+K-1} + \alpha(\dots)$ for the update of $S_t$. Two
            numberings, one event: pass $t = 3$ ends with $\theta_{t+1} = \theta_4$.
        """,
        code="""
            import math
            K = math.ceil(math.log(0.1) / math.log(0.5))
            first_update_answer = K - 1          # the pass at t = K - 1 observes S_K
            theta_answer = K                     # ... and produces theta_K
            nb04.check_first_update(first_update_answer, theta_answer, lam=0.5, gamma=1.0,
                                    eta=0.1)
        """,
        setup=SETUP,
        checks="the loop pass t = K − 1 makes the first update, which produces θ_K.",
        wrong=("t = K = 4: the index of θ_K taken for the pass", "θ_{K−1}: the pass index "
               "taken for the weights"),
    ),
    Solution(
        key="nb04.ex4", title="Exercise 4, the horizon-extension identity",
        hint=r"Write $G_t^{\lambda|h+1}$ by eq. (2), split off the last two terms, and use that "
             r"$G_t^{(h+1-t)}$ and $G_t^{(h-t)}$ share their first $h-t$ rewards.",
        worked=r"""
            **Derivation** (App. B). By eq. (2) with horizon $h+1$,
            $G_t^{\lambda|h+1} = (1-\lambda)\sum_{n=1}^{h-t}\lambda^{n-1}G_t^{(n)} +
            \lambda^{h-t}G_t^{(h+1-t)}$. Take the last term of the sum,
            $(1-\lambda)\lambda^{h-t-1}G_t^{(h-t)} = \lambda^{h-t-1}G_t^{(h-t)} -
            \lambda^{h-t}G_t^{(h-t)}$: the first piece completes $G_t^{\lambda|h}$, so
            $G_t^{\lambda|h+1} = G_t^{\lambda|h} + \lambda^{h-t}\big(G_t^{(h+1-t)} -
            G_t^{(h-t)}\big)$. The two n-step returns share the rewards $R_{t+1..h}$; what
            differs is $\gamma^{h-t}R_{h+1} + \gamma^{h+1-t}\hat V_{h+1} - \gamma^{h-t}\hat V_h
            = \gamma^{h-t}\delta'_h$ with $\hat V_j = \hat V(S_j|\theta_{j-1})$. Hence
            $G_t^{\lambda|h+1} = G_t^{\lambda|h} + (\gamma\lambda)^{h-t}\,\delta'_h$.

            **On the numbers** ($t = 0$, $h = 2$, γ = 0.9, λ = 0.5):
            $G_0^{(1)} = 1 + 0.9 \cdot 0.5 = 1.45$, $G_0^{(2)} = 1 + 0 + 0.81 \cdot 1.0 = 1.81$,
            so $G_0^{\lambda|2} = 0.5 \cdot 1.45 + 0.5 \cdot 1.81 = 1.63$;
            $\delta'_2 = R_3 + \gamma\hat V_3 - \hat V_2 = 2 + 0.72 - 1 = 1.72$;
            $G_0^{\lambda|3} = 1.63 + 0.45^2 \cdot 1.72 = 1.9783$, which eq. (2) gives too.
        """,
        code="""
            e = nb04.HORIZON
            r, v, g, lam, t, h = e["rewards"], e["values"], e["gamma"], e["lam"], e["t"], e["h"]
            g_h = interim_lambda_return(r, v, t, h, g, lam)          # eq. (2)
            delta_p = r[h] + g * v[h + 1] - v[h]                     # delta'_h
            g_h1 = g_h + (g * lam) ** (h - t) * delta_p              # the identity
            nb04.check_horizon_extension(g_h, delta_p, g_h1)
        """,
        setup=SETUP,
        checks=r"$G_0^{\lambda|2}$ by eq. (2), $\delta'_2$ with the right values, and "
               r"$G_0^{\lambda|3}$ by the identity, compared with eq. (2).",
        wrong=(r"δ' with V(S_h|θ_h) (the TD error δ_h): right only if the weights did not move",
               "weight λ^(h−t) without γ^(h−t)"),
    ),
    Solution(
        key="nb04.ex5", title="Exercise 5, K = 1 is TD(0)",
        hint=r"Put $h = t+1$ in eq. (2): the sum is empty and the last weight is $\lambda^0$. "
             r"Which return is left, and when is it available?",
        worked=r"""
            $K = 1$ exactly when $(\gamma\lambda)^1 \le \eta$, i.e. $\lambda \le \eta/\gamma$:
            $\lambda \le 0.01$ for $\eta = 0.01$, $\gamma = 1$. Then
            $G_t^{\lambda|t+1} = \lambda^0 G_t^{(1)} = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_t)$,
            the TD(0) target, whatever λ; it is complete at time $t+1$, so the update of $S_t$
            has no delay: $\theta_{t+1} = \theta_t + \alpha(G_t^{\lambda|t+1} -
            \hat V(S_t|\theta_t))\nabla\hat V(S_t|\theta_t)$ — eq. (1) with TD(0)'s target.
            In Algorithm 1: $c_{final} = 1$, no ρ-step (`K ≠ 1` guards it), and the queue holds
            one state. Any λ with `k_max=1` gives the same.
        """,
        code="""
            episodes = random_walk_episodes(3, run_generator(0, 0))
            common = dict(approx=Linear(10), alpha=0.1, gamma=1.0)
            W_forward = algorithms.forward_td_lambda(episodes, np.zeros(10), lam=0.01,
                                                     eta=0.01, **common)    # K = 1
            W_td0 = algorithms.td0(episodes, np.zeros(10), **common)
            nb04.check_k1_is_td0(0.01, W_forward, W_td0)
        """,
        setup=SETUP,
        checks=r"$\lambda \le \eta/\gamma$ gives K = 1, and forward TD(λ) then equals TD(0) "
               "step for step.",
        wrong=("λ = 0 only: any γλ ≤ η gives K = 1",
               "'TD(λ) with λ small': it is TD(0) exactly, not approximately"),
    ),
)
