"""Widgets given bad values: a factory refuses what its sliders would clamp or truncate
silently (ValueError naming the parameter); a callback given a non-finite value (a slider set
from code) shows one sentence in the widget instead of a traceback or a NaN picture. One
parametrised case per bad input."""

import math

import numpy as np
import pytest

from ftd_lib.course import stepper as St
from ftd_lib.course import widgets as Wd
from ftd_lib.course.nb03_one_state_divergence import values_per_episode
from ftd_lib.course.nb05_nn_prediction import learning_curves

LC = dict(runs=1, episodes=1)  # the learning-curve explorer, as small as it gets

FACTORY_BAD = [  # (id, factory, kwargs, the name the message must contain)
    ("one_state alpha=5", Wd.one_state_explorer, dict(alpha=5), "alpha"),
    ("one_state alpha=-1", Wd.one_state_explorer, dict(alpha=-1), "alpha"),
    ("one_state alpha=0", Wd.one_state_explorer, dict(alpha=0), "alpha"),
    ("one_state alpha=nan", Wd.one_state_explorer, dict(alpha=math.nan), "alpha"),
    ("one_state alpha='x'", Wd.one_state_explorer, dict(alpha="x"), "alpha"),
    ("one_state T=0", Wd.one_state_explorer, dict(T=0), "T"),
    ("one_state T=2.5", Wd.one_state_explorer, dict(T=2.5), "T"),
    ("one_state T=1000", Wd.one_state_explorer, dict(T=1000), "T"),
    ("one_state v0=10", Wd.one_state_explorer, dict(v0=10), "v0"),
    ("one_state v0=nan", Wd.one_state_explorer, dict(v0=math.nan), "v0"),
    ("one_state v0=-inf", Wd.one_state_explorer, dict(v0=-math.inf), "v0"),
    ("one_state n_episodes=0", Wd.one_state_explorer, dict(n_episodes=0), "n_episodes"),
    ("one_state n_episodes=-1", Wd.one_state_explorer, dict(n_episodes=-1), "n_episodes"),
    ("k eta=0", Wd.k_explorer, dict(eta=0), "eta"),
    ("k eta=1", Wd.k_explorer, dict(eta=1), "eta"),
    ("k eta=nan", Wd.k_explorer, dict(eta=math.nan), "eta"),
    ("k gl=1.5", Wd.k_explorer, dict(gl=1.5), "gl"),
    ("k gl=-0.5", Wd.k_explorer, dict(gl=-0.5), "gl"),
    ("k gl=nan", Wd.k_explorer, dict(gl=math.nan), "gl"),
    ("curves alpha=0", Wd.learning_curve_explorer, dict(alpha=0, **LC), "alpha"),
    ("curves alpha=1", Wd.learning_curve_explorer, dict(alpha=1, **LC), "alpha"),
    ("curves lam=2", Wd.learning_curve_explorer, dict(lam=2, **LC), "lam"),
    ("curves lam=nan", Wd.learning_curve_explorer, dict(lam=math.nan, **LC), "lam"),
    ("curves runs=0", Wd.learning_curve_explorer, dict(runs=0, episodes=1), "runs"),
    ("curves runs=2.5", Wd.learning_curve_explorer, dict(runs=2.5, episodes=1), "runs"),
    ("curves episodes=0", Wd.learning_curve_explorer, dict(runs=1, episodes=0), "episodes"),
    ("curves seed=-1", Wd.learning_curve_explorer, dict(seed=-1, **LC), "seed"),
    ("curves methods unknown", Wd.learning_curve_explorer, dict(methods=("td5",), **LC),
     "methods"),
    ("curves methods a string", Wd.learning_curve_explorer,
     dict(methods="td_lambda", **LC), "methods"),
    ("curves methods empty", Wd.learning_curve_explorer, dict(methods=(), **LC), "methods"),
    ("curves cache_size=0", Wd.learning_curve_explorer, dict(cache_size=0, **LC),
     "cache_size"),
    ("stepper alpha=0", St.algorithm1_stepper, dict(alpha=0), "alpha"),
    ("stepper eta=0", St.algorithm1_stepper, dict(eta=0), "eta"),
    ("stepper lam=2", St.algorithm1_stepper, dict(lam=2), "lam"),
    ("stepper k_max=0", St.algorithm1_stepper, dict(k_max=0), "k_max"),
    ("stepper w0 wrong length", St.algorithm1_stepper, dict(w0=np.zeros(3)), "w0"),
    ("stepper T=0 episode", St.algorithm1_stepper,
     dict(episode=(np.zeros((1, 3)), np.zeros(0))), "episodes"),
    ("stepper nan episode", St.algorithm1_stepper,
     dict(episode=(np.full((4, 3), np.nan), np.zeros(3))), "episodes"),
]


