"""REPORT.md's section on Fig. 4 left under a stored set-up variant
(ftd_lib/repro/variant_report.py), on quick-scale stores made by planted runners (no engine)."""

import numpy as np
import pytest

from ftd_lib.repro import variant_report as vr
from ftd_lib.repro.claims import AGREES, DISAGREES, claims
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.report import render
from ftd_lib.repro.runs import run_figure

VARIANT = "small weights"


def _runner(gain):
    """A runner whose return is -3000 (no learning) plus ``gain(method, alpha, lam)``, and
    +5 on odd runs for both methods alike (so the paired difference has no noise)."""
    def run(task, *, device, progress):
        a, lam = task.settings[:, 0], task.settings[:, 1]
        y = -3000.0 + 5.0 * (task.run_ids % 2) + np.array(
            [gain(task.method, x, la) for x, la in zip(a, lam, strict=True)])
        return {"values": np.repeat(y[:, None], task.n_episodes, axis=1),
                "diverged": np.zeros(task.rows, bool)}

    run.name = "planted-v1"
    return run


# forward Sarsa(lam) learns with alpha, the more the larger lam: ahead at every lam > 0
HOLDS = _runner(lambda m, a, lam: 1e5 * a * lam * (m == "forward_sarsa_lambda"))
# Sarsa(lam) learns at lam = 0.5, forward Sarsa(lam) at lam = 0.9 only
FAILS = _runner(lambda m, a, lam: 1e5 * a * (0.5 if m == "sarsa_lambda" and lam == 0.5 else
                                             0.9 if m != "sarsa_lambda" and lam == 0.9 else 0))
NOTHING = _runner(lambda m, a, lam: 0.0)
# forward Sarsa(lam) ahead by 3 at lam = 0.5 (two SE of the difference: 2 * 2.5 * sqrt 2)
NOISE = _runner(lambda m, a, lam: (100 * a if lam == 0.5 else 1e5 * a * lam)
                * (m == "forward_sarsa_lambda"))


def _store(where, runner, variant=VARIANT):
    fig = figure("fig4-left", "quick", variant=variant)
    return run_figure(fig, where, runner=runner, progress=False, plot=False)


def _section(text: str) -> str:
    start = text.index("## Fig. 4 left under the")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_no_variant_folder_no_section(tmp_path):
    _store(tmp_path, NOTHING, variant=None)  # this project's Fig. 4 left only
    assert "claim 5 again" not in render(tmp_path)
    (tmp_path / "variants" / "empty").mkdir(parents=True)  # a folder without a figure
    _store(tmp_path / "variants" / "default", NOTHING, variant=None)  # no variant: not one
    assert vr.stored_variants(tmp_path) == []
    assert "claim 5 again" not in render(tmp_path)


def test_a_variant_where_claim5_holds_is_labelled_and_agrees(tmp_path):
    _store(tmp_path, NOTHING, variant=None)
    res = _store(tmp_path / "variants" / "small-weights", HOLDS)
    assert vr.variant_name(res) == VARIANT
    text = render(tmp_path)
    sec = _section(text)
    assert sec.startswith(f"## Fig. 4 left under the '{VARIANT}' set-up (claim 5 again)\n")
    assert "stage 1 only" not in sec.lower()
    assert "A set-up variant, not the paper's set-up as this project chose it" in sec
    assert "every initial weight times 0.1" in sec and "variants/small-weights/" in sec
    # the verdict is claims.py's rule on the variant's data, the default's on its own
    assert vr.claim5(res).status == AGREES
    assert "**✅ agrees**" in sec
    default = vr.load_results("fig4-left", tmp_path)
    assert vr.claim5(default).status == DISAGREES
    assert ("claim 5 **agrees** by the rule of `ftd_lib/repro/claims.py`; under this "
            "project's set-up (Fig. 4 left above) it **disagrees**") in sec
    # Fig. 4 left's own table (best alpha per lambda): -3000 + 2.5 (the odd run), forward
    # + 1e5 * 0.03 * 0.9 = 2700 at alpha = 0.03; Sarsa(lambda) ties, the first alpha kept
    assert "| 0.9 | -2998 ± 2.5 [α = 0.0075, grid edge] | -298 ± 2.5 [α = 0.03, grid edge] |" in sec
    # the paired difference, worked out by hand: 1e5 * 0.03 * lam, the same runs' noise
    rows = {r["lam"]: r for r in vr.comparison_rows(res)}
    assert rows[0.5]["diff"] == pytest.approx(1500) and rows[0.5]["diff_se"] == 0
    assert rows[0.9]["side"] == "forward ahead" and rows[0.0]["side"].startswith("one algorithm")
    assert "| 0.5 | +1500 ± 0 (forward ahead) | +0 ± 0 (equal (forward not better)) |" in sec
    assert "ahead by more than two standard errors at λ ∈ {0.5, 0.9}" in sec
    # the default set-up's own section is untouched, the variant comes after it
    assert text.index("## Mountain car control, best α per λ (Fig. 4 left)") < text.index(sec)


