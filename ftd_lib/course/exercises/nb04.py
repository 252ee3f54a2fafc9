r"""Self-checks for notebook 04 (forward TD(:math:`\lambda`)). The right answers are computed
here with the library, never printed: a check says only whether the answer is right.

The exercises, in the notebook's order: 1 ρ (:func:`check_rho`, asked in section 2, before the
listing shows line 13), 2 Algorithm 1 (:func:`check_algorithm1`), 3 the next target, 4 the
first update, 5 the horizon-extension identity, 6 K = 1 is TD(0). The given numbers of 3-6
are the student's own (:func:`~.use_student`)."""

from __future__ import annotations

import math

import numpy as np

from ...algorithms import forward_td_lambda, forward_td_lambda_by_definition, td0
from ...approx import Linear
from ...envs.random_walk import random_walk_episodes
from ...returns import (
    Algorithm1Return,
    advance_time,
    extend_horizon,
    interim_lambda_return,
    k_bound,
)
from ...returns import rho as library_rho
from ...rng import run_generator
from . import (
    all_parts,
    as_numbers,
    check_close,
    check_weights_per_step,
    missing,
    not_written,
    one_number,
    others_answer,
    refuse_library_answer,
    run_student,
    student_number,
    student_rng,
    verdict,
)

#: The cases an implementation of Algorithm 1 must get right, each against Sec. 5's
#: definition (``forward_td_lambda_by_definition``) on seeded random-walk episodes, tabular:
#: (what it tests, lam, gamma, eta, k_max, what is special in it)
ALGORITHM1_CASES = (
    ("K = 4, episodes longer than K", 0.5, 1.0, 0.1, None, ""),
    ("γ < 1 (γλ = 0.72, K = 15)", 0.8, 0.9, 0.01, None,
     "This is the only case with γ < 1: if the others pass, look at γ in ρ = R + γ(1−λ)V_next, "
     "δ' = R + γV_next − V_current and c ← γλc."),
    ("K = 44, most episodes shorter than K", 0.9, 1.0, 0.01, None, ""),
    ("K = 1 (λ = η)", 0.01, 1.0, 0.01, None, ""),
    ("γλ = 1 with k_max = 5", 1.0, 1.0, 0.01, 5,
     "K = min(K_max, K): with γλ = 1 the formula gives K = ∞."),
)

#: library code that computes Algorithm 1's weights or targets, refused inside a student's answer
ALGORITHM1_LIBRARY = (forward_td_lambda, forward_td_lambda_by_definition,
                      Algorithm1Return.observe)


def where_algorithm1_differs(step: int, episodes, K: int) -> str:
    """What happens in Algorithm 1 at ``step`` (1-based, counted over all ``episodes``) with
    horizon ``K``: the place a first difference points to (not a guess at the bug)."""
    before = 0
    for j, (_, r) in enumerate(episodes):
        T = len(r)
        if step <= before + T:
            t = step - before  # the pass at time step t - 1 ends here; t counts from 1
            if T < K:
                return (f"episode {j + 1} has {T} steps, fewer than K = {K}: the queue F never "
                        "fills, nothing is updated during the episode, and at its end "
                        "U ← U_sync (line 29) before the states in F are updated (lines 30-33)")
            if t == T:
                return (f"the end of episode {j + 1}: the {min(K, T)} states left in F are "
                        "updated in order (lines 30-33), each followed by the ρ-step except "
                        "the last")
            if t < K:
                return (f"step {t} of episode {j + 1}, before the queue holds K = {K} states: "
                        "no update yet (the weights must not move)")
            if t == K:
                c_final = "(γλ)^(K−1)" + (" = 1 with K = 1" if K == 1 else "")
                rho_step = ("with K = 1 there is no ρ-step (If K ≠ 1)" if K == 1 else
                            "then U ← (U − ρ)/γλ")
                return (f"the first update of episode {j + 1} (step K = {K}): U = U_sync + "
                        f"c_final δ' with c_final = {c_final} (lines 5, 17-19, 24); "
                        f"{rho_step}")
            return (f"step {t} of episode {j + 1}, after the first update: each update uses "
                    "U + c_final δ', then the ρ-step U ← (U − ρ)/γλ (line 27); every K steps "
                    "U ← U_sync and U_sync restarts from V_current (lines 17-22)")
        before += T
    return "after the last step"


