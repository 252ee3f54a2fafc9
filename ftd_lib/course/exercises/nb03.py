r"""Self-checks for notebook 03 (the one-state example). The right answers are computed here
with the library, never printed: a check says only whether the answer is right."""

from __future__ import annotations

from ...envs.one_state import beta_lambda_return, beta_td
from . import check_close, missing, verdict


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
