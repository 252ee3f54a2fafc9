"""Expected Sarsa (ftd_lib/references/expected_sarsa.py), the worked example of a target that
depends on the policy's probabilities, and what it lets ``check_method`` see: the public
``epsilon_greedy_probs`` against the draws of ``epsilon_greedy`` itself, the hand-worked episode
at 0 < epsilon < 1, and a mutant that puts the greedy mass on the worst action, which the
epsilon = 1 case alone does not find. About 2 s."""

import numpy as np
import pytest

from ftd_lib.engine import method_check as mc
from ftd_lib.references import expected_sarsa as es
from ftd_lib.references.common import epsilon_greedy, epsilon_greedy_probs
from ftd_lib.references.template import HandWorked


class Draws:
    """An agent stream that hands out the given draws in order."""

    def __init__(self, u1, u2):
        self.u = iter((u1, u2))

    def random(self):
        return next(self.u)


@pytest.mark.parametrize("q", [[1.0, 3.0, 3.0], [0.5, -1.0], [2.0, 2.0, 2.0, 2.0],
                               [0.0, np.nan, 1.0]])
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 0.5, 1.0])
def test_the_probabilities_are_the_frequencies_of_the_draws(q, epsilon):
    """Over a lattice of draws (u1, u2), midpoints of 60 equal cells each (every epsilon
    here and every 1/|A| a multiple of 1/60: the frequencies are exact), epsilon_greedy
    picks each action exactly as often as epsilon_greedy_probs says."""
    n = 60
    grid = (np.arange(n) + 0.5) / n
    counts = np.zeros(len(q))
    for u1 in grid:
        for u2 in grid:
            counts[epsilon_greedy(q, epsilon, Draws(u1, u2))] += 1
    np.testing.assert_allclose(epsilon_greedy_probs(q, epsilon), counts / n**2, atol=1e-12)


def test_the_probabilities_by_hand():
    assert epsilon_greedy_probs([1.0, 3.0, 3.0], 0.3) == pytest.approx([0.1, 0.8, 0.1])
    assert epsilon_greedy_probs([0.5, -1.0], 0.0) == [1.0, 0.0]
    assert sum(epsilon_greedy_probs([0.2, 0.1, 0.7, 0.3], 0.05)) == pytest.approx(1.0)


def test_the_reference_matches_its_hand_worked_episode_at_three_epsilons():
    assert mc.check_hand_worked("expected_sarsa") == (
        "hand-worked 4-step episode: the reference agrees in 6 cases")
    cases = mc.hand_worked("expected_sarsa").cases
    assert any(0 < c["epsilon"] < 1 for c in cases)
    # below epsilon = 1 the target depends on which action is greedy
    w0 = mc.W0["greedy"]
    assert not np.allclose(es.hand_expected_sarsa(w0, 0.5), es.hand_expected_sarsa(w0, 1.0))


def _greedy_on_the_worst(q, epsilon):
    worst = int(np.argmin(q))
    return [epsilon / len(q) + (1 - epsilon if a == worst else 0.0) for a in range(len(q))]


def _no_exploration_share(q, epsilon):
    best = int(np.argmax(q))
    return [1 - epsilon if a == best else epsilon for a in range(len(q))]


@pytest.mark.parametrize("mutant", [_greedy_on_the_worst, _no_exploration_share])
def test_a_mutant_of_the_policy_fails_the_check(monkeypatch, mutant):
    """The greedy mass on the worst action, or epsilon on the other
    action instead of epsilon/|A|: ``check_method``'s hand-worked cases below epsilon = 1
    find each; the epsilon = 1 case alone (pi uniform, as every case was before) does not
    find the first."""
    monkeypatch.setattr(es, "epsilon_greedy_probs", mutant)
    where = r"epsilon = 0\.[15]" if mutant is _greedy_on_the_worst else "hand-worked episode"
    with pytest.raises(mc.MethodCheckError, match=where):
        mc.check_hand_worked("expected_sarsa")
    if mutant is _greedy_on_the_worst:
        only_uniform = HandWorked(es.hand_expected_sarsa, ({"epsilon": 1.0},))
        assert "agrees in 2 cases" in mc.check_hand_worked("expected_sarsa", only_uniform)
