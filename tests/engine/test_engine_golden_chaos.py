"""The golden workloads are not chaotic: no rounding flips an episode.

A workload whose returns flip with the last bit of a weight (a run that reaches the goal with
one rounding and not with another, a slow divergence that crosses the bound a step earlier or
later) tests rounding, not the method, and its golden numbers hold only on CPUs that round as
the recorder's did. So every golden workload (``test_engine_golden.py``) is run again through
each method's per-run reference with its rounding perturbed, one way at a time
(:data:`PERTURBATIONS`), and each must give the golden returns, lengths, divergence and steps
exactly, and the first weights of every network to 1e-10:

- ``textbook``: the network as textbook numpy, ``np.tanh(x @ W1.T + b1) @ w2 + b2`` (BLAS's
  and numpy's kernels, which round otherwise on each CPU: this CPU's own rounding);
- ``pairwise-sums``: each sum of products added pairwise, ``(p0 + p1) + (p2 + p3) + ...``,
  not left to right;
- ``tanh-down``: every hidden unit's ``tanh`` one unit in the last place lower;
- ``w0-nudged``: every first weight one unit in the last place away from zero.

All but the first round the same way on every CPU (numpy's elementwise ``+`` and ``*`` and
``nextafter`` are rounded once each, IEEE 754), so the test catches an edge on any machine,
not only on one whose BLAS happens to fall off it: Expected Sarsa's cart-pole workloads at
alpha 0.1 diverged at step 168 as recorded, at 167 under ``tanh-down`` and ``w0-nudged``, and
in episode 20 with the textbook network on an AVX-512 CPU; and every perturbation moves the
step at which Sarsa(lambda)'s mountain-car run diverged at alpha 0.02
(:func:`test_the_perturbations_catch_a_workload_on_an_edge`).

A workload that fails here is moved for that method (``OWN_WORKLOADS`` in
``test_engine_golden.py``: a run that diverges fast, not slowly; episodes far from the goal or
clearly reaching it) and recorded again; never loosen the comparison.

How far each workload is from its nearest flip (the golden file's ``margin``):
``python tests/engine/test_engine_golden_chaos.py [METHOD ...]`` (a few minutes) tries the
portable perturbations, then first weights moved :math:`4^j` units in the last place
(:func:`margin`), and records how many held and the largest move that held.
"""

import json

import numpy as np
import pytest
from test_engine_golden import (
    GOLDEN_CONTROL,
    GOLDEN_METHODS,
    SEED,
    WORKLOADS,
    _golden_control,
    _has,
    _load,
    control_numbers,
    first_engine,
    workload_of,
)

import ftd_lib.engine.reference as reference_engine
from ftd_lib.approx import MLP
from ftd_lib.engine import initial_weights
from ftd_lib.envs.tasks import TASKS
from ftd_lib.methods import implemented
from ftd_lib.portable import tanh

#: what must not move with the rounding
EXACT = ("returns", "lengths", "diverged_at", "n_steps")


class RoundsOtherwise(MLP):
    """The same network written as textbook numpy, ``np.tanh(x @ W1.T + b1) @ w2 + b2``: it
    rounds otherwise than :class:`ftd_lib.approx.MLP` (and otherwise on each CPU)."""

    def hidden(self, w, x):
        W1, b1, _, _ = self.unpack(w)
        return np.tanh(np.asarray(x, dtype=float) @ W1.T + b1)

    def value(self, w, x):
        _, _, w2, b2 = self.unpack(w)
        return self.hidden(w, x) @ w2 + b2


def pairwise_sum(p):
    r""":math:`\sum_i p_i` over the last axis added pairwise, :math:`(p_0 + p_1) + (p_2 + p_3)`,
    then those sums pairwise, and so on (zeros added at the end, exactly, up to a power of 2):
    the same bits on every CPU, not those of :func:`ftd_lib.portable.matvec`'s left-to-right
    order."""
    p = np.asarray(p, dtype=float)
    n = p.shape[-1]
    width = 1 << (n - 1).bit_length()
    if width != n:
        p = np.concatenate([p, np.zeros((*p.shape[:-1], width - n))], axis=-1)
    while p.shape[-1] > 1:
        p = p[..., 0::2] + p[..., 1::2]
    return p[..., 0]


