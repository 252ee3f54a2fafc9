"""Notebook 07's module: GAE on data, the cut weights, PPO in the paper's terms, the target
ages, the exercise's check, and the paper's sentences about DQN quoted verbatim."""

import contextlib
import io
import os
import re
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.course import nb07_modern_lambda_returns as nb07
from ftd_lib.course.exercises import nb07 as ex07
from ftd_lib.returns import gae

REPO = Path(__file__).resolve().parents[2]
#: the paper's LaTeX source, which the repository does not carry (it is not ours to share): beside
#: the repository, in ../shared/paper/, or where FTD_PAPER_TEX names it
TEX = Path(os.environ.get("FTD_PAPER_TEX") or
           REPO.parent / "shared" / "paper" / "van_seijen_2016_forward_td_lambda.tex")


def test_gae_on_data_matches_eq2_across_an_episode_end():
    g = nb07.gae_on_data(T=160)
    assert len(g["ends"]) >= 1 and g["ends"][0] < g["T"] - 1  # an episode ends inside
    assert g["max_difference"] < 1e-10
    # the values are not flat (trained a little), so the check is not trivial
    assert np.ptp(g["values"]) > 1.0
    # without the terminals the advantages before the episode's end would differ
    e = g["ends"][0]
    no_term = gae(g["rewards"], g["values"], 1.0, 0.9)
    assert abs(no_term[e] - g["advantages"][e]) > 1e-3


def test_cut_weights_by_hand():
    c = nb07.cut_weights(1.0, 0.5, eta=0.1, block=4, n=9)
    assert c["K"] == 4  # 0.5^4 = 0.0625 <= 0.1 < 0.5^3
    assert c["dist_block"].tolist() == [4, 3, 2, 1, 4, 3, 2, 1, 4]
    assert c["w_block"][:4] == pytest.approx([0.0625, 0.125, 0.25, 0.5])
    assert np.all(c["w_sliding"] == 0.0625)
    with pytest.raises(ValueError, match="gamma"):
        nb07.cut_weights(1.0, 1.0)


def test_ppo_in_paper_terms():
    rows = nb07.ppo_in_paper_terms(0.99, 0.95, blocks=(128, 2048), eta=0.01)
    gl = 0.99 * 0.95
    for r in rows:
        assert r["K"] == 76  # ceil(log 0.01 / log 0.9405) = ceil(75.07)
        assert r["eta_first"] == pytest.approx(gl ** r["B"])
        # states whose distance to the cut is at least K: B - K + 1 of B
        assert r["share_meeting_eta"] == pytest.approx((r["B"] - 75) / r["B"])
    assert "| 128 |" in nb07.ppo_markdown(rows)


def test_target_ages():
    a = nb07.target_ages(100, K=10, C=7, B=5)
    assert a["target_net"][0][:9].tolist() == [0, 1, 2, 3, 4, 5, 6, 0, 1]
    assert a["block"][0][:6].tolist() == [0, 1, 2, 3, 4, 0]
    assert np.all(a["forward"][1] == 9) and np.all(a["forward"][0] == 0)


def test_rollout_from_episodes():
    eps = [(np.arange(4.0)[:, None], np.ones(3)), (10 + np.arange(6.0)[:, None], 2 * np.ones(5))]
    X, r, d = nb07.rollout_from_episodes(eps, 5)
    assert X[:, 0].tolist() == [0, 1, 2, 10, 11, 12] and r.tolist() == [1, 1, 1, 2, 2]
    assert d.tolist() == [0, 0, 1, 0, 0]
    with pytest.raises(ValueError, match="T"):
        nb07.rollout_from_episodes(eps, 8)


def _said(fn) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ok = ex07.check_gae(fn)
    return ("ok " if ok else "no ") + out.getvalue()


def _own_gae(r, v, g, lam, d, mask=True):
    """A student's GAE, the slow obvious way: the backward recursion, terminals masked."""
    A, acc = np.zeros(len(r)), 0.0
    for t in reversed(range(len(r))):
        keep = 1.0 - d[t] if mask else 1.0
        acc = r[t] + g * v[t + 1] * keep - v[t] + g * lam * keep * acc
        A[t] = acc
    return A


