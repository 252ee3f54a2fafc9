"""``python -m ftd_lib handouts``: one PDF per notebook and a notation sheet, offline. The test
opens every PDF (pypdf), checks its page count, that the math is typeset (no TeX source of the
notebook's formulas left in the text), that no worked solution is printed, that the widget
cells' saved pictures are there, and looks at a page as an image (pypdfium2): not blank. That
page is saved as test-output/handout_page.png.

Without Chromium the tests are skipped, except under ``CI=true``, where they must run.
"""

import json
import os
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from conftest import built_once

from ftd_lib.course.roles import is_solution
from ftd_lib.publish import handouts as ho

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

pytestmark = [pytest.mark.skipif(
    not Path(ho.CHROMIUM).exists() and not UNDER_CI,
    reason=f"Chromium not installed ({ho.CHROMIUM}); the handouts test runs under CI=true"),
    pytest.mark.slow]

MATH = re.compile(r"\$\$?([^$]+?)\$\$?")


@pytest.fixture(scope="module")
def pdfs():
    def build(folder):
        names = [p.name for p in ho.handouts(folder / "handouts")]
        (folder / "handouts.json").write_text(json.dumps(names))

    folder = built_once("handouts", build)  # once for this code
    names = json.loads((folder / "handouts.json").read_text())
    return {Path(n).stem: folder / "handouts" / n for n in names}


def _text(path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def test_one_pdf_per_notebook_and_a_notation_sheet(pdfs):
    from pypdf import PdfReader

    assert set(pdfs) == {"00_notation"} | {p.stem for p in NOTEBOOKS}
    assert 1 <= len(PdfReader(pdfs["00_notation"]).pages) <= 2
    for p in NOTEBOOKS:
        n = len(PdfReader(pdfs[p.stem]).pages)
        assert 4 <= n <= 60, (p.stem, n)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_math_is_typeset_and_no_solution_is_printed(path, pdfs):
    text = _text(pdfs[path.stem])
    nb = nbformat.read(path, as_version=4)
    # code may print TeX on purpose (a docstring): only formulas that no code cell shows count
    code = "\n".join(c.source + "".join(o.get("text", "") for o in c.get("outputs", []))
                     for c in nb.cells if c.cell_type == "code")
    formulas = {m.strip() for c in nb.cells if c.cell_type == "markdown" and not is_solution(c)
                for m in MATH.findall(c.source) if "\\" in m and len(m.strip()) >= 8
                and m.strip() not in code}
    assert len(formulas) > 5, path.name  # the notebook has math for the check to look at
    raw = [f for f in formulas if f in text]
    assert not raw, raw[:3]
    assert "Worked solution" not in text and "BEGIN SOLUTION" not in text
    # the title is printed as text
    title = next(c.source for c in nb.cells if c.cell_type == "markdown").splitlines()
    words = [w for w in re.findall(r"[A-Za-z]{5,}", next(t for t in title if t.startswith("#")))]
    assert all(w in text for w in words[:3]), words


def test_notation_sheet(pdfs):
    text = _text(pdfs["00_notation"])
    flat = re.sub(r"\s+", "", text)  # long code names wrap inside their table cell
    for name in ("U_sync", "c_final", "k_bound", "delta_p", "interim_lambda_return", "§12.3"):
        assert name in flat, name
    assert "\\mid" not in text and "\\hat" not in text


def test_widget_cells_show_their_saved_picture(pdfs):
    from pypdf import PdfReader

    path = REPO / "notebooks" / "03_one_state_divergence.ipynb"
    nb = ho.printable(nbformat.read(path, as_version=4))
    pictures = sum("image/png" in o.get("data", {}) for c in nb.cells
                   for o in c.get("outputs", []))
    images = sum(len(page.images) for page in PdfReader(pdfs[path.stem]).pages)
    assert images >= pictures > 0, (images, pictures)


def test_a_page_looks_like_a_page(pdfs):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdfs["04_forward_td_lambda"])
    page = doc[1].render(scale=1.5).to_pil()
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    page.save(out / "handout_page.png")
    img = page.convert("L")
    a = np.asarray(img, dtype=float)
    ink = np.mean(a < 128)
    assert 0.01 < ink < 0.5, ink  # text and math on it, not blank, not black
    assert a.std() > 20


def test_a_non_empty_out_is_refused(tmp_path):
    (tmp_path / "x.pdf").write_text("keep")
    with pytest.raises(ValueError, match="--force"):
        ho.handouts(tmp_path, notebooks=[])


def test_the_command_line(tmp_path):
    import subprocess
    import sys

    (tmp_path / "x.pdf").write_text("keep")
    r = subprocess.run([sys.executable, "-m", "ftd_lib", "handouts", "--out", str(tmp_path)],
                       cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 2 and "--force" in r.stderr
    out = tmp_path / "one"
    r = subprocess.run([sys.executable, "-m", "ftd_lib", "handouts", "--out", str(out),
                        str(REPO / "notebooks" / "01_td_basics.ipynb")], cwd=REPO,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["00_notation.pdf", "01_td_basics.pdf"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_exercises_are_printed_as_questions_with_words_not_symbols(path, pdfs):
    """Paper cannot run a cell: an exercise is its question, its hint (printed open) and the
    line saying where it is run; no unrun verdict, no stub, no hint call, no emoji that the
    build machine's fonts may print as an empty box."""
    from ftd_lib.publish import present

    text = _text(pdfs[path.stem])
    flat = re.sub(r"\s+", " ", text)
    nb = nbformat.read(path, as_version=4)
    exercises = sum("exercise" in c.metadata.get("tags", []) for c in nb.cells)
    for unrun in ("No answer yet", "NotImplementedError", 'hint("', "💡", "NBVAL",
                  "click to open"):
        assert unrun not in text, unrun
    # a verdict symbol that stays (the claims tables' "✅ agrees") has its word beside it
    assert not re.search(r"[✅❌](?!\s*\w)", text), re.findall(r"[✅❌].{0,12}", text)
    assert flat.count("Your turn: answer this in the notebook") == exercises
    hints = sum("hint" in c.metadata.get("tags", []) for c in nb.cells)
    assert flat.count("Hint (") >= hints
    assert present.RUN_IT.startswith("*✎ Your turn")
