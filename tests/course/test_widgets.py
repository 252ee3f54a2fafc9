"""Every widget callback, without a kernel: move a slider / click a button, then check the
readout text and the image against closed forms and the reference algorithms."""

import base64
import math

import nbformat
import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import MLP, Linear
from ftd_lib.course import stepper, widgets
from ftd_lib.envs import beta_lambda_return, beta_td, one_state_episodes, random_walk
from ftd_lib.returns import interim_lambda_return, k_bound

pytestmark = pytest.mark.slow  # every explorer drawn

PNG = b"\x89PNG\r\n\x1a\n"


def test_render_png_has_fixed_size():
    fig = widgets.new_figure(4.0, 2.0)
    fig.subplots().plot([0, 1], [0, 1])
    png = widgets.render_png(fig)
    assert png.startswith(PNG)
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (w, h) == (4 * widgets.DPI, 2 * widgets.DPI)


def test_fmt():
    assert widgets.fmt(1.23456) == "1.235"
    assert widgets.fmt(-9.04e19) == "-9.04e+19"
    assert widgets.fmt(math.inf) == "∞" and widgets.fmt(math.nan) == "nan"
    assert widgets.fmt(None) == "–"


# ------------------------------------------------------------------------------------------
# one_state_explorer


def test_one_state_explorer_initial_readout_is_closed_form():
    ex = widgets.one_state_explorer(alpha=0.15, T=10, v0=0.0)
    assert "β<sub>TD</sub> = 1.500, β<sub>λ</sub> = 0.803" in ex.readout.value
    # every subscript is a <sub>, as in the verdict: none written with an underscore
    assert "_TD" not in ex.readout.value and "_λ" not in ex.readout.value
    assert ex.readout.value.count("<sub>TD</sub>") == 3  # β_TD, V_TD and the verdict's β_TD
    assert ex.state["beta_td"] == pytest.approx(beta_td(0.15, 10))
    assert ex.state["beta_lambda"] == pytest.approx(beta_lambda_return(0.15, 10))
    assert ex.png().startswith(PNG) and not ex.errors
    assert ex.controls["alpha"].description == "α"
    assert "ftd-beta-readout" in ex.readout._dom_classes


@pytest.mark.parametrize("alpha,T,v0", [(0.3, 4, 0.0), (0.05, 6, -1.0), (0.6, 3, 1.5)])
def test_one_state_explorer_matches_reference_algorithms(alpha, T, v0):
    ex = widgets.one_state_explorer(alpha=0.15, T=10, v0=0.0)
    png0, text0 = ex.png(), ex.readout.value
    ex.controls["alpha"].value = alpha
    ex.controls["T"].value = T
    ex.controls["v0"].value = v0
    assert not ex.errors
    assert ex.png() != png0 and ex.readout.value != text0
    assert (f"β<sub>TD</sub> = {alpha * T:.3f}, β<sub>λ</sub> = {1 - (1 - alpha) ** T:.3f}"
            in ex.readout.value)
    # the values drawn after each episode = the reference algorithms, run episode by episode
    eps = one_state_episodes(10, T=T)
    kw = dict(approx=Linear(1), alpha=alpha, lam=1.0, gamma=1.0)
    ends = np.arange(1, 11) * T - 1
    v_td = algorithms.td_lambda(eps, np.array([v0]), **kw)[ends, 0]
    v_lr = algorithms.online_lambda_return(eps, np.array([v0]), **kw)[ends, 0]
    np.testing.assert_allclose(ex.state["values_td"], np.r_[v0, v_td], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ex.state["values_lambda"], np.r_[v0, v_lr], rtol=1e-9,
                               atol=1e-12)
    assert ex.state["values_lambda"][-1] == pytest.approx(
        1 - (1 - v0) * (1 - alpha) ** (10 * T))


def test_one_state_explorer_extreme_settings_diverge_off_chart_without_errors():
    ex = widgets.one_state_explorer()
    with np.errstate(all="raise"):  # nothing in the callback may rely on numpy warnings
        ex.controls["alpha"].value = 1.0
        ex.controls["T"].value = 100
    assert not ex.errors and ex.error.value == ""
    assert "β<sub>TD</sub> = 100.000, β<sub>λ</sub> = 1.000" in ex.readout.value
    assert "diverges" in ex.readout.value
    assert abs(ex.state["values_td"][-1]) > 1e19  # (1 - 100)^10
    assert ex.state["values_lambda"][-1] == 1.0


