"""Bad input to the batched engine and to the per-run reference: a ``ValueError`` naming the
parameter, raised before any work. One parametrised case per bad input.

Every check comes from one layer, :mod:`ftd_lib.validate`, shared by the per-run algorithms
(:mod:`ftd_lib.algorithms`) and the engine's public functions (``run_recorded``,
``run_prediction``, ``run_control``, ``Settings.make``).
"""

import math

import numpy as np
import pytest
import torch

from ftd_lib import algorithms as A
from ftd_lib.approx import MLP, Linear
from ftd_lib.engine import Settings, run_control, run_prediction, run_recorded

H = 3  # hidden units of the tiny networks used here
P2 = MLP(2, H).n_params
S1 = Settings.make(alpha=0.01, lam=0.9, gamma=1.0)
NO_CUDA = "cuda" if not torch.cuda.is_available() else "cuda:99"


def _eps(T=3, n=2, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-1, 1, (T + 1, n)), rng.normal(size=T))]


def _with(eps_index, features=None, rewards=None):
    (x, r), = _eps()
    if features is not None:
        x = features(x.copy())
    if rewards is not None:
        r = rewards(r.copy())
    return [(x, r)] if eps_index == 0 else [*_eps(seed=1), (x, r)]


def _nan_at(a, i=1):
    a.flat[i] = np.nan
    return a


def _inf_at(a, i=1):
    a.flat[i] = np.inf
    return a


# --------------------------------------------------------------------------- run_recorded

RECORDED_GOOD = dict(method="td0", episodes=_eps(), w0=np.zeros(P2), settings=S1, n_hidden=H)

RECORDED_BAD = [  # (id, changed arguments, the name the message must contain)
    ("T=0 episode", dict(episodes=[(np.zeros((1, 2)), np.zeros(0))]), "episodes"),
    ("T=0 second episode", dict(episodes=[*_eps(), (np.zeros((1, 2)), np.zeros(0))]),
     r"episodes\[1\]"),
    ("T=0 in row 1 of per-row lists", dict(
        episodes=[_eps(), [(np.zeros((1, 2)), np.zeros(0))]],
        settings=Settings.make(alpha=[0.01, 0.02], lam=0.9, gamma=1.0)), r"episodes\[1\]"),
    ("nan feature", dict(episodes=_with(0, features=_nan_at)), "episodes"),
    ("inf feature", dict(episodes=_with(1, features=_inf_at)), r"episodes\[1\]"),
    ("inf reward", dict(episodes=_with(0, rewards=_inf_at)), "episodes"),
    ("nan reward", dict(episodes=_with(0, rewards=_nan_at)), "episodes"),
    ("features/rewards lengths disagree", dict(episodes=[(np.zeros((3, 2)), np.zeros(3))]),
     "episodes"),
    ("features 1-d", dict(episodes=[(np.zeros(4), np.zeros(3))]), "episodes"),
    ("feature widths differ between episodes",
     dict(episodes=[*_eps(), (np.zeros((4, 3)), np.zeros(3))]), "episodes"),
    ("features not numbers", dict(episodes=[(np.full((4, 2), "a"), np.zeros(3))]),
     "episodes"),
    ("episodes a number", dict(episodes=5), "episodes"),
    ("episodes a string", dict(episodes="abc"), "episodes"),
    ("per-row lists, wrong row count", dict(
        episodes=[_eps(), _eps(), _eps()],
        settings=Settings.make(alpha=[0.01, 0.02], lam=0.9, gamma=1.0)), "rows"),
    ("n_hidden=0", dict(n_hidden=0), "n_hidden"),
    ("n_hidden=-2", dict(n_hidden=-2), "n_hidden"),
    ("n_hidden=2.5", dict(n_hidden=2.5), "n_hidden"),
    ("n_hidden='3'", dict(n_hidden="3"), "n_hidden"),
    ("dtype int32", dict(dtype=torch.int32), "dtype"),
    ("dtype numpy float64", dict(dtype=np.float64), "dtype"),
    ("device cuda without that GPU", dict(device=NO_CUDA), "device"),
    ("device nonsense", dict(device="nonsense"), "device"),
    ("device meta", dict(device="meta"), "device"),
    ("device a number", dict(device=3.5), "device"),
    ("div_bound nan", dict(div_bound=math.nan), "div_bound"),
    ("div_bound 0", dict(div_bound=0), "div_bound"),
    ("div_bound -1", dict(div_bound=-1.0), "div_bound"),
    ("div_bound 'x'", dict(div_bound="x"), "div_bound"),
    ("w0 nan", dict(w0=np.full(P2, np.nan)), "w0"),
    ("w0 inf", dict(w0=_inf_at(np.zeros(P2))), "w0"),
    ("w0 wrong length", dict(w0=np.zeros(P2 + 1)), "w0"),
    ("w0 3-d", dict(w0=np.zeros((1, 1, P2))), "w0"),
    ("w0 rows vs settings", dict(w0=np.zeros((3, P2)),
                                 settings=Settings.make(alpha=[0.1, 0.2], lam=0.9, gamma=1.0)),
     "settings"),
    ("w0 not numbers", dict(w0="abc"), "w0"),
    ("w0 length fits no network (no episodes)", dict(episodes=[], w0=np.zeros(7)), "w0"),
    ("method unknown", dict(method="td1"), "method"),
    ("method of control", dict(method="sarsa_lambda"), "method"),
    ("settings a dict", dict(settings=dict(alpha=0.1, lam=0.9, gamma=1.0)), "settings"),
    ("eval_states nan true value", dict(eval_states=(np.zeros((4, 2)), [0, 1, np.nan, 0])),
     "eval_states"),
    ("eval_states wrong width", dict(eval_states=(np.zeros((4, 3)), np.zeros(4))),
     "eval_states"),
    ("eval_states lengths disagree", dict(eval_states=(np.zeros((4, 2)), np.zeros(3))),
     "eval_states"),
    ("eval_states empty", dict(eval_states=(np.zeros((0, 2)), np.zeros(0))), "eval_states"),
    ("eval_states not a pair", dict(eval_states=np.zeros((4, 2))), "eval_states"),
]