def check_algorithm1(fn) -> bool:
    r"""A student's ``fn(episodes, w0, *, approx, alpha, lam, gamma, eta, k_max)``
    (Algorithm 1) against Sec. 5's definition in every case of ``ALGORITHM1_CASES``; the weights
    after every step must agree to 1e-10. A function that runs the library's Algorithm 1
    (:data:`ALGORITHM1_LIBRARY`, under any name) is refused."""
    if not_written(fn, "your Algorithm 1 (my_forward_td_lambda)"):
        return False
    approx = Linear(10)

    def make(i, case):
        _, lam, gamma, eta, k_max, _ = case
        episodes = random_walk_episodes(4, run_generator(18, i))
        kw = dict(approx=approx, alpha=0.1, lam=lam, gamma=gamma, eta=eta, k_max=k_max)
        w0 = np.linspace(0.5, 5.0, 10)  # a rough first guess, so that delta' moves from step 1
        return episodes, w0, kw, forward_td_lambda_by_definition(episodes, w0, **kw)

    def differs(step, episodes, expected, special, case, got=None):
        _, lam, gamma, eta, k_max, _ = case
        K = k_bound(gamma, lam, eta, k_max)
        ends = np.cumsum([len(r) for _, r in episodes]) - 1  # the row of each episode's end
        bad = np.flatnonzero(np.any(~(np.abs(got - expected) <= 1e-10), axis=1))
        if got is not None and np.isin(bad, ends).all() and bad[0] != len(expected) - 1:
            j = int(np.searchsorted(ends, bad[0])) + 1
            return (f"only the last row of an episode differs (first episode {j}, step "
                    f"{step}), and the next episode starts from the right weights: your "
                    "end-of-episode updates (lines 29-33) are right, but the row of the "
                    "episode's last step is not them. Record them after the loop over F: "
                    "out[-1] = w.")
        return (f"your weights first leave the definition's at step {step} of {len(expected)}, "
                f"{where_algorithm1_differs(step, episodes, K)}. {special}").strip()

    return bool(check_weights_per_step(
        fn, ALGORITHM1_CASES, make, rows=", one row per step",
        same="the same weights as Sec. 5's definition.", differs=differs,
        refuse=ALGORITHM1_LIBRARY))


#: Exercise ``next_bounded_return`` without a student id
NEXT_TARGET = dict(U=2.0, rho=0.8, delta_p=0.5, gamma=1.0, lam=0.5, K=4)


def given_next_target() -> dict:
    """The numbers for the current student: ``U`` = G_t^{λ|t+K}, ``rho``,
    ``delta_p`` (δ'_{t+K}), ``gamma``, ``lam`` and ``K``."""
    rng = student_rng("nb04.next_bounded_return")
    if rng is None:
        return dict(NEXT_TARGET)
    return dict(U=float(np.round(rng.uniform(0.5, 4.0), 1)),
                rho=float(np.round(rng.uniform(-0.5, 1.5), 1)),
                delta_p=float(np.round(rng.choice([-1, 1]) * rng.uniform(0.2, 1.5), 1)),
                gamma=float(rng.choice([1.0, 0.9])), lam=float(rng.choice([0.4, 0.6, 0.8])),
                K=int(rng.integers(3, 7)))


def _next_target(e) -> float:
    g = advance_time(e["U"], e["rho"], e["gamma"], e["lam"])  # G_{t+1}^{lambda|t+K}
    return extend_horizon(g, e["delta_p"], 1, e["K"], e["gamma"], e["lam"])


