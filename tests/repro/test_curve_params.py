"""A curve's own lambda and its method's own parameters in an experiment file
(``[[curves]]``: ``lam``/``lams``, ``params = {...}``): checked by the method's row, forwarded
to the method, part of the chunk's identity (only where a file names them, so no stored chunk
moves); ``k_max = 0`` refused. Shown with n-step Sarsa: ``experiments/cartpole-n-step.toml``
runs it as forward Sarsa(λ = 1, K_max = 4) in the kernel and by its own reference, with the
same returns. About 40 s."""

import numpy as np
import pytest

from ftd_lib.repro import cli, store
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.experiment import ExperimentError, experiment_path, load_experiment
from ftd_lib.repro.results import load_results

NSTEP = str(experiment_path("cartpole-n-step"))
REF = "4-step Sarsa (its own method)"
FAST = "4-step Sarsa (forward Sarsa, λ = 1, K_max = 4)"


def test_curves_carry_their_own_lambda_and_params_into_the_chunks():
    fig, _ = load_experiment(NSTEP, "quick")
    by_curve = {c: [x for x in fig.cells if x.curve == c] for c in fig.curves}
    assert {x.lam for x in by_curve["forward Sarsa(0.9)"]} == {0.9}
    assert {(x.lam, x.k_max, x.params) for x in by_curve[FAST]} == {(1.0, 4, ())}
    assert {(x.method, x.lam, x.params) for x in by_curve[REF]} == {
        ("n_step_sarsa", 0.0, (("n", 4),))}  # lambda: one fixed value (n-step ignores it)
    chunks = cut_chunks(fig)
    idents = [t.identity("r", "cpu") for t in chunks]
    assert [i.get("params") for i in idents] == [None, None, {"n": 4}]
    assert [t.params for t in chunks] == [None, None, {"n": 4}]
    # the describe() of the definition keeps params only where a cell has them
    cells = fig.describe()["cells"]
    assert [c.get("params") for c in cells if c["curve"] == REF] == [{"n": 4}] * 3
    assert all("params" not in c for c in cells if c["curve"] != REF)


def test_another_n_is_another_chunk():
    a = cut_chunks(load_experiment(NSTEP, "quick")[0])[-1]
    b = cut_chunks(load_experiment(NSTEP, "quick", ["curves.2.params.n=2"])[0])[-1]
    assert (a.params, b.params) == ({"n": 4}, {"n": 2})
    assert store.chunk_key(a.identity("r", "cpu")) != store.chunk_key(b.identity("r", "cpu"))


@pytest.mark.parametrize("item, says", [
    ("curves.2.params.n=0", "curves.2.params: params.n of n_step_sarsa: n must be an integer"),
    ("curves.2.params.m=3", "curves.2.params: params.m: n_step_sarsa has no parameter 'm'"),
    ("curves.2.params={}", "curves.2.params: params.n: n_step_sarsa needs it"),
    ("curves.2.params=4", "curves.2.params: must be a table"),
    ("curves.0.params.n=3", "curves.0.params: params.n: forward_sarsa_lambda has no parameter"),
    ("curves.1.k_max=0", "curves.1.k_max: must be an integer >= 1 (0 is not \"no cap\""),
    ("grid.k_max=0", "grid.k_max: must be an integer >= 1"),
    ("curves.1.lam=1.5", "curves.1.lam: lam must be in [0, 1]"),
    ("curves.1.lams=[]", "curves.1.lam: give lam or lams, not both"),
    ("curves.0.lams=[]", "curves.0.lams: must be a non-empty list"),
    ("curves.0.lams=[0.5, 2]", "curves.0.lams: lam must be in [0, 1]"),
    ("curves.2.lam=0.5", "curves.2.lam: n_step_sarsa does not use it (it ignores lam, eta"),
    ("curves.2.eta=0.1", "curves.2.eta: n_step_sarsa does not use it"),
    ("curves.2.params.n=true", "params.n of n_step_sarsa: n must be an integer >= 1, got True"),
    ("curves.2.params.n='\"3\"'", "params.n of n_step_sarsa: n must be an integer >= 1"),
    ("curves.2.params.n=[]", "curves.2.params.n: an empty list"),
    ("curves.2.params.n=2,2", "curves.2.params.n: a value is given twice"),
    ("curves.2.params.n=2,0", "params.n of n_step_sarsa: n must be an integer >= 1, got 0"),
    ("report.compare_with=nobody", "report.compare_with: no curve 'nobody' (the curves: "),
    ("report.compare=['forward Sarsa(0.9)', 'x']", "report.compare: no curve 'x'"),
    ("x=lam", "x: the curve(s) '4-step Sarsa (its own method)' ignore λ"),
])
def test_bad_curve_keys_are_one_line_naming_the_key(item, says):
    with pytest.raises(ExperimentError) as e:
        load_experiment(NSTEP, "quick", [item])
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{NSTEP}: ") and says in msg, msg