@pytest.mark.parametrize("change,name", [c[1:] for c in RECORDED_BAD],
                         ids=[c[0] for c in RECORDED_BAD])
def test_run_recorded_rejects(change, name):
    kw = {**RECORDED_GOOD, **change}
    with pytest.raises(ValueError, match=name):
        run_recorded(kw.pop("method"), kw.pop("episodes"), kw.pop("w0"), kw.pop("settings"),
                     **kw)


def test_run_recorded_empty_episode_list_gives_no_rows():
    """The per-run contract's edge: no episode, no time step -- ``(0, P)`` for every row."""
    s = Settings.make(alpha=[0.01, 0.02], lam=0.9, gamma=1.0)
    res = run_recorded("forward_td_lambda", [], np.zeros(P2), s, n_hidden=H)
    assert [w.shape for w in res.weights] == [(0, P2), (0, P2)]
    res = run_recorded("td_lambda", [[], _eps()], np.zeros(P2), s, n_hidden=H)
    assert res.weights[0].shape == (0, P2) and res.weights[1].shape == (3, P2)


# --------------------------------------------------------------------------- live runs

LIVE_COMMON_BAD = [
    ("n_episodes=-1", dict(n_episodes=-1), "n_episodes"),
    ("n_episodes=2.5", dict(n_episodes=2.5), "n_episodes"),
    ("n_episodes='3'", dict(n_episodes="3"), "n_episodes"),
    ("n_episodes=None", dict(n_episodes=None), "n_episodes"),
    ("n_episodes=nan", dict(n_episodes=math.nan), "n_episodes"),
    ("n_episodes=True", dict(n_episodes=True), "n_episodes"),
    ("n_episodes=10**15 (no memory for the results)", dict(n_episodes=10**15), "n_episodes"),
    ("seed=-1", dict(seed=-1), "seed"),
    ("seed=1.5", dict(seed=1.5), "seed"),
    ("seed='a'", dict(seed="a"), "seed"),
    ("run_ids negative", dict(run_ids=[-1]), "run_ids"),
    ("run_ids fractional", dict(run_ids=[0.5]), "run_ids"),
    ("run_ids 2-d", dict(run_ids=[[0]]), "run_ids"),
    ("run_ids strings", dict(run_ids=["a"]), "run_ids"),
    ("run_ids count vs settings", dict(run_ids=[0, 1]), "run_ids"),
    ("n_hidden=0", dict(n_hidden=0), "n_hidden"),
    ("dtype int32", dict(dtype=torch.int32), "dtype"),
    ("device cuda without that GPU", dict(device=NO_CUDA), "device"),
    ("device nonsense", dict(device="nonsense"), "device"),
    ("div_bound nan", dict(div_bound=math.nan), "div_bound"),
    ("settings None", dict(settings=None), "settings"),
]

PREDICTION_GOOD = dict(method="td0", settings=S1, seed=0, run_ids=[0], n_episodes=1, n_eval=5,
                       n_hidden=H)