def check_next_target(answer) -> bool:
    r"""From :math:`U = G_t^{\lambda|t+K}`, :math:`\rho_t` and
    :math:`\delta'_{t+K}` (:func:`given_next_target`), the next K-bounded return
    :math:`G_{t+1}^{\lambda|t+1+K}` (App. B: one step later in time, then one step more
    horizon)."""
    if missing(answer, "next_target_answer"):
        return False
    if refuse_library_answer(("advance_time(", "extend_horizon(", "interim_lambda_return(",
                                "bounded_returns_by_definition(", "bounded_returns_by_rho(",
                                "_next_target(")):
        return False
    arr = as_numbers(answer, "G_{t+1}^{λ|t+1+K}")
    if arr is None:
        return False
    e = given_next_target()
    U, rho, delta_p, gamma, lam, K = (e[k] for k in ("U", "rho", "delta_p", "gamma", "lam", "K"))
    g = advance_time(U, rho, gamma, lam)  # G_{t+1}^{lambda|t+K}
    expected = _next_target(e)
    gl = gamma * lam
    usual = {  # the usual slips, each named without the answer
        g: "that is G_{t+1}^{λ|t+K}: the ρ-step is done, the horizon step (eq. 6) is missing",
        g + gl ** (K - 2) * delta_p: "the power of γλ on δ' is one too small: the horizon is "
                                      "counted from t, not from t + 1",
        g + gl ** K * delta_p: "the power of γλ on δ' is one too large: in eq. (6) it counts "
                                "the steps from t + 1 to the old horizon",
        U + gl ** (K - 1) * delta_p: "that is G_t^{λ|t+K+1}: the horizon step without the "
                                      "ρ-step (t did not move)",
        (U - rho) * gl + gl ** (K - 1) * delta_p: "the ρ-step multiplies by γλ: read eq. (7) "
                                                    "again",
    }
    a = float(arr) if arr.shape == () else None
    if a is not None and (others := others_answer(a, expected,
                                                  lambda: _next_target(given_next_target()))):
        return verdict(False, "", "Not yet: " + others)
    for value, why in usual.items():
        if a is not None and not math.isclose(value, expected) and math.isclose(a, value,
                                                                               rel_tol=1e-6):
            return verdict(False, "", f"Not yet: {why}.")
    return check_close(answer, expected, name="G_{t+1}^{λ|t+1+K}", rtol=1e-6,
                       hint="Two steps in Algorithm 1's order: the ρ-step (eq. 7), then the "
                       "horizon step (eq. 6); check each against its equation, the power of γλ "
                       "included.")


#: Exercise ``first_update`` without a student id (K = 4)
FIRST_UPDATE = dict(lam=0.5, gamma=1.0, eta=0.1)

#: ``nb04.first_update``'s λ with a student id (0.30 .. 0.85 but no id's 0.5): 165 (λ, γ,
#: η) in all
FIRST_UPDATE_LAMS = tuple(k / 100 for k in range(30, 90, 5) if k != 50)


def given_first_update() -> dict:
    """The ``lam``, ``gamma`` and ``eta`` for the current student (γλ < 1)."""
    rng = student_rng("nb04.first_update")
    if rng is None:
        return dict(FIRST_UPDATE)
    return dict(lam=float(rng.choice(FIRST_UPDATE_LAMS)),
                gamma=float(rng.choice([1.0, 0.95, 0.9])),
                eta=float(rng.choice([0.01, 0.02, 0.05, 0.1, 0.2])))


