"""Watkins's Q(λ), a method added in its own file (ftd_lib/references/watkins_q_lambda.py) and
one row of ftd_lib/methods.py, and ``check_method``, the check a researcher runs on a new
method: its reference against a four-step episode worked by hand (ftd_lib/references/template.py;
each method's hand-worked episode beside its reference), every engine that claims it against
the reference. About 15 s (Sarsa(λ)'s engines included)."""

import numpy as np
import pytest

from ftd_lib.engine import Settings, run_control
from ftd_lib.engine import method_check as mc
from ftd_lib.references.forward_sarsa_lambda import hand_forward_sarsa
from ftd_lib.references.sarsa_lambda import hand_sarsa
from ftd_lib.references.watkins_q_lambda import hand_watkins


def test_the_template_has_a_greedy_and_an_exploratory_second_action():
    q = {k: [float(w[a] @ mc.X[1]) for a in (0, 1)] for k, w in mc.W0.items()}
    assert q["greedy"][1] > q["greedy"][0] and q["exploratory"][1] < q["exploratory"][0]
    # where the second action explores, the two methods differ by hand (the trace is cut)
    for lam in (0.5, 1.0):
        assert not np.allclose(hand_watkins(mc.W0["exploratory"], lam),
                               hand_sarsa(mc.W0["exploratory"], lam))
    # forward Sarsa(1): K_max = 1, 2, 3 and no cap all differ on four steps
    w = [hand_forward_sarsa(mc.W0["greedy"], 1.0, k) for k in (1, 2, 3, None)]
    assert all(not np.allclose(a, b) for i, a in enumerate(w) for b in w[i + 1:])


@pytest.mark.parametrize("method, cases", [("sarsa_lambda", 6), ("forward_sarsa_lambda", 16),
                                           ("watkins_q_lambda", 6), ("n_step_sarsa", 10)])
def test_each_reference_matches_its_hand_worked_episode(method, cases):
    """Each method's hand-worked episode is found beside its reference (HAND_WORKED of the
    reference's module) and agrees in every case, with both initial weights."""
    assert mc.check_hand_worked(method) == (
        f"hand-worked 4-step episode: the reference agrees in {cases} cases")
    assert mc.hand_worked(method).hand.__module__ == mc.reference_function(method).__module__


def test_a_reference_without_the_trace_cut_fails_by_hand(monkeypatch):
    """Watkins's Q(λ) with its cut removed (so: Sarsa(λ)'s traces with a max target) is
    found by the exploratory case of the template."""
    def uncut(env, w0, **kw):
        kw["epsilon"] = kw.get("epsilon", 0.05)
        return _no_cut(env, w0, **kw)

    monkeypatch.setattr(mc, "reference_function", lambda m: uncut)
    with pytest.raises(mc.MethodCheckError, match="exploratory"):
        mc.check_hand_worked("watkins_q_lambda", hand_watkins)
    monkeypatch.setattr(mc, "hand_worked", lambda m: None)
    with pytest.raises(mc.MethodCheckError, match="none .*HAND_WORKED"):
        mc.check_hand_worked("watkins_q_lambda", None)


def _no_cut(env, w0, **kw):
    from ftd_lib.references.common import ControlRun, act, start

    approx, alpha, lam, gamma = kw["approx"], kw["alpha"], kw["lam"], kw["gamma"]
    w = np.array(w0, float)
    s, a = start(env, approx, w, kw["epsilon"], kw["agent"], 1e6)
    e, ret, T, end = np.zeros_like(w), 0.0, 0, False
    while not end:
        s2, R, end, a2, q2 = act(env, a, approx, w, kw["epsilon"], kw["agent"], "bootstrap")
        delta = R + gamma * (0.0 if a2 is None else max(q2)) - float(approx.value(w[a], s))
        e = gamma * lam * e
        e[a] = e[a] + approx.grad(w[a], s)
        w = w + alpha * delta * e
        ret, T, s, a = ret + R, T + 1, s2, a2
    return ControlRun(np.array([ret]), np.array([T]), -1, w, T)


def test_check_method_covers_the_engines_a_method_claims():
    lines = mc.check_method("watkins_q_lambda")
    assert lines[1] == "engines: none but the reference (nothing to compare)"
    assert mc.check_engines("sarsa_lambda", env="cartpole") == (
        "engines: batch, kernel agree with the reference on cartpole at 2 parameter points "
        "(4 comparisons of 3 runs)")
    with pytest.raises(mc.MethodCheckError, match="control"):
        mc.check_method("td_lambda")


def test_watkins_with_no_exploration_is_sarsa_lambda_bit_for_bit():
    """ε = 0: every action greedy, no trace ever cut, the max target is Q(S', A'): the same
    run as Sarsa(λ); with ε = 0.05 they part."""
    s = Settings.make(alpha=[0.03, 0.01], lam=[0.9, 0.6], gamma=0.99)
    kw = dict(env="cartpole", max_steps=60, engine="reference")
    for eps, same in ((0.0, True), (0.3, False)):
        a = run_control("watkins_q_lambda", s, 3, [0, 1], 8, epsilon=eps, **kw)
        b = run_control("sarsa_lambda", s, 3, [0, 1], 8, epsilon=eps, **kw)
        assert np.array_equal(a.final_weights, b.final_weights) == same


def test_forward_sarsa_s_lambda_mixing_is_checked_by_hand_between_0_and_1():
    """The cases at 0 < λ < 1 (K = 6: all at the end; K_max 2 and 3: during the episode)
    differ from λ = 0 and 1, and a hand that mixes the λ-return otherwise (the bootstrap
    weighted λ instead of 1 - λ) is refused by the reference."""
    from ftd_lib.references.template import HandWorked

    w0 = mc.W0["greedy"]
    mid = hand_forward_sarsa(w0, 0.5)
    assert not np.allclose(mid, hand_forward_sarsa(w0, 0.0))
    assert not np.allclose(mid, hand_forward_sarsa(w0, 1.0))
    assert not np.allclose(hand_forward_sarsa(w0, 0.8, 2), hand_forward_sarsa(w0, 0.8))

    def swapped(w, lam, k_max=None):
        return hand_forward_sarsa(w, 1.0 - lam, k_max) if 0 < lam < 1 else (
            hand_forward_sarsa(w, lam, k_max))

    cases = ({"lam": 0.3, "k_max": 3},)
    with pytest.raises(mc.MethodCheckError, match="λ = 0.3, k_max = 3"):
        mc.check_hand_worked("forward_sarsa_lambda", HandWorked(swapped, cases))