def test_settings_a_method_ignores_neither_key_its_chunks_nor_follow_the_grid():
    """n-step Sarsa ignores lambda, eta and K_max: another grid.lams or grid.eta changes
    forward Sarsa's chunks, not n-step Sarsa's."""
    base = cut_chunks(load_experiment(NSTEP, "quick")[0])
    other = cut_chunks(load_experiment(NSTEP, "quick",
                                       ["grid.lams=0.5", "grid.eta=0.1", "grid.k_max=3"])[0])
    keys = [[store.chunk_key(t.identity("r", "cpu")) for t in ts] for ts in (base, other)]
    assert keys[0][-1] == keys[1][-1]  # n-step Sarsa: the same chunk
    assert keys[0][0] != keys[1][0]  # forward Sarsa(0.9): lambda 0.5 now
    assert {tuple(r) for r in base[-1].settings[:, 1:]} == {(0.0, 0.99, 0.01, 0.0)}


def test_a_list_of_a_params_values_is_a_sweep_one_curve_each():
    fig, _ = load_experiment(NSTEP, "quick", ["curves.2.params.n=2,4,8"])
    names = [f"{REF} n={n}" for n in (2, 4, 8)]
    assert [c for c in fig.curves if c.startswith(REF)] == names
    for n, name in zip((2, 4, 8), names, strict=True):
        assert {x.params for x in fig.cells if x.curve == name} == {(("n", n),)}
    assert {t.params["n"] for t in cut_chunks(fig) if t.params} == {2, 4, 8}
    # the sweep's n = 4 is the file's own n = 4 curve's chunk: nothing recomputed for it
    one = cut_chunks(load_experiment(NSTEP, "quick")[0])[-1]
    swept = [t for t in cut_chunks(fig) if t.params == {"n": 4}]
    assert [store.chunk_key(t.identity("r", "cpu")) for t in swept] == [
        store.chunk_key(one.identity("r", "cpu"))]


def test_the_reference_and_the_fast_curve_give_the_same_returns(tmp_path, capsys):
    """``run`` on the file: the n-step curve by n-step Sarsa (``params = {n = 4}``; the
    kernel runs its compiled form, held to its reference by ``check_method``) and by
    forward Sarsa (λ = 1, K_max = 4) store the same returns, divergence included; forward
    Sarsa(0.9) differs."""
    out = tmp_path / "o"
    rc = cli.main(["run", NSTEP, "--scale", "quick", "--out", str(out), "--workers", "1",
                   "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    res = load_results("cartpole-n-step", out)
    m = {c: res["metric"][res["curve"] == c] for c in (REF, FAST, "forward Sarsa(0.9)")}
    np.testing.assert_array_equal(m[REF], m[FAST])
    assert np.isnan(m[REF]).any()  # alpha 0.1 diverges, in both
    assert not np.array_equal(m[REF], m["forward Sarsa(0.9)"], equal_nan=True)
    engines = res.meta["provenance"]
    assert "kernel" in str(engines)