def _first_update(e) -> tuple:
    """K for ``e``'s λ, γ, η and the time step t of the pass that makes the first update, read
    from a run of Algorithm 1 (its trace) on an episode longer than K."""
    lam, gamma, eta = e["lam"], e["gamma"], e["eta"]
    K = k_bound(gamma, lam, eta)
    if math.isinf(K):
        raise ValueError("choose gamma * lam < 1 for this exercise")
    T = int(K) + 5
    x = np.ones((T + 1, 1))
    x[-1] = 0.0
    trace = []
    forward_td_lambda([(x, np.ones(T))], np.zeros(1), approx=Linear(1), alpha=0.1, lam=lam,
                      gamma=gamma, eta=eta, trace=trace)
    return K, next(s["t"] for s in trace if s["updated"] is not None)


def check_first_update(answer, theta_index=None) -> bool:
    r"""In which pass of Algorithm 1's loop (the pass at time step t observes
    :math:`R_{t+1}` and :math:`S_{t+1}`; t counts from 0) is the first update made, for
    :func:`given_first_update`'s :math:`\lambda, \gamma, \eta`, in an episode longer than K?
    With ``theta_index`` also: which weight vector :math:`\theta_j` of Sec. 5's definition
    does that update produce?"""
    if missing(answer, "first_update_answer (t of the pass)"):
        return False
    if refuse_library_answer(("forward_td_lambda(", "stepper_frames(", "algorithm1_stepper(",
                                "stepper_table(")):
        return False
    K, first = _first_update(given_first_update())
    a = one_number(answer, "first_update_answer (a time step)", "first_update_answer must be "
                   "one time step (a whole number).")
    if a is None:
        return False
    others = others_answer(a, first, lambda: _first_update(given_first_update())[1])
    if others:
        ok = verdict(False, "", f"Not yet: {others}")
    elif a != first and a == K:
        ok = verdict(False, "", f"Not yet: K = {K} is right, but the answer is a time step: "
                     "which t has the pass that observes S_K? (t counts from 0; the pass at t "
                     "observes S_{t+1}.)")
    else:
        ok = verdict(a == first, f"Correct: the first update is made in the pass at t = {first}, "
                     "when the queue holds K states.",
                     "Not yet: in which pass is the queue F full for the first time? (First K "
                     "from your λ, γ and η; t counts from 0; the pass at t observes S_{t+1}.)")
    if theta_index is None:
        return ok
    j = one_number(theta_index, "theta_index (j of θ_j)", "theta_index must be one whole "
                   "number j (of θ_j).")
    if j is None:
        return all_parts((ok, False), ("the pass t", "θ_j"))
    ok_j = verdict(j == first + 1, f"Correct: it produces θ_{first + 1} = θ_K; before it, "
                   "θ_t = θ_0 for t < K.", "Not yet: Sec. 5 numbers the weights after the "
                   "update that uses the horizon t + K; the pass at time step t ends with "
                   "θ_{t+1}.")
    return all_parts((ok, ok_j), ("the pass t", "θ_j"))


#: Without a student id: an episode with values V(S_j | theta_{j-1}) that change
#: along it (so delta' differs from the TD error); t and h of the identity
#: G^{lam|h+1} = G^{lam|h} + ...
HORIZON = dict(rewards=[1.0, 0.0, 2.0, -1.0], values=[0.0, 0.5, 1.0, 0.8, 0.0], gamma=0.9,
               lam=0.5, t=0, h=2)


def given_horizon() -> dict:
    """The episode for the current student: ``rewards`` (4), ``values`` (5, the last 0),
    ``gamma``, ``lam``, ``t`` = 0 and ``h`` (1 or 2)."""
    rng = student_rng("nb04.horizon_extension")
    if rng is None:
        return dict(HORIZON, rewards=list(HORIZON["rewards"]), values=list(HORIZON["values"]))
    return dict(rewards=rng.integers(-1, 3, 4).astype(float).tolist(),
                values=[0.0, *np.round(rng.uniform(-1.0, 2.0, 3), 1).tolist(), 0.0],
                gamma=float(rng.choice([0.8, 0.9, 1.0])), lam=float(rng.choice([0.4, 0.6, 0.7])),
                t=0, h=int(rng.integers(1, 3)))


