"""Self-checks for notebook 02 (the lambda-return). Each check computes the right answer with
the library (so the solution is never written out here or in the notebook) and prints a
verdict. The given numbers are the student's own (:func:`~.use_student`): ``given_*`` draws
them, and the check recomputes the answer from the same draw.
"""

from __future__ import annotations

import functools

import numpy as np

from ...algorithms import td_lambda
from ...approx import Linear
from ...envs.random_walk import N_STATES, random_walk_episodes
from ...returns import interim_lambda_return, n_step_return
from ...rng import run_generator
from ..nb02_lambda_return import figure1_data
from . import (
    as_numbers,
    check_close,
    check_weights_per_step,
    is_right,
    missing,
    not_written,
    others_answer,
    refuse_library_answer,
    student_rng,
    verdict,
)

#: A three-step episode for the two return exercises without a student id. ``values[j]`` is the
#: estimate of S_j used for bootstrapping (``values[0]`` is never used by a return from t = 0;
#: ``values[3] = 0`` is the terminal state).
EPISODE = dict(rewards=[1.0, 0.0, 2.0], values=[0.7, 0.5, 1.0, 0.0], gamma=0.9)

#: ``n_step_return`` asks for G_0^{(N_STEP)}, ``interim_lambda_return`` for
#: G_0^{lambda|HORIZON} with LAM (without an id).
N_STEP = 2
LAM = 0.5
HORIZON = 3

#: library functions that compute the two return exercises' answers
RETURN_HELPERS = ("n_step_return(", "n_step_returns(", "interim_lambda_return(",
                  "interim_returns_vs_horizon(", "lambda_return(", "_g2(", "_g_lam(")

#: The point without a student id: Figure 1's (alpha = 0.2, the end of episode 1)
FIGURE1_POINT = dict(alpha=0.2, episode=1)

#: ``nb02.build_td_lambda``'s step sizes with a student id: 0.05 .. 0.40 in steps of 0.01
#: without Figure 1's 0.2 (35 of them, 3 episodes each: at most one student in 105 shares a
#: point)
FIGURE1_ALPHAS = tuple(k / 100 for k in range(5, 41) if k != 20)


def given_episode() -> dict:
    """The return exercises' episode for the current student: ``rewards`` (3), ``values`` (4, the
    last 0: the terminal), ``gamma`` and ``lam`` (exercise ``interim_lambda_return``'s λ)."""
    rng = student_rng("nb02.n_step_return")
    if rng is None:
        return dict(EPISODE, rewards=list(EPISODE["rewards"]), values=list(EPISODE["values"]),
                    lam=LAM)
    rewards = rng.integers(-1, 4, 3).astype(float)
    values = np.append(np.round(rng.uniform(-1.0, 3.0, 3), 1), 0.0)
    gamma = float(rng.choice([0.8, 0.9, 0.95]))
    lam = float(rng.choice([0.3, 0.4, 0.6, 0.7]))
    # no degenerate draw: with V(S_2) = 0 the value discounted once equals the right G_0^(2);
    # with G_0^(3) = 0 (every reward 0, say) the all-geometric weights equal the right interim
    # λ-return
    if values[2] == 0.0:
        values[2] = 1.5
    if rewards[0] + gamma * rewards[1] + gamma**2 * rewards[2] == 0.0:
        rewards[0] += 1.0
    return dict(rewards=rewards.tolist(), values=values.tolist(), gamma=gamma, lam=lam)


def given_figure1_point() -> dict:
    """The point for the current student: the step size ``alpha`` of the run on
    Figure 1's episodes (seed 0, λ = 1, γ = 1, θ_0 = 0) and the ``episode`` (1..3) at whose end
    the error is read. Without an id, Figure 1's own point."""
    rng = student_rng("nb02.build_td_lambda")
    if rng is None:
        return dict(FIGURE1_POINT)
    return dict(alpha=float(rng.choice(FIGURE1_ALPHAS)), episode=int(rng.integers(1, 4)))


def _g2(e) -> float:
    return n_step_return(e["rewards"], e["values"], 0, N_STEP, e["gamma"])


def _g_lam(e) -> float:
    return interim_lambda_return(e["rewards"], e["values"], 0, HORIZON, e["gamma"], e["lam"])


def _others(answer, expected, of) -> str | None:
    """When ``answer`` (one number) is the answer for another id's numbers (:func:`of` of
    them), the message that says so (:func:`~.others_answer`)."""
    a = as_numbers(answer, "the answer") if not isinstance(answer, str) else None
    if a is None or a.shape != ():
        return None
    return others_answer(a, expected, lambda: of(given_episode()))


def _check_return(answer, name: str, of, slip, hint: str) -> bool:
    """The check of one return of :func:`given_episode`'s episode, ``of(e)``: the right answer
    first, then another id's answer (named), then the exercise's usual ``slip(e, answer)`` (its
    message, or ``None``)."""
    if missing(answer, name):
        return False
    if refuse_library_answer(RETURN_HELPERS):
        return False
    e = given_episode()
    expected = of(e)
    if (isinstance(answer, (int, float, np.floating)) and not isinstance(answer, bool)
            and not is_right(answer, expected, rtol=1e-4, atol=1e-6)):  # right answer first
        if others := _others(answer, expected, of):
            return verdict(False, "", "Not yet: " + others)
        if said := slip(e, answer):
            return verdict(False, "", "Not yet: " + said)
    return check_close(answer, expected, name=name, rtol=1e-4, atol=1e-6, hint=hint)


def _discounted_twice(e, answer) -> str | None:
    g, R, V = e["gamma"], e["rewards"], e["values"]
    if abs(answer - (R[0] + g * R[1] + g * V[2])) < 1e-9 and abs(g - 1) > 1e-9:
        return "the value of S_2 is discounted twice: γ² V(S_2)."
    return None


