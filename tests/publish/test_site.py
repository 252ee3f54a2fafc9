"""The website's parts that need no browser (ftd_lib/publish/site.py, static_explorers.py).

The kernel-less explorers: every stored frame must be the live explorer's picture at the
frame's slider values. The live side here is the way a student gets there: the explorer built
at the notebook's start values, then its sliders moved (the observe -> redraw path), compared
pixel for pixel and readout for readout with the frame the page shows for those slider
positions (the row-major index the page's script computes).
"""

import io
import itertools
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib.course import widgets as W
from ftd_lib.publish import site
from ftd_lib.publish import static_explorers as SE

REPO = Path(__file__).resolve().parents[2]


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


SMALL = {  # (notebook kwargs, a small grid per slider)
    "one_state_explorer": (dict(alpha=0.15, T=10, v0=0.0),
                           dict(alpha=(0.1, 0.3), T=(5, 10), v0=(0.0, 2.0))),
    "k_explorer": (dict(eta=0.01, gl=0.9), dict(eta=(0.001, 0.1), gl=(0.5, 1.0))),
    "learning_curve_explorer": (dict(alpha=0.015, lam=0.9, runs=2, episodes=3),
                                dict(alpha=(0.002, 0.015), lam=(0.0, 0.9))),
}


@pytest.mark.parametrize("factory", sorted(SMALL))
def test_static_frames_are_the_live_explorers_pictures(factory, tmp_path):
    kwargs, small = SMALL[factory]
    spec = SE.SPECS[factory]
    sliders = [SE.Slider(s.name, s.label, small[s.name], s.fmt) for s in spec.sliders]
    man = SE.build(factory, kwargs, tmp_path, "frames", sliders=sliders)
    sliders = [SE.Slider(s["name"], s["label"], tuple(s["values"])) for s in man["sliders"]]
    n = int(np.prod([len(s.values) for s in sliders]))
    assert len(man["frames"]) == n and len(list(tmp_path.glob("*.png"))) == n
    # the page opens on the notebook's values
    assert [s["values"][p] for s, p in zip(man["sliders"], man["start"], strict=True)] == [
        kwargs[s.name] for s in sliders]
    live = getattr(W, factory)(**kwargs)
    pictures = set()
    for pos in itertools.product(*(range(len(s.values)) for s in sliders)):
        for s, p in zip(sliders, pos, strict=True):  # a student moving the sliders
            live.controls[s.name].value = s.values[p]
        assert not live.errors
        f = man["frames"][SE.index(man, pos)]
        stored = (tmp_path / Path(f["src"]).name).read_bytes()
        assert np.array_equal(_pixels(stored), _pixels(live.png())), pos
        assert f["readout"] == live.readout.value, pos
        pictures.add(stored)
    assert len(pictures) == n  # every grid point is a picture of its own


def test_the_grid_holds_the_notebooks_start_values():
    spec = SE.SPECS["one_state_explorer"]
    g = SE.grid(spec, dict(alpha=0.33, T=10))
    assert 0.33 in g[0].values and list(g[0].values) == sorted(g[0].values)
    assert g[1].values == spec.sliders[1].values  # T = 10 is already there
    assert g[2].values == spec.sliders[2].values  # no start value given


def test_find_call_reads_the_notebooks_explorer_cells():
    found = {}
    for name in ("03_one_state_divergence", "04_forward_td_lambda", "05_nn_prediction"):
        nb = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
        calls = [SE.find_call(c.source) for c in nb.cells if c.cell_type == "code"]
        found[name] = [c for c in calls if c]
    assert [f[0] for f in found["03_one_state_divergence"]] == ["one_state_explorer"]
    assert [f[0] for f in found["04_forward_td_lambda"]] == ["k_explorer"]
    assert [f[0] for f in found["05_nn_prediction"]] == ["learning_curve_explorer"]
    assert set(found["05_nn_prediction"][0][1]) >= {"alpha", "lam", "runs", "episodes"}
    assert SE.find_call("%timeit k_explorer()") is None
    assert SE.find_call("x = k_explorer(eta=e)") == ("k_explorer", {})