def _horizon_answers(e):
    r, v, g, lam, t, h = e["rewards"], e["values"], e["gamma"], e["lam"], e["t"], e["h"]
    return (interim_lambda_return(r, v, t, h, g, lam), r[h] + g * v[h + 1] - v[h],
            interim_lambda_return(r, v, t, h + 1, g, lam))


def check_horizon_extension(g_h, delta_p, g_h1) -> bool:
    r"""On :func:`given_horizon`'s episode, :math:`G_t^{\lambda|h}` by eq. (2),
    :math:`\delta'_h`, and :math:`G_t^{\lambda|h+1}` by the horizon-extension identity; the last
    is compared with eq. (2) at horizon h + 1."""
    if missing(g_h, "g_h") or missing(delta_p, "delta_p") or missing(g_h1, "g_h1"):
        return False
    if refuse_library_answer(("interim_lambda_return(", "extend_horizon(",
                                "bounded_returns_by_definition(", "_horizon_answers(")):
        return False
    e = given_horizon()
    t, h = e["t"], e["h"]
    want = _horizon_answers(e)
    if all(isinstance(x, (int, float)) and not isinstance(x, bool)
           for x in (g_h, delta_p, g_h1)) and (others := others_answer(
            [g_h, delta_p, g_h1], want, lambda: _horizon_answers(given_horizon()))):
        return verdict(False, "", "Not yet: " + others)
    ok1 = check_close(g_h, want[0], name=f"G_{t}^(λ|{h})", rtol=1e-6,
                      hint="Eq. (2): weights (1−λ)λ^(n−1), the rest on the longest return.")
    ok2 = check_close(delta_p, want[1], name=f"δ'_{h}", rtol=1e-6,
                      hint="δ'_h = R_{h+1} + γ V(S_{h+1}|θ_h) − V(S_h|θ_{h−1}): values[h+1] "
                      "and values[h].")
    ok3 = check_close(g_h1, want[2], name=f"G_{t}^(λ|{h + 1}) from the identity", rtol=1e-6,
                      hint="Add (γλ)^(h−t) δ'_h to G^(λ|h).")
    return all_parts((ok1, ok2, ok3), ("g_h", "delta_p", "g_h1"))


#: Exercise ``k1_is_td0``: the run on which the check shows K = 1 is TD(0): three seeded random-walk
#: episodes (``random_walk_episodes(3, run_generator(0, 0))``), tabular, from w0 = 0
K1_RUN = dict(seed=0, n_episodes=3, alpha=0.1)

#: Exercise ``k1_is_td0`` without a student id: eta and gamma, and the first step of an episode
#: (R_1, V(S_1|theta_0)) whose target the student writes down
K1_EXERCISE = dict(eta=0.01, gamma=1.0, reward=1.0, v_next=2.5)


def given_k1() -> dict:
    """The numbers for the current student: ``eta`` and ``gamma``; ``reward`` R_1 and
    ``v_next`` = V(S_1|θ_0) of an episode's first step."""
    rng = student_rng("nb04.k1_is_td0")
    if rng is None:
        return dict(K1_EXERCISE)
    return dict(eta=float(rng.choice([0.02, 0.05, 0.1, 0.2])),
                gamma=float(rng.choice([1.0, 0.95, 0.9])),
                reward=float(rng.integers(-1, 3)), v_next=float(np.round(rng.uniform(0.5, 4), 1)))


def k1_reference(lam: float, *, eta: float, gamma: float):
    """The weights of ``algorithms.forward_td_lambda`` (with ``lam``) and of
    ``algorithms.td0`` on the run of :data:`K1_RUN`, after every step."""
    episodes = random_walk_episodes(K1_RUN["n_episodes"], run_generator(K1_RUN["seed"], 0))
    common = dict(approx=Linear(10), alpha=K1_RUN["alpha"], gamma=gamma)
    return (forward_td_lambda(episodes, np.zeros(10), lam=lam, eta=eta, **common),
            td0(episodes, np.zeros(10), **common))