def test_exercise_check_tells_the_mistakes_apart():
    assert _said(None).startswith("no ❌ No answer yet")
    assert "returns None" in _said(lambda *a: None)
    assert _said(_own_gae).startswith("ok ✅")
    said = _said(lambda r, v, g, lam, d: gae(r, v, g, lam, d))  # the library's, wrapped
    assert said.startswith("no ❌") and "library's own gae" in said
    said = _said(lambda r, v, g, lam, d: _own_gae(r, v, g, lam, d, mask=False))
    assert said.startswith("no ❌") and "terminals" in said
    said = _said(lambda r, v, g, lam, d: np.zeros(3))
    assert said.startswith("no ❌") and "shape" in said

    def raises(*a):
        raise IndexError("oops")

    assert "IndexError" in _said(raises)


@pytest.mark.skipif(not TEX.is_file(), reason=f"the paper's LaTeX source is not at {TEX} (it is "
                    "not in the repository: put it at ../shared/paper/ beside the repository, or "
                    "name it in FTD_PAPER_TEX, to check the quoted sentences against it)")
def test_the_dqn_sentences_are_the_papers():
    tex = " ".join(TEX.read_text().split())
    for s in nb07.PAPER_ON_DQN:
        s = s.replace("(Mnih et al. 2015)", r"\citep{mnih:nature15}")
        assert s in tex


def test_the_notebook_quotes_the_dqn_sentences():
    src = (REPO / "notebooks" / "src" / "07_modern_lambda_returns.md").read_text()
    flat = " ".join(re.sub(r"^> ?", "", src, flags=re.M).split())
    for s in nb07.PAPER_ON_DQN:
        assert s in flat


def _stored_block():
    from ftd_lib.course import live

    res = live.stored("block-lambda")
    if res is None:
        pytest.skip("no stored block-lambda")
    return res


def test_live_against_stored_measures_both_alike():
    """A 'live' run made of the stored runs' first 3 episodes at 3 step sizes: its errors must
    equal the stored first-3-episode column exactly; the verdict column is the stored best."""
    from types import SimpleNamespace

    from ftd_lib.repro.results import Results

    res = _stored_block()
    a = res.arrays
    alphas = np.unique(a["alpha"])[[4, 8, 12]]
    keep = np.flatnonzero(np.isin(a["alpha"], alphas))
    first3 = a["curve_mean"][keep, :3].mean(axis=1)
    arrays = {k: v[keep] for k, v in a.items()}
    arrays["metric"] = np.repeat(first3[:, None], 2, axis=1)
    arrays["diverged"] = np.zeros(arrays["metric"].shape, bool)
    live = Results(res.figure, arrays, dict(res.meta, episodes=3))
    table = nb07.live_against_stored(SimpleNamespace(live=live, stored=res))
    assert table["episodes"] == (3, res.meta["episodes"])
    summ = res.summary()
    assert [r["curve"] for r in table["rows"]] == list(summ)
    for r in table["rows"]:
        mine = keep[arrays["curve"] == r["curve"]]
        assert r["live"] == pytest.approx(a["curve_mean"][mine, :3].mean(axis=1).min())
        assert r["stored_first"] == pytest.approx(r["live"])
        assert r["stored"] == pytest.approx(np.nanmin(summ[r["curve"]]["y"]))
    md = nb07.live_against_stored_markdown(table)
    assert md.count("\n| ") == len(table["rows"]) + 1 and "Live agrees with the stored runs" in md
    assert "stored, all 50: **forward TD(λ)**" in md
    with pytest.raises(ValueError, match="stored"):
        nb07.live_against_stored(SimpleNamespace(live=live, stored=None))


def test_stored_reading_table_only_is_the_table_of_the_full_reading():
    _stored_block()
    full, table = nb07.stored_reading(), nb07.stored_reading(table_only=True)
    assert table.splitlines()[0].startswith("| curve | best α |")
    assert all(line in full for line in table.splitlines())
    assert "Reading (computed)" in full and "Reading" not in table
