"""The compiled per-run prediction loops (ftd_lib/engine/kernel/prediction.py): the torch
batch's numbers bit for bit, the per-run reference's to rounding, and Algorithm 1's work
counted: TD(0)'s values and updates whatever K (paper Sec. 5), with no clock."""

import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import MLP
from ftd_lib.engine import Settings, initial_weights, run_recorded
from ftd_lib.engine.premises import kernel_premises


def _episodes(seed, lengths):
    """Random-walk-like episodes of the given lengths: features in [-1, 1]^2, rewards -1."""
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-1, 1, (T + 1, 2)), -np.ones(T)) for T in lengths]


# episodes shorter and longer than K, and one of length 1
ROWS = [_episodes(b, lengths) for b, lengths in
        enumerate([(30, 7), (1, 12, 25), (18,), (9, 40)])]
W0 = initial_weights(3, np.arange(4), 2)
EVAL = (np.random.default_rng(9).uniform(-1, 1, (40, 2)), np.linspace(-30, 0, 40))


def _settings(k_max):
    return Settings.make(alpha=[0.01, 0.03, 0.02, 0.005], lam=[0.999, 0.9, 0.5, 1.0],
                         gamma=[1.0, 0.99, 1.0, 1.0], eta=0.01, k_max=k_max)


@pytest.mark.parametrize("method", ["td0", "forward_td_lambda"])
@pytest.mark.parametrize("k_max", [1, 2, 5, 44, None])
def test_the_kernel_gives_the_batch_numbers_bit_for_bit(method, k_max):
    why = kernel_premises()
    if why is not None:
        pytest.skip(why)
    s = _settings(k_max)
    a = run_recorded(method, ROWS, W0, s, eval_states=EVAL)
    b = run_recorded(method, ROWS, W0, s, eval_states=EVAL, engine="kernel")
    assert not a.diverged.any() and not b.diverged.any()
    assert np.array_equal(a.final_weights, b.final_weights)
    for wa, wb in zip(a.weights, b.weights, strict=True):
        assert np.array_equal(wa, wb)
    assert np.array_equal(a.errors, b.errors, equal_nan=True)
    assert np.array_equal(a.initial_error, b.initial_error)
    assert np.array_equal(a.n_steps, b.n_steps)


@pytest.mark.parametrize("k_max", [1, 3, None])
def test_the_kernel_follows_the_per_run_reference(k_max):
    s = _settings(k_max)
    b = run_recorded("forward_td_lambda", ROWS, W0, s, engine="kernel")
    for r in range(len(ROWS)):
        ref = algorithms.forward_td_lambda(ROWS[r], W0[r], approx=MLP(2, 50), **s.row(r))
        np.testing.assert_allclose(b.weights[r], ref, rtol=0, atol=1e-10)


def test_forward_td_does_td0s_work_whatever_k():
    """Counted, not timed: per episode of T steps, T - 1 values of S' and T popped updates
    (each with its value), the work of TD(0), for every K from 1 to 50."""
    lengths = [sum(1 for _ in eps) for eps in ROWS]
    T = np.array([sum(len(r) for _, r in eps) for eps in ROWS])
    want = np.stack([2 * T - np.array(lengths), T], axis=1)
    td0 = run_recorded("td0", ROWS, W0, _settings(None), engine="kernel",
                       record_weights=False)
    assert np.array_equal(td0.work, want)
    for k in range(1, 51):
        fwd = run_recorded("forward_td_lambda", ROWS, W0, _settings(k), engine="kernel",
                           record_weights=False)
        assert np.array_equal(fwd.work, want), k
        assert fwd.iterations == T.sum()


def test_a_diverging_run_is_recorded_as_diverged():
    s = Settings.make(alpha=[0.01, 50.0], lam=0.9, gamma=1.0)
    rows = [ROWS[0], ROWS[0]]
    a = run_recorded("forward_td_lambda", rows, W0[:2], s, engine="batch")
    b = run_recorded("forward_td_lambda", rows, W0[:2], s, engine="kernel", eval_states=EVAL)
    assert list(b.diverged) == [False, True] == list(a.diverged)
    assert b.diverged_at[1] == a.diverged_at[1] == 0
    assert np.all(b.final_weights[1] == 0) and np.all(np.isinf(b.errors[1]))
    # (bit for bit where the premises hold: test_the_kernel_gives_the_batch_numbers...)
    np.testing.assert_allclose(a.final_weights[0], b.final_weights[0], rtol=0, atol=1e-10)


