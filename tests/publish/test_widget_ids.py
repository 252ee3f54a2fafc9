"""Diffs that show only the change: the saved widget models of a notebook are renamed after where
they are shown (:mod:`ftd_lib.publish.widget_ids`), so a fresh run's random ids leave no trace,
and re-executing an unchanged notebook (``scripts/refresh_notebooks.py``) changes no byte."""

import copy
import importlib.util
import json
import os
import random
import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish import run_times, widget_ids

REPO = Path(__file__).resolve().parents[2]
WIDGETS = ("03_one_state_divergence", "04_forward_td_lambda", "05_nn_prediction")
REFRESH = "python scripts/refresh_notebooks.py {nb}"


def _read(stem):
    return nbformat.read(REPO / "notebooks" / f"{stem}.ipynb", as_version=4)


def _state(nb):
    return nb.metadata.widgets[widget_ids.STATE]["state"]


def _redraw(nb, seed=0):
    """``nb`` as a fresh run leaves it: every model id replaced by a new random one, the saved
    state in another order."""
    rng = random.Random(seed)
    text = nbformat.writes(nb)
    ids = sorted(set(_state(nb)) | {m for _, m in widget_ids._roots(nb)})
    fresh = {old: f"{rng.getrandbits(128):032x}" for old in ids}
    out = nbformat.reads(re.sub(r"[0-9a-f]{32}", lambda m: fresh.get(m.group(0), m.group(0)),
                                text), as_version=4)
    state = _state(out)
    keys = list(state)
    rng.shuffle(keys)
    out.metadata.widgets[widget_ids.STATE]["state"] = {k: state[k] for k in keys}
    return out, fresh


@pytest.mark.parametrize("stem", WIDGETS)
def test_stored_notebooks_are_in_the_normal_form(stem):
    nb = _read(stem)
    assert _state(nb), f"{stem} saves no widget state"
    assert widget_ids.normalise(nb) == 0, (
        f"notebooks/{stem}.ipynb carries random widget ids: {REFRESH.format(nb=stem[:2])}")


@pytest.mark.parametrize("stem", WIDGETS)
def test_a_fresh_runs_random_ids_give_the_same_bytes(stem):
    nb = _read(stem)
    widget_ids.normalise(nb)
    before = nbformat.writes(nb)
    for seed in (1, 2):
        redrawn, fresh = _redraw(nb, seed)
        assert nbformat.writes(redrawn) != before  # the ids did change
        assert widget_ids.normalise(redrawn) == len(fresh)
        assert nbformat.writes(redrawn) == before


def test_the_models_and_their_links_survive_the_renaming():
    nb = _read(WIDGETS[0])
    redrawn, fresh = _redraw(nb, 3)
    old = copy.deepcopy(_state(redrawn))
    names = widget_ids.mapping(redrawn)
    widget_ids.normalise(redrawn)
    new = _state(redrawn)
    assert sorted(new) == sorted(names[m] for m in old)  # one model for one, none lost
    for m, model in old.items():  # the same content, with its references renamed
        text = re.sub(r"IPY_MODEL_([0-9a-f]{32})", lambda r: "IPY_MODEL_" + names[r.group(1)],
                      json.dumps(model, sort_keys=True))
        assert json.dumps(new[names[m]], sort_keys=True) == text
    refs = set(re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(new)))
    views = {m for _, m in widget_ids._roots(redrawn)}
    assert views and refs | views <= set(new)
    assert len(refs | views) == len(new) - 1  # reached from the view: all but one orphan


def test_an_edit_elsewhere_renames_no_other_model():
    """Notebook 04 shows several explorers: dropping one (its cell edited) leaves the others'
    ids as they were, and a model's name does not hang on its old id."""
    nb = _read(WIDGETS[1])
    roots = widget_ids._roots(nb)
    assert len(roots) >= 2
    names = widget_ids.mapping(nb)
    first_cell = roots[0][0].split("/")[0]
    edited = copy.deepcopy(nb)
    for cell in edited.cells:
        if cell.get("id") == first_cell:
            cell.outputs = []
    after = widget_ids.mapping(edited)
    kept = {m for a, m in roots[1:]}
    assert kept and all(after[m] == names[m] for m in kept)


def test_the_check_catches_names_that_follow_the_old_ids(monkeypatch):
    """A mutant that names the models by the order of their old (random) ids is told apart by
    the fresh-run test's rule: two redraws give different bytes."""
    def by_order(nb):
        return {m: f"{i:032x}" for i, m in enumerate(sorted(_state(nb)))}

    monkeypatch.setattr(widget_ids, "mapping", by_order)
    nb = _read(WIDGETS[0])
    texts = set()
    for seed in (4, 5):
        redrawn, _ = _redraw(nb, seed)
        widget_ids.normalise(redrawn)
        texts.add(nbformat.writes(redrawn))
    assert len(texts) == 2


def _refresh():
    spec = importlib.util.spec_from_file_location("refresh", REPO / "scripts" /
                                                  "refresh_notebooks.py")
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    return refresh


def test_streams_cut_by_the_kernel_are_joined():
    """Where a kernel cuts a cell's printout into two stream outputs depends on timing (notebook
    04's checks printed one or two): the refresh joins consecutive outputs to the same stream,
    never stdout with stderr or across another output."""
    out = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell("print(1); print(2)")
    cell.outputs = [out("stream", name="stdout", text="a\n"), out("stream", name="stdout",
                                                                    text="b\n"),
                    out("stream", name="stderr", text="w\n"),
                    out("stream", name="stdout", text="c\n"),
                    out("display_data", data={"text/plain": "x"}),
                    out("stream", name="stdout", text="d\n")]
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert _refresh().merge_streams(nb) == 1
    assert [(o.get("name"), o.get("text")) for o in nb.cells[0].outputs] == [
        ("stdout", "a\nb\n"), ("stderr", "w\n"), ("stdout", "c\n"), (None, None),
        ("stdout", "d\n")]


@pytest.mark.slow  # one real execution of the smallest notebook with widgets (about 15 s)
def test_re_executing_an_unchanged_notebook_changes_no_byte(tmp_path):
    """``scripts/refresh_notebooks.py`` on a notebook whose source did not change: executed from a
    fresh kernel (new random widget ids, new timestamps), stripped, joined and renamed by the
    script's own steps, it is the committed file, byte for byte."""
    refresh = _refresh()
    stem = WIDGETS[0]
    path = REPO / "notebooks" / f"{stem}.ipynb"
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(REPO)
    refresh.time_notebooks.run(path, tmp_path, env)
    out = tmp_path / path.name
    nb = nbformat.read(out, as_version=4)
    assert run_times.measured(nb)  # it was executed here
    assert widget_ids.mapping(nb) != {m: m for m in _state(nb)}  # with new random ids
    refresh.store_and_strip(out, nb, {}, {})
    got, want = out.read_text().splitlines(), path.read_text().splitlines()
    changed = [(i, a, b) for i, (a, b) in enumerate(zip(got, want, strict=False))
               if a != b][:3]
    assert got == want, (f"re-executing notebooks/{stem}.ipynb changed {len(changed)}+ lines "
                         f"(first: {changed}); run {REFRESH.format(nb=stem[:2])} and see what "
                         "the diff shows")