def _k1_target(lam: float, reward: float, v_next: float, gamma: float, eta: float) -> float:
    """The target Algorithm 1 (``returns.Algorithm1Return``) uses for S_0 in an episode of two
    steps whose first step has ``reward`` and reaches a state of value ``v_next`` (the weights
    do not move before that update)."""
    K = k_bound(gamma, lam, eta)
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    w0 = np.array([0.0, v_next])
    trace = []
    forward_td_lambda([(x, np.array([reward, 0.0]))], w0, approx=Linear(2), alpha=0.1,
                      lam=lam, gamma=gamma, eta=eta, k_max=K, trace=trace)
    return float(next(s["target"] for s in trace if s["updated"] == 0))


def check_k1_is_td0(lam_max, target) -> bool:
    r"""(a) the largest :math:`\lambda` with K = 1 for :func:`given_k1`'s η and γ;
    (b) the target of the first update with that λ, from the given R_1 and
    :math:`\hat V(S_1|\theta_0)`, as Algorithm 1 computes it. With both right the check runs
    forward TD(λ) at the student's λ and TD(0) on :data:`K1_RUN` itself and shows that the
    two make the same updates, step for step (nothing to hand in for that)."""
    if missing(lam_max, "lam_max (a)") or missing(target, "target (b)"):
        return False
    if refuse_library_answer(("forward_td_lambda(", "Algorithm1Return(", "_k1_target(",
                                "stepper_frames(")):
        return False
    e = given_k1()
    eta, gamma = e["eta"], e["gamma"]
    lam_right = eta / gamma
    a = one_number(lam_max, "lam_max", "lam_max must be one number, the largest λ.")
    if a is None:
        return False
    if math.isclose(a, eta, rel_tol=1e-9) and gamma != 1.0:
        ok1 = verdict(False, "", f"Not yet: (a) K = 1 when γλ ≤ η, so λ ≤ η/γ; with γ = "
                      f"{gamma:g}, λ = η is not the largest.")
    elif others := others_answer(a, lam_right, lambda: given_k1()["eta"] / given_k1()["gamma"]):
        ok1 = verdict(False, "", "Not yet: (a) " + others)
    else:
        ok1 = check_close(a, lam_right, name="(a) the largest λ with K = 1", rtol=1e-9,
                          hint=f"K = 1 when (γλ)^1 ≤ η already; here η = {eta:g}, γ = {gamma:g}.")
    want = _k1_target(lam_right, e["reward"], e["v_next"], gamma, eta)
    b = one_number(target, "target", "target must be one number, the first update's target.")
    if b is None:
        return all_parts((ok1, False), ("(a) lam_max", "(b) target"))
    R, V = e["reward"], e["v_next"]
    if abs(b - (R + gamma * (1 - lam_right) * V)) < 1e-9 and abs(lam_right) > 1e-12 and abs(
            b - want) > 1e-9:
        ok2 = verdict(False, "", "Not yet: (b) that is ρ_0 = R_1 + γ(1−λ)V(S_1|θ_0), the "
                      "part of the return that the ρ-step removes; with K = 1 the target is "
                      "G_0^{λ|1}, the whole one-step return.")
    elif abs(b - R) < 1e-9 and abs(want - R) > 1e-9:
        ok2 = verdict(False, "", "Not yet: (b) the reward alone: with K = 1 the target still "
                      "bootstraps from V(S_1|θ_0).")
    else:
        ok2 = check_close(b, want, name="(b) the target of the first update", rtol=1e-9,
                          atol=1e-12, hint="Eq. (2) with h = t + 1: the sum is empty and the "
                          "last weight is λ^0 = 1.")
    if not (ok1 and ok2):
        return all_parts((ok1, ok2), ("(a) lam_max", "(b) target"))
    ref_forward, ref_td0 = k1_reference(a, eta=eta, gamma=gamma)
    same = bool(np.all(np.abs(ref_forward - ref_td0) <= 1e-12))
    return verdict(same, f"Correct: at λ = {a:g} (K = 1) forward TD(λ) and TD(0), run here on "
                   f"random_walk_episodes(3, run_generator(0, 0)) with γ = {gamma:g}, make the "
                   f"same updates, step for step ({len(ref_td0)} steps): the target is TD(0)'s.",
                   "Not yet: the weights differ; is K = 1?")