@pytest.mark.parametrize("k_max", [1, 3, None])
def test_a_rows_numbers_do_not_depend_on_the_row_beside_it(k_max):
    """The kernel runs forward TD(lambda)'s rows two at a time, their end-of-episode flushes
    side by side (update_value_pair): every row of a batch, odd or even in size, with rows
    of other lengths, settings and K beside it, and one diverging (alpha 50, in its first
    flush or before), equals that row run alone, bit for bit (any CPU: kernel with kernel)."""
    rows = ROWS + [ROWS[1], ROWS[0]]
    alpha = [0.01, 0.03, 0.02, 0.005, 50.0, 0.04]
    lam = [0.999, 0.9, 0.5, 1.0, 0.9, 0.95]
    s = Settings.make(alpha=alpha, lam=lam, gamma=1.0, eta=0.01, k_max=k_max)
    w0 = initial_weights(5, np.arange(6), 2)
    for B in (6, 5):
        all_ = run_recorded("forward_td_lambda", rows[:B], w0[:B], s.select(np.arange(B)),
                            eval_states=EVAL, engine="kernel")
        assert all_.diverged[4] and not all_.diverged[:4].any()
        for b in range(B):
            one = run_recorded("forward_td_lambda", rows[b : b + 1], w0[b : b + 1],
                               s.select([b]), eval_states=EVAL, engine="kernel")
            assert np.array_equal(one.final_weights[0], all_.final_weights[b]), (B, b)
            assert np.array_equal(one.weights[0], all_.weights[b], equal_nan=True), (B, b)
            assert np.array_equal(one.errors[0], all_.errors[b, : one.errors.shape[1]],
                                  equal_nan=True), (B, b)
            assert one.diverged_at[0] == all_.diverged_at[b], (B, b)
            assert one.n_steps[0] == all_.n_steps[b] and np.array_equal(one.work[0],
                                                                         all_.work[b])


@pytest.mark.parametrize("kw, word", [
    (dict(engine="nope"), "engine"),
    (dict(engine="kernel", method="td_lambda"), "kernel"),
    (dict(engine="kernel", dtype="float32"), "kernel"),
])
def test_bad_engine_arguments_name_the_parameter(kw, word):
    import torch

    method = kw.pop("method", "forward_td_lambda")
    if kw.get("dtype") == "float32":
        kw["dtype"] = torch.float32
    with pytest.raises(ValueError, match=word):
        run_recorded(method, ROWS, W0, _settings(None), **kw)


@pytest.mark.parametrize("method", ["td0", "forward_td_lambda"])
def test_the_kernel_gives_the_golden_prediction_numbers(method):
    """Live on mountain car (its episodes recorded first): the golden numbers of
    tests/engine/test_engine_golden.py's prediction workload, within that test's tolerance."""
    import json
    from pathlib import Path

    from ftd_lib.engine import NUMERICS_VERSION, run_prediction

    gold = json.loads((Path(__file__).parent / "golden" / "engine_numerics.json").read_text())
    assert gold[method]["version"] == NUMERICS_VERSION[method]
    s = Settings.make(alpha=[0.01, 0.03], lam=[0.9, 0.5], gamma=1.0, eta=0.01,
                      k_max=[None, 3])
    r = run_prediction(method, s, 2016, [0, 1], 2, n_eval=50, engine="kernel")
    now = {"errors": r.errors.tolist(), "w": r.final_weights[:, :6].tolist()}
    for key, a in gold[method]["numbers"].items():
        np.testing.assert_allclose(now[key], a, rtol=1e-9, atol=1e-12, err_msg=key)


@pytest.mark.parametrize("n,H", [(2, 50), (3, 7)])
def test_the_flushs_fused_pass_is_an_update_then_a_value(n, H):
    """update_value (the flush: a pop's update and the next pop's value in one pass over the
    hidden units) is numerics.update then numerics.value, bit for bit (any CPU: both are the
    kernel's own arithmetic)."""
    from ftd_lib.engine.kernel.numerics import update, value
    from ftd_lib.engine.kernel.passes import update_value

    rng = np.random.default_rng(n * H)
    th = rng.uniform(-1, 1, (1, (n + 2) * H + 1))
    x, xn = rng.uniform(-1, 1, (2, n))
    h = np.empty(H)
    value(th, 0, x, n, H, h)
    slow, fast = th.copy(), th.copy()
    h_slow, h_fast = h.copy(), h.copy()
    update(slow, 0, x, n, H, h_slow, np.empty(H), 0.37)
    v_slow = value(slow, 0, xn, n, H, h_slow)
    v_fast = update_value(fast, x, 0.37, xn, n, H, h_fast)
    assert np.array_equal(fast, slow) and v_fast == v_slow
    assert np.array_equal(h_fast, h_slow)
    assert not np.array_equal(fast, th)  # it did update