def test_a_variant_where_claim5_fails_disagrees(tmp_path):
    res = _store(tmp_path / "variants" / "small-weights", FAILS)
    v = vr.claim5(res)
    assert v.status == DISAGREES and "forward is not better at λ ∈ {0.5}" in v.evidence
    assert v == next(x for x in claims({"fig4-left": res}) if x.number == 5)
    sec = _section(render(tmp_path))
    assert "**❌ disagrees**" in sec and "claim 5 **disagrees**" in sec
    rows = {r["lam"]: r for r in vr.comparison_rows(res)}
    assert rows[0.5]["side"] == "Sarsa(λ) ahead" and rows[0.5]["diff"] == pytest.approx(-1500)
    assert rows[0.9]["side"] == "forward ahead"
    assert "behind by more than two at λ ∈ {0.5}" in sec
    # no default Fig. 4 left stored: no column, no comparison sentence
    assert "this project's set-up" not in sec


def test_only_the_pilot_is_stored_says_stage_1_only(tmp_path):
    pilot = _store(tmp_path / "variants" / "small-weights" / "pilot", HOLDS)
    (stored,) = vr.stored_variants(tmp_path)
    assert stored[2] is True and stored[1].path == pilot.path
    sec = _section(render(tmp_path))
    assert sec.startswith(f"## Fig. 4 left under the '{VARIANT}' set-up (claim 5 again) — "
                          "stage 1 only\n")
    assert f"**Stage 1 only ({pilot.meta['runs']} runs)**" in sec
    assert "variants/small-weights/pilot/" in sec and "a pilot, whose verdict may change" in sec
    assert "Below paper scale" not in sec  # the variant's own label replaces the warning
    assert "### Step sizes, stage 1" not in sec  # the pilot is the section itself
    # once stage 2 is stored, it is the section's figure and the pilot a subsection of it
    _store(tmp_path / "variants" / "small-weights", HOLDS)
    sec = _section(render(tmp_path))
    assert "stage 1 only" not in sec.lower() and "### Step sizes, stage 1" in sec


def test_a_difference_within_noise_agrees_by_the_means_and_says_so(tmp_path):
    res = _store(tmp_path / "variants" / "small-weights", NOISE)
    rows = {r["lam"]: r for r in vr.comparison_rows(res)}
    assert rows[0.5]["diff"] == pytest.approx(3) and rows[0.5]["side"] == (
        "forward ahead within 2 SE")
    v = vr.claim5(res)
    assert v.status == AGREES and "within two standard errors at λ ∈ {0.5}" in v.evidence
    sec = _section(render(tmp_path))
    assert "| 0.5 | +3 ± 0 (forward ahead within 2 SE) |" in sec
    assert "ahead by more than two standard errors at λ ∈ {0.9}" in sec