def _all_geometric(e, answer) -> str | None:
    lam = e["lam"]
    Gs = [n_step_return(e["rewards"], e["values"], 0, n, e["gamma"]) for n in (1, 2, 3)]
    if abs(answer - (1 - lam) * (Gs[0] + lam * Gs[1] + lam**2 * Gs[2])) < 1e-9:
        return ("the longest return gets (1−λ)λ² here; in the interim λ-return it takes all "
                "the remaining weight, λ^(h−t−1) = λ².")
    return None


def check_n_step_return(answer) -> bool:
    """G_0^{(2)} of :func:`given_episode`'s episode."""
    return _check_return(answer, f"G_0^({N_STEP})", _g2, _discounted_twice,
                         hint="n discounted rewards, then gamma^n times the value of S_n.")


def check_interim_lambda_return(answer) -> bool:
    """G_0^{lambda|3} of :func:`given_episode`'s episode with its λ (eq. 2)."""
    return _check_return(answer, f"G_0^(lambda|{HORIZON})", _g_lam, _all_geometric,
                         hint="Weights (1-lam), (1-lam) lam and lam^2 on G^(1), G^(2), G^(3).")


#: The cases TD(lambda) must get right, against ``algorithms.td_lambda`` (tabular
#: random walk): (what, lam, gamma, what a failure there usually means)
TD_LAMBDA_CASES = (
    ("Figure 1's setting (λ = 1, γ = 1)", 1.0, 1.0,
     "δ uses V(S') with 0 at the terminal, and the same weights θ_t for V(S) and V(S')"),
    ("λ = 0.5, γ = 0.9", 0.5, 0.9, "the trace decays by γλ before the gradient is added: "
     "e ← γλ e + ∇V(S_t)"),
    ("λ = 0 (TD(0))", 0.0, 1.0, "with λ = 0 the trace is the gradient of the current state"),
)


@functools.lru_cache(maxsize=256)
def _figure1_point(alpha: float, episode: int) -> float:
    """The normalised RMS error of the library's TD(λ) (λ = 1, γ = 1, θ_0 = 0) with step size
    ``alpha`` on Figure 1's episodes, at the end of episode ``episode`` (1..3)."""
    data = figure1_data(alpha=alpha)
    return float(data["curves"]["td_lambda"][data["episode_ends"][int(episode) - 1]])


def check_td_lambda(fn, fig1_point) -> bool:
    r"""A student's ``fn(episodes, w0, *, approx, alpha, lam, gamma)`` (TD(λ) with
    accumulating traces) against :func:`ftd_lib.algorithms.td_lambda`, on 3 seeded random-walk
    episodes per case (a trace left over from the last episode shows from the second); and
    ``fig1_point``, the normalised RMS error of *your* TD(λ) on Figure 1's episodes with
    :func:`given_figure1_point`'s step size, at the end of its episode."""
    if not_written(fn, "your TD(λ) function (my_td_lambda)"):
        return False
    lin = Linear(N_STATES)

    def make(i, case):
        _, lam, gamma, _ = case
        episodes = random_walk_episodes(3, run_generator(2, i))
        w0 = np.linspace(0.5, 5.0, N_STATES)
        kw = dict(approx=lin, alpha=0.1, lam=lam, gamma=gamma)
        return episodes, w0, kw, td_lambda(episodes, w0, **kw)

    def differs(step, episodes, expected, usual, case, got=None):
        if step > len(episodes[0][1]):  # first wrong in a later episode
            usual = "the trace must start at 0 in every episode"
        return f"your weights leave TD(λ)'s at step {step}. Usual cause: {usual}."

    ok_all = check_weights_per_step(
        fn, TD_LAMBDA_CASES, make, rows="", same="the same weights as algorithms.td_lambda.",
        differs=differs, refuse=(td_lambda,))
    if not ok_all:
        return False
    if missing(fig1_point, "fig1_point (the error of your TD(λ) at the end of the episode)"):
        return False
    if refuse_library_answer(("figure1_episode_ends(", "figure1_data(",
                                "figure1_average_episode_ends(", "_figure1_point(")):
        return False
    p = given_figure1_point()
    expected = _figure1_point(p["alpha"], p["episode"])
    a = as_numbers(fig1_point, "fig1_point")
    if a is None:
        return False
    if a.shape == () and (p["alpha"], p["episode"]) != (FIGURE1_POINT["alpha"],
                                                         FIGURE1_POINT["episode"]) \
            and not is_right(a, expected, rtol=1e-6):
        paper = figure1_data()
        ends = paper["curves"]["td_lambda"][paper["episode_ends"]]
        if np.any(np.abs(float(a) - ends) < 1e-9):
            return verdict(False, "", "Not yet: that is a point of the paper's Figure 1 (α = "
                           f"{FIGURE1_POINT['alpha']}), not of your run: run your TD(λ) with α = "
                           f"{p['alpha']:g} on Figure 1's episodes and read the error at the end "
                           f"of episode {p['episode']}.")
    if a.shape == () and (others := others_answer(
            float(a), expected, lambda: _figure1_point(**given_figure1_point()))):
        return verdict(False, "", "Not yet: " + others.replace(
            "compute it from the numbers printed in the exercise cell",
            "run your TD(λ) with your α and read your episode's end"))
    return check_close(fig1_point, expected, name=f"the error of your TD(λ) (α = "
                       f"{p['alpha']:g}) at the end of episode {p['episode']}", rtol=1e-6,
                       hint="normalised_rms(W) of your weights with w0 = 0 prepended as row 0, "
                       f"at the row after the last step of episode {p['episode']}.")