#: Episodes on which a student's rho is checked: (rewards, values V(S_j|theta_{j-1}))
RHO_EPISODE = dict(rewards=[1.0, -0.5, 2.0, 0.0, 1.5, -1.0], values=[0.0, 0.4, -0.3, 1.2, 0.7,
                                                                      -0.2, 0.0])


def check_rho(fn) -> bool:
    r"""A student's ``fn(reward, v_next, gamma, lam)`` for :math:`\rho_t`, checked on
    numbers through the identity it must satisfy (App. B, eq. 7):
    :math:`G_{t+1}^{\lambda|h} = (G_t^{\lambda|h} - \rho_t)/\gamma\lambda` for every
    :math:`t < h - 1` on ``RHO_EPISODE``, at three (γ, λ)."""
    if not_written(fn, "your ρ (rho_answer = my_rho)"):
        return False
    e = RHO_EPISODE
    r, v = e["rewards"], e["values"]
    T = len(r)
    worst, where = 0.0, None
    for gamma, lam in ((1.0, 0.5), (0.9, 0.8), (0.95, 0.3)):
        for h in range(2, T + 1):
            for t in range(h - 1):
                rho_t = student_number(fn, r[t], v[t + 1], gamma, lam, refuse=(library_rho,),
                                       returns="your formula for ρ_t (a number) from reward, "
                                               "v_next, gamma and lam", symbol="ρ_t",
                                       name="the ρ your function returns")
                if rho_t is None:
                    return False
                g_t = interim_lambda_return(r, v, t, h, gamma, lam)
                g_next = interim_lambda_return(r, v, t + 1, h, gamma, lam)
                gap = abs((g_t - rho_t) / (gamma * lam) - g_next)
                if gap > worst:
                    worst, where = gap, (gamma, lam, t, h)
    if worst < 1e-9:
        return verdict(True, "Correct: (G_t − ρ_t)/γλ gives G_{t+1} at every t and horizon.", "")
    gamma, lam, t, h = where
    usual = (
        (lambda R, V, g, lm: R + g * V, "that is the TD target R + γV: the weight (1 − λ) "
         "of the one-step return is missing"),
        (lambda R, V, g, lm: R + g * lm * V, "γλ on V̂: ρ's bootstrap term is the one-step "
         "return's; which weight does eq. (2) give the one-step return G^(1)?"),
        (lambda R, V, g, lm: R, "the reward alone: the one-step return's bootstrap term "
         "is part of ρ too (with the one-step return's weight in eq. (2))"),
    )
    def value(R, V, g, lm):
        got = run_student(fn, R, V, g, lm)[0]
        try:
            return float(got)
        except (TypeError, ValueError):
            return math.nan

    for wrong, why in usual:
        if all(abs(value(R, V, g, lm) - wrong(R, V, g, lm)) < 1e-12
               for R, V, g, lm in ((1.0, 0.4, 1.0, 0.5), (2.0, -0.3, 0.9, 0.8))):
            return verdict(False, "", f"Not yet: {why}.")
    return verdict(False, "", f"Not yet: at γ = {gamma}, λ = {lam}, t = {t}, h = {h} the "
                   f"identity misses by {worst:.3g}. Write G_t^{{λ|h}} with eq. (2) and split off "
                   "the terms that do not belong to G_{t+1}^{λ|h}.")