PREDICTION_BAD = LIVE_COMMON_BAD + [
    ("w0 nan", dict(w0=np.full((1, P2), np.nan)), "w0"),
    ("w0 rows vs run_ids", dict(w0=np.zeros((2, P2))), "w0"),
    ("n_eval=0", dict(n_eval=0), "n_eval"),
    ("n_eval=-5", dict(n_eval=-5), "n_eval"),
    ("n_eval=2.5", dict(n_eval=2.5), "n_eval"),
    ("eval_seed=-1", dict(eval_seed=-1), "eval_seed"),
    ("eval_states nan", dict(eval_states=(np.full((3, 2), np.nan), np.zeros(3))),
     "eval_states"),
    ("method of control", dict(method="forward_sarsa_lambda"), "method"),
    ("env unknown", dict(env="pendulum"), "env"),
]

CONTROL_GOOD = dict(method="sarsa_lambda", settings=S1, seed=0, run_ids=[0], n_episodes=1,
                    max_steps=5, n_hidden=H)
CONTROL_BAD = LIVE_COMMON_BAD + [
    ("w0 nan", dict(w0=np.full((1, 3, P2), np.nan)), "w0"),
    ("w0 inf", dict(w0=_inf_at(np.zeros((1, 3, P2)))), "w0"),
    ("w0 2-d", dict(w0=np.zeros((1, P2))), "w0"),
    ("w0 with too few actions", dict(w0=np.zeros((1, 2, P2))), "w0"),
    ("w0 of another network", dict(w0=np.zeros((1, 3, P2 + 1))), "w0"),
    ("width=0", dict(width=0), "width"),
    ("width=2.5", dict(width=2.5), "width"),
    ("width='x'", dict(width="x"), "width"),
    ("truncation unknown", dict(truncation="cut"), "truncation"),
    ("w0 rows vs run_ids", dict(w0=np.zeros((2, 3, P2))), "w0"),
    ("epsilon=nan", dict(epsilon=math.nan), "epsilon"),
    ("epsilon=1.5", dict(epsilon=1.5), "epsilon"),
    ("epsilon=-0.1", dict(epsilon=-0.1), "epsilon"),
    ("max_steps=0", dict(max_steps=0), "max_steps"),
    ("max_steps=2.5", dict(max_steps=2.5), "max_steps"),
    ("method of prediction", dict(method="td_lambda"), "method"),
    ("env unknown", dict(env="pendulum"), "env"),
]


def _ids(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("change,name", [c[1:] for c in PREDICTION_BAD],
                         ids=_ids(PREDICTION_BAD))
def test_run_prediction_rejects(change, name):
    kw = {**PREDICTION_GOOD, **change}
    args = [kw.pop(k) for k in ("method", "settings", "seed", "run_ids", "n_episodes")]
    with pytest.raises(ValueError, match=name):
        run_prediction(*args, **kw)


@pytest.mark.parametrize("change,name", [c[1:] for c in CONTROL_BAD], ids=_ids(CONTROL_BAD))
def test_run_control_rejects(change, name):
    kw = {**CONTROL_GOOD, **change}
    args = [kw.pop(k) for k in ("method", "settings", "seed", "run_ids", "n_episodes")]
    with pytest.raises(ValueError, match=name):
        run_control(*args, **kw)


@pytest.mark.slow  # runs every method at each edge value
def test_edge_values_that_are_fine_still_run():
    """Integral floats are integers (nothing is truncated), zero episodes is a valid empty run,
    an infinite div_bound means "only non-finite values diverge"."""
    res = run_prediction("td0", S1, 0.0, [0.0], 0, n_eval=5, n_hidden=H, div_bound=math.inf)
    assert res.errors.shape == (1, 0)
    res = run_control("sarsa_lambda", S1, 0, np.array([3]), 1.0, max_steps=5, n_hidden=H)
    assert res.returns.shape == (1, 1)


# --------------------------------------------------------------------------- Settings.make

SETTINGS_GOOD = dict(alpha=0.01, lam=0.9, gamma=1.0, eta=0.01, k_max=None)
SETTINGS_BAD = [
    ("alpha='abc'", dict(alpha="abc"), "alpha"),
    ("alpha list with a string", dict(alpha=[0.1, "x"]), "alpha"),
    ("alpha=None", dict(alpha=None), "alpha"),
    ("alpha=[]", dict(alpha=[]), "alpha"),
    ("alpha 2-d", dict(alpha=[[0.1]]), "alpha"),
    ("alpha ragged", dict(alpha=[[0.1], [0.1, 0.2]]), "alpha"),
    ("alpha=nan", dict(alpha=math.nan), "alpha"),
    ("alpha=0", dict(alpha=0.0), "alpha"),
    ("alpha=-1", dict(alpha=-1.0), "alpha"),
    ("alpha=inf", dict(alpha=math.inf), "alpha"),
    ("lam=1.5", dict(lam=1.5), "lam"),
    ("lam=nan", dict(lam=math.nan), "lam"),
    ("lam='x'", dict(lam="x"), "lam"),
    ("gamma=-1", dict(gamma=-1.0), "gamma"),
    ("gamma=nan", dict(gamma=math.nan), "gamma"),
    ("eta=0", dict(eta=0.0), "eta"),
    ("eta=1", dict(eta=1.0), "eta"),
    ("eta=nan", dict(eta=math.nan), "eta"),
    ("k_max=0", dict(k_max=0), "k_max"),
    ("k_max=1.5", dict(k_max=1.5), "k_max"),
    ("k_max='x'", dict(k_max="x"), "k_max"),
    ("k_max=nan", dict(k_max=math.nan), "k_max"),
    ("columns of different lengths", dict(alpha=[0.1, 0.2], lam=[0.1, 0.2, 0.3]), "lengths"),
]


@pytest.mark.parametrize("change,name", [c[1:] for c in SETTINGS_BAD], ids=_ids(SETTINGS_BAD))
def test_settings_make_rejects(change, name):
    with pytest.raises(ValueError, match=name):
        Settings.make(**{**SETTINGS_GOOD, **change})


# --------------------------------------------------------------------------- per-run edges

METHODS = [A.td_lambda, A.true_online_td_lambda, A.online_lambda_return,
           A.offline_lambda_return, A.forward_td_lambda, A.forward_td_lambda_by_definition]


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.__name__)
def test_empty_episode_list_gives_shape_0_by_len_w0(method):
    w = method([], np.zeros(3), approx=Linear(3), alpha=0.1, lam=0.5, gamma=0.9)
    assert w.shape == (0, 3)