def test_html_block_is_one_raw_block_and_escapes_the_manifest():
    man = dict(factory="k_explorer", note="n", start=[1], kwargs={}, sliders=[dict(
        name="eta", label="η", values=[0.1, 0.2], shown=["0.1", "0.2"])], frames=[
        dict(src="a/000.png", readout="</script><b>x</b>"),
        dict(src="a/001.png", readout="<b>y</b>")])
    block = SE.html_block(man, "ftd-x")
    assert "\n\n" not in block  # MyST would end the HTML block at a blank line
    assert block.count("</script>") == 1  # a readout cannot close the data early
    assert 'src="a/001.png"' in block and "<b>y</b>" in block  # opens on the start frame
    assert SE.index(dict(sliders=[dict(values=[1, 2, 3]), dict(values=[1, 2])]), (2, 1)) == 5


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="--repo"):
        site.build_site(tmp_path / "s", repo="not a repo")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ValueError, match="--out .* not empty"):
        site.build_site(tmp_path / "full")
    with pytest.raises(ValueError, match="--out must not be"):
        site.build_site(REPO)


def test_landing_page_names_every_notebook_and_the_lecture_plan():
    names = ["01_td_basics", "03_one_state_divergence"]
    md = site.landing_page(names, {n: n.upper() for n in names}, REPO, "me/course")
    for n in names:
        assert f"]({n}.ipynb)" in md and f"handouts/{n}.pdf" in md
        assert f"gh/me/course/HEAD?urlpath=lab/tree/notebooks/{n}.ipynb" in md
    assert "forward TD(λ)" in md.lower() or "forward td(λ)" in md.lower()
    rows = site._readme_rows(REPO)  # the README's table, an escaped | inside a cell included
    assert len(rows) == 8 and "online and offline" in rows["02_lambda_return"]
    plan = site.lecture_plan()
    assert len(plan) >= 3 and any("Lecture 1" in p for p in plan)
    assert all(p in md for p in plan)


def test_pages_workflow_builds_and_uploads_the_site():
    """The Pages workflow (not runnable here): it parses, builds with the README's command
    into the folder it uploads, and deploys after the build."""
    import yaml

    wf = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    assert wf["permissions"]["pages"] == "write" and wf["permissions"]["id-token"] == "write"
    build, deploy = wf["jobs"]["build"], wf["jobs"]["deploy"]
    runs = "\n".join(s.get("run", "") for s in build["steps"])
    m = re.search(r"python -m ftd_lib site --out (\S+)", runs)
    assert m, runs
    upload = next(s for s in build["steps"] if "upload-pages-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == m.group(1)
    assert deploy["needs"] == "build"
    assert any("deploy-pages" in s.get("uses", "") for s in deploy["steps"])
    assert "python -m ftd_lib site --out" in (REPO / "README.md").read_text()


def test_a_raising_cell_fails_the_build(tmp_path):
    """The site's Sphinx configuration executes every notebook and stops on a cell error."""
    src = tmp_path / "src"
    (src / "_static").mkdir(parents=True)
    (src / "_extra").mkdir()
    (src / "conf.py").write_text(site.CONF.format(repo="me/course"))
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A page\n\nThe math $\\alpha$."),
        nbformat.v4.new_code_cell("print(6 * 7)"),
    ])
    nb.metadata["kernelspec"] = dict(name="python3", display_name="Python 3", language="python")
    nbformat.write(nb, src / "index.ipynb")
    site.sphinx_build(src, tmp_path / "ok", tmp_path / "doctrees")
    page = (tmp_path / "ok" / "index.html").read_text()
    assert "42" in page  # executed at build time (the notebook was saved without outputs)
    assert "_static/mathjax/MathJax.js" in page and "cdn" not in page.lower()
    nb.cells.append(nbformat.v4.new_code_cell("raise ValueError('a broken cell')"))
    nbformat.write(nb, src / "index.ipynb")
    with pytest.raises(RuntimeError, match=r"(?s)index.ipynb.*a broken cell"):
        site.sphinx_build(src, tmp_path / "bad", tmp_path / "doctrees2")