class SumsPairwise(MLP):
    """The network with its sums of products added pairwise (:func:`pairwise_sum`)."""

    def hidden(self, w, x):
        W1, b1, _, _ = self.unpack(w)
        x = np.asarray(x, dtype=float)
        return tanh(pairwise_sum(W1 * x[..., None, :]) + b1)

    def value(self, w, x):
        _, _, w2, b2 = self.unpack(w)
        return pairwise_sum(self.hidden(w, x) * w2) + b2


class TanhRoundsDown(MLP):
    """The network with every hidden unit one unit in the last place lower (a tanh rounded
    otherwise)."""

    def hidden(self, w, x):
        return np.nextafter(super().hidden(w, x), -np.inf)


#: each perturbation of the rounding: the reference's network, and how many units in the last
#: place every first weight moves away from zero
PERTURBATIONS = {
    "textbook": (RoundsOtherwise, 0),
    "pairwise-sums": (SumsPairwise, 0),
    "tanh-down": (TanhRoundsDown, 0),
    "w0-nudged": (MLP, 1),
}
#: those that round the same way on every CPU
PORTABLE = [p for p in PERTURBATIONS if p != "textbook"]


def nudged(w, ulps: float, seed: int | None = None):
    """``w`` with every weight moved ``ulps`` units in its last place: away from zero, or up or
    down at random (the signs drawn from ``seed``)."""
    w = np.asarray(w, dtype=float)
    signs = (np.copysign(1.0, w) if seed is None
             else np.random.default_rng(seed).choice([-1.0, 1.0], w.shape))
    return w + signs * ulps * np.abs(np.spacing(w))


def first_weights(method: str, workload: str):
    """The first weights ``(N, A, P)`` of ``method``'s ``workload``, as the engines draw
    them."""
    env, _, _, _, _, ids, _, _ = workload_of(method, workload)
    return initial_weights(SEED, ids, TASKS[env].n_in, n_nets=TASKS[env].n_actions)


def perturbed_numbers(method: str, workload: str, net=MLP, ulps: float = 0,
                      seed: int | None = None):
    """``control_numbers`` of ``method``'s ``workload`` through its reference, with the network
    ``net`` and the first weights moved ``ulps`` units in the last place (:func:`nudged`)."""
    w0 = nudged(first_weights(method, workload), ulps, seed) if ulps else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference_engine, "MLP", net)
        return control_numbers(method, workload, "reference", w0=w0)


def flipped(now: dict, gold: dict) -> list[str]:
    """The keys of :data:`EXACT` in which ``now`` differs from ``gold``."""
    return [k for k in EXACT
            if not np.array_equal(np.asarray(now[k], float), np.asarray(gold[k], float),
                                  equal_nan=True)]


@pytest.mark.parametrize("perturbation", list(PERTURBATIONS))
@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("method", GOLDEN_METHODS)
def test_no_rounding_flips_a_golden_workload(method, workload, perturbation):
    """The reference, its rounding perturbed, gives the golden returns, lengths, divergence
    and steps exactly and the weights to 1e-10; and it did round otherwise (another hash)."""
    _has(method, "reference")
    gold = _golden_control(method)[workload]
    net, ulps = PERTURBATIONS[perturbation]
    now = perturbed_numbers(method, workload, net, ulps)
    for key in EXACT:
        np.testing.assert_array_equal(
            now[key], gold[key], err_msg=f"{method} {workload}, {perturbation}: {key} changed "
            "with the rounding: the workload sits on a rounding edge (move it for this method: "
            "OWN_WORKLOADS in test_engine_golden.py)")
    np.testing.assert_allclose(now["w_head"], gold["w_head"], rtol=0, atol=1e-10)
    if first_engine(method) == "reference":  # (else the hash is another engine's)
        assert now["w_sha256"] != gold["w_sha256"], f"{perturbation} rounded as MLP does"


@pytest.mark.parametrize("perturbation", [p for p in PERTURBATIONS if PERTURBATIONS[p][1] == 0])
def test_each_network_rounds_otherwise_and_only_that(perturbation):
    """On cart-pole's inputs (4, so that pairwise sums are another order) a perturbed
    network's values and gradients differ from :class:`ftd_lib.approx.MLP`'s, by no more than
    rounding (1e-14)."""
    net, ref = PERTURBATIONS[perturbation][0](4), MLP(4)
    rng = np.random.default_rng(0)
    w, x = ref.init(rng), rng.uniform(-1, 1, (200, 4))
    for f in ("value", "grad"):
        got, want = getattr(net, f)(w, x), getattr(ref, f)(w, x)
        assert not np.array_equal(got, want), f"{perturbation}: {f} rounds as MLP does"
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14, err_msg=f)