BY_DEFINITION_GOOD = dict(episodes=_eps(), w0=np.zeros(2), approx=Linear(2), alpha=0.1,
                          lam=0.5, gamma=0.9)
BY_DEFINITION_BAD = [
    ("alpha=nan", dict(alpha=math.nan), "alpha"),
    ("alpha=0", dict(alpha=0.0), "alpha"),
    ("alpha='x'", dict(alpha="x"), "alpha"),
    ("lam=2", dict(lam=2.0), "lam"),
    ("gamma=-1", dict(gamma=-1.0), "gamma"),
    ("eta=0", dict(eta=0.0), "eta"),
    ("k_max=0", dict(k_max=0), "k_max"),
    ("w0 wrong width", dict(w0=np.zeros(3)), "w0"),
    ("w0 nan", dict(w0=np.full(2, np.nan)), "w0"),
    ("nan features", dict(episodes=_with(0, features=_nan_at)), "episodes"),
    ("inf reward", dict(episodes=_with(0, rewards=_inf_at)), "episodes"),
    ("wrong feature width", dict(episodes=_eps(n=3)), "episodes"),
    ("T=0 episode", dict(episodes=[(np.zeros((1, 2)), np.zeros(0))]), "episodes"),
]


@pytest.mark.parametrize("change,name", [c[1:] for c in BY_DEFINITION_BAD],
                         ids=_ids(BY_DEFINITION_BAD))
def test_forward_td_lambda_by_definition_rejects(change, name):
    kw = {**BY_DEFINITION_GOOD, **change}
    with pytest.raises(ValueError, match=name):
        A.forward_td_lambda_by_definition(kw.pop("episodes"), kw.pop("w0"), **kw)


def count_bad_inputs() -> dict:
    """How many bad inputs this file tries, by kind (for the issue's closing note)."""
    return {"run_recorded": len(RECORDED_BAD), "run_prediction": len(PREDICTION_BAD),
            "run_control": len(CONTROL_BAD), "Settings.make": len(SETTINGS_BAD),
            "forward_td_lambda_by_definition": len(BY_DEFINITION_BAD)}


@pytest.mark.parametrize("missing", ["alpha", "lam", "gamma"])
def test_settings_rows_without_a_required_key_name_it(missing):
    row = {k: v for k, v in dict(alpha=0.1, lam=0.9, gamma=1.0).items() if k != missing}
    with pytest.raises(ValueError, match=repr(missing)):
        Settings.from_rows([row])


def test_no_k_cap_is_none_everywhere_and_zero_only_in_stored_arrays():
    s = Settings.make(alpha=[0.1, 0.2], lam=0.9, gamma=1.0, k_max=[None, 5])
    assert [s.row(i)["k_max"] for i in range(2)] == [None, 5]
    a = s.as_array()
    assert a[:, 4].tolist() == [0.0, 5.0]
    back = Settings.from_array(a)
    assert back.row(0) == s.row(0) and back.row(1) == s.row(1)
    assert back.K().tolist() == s.K().tolist()
