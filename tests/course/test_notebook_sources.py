"""Every notebook has its text form (MyST Markdown, ``notebooks/src/``), and the two agree.

The ``.ipynb`` keeps the outputs of a fresh run; the ``.md`` is the same cells without outputs,
the file to read and diff in review (paired by ``jupytext.toml``; ``jupytext --sync
notebooks/*.ipynb`` brings a pair back in step after editing either side). The ``.ipynb``
carries no volatile metadata (cell execution timestamps); the cells' run times live in
``notebooks/run_times.json``. ``python scripts/refresh_notebooks.py NN`` does all of it after an
edit: sync, execute, store new cells' run times, strip, sync back.
"""

from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
SOURCES = REPO / "notebooks" / "src"


def test_every_notebook_and_every_text_form_has_its_pair():
    assert NOTEBOOKS, "no notebooks found"
    assert {p.stem for p in NOTEBOOKS} == {p.stem for p in SOURCES.glob("*.md")}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_text_form_is_in_sync(notebook):
    text = (SOURCES / f"{notebook.stem}.md").read_text(encoding="utf-8")
    expected = jupytext.writes(jupytext.read(notebook), fmt="md:myst")
    assert text == expected, (
        f"notebooks/src/{notebook.stem}.md is not the text form of {notebook.name}: run "
        f"`jupytext --sync {notebook.relative_to(REPO)}` (the newer file wins)")


def test_pairing_is_configured():
    config = (REPO / "jupytext.toml").read_text()
    assert 'formats = "notebooks///ipynb,notebooks/src///md:myst"' in config


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_test_markers_are_tags_not_text(notebook):
    """nbval's markers are cell tags (ftd_lib.course.roles): no reader sees them in a cell's
    text, and every notebook still has seeded numbers that CI compares."""
    import nbformat

    from ftd_lib.course import roles

    nb = nbformat.read(notebook, as_version=4)
    in_text = [i for i, c in enumerate(nb.cells) if "NBVAL_" in c.source]
    assert not in_text, f"{notebook.name}: cells {in_text} carry an nbval comment in their text"
    checked = [c for c in nb.cells if roles.has(c, roles.CHECK_OUTPUT)]
    assert len(checked) >= 3, f"{notebook.name}: only {len(checked)} cells tagged for nbval"
    unknown = {t for c in nb.cells for t in roles.tags(c) if not roles.is_name(t)} \
        - set(roles.ROLES)
    assert not unknown, f"{notebook.name}: tags {sorted(unknown)} are no role of roles.ROLES"
    names = [n for c in nb.cells for n in roles.cell_names(c)]
    assert len(names) == len(set(names)), f"{notebook.name}: a cell name twice: {names}"


def test_every_code_cell_has_its_measured_run_time():
    """notebooks/run_times.json holds a run time for every code cell, for its present code (the
    lecture plan reads it, not the notebook's timestamps), and no cell id is in two notebooks."""
    import nbformat

    from ftd_lib.publish import run_times

    data = run_times.load()
    seen = {}
    for notebook in NOTEBOOKS:
        nb = nbformat.read(notebook, as_version=4)
        todo = run_times.missing(notebook.stem, nb, data)
        assert not todo, (
            f"{notebook.name}: {len(todo)} code cells without a run time for their present code "
            f"in notebooks/run_times.json: run python scripts/refresh_notebooks.py "
            f"{notebook.stem[:2]}")
        for c in nb.cells:
            assert seen.setdefault(c.id, notebook.stem) == notebook.stem, (c.id, notebook.stem)
    assert set(data["notebooks"]) == {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_volatile_metadata(notebook):
    """A committed notebook carries no cell execution timestamps (nbclient's
    ``metadata.execution``: new on every run, they made every re-execution a diff of hundreds
    of lines); the run times they gave live in notebooks/run_times.json."""
    import json

    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    stamped = [i for i, c in enumerate(cells) if "execution" in c.get("metadata", {})]
    assert not stamped, (
        f"{notebook.name}: cells {stamped[:8]}{' …' if len(stamped) > 8 else ''} carry execution "
        "timestamps: run python scripts/refresh_notebooks.py --strip-only (it first stores the "
        "run times of cells that have none)")