def test_one_state_explorer_converging_case_says_so():
    ex = widgets.one_state_explorer(alpha=0.1, T=10)
    assert "converges" in ex.readout.value and "diverges" not in ex.readout.value
    assert ex.state["values_td"][-1] == pytest.approx(1.0)  # beta = 1: exact after 1 episode


def test_callback_errors_are_shown_not_raised():
    ex = widgets.one_state_explorer()

    def broken(_ex):
        raise RuntimeError("boom")

    ex.render = broken
    ex.controls["alpha"].value = 0.5  # must not raise
    assert len(ex.errors) == 1 and "boom" in ex.error.value
    assert "ftd-error" in ex.error._dom_classes


def test_mimebundle_carries_widget_and_static_png():
    ex = widgets.one_state_explorer()
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == ex.png()


# ------------------------------------------------------------------------------------------
# k_explorer


@pytest.mark.parametrize("eta,gl", [(0.01, 0.9), (0.1, 0.5), (0.05, 0.8), (0.3, 0.95),
                                    (0.01, 0.005)])
def test_k_explorer_matches_k_bound(eta, gl):
    ex = widgets.k_explorer(eta=0.2, gl=0.3)
    png0 = ex.png()
    ex.controls["eta"].value = eta
    ex.controls["gl"].value = gl
    assert not ex.errors and ex.png() != png0
    K = k_bound(1.0, gl, eta)
    assert ex.state["K"] == K
    assert f"K = {K}<" in ex.readout.value
    assert gl**K <= eta * (1 + 1e-12)
    assert K == 1 or gl ** (K - 1) > eta
    assert ex.state["weight_K"] == pytest.approx(gl**K)


def test_k_explorer_edges():
    ex = widgets.k_explorer()
    assert ex.state["K"] == 44 and "K = 44" in ex.readout.value  # eta 0.01, gamma*lam 0.9
    ex.controls["gl"].value = 1.0
    assert math.isinf(ex.state["K"]) and "K = ∞" in ex.readout.value
    ex.controls["gl"].value = 0.0
    assert ex.state["K"] == 1 and "TD(0)" in ex.readout.value
    assert not ex.errors
    assert ex.controls["eta"].description == "η" and ex.controls["gl"].description == "γλ"
    assert "ftd-k-readout" in ex.readout._dom_classes


# ------------------------------------------------------------------------------------------
# algorithm1_stepper


def _fresh_trace(episode, approx, w0, **kw):
    trace = []
    algorithms.forward_td_lambda([episode], w0, approx=approx, trace=trace, **kw)
    return trace


