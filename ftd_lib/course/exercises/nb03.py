r"""Self-checks for notebook 03 (the one-state example). The right answers are computed here
with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

from ...envs.one_state import beta_lambda_return, beta_td
from ..nb03_one_state_divergence import beta_measured, values_per_episode
from . import Solution, check_close, missing, verdict


def check_betas(beta_td_answer, beta_lambda_answer, *, alpha: float = 0.3, T: int = 8) -> bool:
    r"""Exercise 1: :math:`\beta` of one episode for TD(:math:`\lambda`=1) and for the
    :math:`\lambda`-return algorithm, at step size ``alpha`` and episode length ``T``."""
    if missing(beta_td_answer) or missing(beta_lambda_answer):
        return False
    ok_td = check_close(beta_td_answer, float(beta_td(alpha, T)), name="β_TD", rtol=1e-4,
                        hint="TD(λ=1) moves V by α times the trace, and the trace reaches T.")
    ok_lr = check_close(beta_lambda_answer, float(beta_lambda_return(alpha, T)), name="β_λ",
                        rtol=1e-4, hint="Each of the T updates keeps a fraction (1 − α) of the "
                        "old error.")
    return ok_td and ok_lr


def check_max_alpha(answer, *, T: int = 25) -> bool:
    r"""Exercise 2: the largest step size for which TD(:math:`\lambda`=1) does not diverge on
    episodes of fixed length ``T`` (the error is multiplied by :math:`1-\beta` per episode)."""
    if missing(answer):
        return False
    try:
        a = float(answer)
    except (TypeError, ValueError):
        return verdict(False, "", "The answer must be a number (a step size).")
    b = float(beta_td(a, T)) if a > 0 else float("nan")
    ok = abs(b - 2.0) < 1e-6
    hint = ("too large: at this α, β_TD > 2 and |1 − β| > 1" if b > 2 else
            "too small: a larger α still keeps |1 − β| < 1" if b < 2 else "α must be > 0")
    return verdict(ok, f"Correct: α = {a:g} gives β_TD = 2, the edge of divergence.",
                   f"Not yet: {hint}.")


#: Exercise 3(b): a step size and length with beta_TD = alpha T = 2 exactly, from V_0 = 0.
BETA_TWO = dict(alpha=0.2, T=10, v0=0.0, n_episodes=4)


def check_think(error_answer, values_answer) -> bool:
    r"""Exercise 3: (a) the error :math:`1-\hat V` after one episode from :math:`\hat V_0 = 1`
    (any :math:`\alpha`, T); (b) the values at the ends of episodes 1..4 at exactly
    :math:`\beta = 2` (``BETA_TWO``: TD(:math:`\lambda`=1), :math:`\alpha = 0.2`, T = 10,
    :math:`\hat V_0 = 0`)."""
    if missing(error_answer) or missing(values_answer):
        return False
    ok_a = check_close(error_answer, 0.0, name="the error after one episode from V₀ = 1",
                       rtol=0, atol=1e-9, hint="The pseudo-update multiplies the error 1 − V₀ "
                       "by 1 − β.")
    b = BETA_TWO
    expected = values_per_episode(b["alpha"], b["T"], b["v0"], b["n_episodes"], "td_lambda")[1:]
    ok_b = check_close(values_answer, expected, name="the values after episodes 1..4",
                       rtol=0, atol=1e-6, hint="At β = 2 the error 1 − V is multiplied by "
                       "1 − β = −1 every episode.")
    return ok_a and ok_b


#: Exercise 4: TD(lambda = 1) with replacing traces on the one-state example.
REPLACING = dict(alpha=0.3, T=8)


def check_beta_replacing(answer, *, alpha: float = REPLACING["alpha"],
                         T: int = REPLACING["T"]) -> bool:
    r"""Exercise 4: :math:`\beta` of one episode of TD(:math:`\lambda`=1) with replacing traces,
    at step size ``alpha`` and length ``T``, checked against a run of
    :func:`ftd_lib.course.nb03_one_state_divergence.td_lambda_replacing`."""
    if missing(answer):
        return False
    return check_close(answer, beta_measured("td_lambda_replacing", alpha, T), name="β with "
                       "replacing traces", rtol=1e-6, atol=1e-9, hint="What is the trace e at "
                       "the last step, when it is reset to 1 at every visit?")


SETUP = """
import numpy as np
from ftd_lib.course.exercises import nb03
from ftd_lib.course.nb03_one_state_divergence import beta_measured, values_per_episode
"""

SOLUTIONS = (
    Solution(
        key="nb03.ex1", title="Exercise 1, two βs",
        hint=r"TD(λ = 1): $\beta = \alpha T$. The λ-return algorithm: $T$ updates, each keeping "
             r"a fraction $1-\alpha$ of the error, so $\beta = 1-(1-\alpha)^T$.",
        worked=r"""
            $\beta_{TD} = \alpha T = 0.3 \cdot 8 = 2.4$ (above 2: this TD(λ) diverges), and
            $\beta_\lambda = 1 - 0.7^8 = 1 - 0.0576 = 0.9424$ (below 1: it never overshoots).
        """,
        code="""
            alpha, T = 0.3, 8
            beta_td_answer = alpha * T
            beta_lambda_answer = 1 - (1 - alpha) ** T
            nb03.check_betas(beta_td_answer, beta_lambda_answer, alpha=alpha, T=T)
        """,
        setup=SETUP,
        checks=r"$\beta_{TD} = \alpha T$ and $\beta_\lambda = 1-(1-\alpha)^T$ at α = 0.3, T = 8.",
        wrong=("0.3⁸ for β_λ: the kept fraction instead of the step",
               "β_TD = 1 − (1−α)^T: the two formulas swapped"),
    ),
    Solution(
        key="nb03.ex2", title="Exercise 2, the edge of divergence",
        hint=r"The error is multiplied by $1-\beta$ each episode; it stops shrinking when "
             r"$|1-\beta| = 1$, i.e. at $\beta = 2$.",
        worked=r"""
            TD(λ = 1) has $\beta = \alpha T$, and the error shrinks only for $0 < \beta < 2$.
            So the largest step size is $\alpha = 2/T = 2/25 = 0.08$: there the error flips sign
            every episode without shrinking (exercise 3); any larger α diverges.
        """,
        code="""
            T = 25
            max_alpha_answer = 2 / T
            nb03.check_max_alpha(max_alpha_answer, T=T)
        """,
        setup=SETUP,
        checks=r"the largest α with $\beta_{TD} = \alpha T \le 2$: α = 2/T.",
        wrong=("0.04 (= 1/T): the best α, β = 1, not the largest stable one",
               "1: the λ-return algorithm's bound"),
    ),
    Solution(
        key="nb03.ex3", title="Exercise 3, V₀ = 1 and β = 2",
        hint=r"Write the pseudo-update as $1 - \hat V_T = (1-\beta)(1-\hat V_0)$ and put in "
             r"$\hat V_0 = 1$, then $\beta = 2$.",
        worked=r"""
            (a) From $\hat V_0 = 1$ the error is $1 - \hat V_0 = 0$, and the pseudo-update
            multiplies it by $1-\beta$: it stays 0 for every α and T. Every TD error in the
            episode is 0 too ($\delta_{T-1} = 1 - \hat V = 0$), so neither algorithm moves:
            the true value is a fixed point of both.

            (b) At $\beta = 2$ the factor is $1-\beta = -1$: the error keeps its size and flips
            sign every episode. From $\hat V_0 = 0$ (error 1) the values are
            $2, 0, 2, 0, \dots$ — an oscillation that neither grows nor dies out: the boundary
            between convergence ($\beta < 2$) and divergence ($\beta > 2$).
        """,
        code="""
            # (a) the error 1 - V after one episode from V_0 = 1: (1 - beta) * (1 - 1)
            error_answer = 0.0
            # (b) beta = alpha * T = 0.2 * 10 = 2: error 1, -1, 1, -1, ... so V = 1 - error
            values_answer = [1 - (1 - 2) ** n * (1 - 0.0) for n in range(1, 5)]
            nb03.check_think(error_answer, values_answer)
        """,
        setup=SETUP,
        checks="(a) V₀ = 1 is a fixed point (error 0); (b) at β = 2 the values flip "
               "2, 0, 2, 0.",
        wrong=("(a) 'α too small to move': nothing moves because every TD error is 0",
               "(b) values that grow: that is β > 2; at β = 2 the size stays"),
    ),
    Solution(
        key="nb03.ex4", title="Exercise 4, β with replacing traces",
        hint=r"The one state is active at every step, so a replacing trace is reset to 1 at every "
             r"step: what is $e_{T-1}$? Then follow the TD(λ) derivation of section 2.",
        worked=r"""
            As for accumulating traces, $\delta_t = 0$ for $t < T-1$ (the value does not move)
            and $\delta_{T-1} = 1 - \hat V_0$. A replacing trace is set to 1 at every visit,
            so $e_{T-1} = 1$ instead of $T$, and the only update is
            $\hat V_T = \hat V_0 + \alpha\,(1-\hat V_0)$: $\beta = \alpha$, whatever $T$.
            For α = 0.3 and T = 8: β = 0.3. Replacing traces never overshoot for $\alpha \le 1$
            (the paper's Sec. 1: "less sensitive to divergence") — but β = α ignores the
            length of the episode: the whole episode counts as one step of TD(0). They exist
            only for binary features; a network's features are not binary, which is one reason
            the paper builds forward TD(λ) instead.
        """,
        code="""
            alpha, T = 0.3, 8
            answer = alpha                      # e_{T-1} = 1, so beta = alpha * 1
            print("measured:", beta_measured("td_lambda_replacing", alpha, T))
            nb03.check_beta_replacing(answer, alpha=alpha, T=T)
        """,
        setup=SETUP,
        checks=r"β = α for TD(1) with replacing traces, checked against a run of "
               r"`td_lambda_replacing`.",
        wrong=("αT: the accumulating trace", "1 − (1−α)^T: the λ-return algorithm's β"),
    ),
)
