"""Every notebook is also a slideshow (jupyterlab-rise): a slide per section, the imports
skipped, fragments where a figure builds up, widgets on the slides."""

from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish import slides

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
EVERY_NOTEBOOK = sorted((REPO / "notebooks").glob("*.ipynb"))  # appendices included


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_a_slideshow(path):
    nb = nbformat.read(path, as_version=4)
    assert slides.problems(nb) == []
    types = [c.metadata["slideshow"]["slide_type"] for c in nb.cells]
    sections = sum(c.cell_type == "markdown" and c.source.startswith("## ") for c in nb.cells)
    assert types.count("slide") == sections + 1  # the title and one per section
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    assert types[first_code] == "skip"


def test_rules():
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    cells = [md("# T"), code("import x"), md("## 1. A"), code("plot_x()"),
             code("print(1)", metadata={"tags": ["nbval-check-output"]}),
             md("**Reading.** ..."), md("### Ex"),
             md("text"), code("one_state_explorer()"),
             code("answer = None", metadata={"tags": ["exercise"]}),
             code('hint("nb01.discounted_return")', metadata={"tags": ["hint"]})]
    assert [slides.slide_type(cells, i) for i in range(len(cells))] == [
        "slide", "skip", "slide", "-", "fragment", "fragment", "subslide", "-", "-", "skip",
        "skip"]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert slides.apply(nb) == len(cells) and slides.problems(nb) == []
    nb.cells[8].metadata["slideshow"]["slide_type"] = "skip"
    assert any("widget hidden" in p for p in slides.problems(nb))
    nb.cells[8].metadata["slideshow"]["slide_type"] = "fragment"
    assert slides.apply(nb) == 0  # a type set by hand is kept
    assert slides.apply(nb, overwrite=True) == 1
    nb.cells[9].metadata["slideshow"]["slide_type"] = "-"
    assert any("answer cell" in p for p in slides.problems(nb))


@pytest.mark.parametrize("path", EVERY_NOTEBOOK, ids=lambda p: p.stem)
def test_every_section_heading_starts_a_slide(path):
    """Every ``## `` line of every notebook is the first line of a markdown cell whose slide
    type is ``slide`` (a heading further down a cell would sit at the bottom of the previous
    section's slide)."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.lstrip().splitlines()
        fence = False
        for k, line in enumerate(lines):
            fence ^= line.startswith("```")
            if line.startswith("## ") and not fence:
                assert k == 0, f"cell {i}: {line!r} is line {k + 1} of its cell"
                assert cell.metadata["slideshow"]["slide_type"] == "slide", (i, line)


def test_buried_heading_is_a_problem():
    md = nbformat.v4.new_markdown_cell
    cells = [md("# T"), md("## 1. A\n\ntext\n\n## 2. B"), md("```\n## not a heading\n```")]
    nb = nbformat.v4.new_notebook(cells=cells)
    slides.apply(nb)
    assert slides.buried_headings(cells[1]) == ["## 2. B"]
    assert slides.buried_headings(cells[2]) == []
    assert [p for p in slides.problems(nb) if "## 2. B" in p] and len(
        [p for p in slides.problems(nb) if "first line" in p]) == 1


@pytest.mark.parametrize("path", EVERY_NOTEBOOK, ids=lambda p: p.stem)
def test_slideshow_needs_no_network_and_no_missing_file(path):
    """The RISE theme is one whose font ships with jupyterlab-rise (no Google Fonts @import in
    its CSS), and the two style sheets RISE requests for the notebook exist."""
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata["rise"]["theme"] == slides.RISE["theme"] == "white"
    for css in slides.css_paths(path):
        assert css.is_file(), f"RISE requests {css.relative_to(REPO)}: missing (a 404 offline)"
        text = css.read_text()
        assert "@import" not in text and "http" not in text.replace("http://hakim", ""), css
    theme_css = _theme_css(slides.RISE["theme"])
    assert "Source Sans Pro" in theme_css and "fonts.googleapis" not in theme_css


def _theme_css(theme):
    """The CSS text of a reveal.js theme as jupyterlab-rise bundles it: its webpack map
    (``"./white.css":[module, chunk]``) names the chunk file ``<chunk>.bundle.js``."""
    import re

    import jupyterlab_rise

    static = Path(jupyterlab_rise.__file__).parent / "static"
    key = re.compile(r'"\./' + theme + r'\.css":\[\d+,(\d+)\]')
    for js in static.glob("*.js"):
        m = key.search(js.read_text(errors="replace"))
        if m:
            return (static / f"{m.group(1)}.bundle.js").read_text(errors="replace")
    raise AssertionError(f"no bundled reveal.js theme {theme!r} in {static}")


def test_simple_theme_would_need_the_network():
    """Why the theme changed: the bundled "simple" theme imports its fonts from Google."""
    assert "fonts.googleapis.com" in _theme_css("simple")


def test_css_paths():
    assert slides.css_paths("notebooks/03_x.ipynb") == [
        Path("notebooks/rise.css"), Path("notebooks/03_x.css")]


def test_rise_settings_never_scroll():
    """A scrolling slide cannot be read from the back of a hall: RISE shows each slide whole
    (what fits is measured in tests/course/test_browser.py and test_deck_browser.py)."""
    assert slides.RISE["scroll"] is False and slides.RISE["center"] is False
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T")])
    nb.metadata["rise"] = {"scroll": True}
    slides.apply(nb)
    assert nb.metadata["rise"] == slides.RISE and slides.problems(nb) == [
        "no fragment: let at least one figure build up"]