def test_stepper_buttons_walk_through_algorithm1():
    ex = stepper.algorithm1_stepper()
    episode = stepper.stepper_episode()
    x, r = episode
    T = len(r)
    kw = dict(alpha=0.5, lam=0.5, gamma=1.0, eta=0.1)
    w0 = np.arange(1.0, 11.0)  # the stepper's default first guess V(s) = s
    trace = _fresh_trace(episode, Linear(10), w0, **kw)
    K = trace[0]["K"]
    assert K == 4 and len(ex.frames) == T + 1
    values = np.array([0.0] + [s["V_next"] for s in trace])
    fwd, back, reset = ex.controls["forward"], ex.controls["back"], ex.controls["reset"]
    assert back.disabled and not fwd.disabled
    assert "ftd-step-forward" in fwd._dom_classes and "ftd-step-readout" in ex.readout._dom_classes
    for t in range(T):
        step = trace[t]
        text = ex.readout.value
        assert ex.state["t"] == t and f"<b>t = {t}</b>" in text
        assert f"U_sync = {step['U_sync']:.4f}" in text
        assert f"δ' = {step['delta_prime']:.4f}" in text and f"c = {step['c']:.4f}" in text
        assert f"ρ = {step['rho']:.4f}" in text
        assert "queue F = [" + ", ".join(f"S<sub>t={s}</sub>" for s in step["queue"]) in text \
            or (not step["queue"] and "queue F = [∅]" in text)
        if t < K - 1:
            assert step["updated"] is None and "no update yet" in text
        else:
            s = t - K + 1
            assert step["updated"] == s and f"update S<sub>t={s}</sub>" in text
            g = interim_lambda_return(r, values, s, s + K, 1.0, 0.5)
            assert step["target"] == pytest.approx(g, abs=1e-12)
            assert ex.state["definition"] == pytest.approx(g, abs=1e-12)
            assert f"= {step['target']:.4f} (by eq. 2: {g:.4f})" in text
        png = ex.png()
        fwd.click()
        assert ex.png() != png
    # episode end: S_{T-K} was updated at the last step (horizon T); the K - 1 states left in
    # the queue are flushed, also with horizon T
    assert ex.frames[T - 1]["updated"] == T - K and ex.frames[T - 1]["horizon"] == T
    assert ex.state["end"] and fwd.disabled
    assert ex.state["flushed"] == list(range(T - K + 1, T))
    for s, g in zip(ex.state["flushed"], ex.state["flush_targets"], strict=True):
        assert g == pytest.approx(interim_lambda_return(r, values, s, T, 1.0, 0.5), abs=1e-12)
        assert f"<td>S<sub>t={s}</sub></td><td>{g:.4f}</td>" in ex.readout.value
    np.testing.assert_allclose(ex.state["w"], algorithms.forward_td_lambda([episode], w0,
                                                                   approx=Linear(10), **kw)[-1])
    fwd.click()  # at the end: stays there
    assert ex.state["end"]
    back.click()
    assert ex.state["t"] == T - 1
    reset.click()
    assert ex.state["t"] == 0 and back.disabled and not ex.errors


def test_stepper_with_mlp_and_k_max():
    rng = np.random.default_rng(3)
    mlp = MLP(2, 5)
    episode = (rng.uniform(-1, 1, (10, 2)), rng.normal(size=9))
    w0 = mlp.init(rng)
    ex = stepper.algorithm1_stepper(episode, approx=mlp, w0=w0, alpha=0.2, lam=0.9, gamma=0.95,
                               eta=0.01, k_max=3)
    trace = _fresh_trace(episode, mlp, w0, alpha=0.2, lam=0.9, gamma=0.95, eta=0.01, k_max=3)
    assert ex.frames[0]["K"] == 3
    ex.controls["frame"].value = 5
    assert ex.state["U"] == trace[5]["U"] and ex.state["updated"] == 3
    assert ex.state["target"] == pytest.approx(ex.state["definition"], abs=1e-10)
    assert not ex.errors


def test_stepper_gamma_lambda_one_waits_for_the_end():
    ex = stepper.algorithm1_stepper(lam=1.0)
    assert math.isinf(ex.frames[0]["K"])
    assert all(f["updated"] is None for f in ex.frames[:-1])
    assert "no update until the episode's end" in ex.readout.value
    ex.controls["frame"].value = len(ex.frames) - 1
    assert len(ex.state["flushed"]) == len(ex.frames) - 1
    np.testing.assert_allclose(ex.state["flush_targets"], ex.state["definitions"], atol=1e-12)
    assert not ex.errors


def test_one_state_explorer_beta_two_exactly_oscillates_forever():
    """α = 0.1, T = 20: β_TD = 2 exactly (up to the rounding of 0.1 · 20): the error flips sign
    with the same size every episode (Exercise 3 of notebook 03), neither converges nor
    diverges; the values drawn agree."""
    ex = widgets.one_state_explorer(alpha=0.15, T=10, v0=0.0)
    ex.controls["alpha"].value = 0.1
    ex.controls["T"].value = 20
    text = ex.readout.value
    assert "oscillates forever" in text and "converges" not in text and "diverges" not in text
    assert ex.state["verdict_td"] == "oscillates"
    v = np.asarray(ex.state["values_td"])
    np.testing.assert_allclose(np.abs(1 - v), 1.0, atol=1e-9)  # |error| stays 1
    assert np.all(np.sign(1 - v[1:]) != np.sign(1 - v[:-1]))  # and flips every episode


