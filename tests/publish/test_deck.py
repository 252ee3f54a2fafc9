"""The static decks without a browser: what a deck's HTML loads exists in the deck's folder and
is local, a widget shows its saved picture, notes go to the speaker view, and the CLI refuses
bad input in one line. (tests/publish/test_deck_browser.py opens the decks in Chromium.)"""

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish import deck
from ftd_lib.publish import lectures as L

REPO = Path(__file__).resolve().parents[2]
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    out = tmp_path_factory.mktemp("decks")
    return out, deck.write_decks(out)


def test_one_deck_per_lecture_loading_only_local_files(decks):
    out, paths = decks
    assert [p.name for p in paths] == [f"lecture{lec.number}.html" for lec in L.LECTURES]
    for path in paths:
        html = path.read_text()
        # what the page loads: scripts, images, style sheets (not the links a reader may follow)
        refs = re.findall(r'src="([^"#]+)"', html) + re.findall(
            r'<link[^>]*href="([^"#]+)"', html)
        remote = [r for r in refs if re.match(r"[a-z]+://", r) or r.startswith("//")]
        assert remote == [], f"{path.name} loads {remote[:3]}"
        local = [r.split("?")[0] for r in refs if not r.startswith("data:")]
        assert f"{deck.ASSETS}/reveal.js/dist/reveal.js" in local
        assert f"{deck.ASSETS}/reveal.js/plugin/notes/notes.js" in local
        assert f"{deck.ASSETS}/mathjax/MathJax.js" in local
        missing = [r for r in local if not (out / r).is_file()]
        assert missing == [], f"{path.name} refers to missing files {missing}"
        assert "<aside class=\"notes\">" in html
        assert "data:image/png;base64," in html
        assert "require.js" not in html and "jquery" not in html.lower().split("<body")[0]
    theme = (out / deck.ASSETS / "reveal.js/dist/theme/white.css").read_text()
    for css in re.findall(r"@import url\(([^)]+)\)", theme):
        font_css = out / deck.ASSETS / "reveal.js/dist/theme" / css
        assert font_css.is_file()
        fonts = re.findall(r"url\(['\"]?([^)'\"?#]+)", font_css.read_text())
        assert fonts and all((font_css.parent / f).is_file() for f in fonts), fonts


def test_lecture_takes_the_planned_cells():
    lec = L.LECTURES[2]  # 06 from §3, then 07
    nb = deck.lecture_notebook(lec)
    src06 = L.read("06_nn_control")
    want = len(L.segment_cells(src06, lec.segments[0])) + len(L.read(
        "07_modern_lambda_returns").cells)
    assert len(nb.cells) == 2 + want  # the title slide and its notes
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## 3." in text and "## 1. From TD(λ) to Sarsa(λ)" not in text
    assert nb.cells[1].metadata["slideshow"]["slide_type"] == "notes"
    assert "| min |" in nb.cells[1].source


def test_widget_shows_its_saved_picture():
    nb = L.read("03_one_state_divergence")
    k = next(i for i, c in enumerate(nb.cells)
             for o in c.get("outputs", []) if WIDGET in o.get("data", {}))
    saved = next(o["data"]["image/png"] for o in nb.cells[k].outputs
                 if WIDGET in o.get("data", {}))
    out = deck.deck_notebook(nb)
    data = [o["data"] for o in out.cells[k].outputs if "data" in o]
    assert all(WIDGET not in d for d in data)
    assert any(d.get("image/png") == saved for d in data)


def test_cli_refuses_bad_input_in_one_line(tmp_path):
    (tmp_path / "x").write_text("")
    for args in (["--out", str(tmp_path)], ["--out", str(tmp_path / "x")],
                 ["--out", str(tmp_path / "new"), "--notebooks", "nope.ipynb"]):
        r = subprocess.run([sys.executable, "-m", "ftd_lib", "slides", *args],
                           capture_output=True, text=True, cwd=REPO, timeout=120)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and ("--out" in lines[0] or "--notebooks" in lines[0]), lines


def test_deck_notebook_leaves_the_original_alone():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("w()", outputs=[
        nbformat.v4.new_output("display_data", data={WIDGET: {"model_id": "m"},
                                                      "image/png": "iVBO", "text/plain": "W"})])])
    nb.metadata["widgets"] = {"state": {}}
    out = deck.deck_notebook(nb)
    assert out.cells[0].outputs[0]["data"] == {"image/png": "iVBO"}
    assert "widgets" not in out.metadata
    assert WIDGET in nb.cells[0].outputs[0]["data"] and "widgets" in nb.metadata
