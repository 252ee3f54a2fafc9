"""The claim-5 sensitivity study (ftd_lib.repro.paper.study): its chunks, its runner, its
reading."""

import numpy as np
import pytest

from ftd_lib.engine import Settings, run_control
from ftd_lib.repro import chunks
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.paper import study

pytestmark = pytest.mark.slow  # the claim-5 study run


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_every_chunk_holds_one_variant_and_method_and_names_the_variant(scale):
    fig = figure(study.STUDY, scale)
    cut = chunks.cut_chunks(fig)
    assert len(cut) == len(study.VARIANTS) * 2 * len({c.lam for c in fig.cells})
    seen = set()
    for t in cut:
        cells = {(fig.cells[i].variant, fig.cells[i].method) for i in t.cell_index}
        assert len(cells) == 1
        (name, method), = cells
        v = study.variant(name)
        assert t.method == method and t.variant["name"] == name
        assert (t.variant["hidden"], t.variant["init"], t.variant["inputs"],
                t.variant["start"]) == (v.hidden, v.init, v.inputs, v.start)
        assert t.truncation == v.truncation and t.epsilon == v.epsilon
        assert t.max_steps == (v.max_steps if scale == "paper" else min(v.max_steps, 200))
        assert set(t.settings[:, 2]) == {v.gamma}
        ident = t.identity("engine", "cpu")
        assert ident["variant"]["name"] == name
        seen.add(str(ident))
    assert len(seen) == len(cut)
    fig4 = {str(t.identity("engine", "cpu")) for t in chunks.cut_chunks(figure("fig4-left", scale))}
    assert not seen & fig4


def test_the_default_variant_is_fig4s_setup():
    """A chunk of the default variant gives run_control's numbers (the Fig. 4 path) exactly;
    a chunk of another variant does not."""
    fig = figure(study.STUDY, "quick")
    cut = [t for t in chunks.cut_chunks(fig) if t.method == "sarsa_lambda"]
    default = next(t for t in cut if t.variant["name"] == study.DEFAULT)
    out = chunks.engine_runner(default)
    s = default.settings
    ref = run_control("sarsa_lambda", Settings.make(alpha=s[:, 0], lam=s[:, 1], gamma=s[:, 2]),
                      default.seed, default.run_ids, default.n_episodes, env="mountain_car",
                      epsilon=default.epsilon, max_steps=default.max_steps, engine="batch")
    np.testing.assert_array_equal(out["values"], ref.returns)
    other = next(t for t in cut if t.variant["name"] == "start anywhere"
                 and np.array_equal(t.settings, default.settings))
    assert not np.array_equal(chunks.engine_runner(other)["values"], out["values"])


def _fake_runner(task, *, device, progress):
    """Returns -3000 (no learning) except under 'zero output layer', where both methods
    learn with alpha, forward Sarsa(lambda > 0) more: claim 5 holds there only."""
    a, lam = task.settings[:, 0], task.settings[:, 1]
    y = np.full(task.rows, -3000.0) + 5.0 * (task.run_ids % 2)
    if task.variant["name"] == "zero output layer":
        y = y + 1e5 * a * (1 + (task.method == "forward_sarsa_lambda") * lam)
    return {"values": np.repeat(y[:, None], task.n_episodes, axis=1),
            "diverged": np.zeros(task.rows, bool)}


_fake_runner.name = "fake-v1"


def test_fig4_left_under_a_variant_has_chunks_of_its_own(tmp_path):
    """``reproduce fig4-left --variant NAME``: every cell and chunk names the variant, through
    both stages of the protocol, and none is one of Fig. 4 left's own."""
    from ftd_lib.repro import protocol

    own = {str(t.identity("e", "cpu")) for t in chunks.cut_chunks(figure("fig4-left", "paper"))}
    fig = figure("fig4-left", "paper", variant="γ = 0.99")
    assert {c.variant for c in fig.cells} == {"γ = 0.99"} and {c.gamma for c in fig.cells} == {0.99}
    cut = chunks.cut_chunks(fig)
    assert {t.variant["name"] for t in cut} == {"γ = 0.99"}
    assert not {str(t.identity("e", "cpu")) for t in cut} & own
    seen = []

    def runner(task, *, device, progress):
        seen.append(task.variant["name"])
        return _fake_runner(task, device=device, progress=progress)

    runner.name = "fake-v1"
    protocol.run_protocol("fig4-left", tmp_path, runs=2, variant="γ = 0.99", runner=runner,
                          progress=False, plot=False)
    assert seen and set(seen) == {"γ = 0.99"}
    with pytest.raises(ValueError, match="variant"):
        figure("fig3-left", "paper", variant="γ = 0.99")
    with pytest.raises(ValueError, match="variant"):
        figure("fig4-left", "paper", variant="relu units")