def test_one_state_explorer_at_the_true_value_stays_there():
    """V₀ = 1 is the true value: V stays at 1 at any β, so the readout may not say
    "diverges" even at β_TD = 10."""
    ex = widgets.one_state_explorer(alpha=0.5, T=20, v0=0.0)
    assert "diverges" in ex.readout.value
    ex.controls["v0"].value = 1.0
    text = ex.readout.value
    assert "true value" in text and "diverges" not in text and "converges" not in text
    assert np.all(np.asarray(ex.state["values_td"]) == 1.0)
    assert np.all(np.asarray(ex.state["values_lambda"]) == 1.0)


@pytest.mark.parametrize("beta,v0,want", [
    (1.5, 0.0, "converges"), (2.0, 0.0, "oscillates"), (0.1 * 20, -1.0, "oscillates"),
    (0.07 * 30, 0.0, "diverges"), (2.0 + 1e-6, 0.0, "diverges"), (2.0 - 1e-6, 0.0, "converges"),
    (5.0, 1.0, "at the true value"), (5.0, 0.9 + 0.1, "at the true value"),
    (0.0, 0.0, "stays")])
def test_verdict(beta, v0, want):
    from ftd_lib.course.nb03_one_state_divergence import verdict

    assert verdict(beta, v0) == want
    if want in ("converges", "oscillates", "diverges"):  # check it on the pseudo-update
        errors = [(1 - beta) ** n * (1 - v0) for n in (10, 11)]
        grows = abs(errors[1]) > abs(errors[0]) * (1 + 1e-12)
        shrinks = abs(errors[1]) < abs(errors[0]) * (1 - 1e-12)
        assert (want == "diverges") == grows and (want == "converges") == shrinks


def test_verdict_bad_input():
    from ftd_lib.course.nb03_one_state_divergence import verdict

    with pytest.raises(ValueError, match="beta"):
        verdict(-0.5, 0.0)
    with pytest.raises(ValueError, match="v0"):
        verdict(1.0, math.nan)


def test_stepper_delta_prime_is_zero_exactly_on_left_steps():
    """Notebook 04's sentence under the stepper: with V(s) = s, δ' is 10 at t = 0, 2 on every
    step to the right, 0 on every step to the left (at these frames no value that δ' reads
    has been updated yet)."""
    ex = stepper.algorithm1_stepper()
    x, _ = stepper.stepper_episode()
    s = [int(np.argmax(row)) + 1 if row.any() else 0 for row in x]
    dp = {f["t"]: float(f["delta_prime"]) for f in ex.frames
          if f.get("delta_prime") is not None}
    assert dp[0] == pytest.approx(10.0)
    for t in range(1, len(s) - 1):
        want = 2.0 if s[t + 1] > s[t] else 0.0
        assert dp[t] == pytest.approx(want, abs=1e-12), (t, s[t], s[t + 1])
    assert sorted(t for t in dp if dp[t] == pytest.approx(2.0)) == [2, 8]


def test_the_lectures_key_frames_are_where_algorithm1_first_does_each_thing():
    """The frames a lecture steps through (stepper.key_frames), worked out from the episode by
    hand: K = 4 (η = 0.1, γλ = 0.5: 0.5^4 ≤ 0.1 < 0.5^3), so the queue fills at t = 0..2 and
    the first update is at t = 3; δ′ ≠ 0 at t = 0 (10) and at the right steps t = 2 and 8;
    the counter i wraps to 0 every K steps from there, so the first resynchronisation during
    updates is at t = 3 + 4 = 7; the end is frame 14. From the true values every δ′ is
    non-zero, so every frame is kept; a record without δ′ ≠ 0 keeps only the events."""
    ex = stepper.algorithm1_stepper()
    assert ex.frames[0]["K"] == 4 and [f["frame"] for f in ex.frames if f.get("ready")][0] == 3
    assert stepper.key_frames(ex.frames) == [0, 2, 3, 7, 8, 14]
    true = stepper.algorithm1_stepper(w0=random_walk.true_values())
    assert stepper.key_frames(true.frames) == list(range(len(true.frames)))
    quiet = [dict(f, delta_prime=0.0) if not f["end"] else f for f in ex.frames]
    assert stepper.key_frames(quiet) == [0, 3, 7, 14]
    # the deck's count is the lecture's: a frame more or less on the slide is a minute off
    from ftd_lib.publish import lectures

    cell = nbformat.v4.new_code_cell("stepper = algorithm1_stepper()\nstepper")
    assert lectures.stepper_frames(cell) == 6