#: workloads that sat on an edge (a slow divergence) as the golden workloads had them: the
#: method, the workload's one run, its step of divergence, and the portable perturbations
#: that move that step
EDGES = {
    "expected_sarsa-cartpole-alpha-0.1": (
        "expected_sarsa", ("cartpole", 25, 40, "terminal", 0.99, [2], [0.1], [0.8]), 168,
        {"tanh-down", "w0-nudged"}),
    "sarsa_lambda-mountain_car-alpha-0.02": (
        "sarsa_lambda", ("mountain_car", 500, 3, "bootstrap", 1.0, [4], [0.02], [0.9]), 389,
        set(PORTABLE)),
}


@pytest.mark.parametrize("edge", list(EDGES))
def test_the_perturbations_catch_a_workload_on_an_edge(edge, monkeypatch):
    """Runs that once sat on an edge of the golden workloads (Expected Sarsa's cart-pole run at
    alpha 0.1, Sarsa(lambda)'s mountain-car run at alpha 0.02, both diverging slowly): the
    portable perturbations move their step of divergence, on every CPU; each of them catches
    one."""
    method, workload, step, catch = EDGES[edge]
    monkeypatch.setitem(WORKLOADS, "edge", workload)
    gold = control_numbers(method, "edge", "reference")
    assert gold["diverged_at"] != [-1] and gold["n_steps"] == [step]
    caught = {p for p in PORTABLE
              if flipped(perturbed_numbers(method, "edge", *PERTURBATIONS[p]), gold)}
    assert caught == catch


#: the margin's moves of the first weights: 2**j units in the last place for these j (up to
#: 2**44, a relative change of about 4e-3: a workload that holds to there has no edge in reach)
LADDER = range(0, 45, 2)


def margin(method: str, workload: str) -> dict:
    """How far ``method``'s ``workload`` is from its nearest flip, through its reference: the
    portable perturbations (:data:`PORTABLE`), then the first weights moved :math:`2^j` units
    in the last place for each ``j`` of :data:`LADDER` (two draws of random signs each) until
    one flips the returns, lengths, divergence or steps. Returns ``{"tried", "held",
    "held_to_log2_ulps", "flipped_at_log2_ulps"}``: the perturbations tried, how many gave
    the golden numbers, the ``j`` of the largest move that held (``None``: not even the
    portable perturbations did) and of the first that flipped (``None``: none did)."""
    gold = _golden_control(method)[workload]
    assert not flipped(perturbed_numbers(method, workload), gold)
    tried = held = 0
    held_to = flipped_at = None
    for p in PORTABLE:
        tried += 1
        held += not flipped(perturbed_numbers(method, workload, *PERTURBATIONS[p]), gold)
    if held == tried:
        for j in LADDER:
            ok = [not flipped(perturbed_numbers(method, workload, ulps=2.0**j, seed=s), gold)
                  for s in (1, 2)]
            tried, held = tried + len(ok), held + sum(ok)
            if not all(ok):
                flipped_at = j
                break
            held_to = j
    return {"tried": tried, "held": held, "held_to_log2_ulps": held_to,
            "flipped_at_log2_ulps": flipped_at}


def record_margins(names=None) -> None:
    """Record the :func:`margin` of every workload of the methods ``names`` (default: all)
    in the golden file (``margin`` of each method: the numbers themselves are left as
    they are)."""
    from tqdm.auto import tqdm

    names = names or [m for m in GOLDEN_METHODS if m in implemented("control", "reference")]
    tasks = [(m, k) for m in names for k in WORKLOADS]
    got = {(m, k): margin(m, k) for m, k in tqdm(tasks, desc="margins", unit="workload")}
    control = _load(GOLDEN_CONTROL)
    for m in names:
        control["methods"][m]["margin"] = {k: got[m, k] for k in WORKLOADS}
    GOLDEN_CONTROL.write_text(json.dumps(control, indent=1) + "\n")
    print(f"wrote the margins of {', '.join(names)} to {GOLDEN_CONTROL}")


if __name__ == "__main__":
    import sys

    record_margins(sys.argv[1:] or None)