@pytest.mark.parametrize("n,H", [(2, 50), (3, 7)])
def test_a_steps_fused_pass_is_an_update_then_two_values(n, H):
    """update_value2 (TD(0)'s and the ready phase's step: its update and the next step's two
    values in one pass over the hidden units) is numerics.update then value2, bit for bit,
    with both values' hidden units where the next update reads them (any CPU)."""
    from ftd_lib.engine.kernel.numerics import update, value
    from ftd_lib.engine.kernel.passes import update_value2, value2

    rng = np.random.default_rng(n * H + 1)
    th = rng.uniform(-1, 1, (1, (n + 2) * H + 1))
    x, xa, xb = rng.uniform(-1, 1, (3, n))
    hh = np.empty(2 * H)
    value(th, 0, x, n, H, hh[H:])
    slow, fast = th.copy(), th.copy()
    hh_slow, hh_fast = hh.copy(), hh.copy()
    update(slow, 0, x, n, H, hh_slow[H:], np.empty(H), -0.23)
    va_slow, vb_slow = value2(slow, xa, xb, n, H, hh_slow)
    va_fast, vb_fast = update_value2(fast, x, -0.23, xa, xb, n, H, hh_fast)
    assert np.array_equal(fast, slow) and (va_fast, vb_fast) == (va_slow, vb_slow)
    assert np.array_equal(hh_fast, hh_slow)
    assert va_fast != vb_fast and not np.array_equal(fast, th)  # two values, an update


@pytest.mark.parametrize("method", ["td0", "forward_td_lambda"])
def test_other_network_sizes_take_the_general_loop_with_the_same_numbers(method):
    """A network other than the paper's 2-50-1 (here 2-8-1) runs the loop compiled for any
    size: the batch's numbers bit for bit where the premises hold, the reference's to
    rounding on any CPU."""
    s = _settings(3)
    w0 = initial_weights(3, np.arange(4), 2, 8)
    b = run_recorded(method, ROWS, w0, s, engine="kernel", n_hidden=8)
    ref_fn = getattr(algorithms, method)
    for r in range(len(ROWS)):
        row = s.row(r) if method == "forward_td_lambda" else {
            k: v for k, v in s.row(r).items() if k in ("alpha", "gamma")}
        ref = ref_fn(ROWS[r], w0[r], approx=MLP(2, 8), **row)
        np.testing.assert_allclose(b.weights[r], ref, rtol=0, atol=1e-10)
    if kernel_premises() is None:
        a = run_recorded(method, ROWS, w0, s, n_hidden=8)
        assert np.array_equal(a.final_weights, b.final_weights)


@pytest.mark.parametrize("n,H", [(2, 50), (3, 7)])
def test_two_flushes_in_one_pass_are_each_flush_alone(n, H):
    """update_value_pair (two runs' flush pops in one pass) is update_value of each run
    alone, bit for bit: weights, values and hidden units (any CPU)."""
    from ftd_lib.engine.kernel.numerics import value
    from ftd_lib.engine.kernel.passes import update_value, update_value_pair

    rng = np.random.default_rng(n * H + 2)
    thA, thB = (rng.uniform(-1, 1, (1, (n + 2) * H + 1)) for _ in range(2))
    xA, xnA, xB, xnB = rng.uniform(-1, 1, (4, n))
    hh = np.empty(2 * H)
    value(thA, 0, xA, n, H, hh[:H])
    value(thB, 0, xB, n, H, hh[H:])
    a, b, hA, hB = thA.copy(), thB.copy(), hh[:H].copy(), hh[H:].copy()
    vA = update_value(a, xA, 0.29, xnA, n, H, hA)
    vB = update_value(b, xB, -0.41, xnB, n, H, hB)
    pa, pb, phh = thA.copy(), thB.copy(), hh.copy()
    assert update_value_pair(pa, xA, 0.29, xnA, pb, xB, -0.41, xnB, n, H, phh) == (vA, vB)
    assert np.array_equal(pa, a) and np.array_equal(pb, b)
    assert np.array_equal(phh, np.concatenate([hA, hB]))
    assert vA != vB and not np.array_equal(a, thA)