@pytest.mark.parametrize("factory, kw, name", [c[1:] for c in FACTORY_BAD],
                         ids=[c[0] for c in FACTORY_BAD])
def test_a_factory_refuses_what_its_slider_would_change(factory, kw, name):
    with pytest.raises(ValueError, match=name):
        factory(**kw)


FUNCTION_BAD = [
    ("values_per_episode T=0", lambda: values_per_episode(0.1, 0), "T"),
    ("values_per_episode T=2.5", lambda: values_per_episode(0.1, 2.5), "T"),
    ("values_per_episode n_episodes=-1", lambda: values_per_episode(0.1, 3, 0.0, -1),
     "n_episodes"),
    ("values_per_episode v0=nan", lambda: values_per_episode(0.1, 3, math.nan), "v0"),
    ("one_state_readout T=0", lambda: Wd.one_state_readout(0.1, 0, 0.0), "T"),
    ("k_readout gl=2", lambda: Wd.k_readout(0.01, 2.0), "lam"),
    ("k_readout eta=0", lambda: Wd.k_readout(0.0, 0.9), "eta"),
    ("learning_curves runs=2.5", lambda: learning_curves(0.01, 0.9, runs=2.5), "runs"),
    ("learning_curves episodes=0", lambda: learning_curves(0.01, 0.9, episodes=0),
     "episodes"),
]


@pytest.mark.parametrize("call, name", [c[1:] for c in FUNCTION_BAD],
                         ids=[c[0] for c in FUNCTION_BAD])
def test_the_functions_behind_the_widgets_refuse_bad_values(call, name):
    with pytest.raises(ValueError, match=name):
        call()


CALLBACK_BAD = [  # (id, factory, control, value set from code)
    ("one_state alpha=nan", Wd.one_state_explorer, "alpha", math.nan),
    ("one_state v0=nan", Wd.one_state_explorer, "v0", math.nan),
    ("k eta=nan", Wd.k_explorer, "eta", math.nan),
    ("k gl=nan", Wd.k_explorer, "gl", math.nan),
]


@pytest.mark.parametrize("factory, control, value", [c[1:] for c in CALLBACK_BAD],
                         ids=[c[0] for c in CALLBACK_BAD])
def test_a_callback_given_a_non_finite_value_says_so_in_one_sentence(factory, control, value):
    ex = factory()
    png = ex.png()
    ex.controls[control].value = value
    assert len(ex.errors) == 1 and isinstance(ex.errors[0], ValueError)
    assert control in ex.error.value and "Traceback" not in ex.error.value
    assert ex.png() == png  # the last good picture stays
    ex.controls[control].value = 0.5 if control != "eta" else 0.1  # a good value again
    assert ex.error.value == "" and len(ex.errors) == 1


OUT_OF_RANGE = [  # a slider clamps what is set from code: the picture shows the clamped value
    ("one_state alpha=5", Wd.one_state_explorer, "alpha", 5.0, 1.0),
    ("one_state T=0", Wd.one_state_explorer, "T", 0, 1),
    ("one_state T=1000", Wd.one_state_explorer, "T", 1000, 100),
    ("one_state v0=inf", Wd.one_state_explorer, "v0", math.inf, 2.0),
    ("k gl=3", Wd.k_explorer, "gl", 3.0, 1.0),
    ("stepper frame=10**6", St.algorithm1_stepper, "frame", 10**6, None),
    ("stepper frame=-5", St.algorithm1_stepper, "frame", -5, 0),
]


@pytest.mark.parametrize("factory, control, value, shown", [c[1:] for c in OUT_OF_RANGE],
                         ids=[c[0] for c in OUT_OF_RANGE])
def test_out_of_range_slider_values_are_clamped_consistently(factory, control, value, shown):
    ex = factory()
    w = ex.controls[control]
    w.value = value
    shown = w.max if shown is None else shown
    assert w.value == shown and ex.errors == []
    state_key = {"frame": None}.get(control, control)
    if state_key is not None and state_key in ex.state:
        assert ex.state[state_key] == shown


def count_bad_inputs() -> dict:
    return {"widget factories": len(FACTORY_BAD), "functions behind widgets": len(FUNCTION_BAD),
            "callbacks (non-finite)": len(CALLBACK_BAD),
            "callbacks (out of range, clamped)": len(OUT_OF_RANGE)}
