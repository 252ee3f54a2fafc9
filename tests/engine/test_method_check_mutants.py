"""``check_method``'s engine check is proven by the wrong compiled methods it finds: it compares
every engine on every task with compiled dynamics (3 and 4 actions among them) at two
parameter points, and names the first differing array, run, episode and size. Each mutant
below must fail it; the first is a mutant a 2-action task cannot see (a greedy search over the
first two actions only). Compiled pieces are compiled per (method, task) pair, so this file
is in the slow tier and shares its pairs (about 1-2 min on a cold cache)."""

import dataclasses

import pytest
from numba import njit

from ftd_lib.engine import method_check as mc
from ftd_lib.engine.compiled import expected_sarsa as es
from ftd_lib.engine.compiled import forward_sarsa_lambda as fs
from ftd_lib.engine.compiled import n_step_sarsa as ns
from ftd_lib.engine.kernel import extend
from ftd_lib.engine.kernel.extend import greedy, update, value, within
from ftd_lib.methods import METHODS

pytestmark = pytest.mark.slow


@njit(error_model="numpy")
def first_two_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    """Expected Sarsa whose greedy action is searched among the first two actions only."""
    alpha, gamma, eps = mp
    v_next = 0.0
    if chose:
        A = Q.shape[0]
        g = greedy(Q[:2])
        for b in range(A):
            p = eps / A + (1.0 - eps) if b == g else eps / A
            v_next = v_next + p * Q[b]
    v = value(th, a, x, net)
    update(th, a, x, net, alpha * (r + gamma * v_next - v))
    return within(v, net)


def _compiled_expected_sarsa(monkeypatch, step=None, params=None):
    """Expected Sarsa's row with the kernel and its pieces (``step``/``params``: a mutant's)."""
    row = dataclasses.replace(METHODS["expected_sarsa"], engines=("kernel",),
                              compiled="engine.compiled.expected_sarsa")
    monkeypatch.setitem(METHODS, "expected_sarsa", row)
    pieces = (params or es.kernel_params, es.kernel_init, step or es.kernel_step,
              es.kernel_end)
    right = extend.method_pieces
    monkeypatch.setattr(extend, "method_pieces",
                        lambda m: pieces if m == "expected_sarsa" else right(m))


def test_expected_sarsa_as_pieces_agrees_with_its_reference(monkeypatch):
    _compiled_expected_sarsa(monkeypatch)
    assert mc.check_engines("expected_sarsa", env=("mountain_car", "puddle_world")) == (
        "engines: kernel agree with the reference on mountain_car, puddle_world at 2 "
        "parameter points (4 comparisons of 3 runs)")


def test_a_greedy_search_over_the_first_two_actions_fails_on_three(monkeypatch):
    """It passes on cart-pole (2 actions), as the check on cart-pole alone let it; the
    mountain car's third action finds it, and the failure says what, where and how much."""
    _compiled_expected_sarsa(monkeypatch, step=first_two_step)
    assert "agree" in mc.check_engines("expected_sarsa", env="cartpole")
    with pytest.raises(mc.MethodCheckError, match=(
            r"engine 'kernel' disagrees with the reference on mountain_car at parameter point "
            r"1 \(epsilon 0.05\): (lengths|returns|final_weights|diverged_at), first at run "
            r"\d.*the reference .*, kernel .* \(difference [0-9.e+-]+; \d+ of \d+ differ\)")):
        mc.check_engines("expected_sarsa", env="mountain_car")


def test_the_second_parameter_point_finds_a_method_that_ignores_a_value(monkeypatch):
    """Mutants of data only (no new compile): each passes at the first point and fails at
    the second -- epsilon fixed at 0.05 (Expected Sarsa's pi), n fixed at 3 (n-step Sarsa),
    K_max ignored (forward Sarsa(λ) on acrobot, its pieces)."""
    _compiled_expected_sarsa(monkeypatch,
                             params=lambda row: (row["alpha"], row["gamma"], 0.05))
    with pytest.raises(mc.MethodCheckError, match="on mountain_car at parameter point 2 "
                       r"\(epsilon 0.3\)"):
        mc.check_engines("expected_sarsa", env="mountain_car")
    right = ns.kernel_params
    monkeypatch.setattr(ns, "kernel_params", lambda row, n: right(row, 3))
    with pytest.raises(mc.MethodCheckError, match=r"on cartpole at parameter point 2 "
                       r"\(epsilon 0.3, n = 1\)"):
        mc.check_engines("n_step_sarsa", env="cartpole")
    monkeypatch.setattr(ns, "kernel_params", right)
    fwd = fs.kernel_params
    monkeypatch.setattr(fs, "kernel_params", lambda row: fwd(dict(row, k_max=None)))
    with pytest.raises(mc.MethodCheckError, match=r"on acrobot at parameter point 2 "
                       r"\(epsilon 0.3\): final_weights, first at run 1, the network of action "
                       r"0, weight 0: .*\(difference 0.00332; "):
        mc.check_engines("forward_sarsa_lambda", env="acrobot")


def test_check_method_compares_every_engine_of_the_paper_s_methods_on_every_task():
    """Sarsa(λ) and forward Sarsa(λ): the batch and the kernel (its own runs on cart-pole and
    mountain car, the pieces on acrobot and Puddle World) against the reference."""
    for m in ("sarsa_lambda", "forward_sarsa_lambda", "n_step_sarsa"):
        line = mc.check_method(m)[1]
        assert line.startswith("engines: ") and line.endswith(
            "agree with the reference on mountain_car, cartpole, acrobot, puddle_world at 2 "
            "parameter points (" + ("16" if m != "n_step_sarsa" else "8")
            + " comparisons of 3 runs)"), line
