"""The website's parts that need no browser (ftd_lib/publish/site.py, static_explorers.py).

The kernel-less explorers: every stored frame must be the live explorer's picture at the
frame's slider values. The live side here is the way a student gets there: the explorer built
at the notebook's start values, then its sliders moved (the observe -> redraw path), compared
pixel for pixel and readout for readout with the frame the page shows for those slider
positions (the row-major index the page's script computes).
"""

import io
import itertools
import json
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib.course import colab, roles
from ftd_lib.course import widgets as W
from ftd_lib.course.stepper import algorithm1_stepper
from ftd_lib.publish import landing, present, site, site_conf
from ftd_lib.publish import static_explorers as SE

pytestmark = pytest.mark.slow  # explorer pictures and a site build

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
    assert [f[0] for f in found["04_forward_td_lambda"]] == ["k_explorer",
                                                              "algorithm1_stepper"]
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
    # a screen reader hears the value, the readout is live, the picture's alt is its readout
    assert 'aria-valuetext="η = 0.2 (2 of 2)"' in block
    assert 'aria-live="polite"' in block and 'alt="y"' in block
    assert "data-step" not in block
    assert "data-step=\"1\"" in SE.html_block(dict(man, steps=True), "ftd-x")


def test_the_stepper_is_a_kernel_less_explorer_of_its_own_frames(tmp_path):
    small = (SE.Slider("frame", "t", (0, 3, 5), "{:d}", control=True),)
    man = SE.build("algorithm1_stepper", {}, tmp_path, "frames", sliders=small)
    assert man["steps"] and [s["values"] for s in man["sliders"]] == [[0, 3, 5]]
    live = algorithm1_stepper()
    for p, t in enumerate((0, 3, 5)):
        live.controls["frame"].value = t  # a student moving the stepper to t
        f = man["frames"][p]
        stored = (tmp_path / Path(f["src"]).name).read_bytes()
        assert np.array_equal(_pixels(stored), _pixels(live.png())), t
        assert f["readout"] == live.readout.value and f"t = {t}" in f["alt"]
    # the full grid: every recorded frame, t = 0 .. T
    full = SE.build("algorithm1_stepper", {}, tmp_path / "all", "all")
    assert full["sliders"][0]["values"] == list(range(len(live.frames)))
    assert len({f["src"] for f in full["frames"]}) == len(live.frames)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="repo must be OWNER/NAME"):
        site.build_site(tmp_path / "s", repo="not a repo")
    with pytest.raises(ValueError, match="ref must be"):
        site.build_site(tmp_path / "s", repo="me/course", ref="a b")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ValueError, match="--out .* not empty"):
        site.build_site(tmp_path / "full")
    with pytest.raises(ValueError, match="--out must not be"):
        site.build_site(REPO)


def test_landing_page_names_every_notebook_what_it_teaches_and_the_lecture_plan(tmp_path):
    names = ["01_td_basics", "03_one_state_divergence"]
    goals = {n: landing.teaches(nbformat.read(REPO / "notebooks" / f"{n}.ipynb",
                                              as_version=4)) for n in names}
    root = tmp_path  # a students' copy: its README is the template's
    (root / "README.md").write_text((REPO / "release" / "README.students.md").read_text())
    md = landing.landing_page(names, {n: n.upper() for n in names}, goals, root,
                              "me/course", "students-abc")
    for n in names:
        assert f"]({n}.ipynb)" in md and f"handouts/{n}.pdf" in md
        assert f"gh/me/course/students-abc?urlpath=lab/tree/notebooks/{n}.ipynb" in md
        assert f"colab.research.google.com/github/me/course/blob/students-abc/notebooks/{n}" \
            in md
        row = next(line for line in md.splitlines() if line.startswith(f"| [{n.upper()}]"))
        assert len(row.split(" | ")[1]) > 40, row  # what it teaches: not empty
    assert "return" in goals["01_td_basics"] and "linear solve" in goals["01_td_basics"]
    plan = landing.lecture_plan()
    assert len(plan) >= 3 and any("Lecture 1" in p for p in plan)
    assert all(p in md for p in plan)
    assert landing.ZIP in md and "arxiv.org/abs/1608.05151" in md and "CC BY 4.0" in md
    assert "@misc{" in md and "## Where to ask" in md and ":hidden:" in md
    local = landing.landing_page(names, {n: n for n in names}, goals, root, None, "x")
    assert "mybinder.org/v2" not in local and "colab.research" not in local


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_every_notebook_says_what_it_teaches(path):
    goals = landing.learning_goals(nbformat.read(path, as_version=4))
    assert 3 <= len(goals) <= 8, goals
    assert all(len(g) > 10 and not g.endswith(";") for g in goals), goals


def test_site_notebook_reads_right_on_a_page_nobody_runs(tmp_path):
    nb = nbformat.read(REPO / "notebooks" / "01_td_basics.ipynb", as_version=4)
    snb, mans = site.site_notebook(nb, "01_td_basics", tmp_path, "me/course", "students-abc")
    assert mans == []
    shown = [c for c in snb.cells if "remove-cell" not in roles.tags(c)]
    text = "\n".join(c.source for c in shown)
    assert present.RUN_IT in text and "💡" not in text and "<details>" in text
    assert 'hint("' not in "\n".join(c.source for c in shown if c.cell_type == "code")
    assert not any(roles.has(c, roles.EXERCISE) for c in shown)
    assert not any(roles.has(c, roles.COLAB) for c in snb.cells)
    assert snb.cells[0].source == site.ALT_CELL and "remove-cell" in roles.tags(snb.cells[0])
    notes = [c for c in snb.cells if c.metadata.get("slideshow", {}).get("slide_type") ==
             "notes"]
    assert notes and all(c.source.startswith("::::::{container} ftd-notes\n") and
                         c.source.endswith("\n::::::") for c in notes)
    # under the title, its study time (from the saved outputs), then the links
    from ftd_lib.publish.study_time import study_text

    title = next(k for k, c in enumerate(snb.cells) if c.source.startswith("# "))
    assert snb.cells[title + 1].source == f'<p class="ftd-study">{study_text(nb)}</p>'
    assert snb.cells[title + 2].source.startswith('<p class="ftd-handouts">')
    assert sum("ftd-study" in c.source for c in snb.cells) == 1
    # the run links under the title: the students' copy at the pinned ref
    links = next(c.source for c in snb.cells if "ftd-handouts" in c.source)
    assert colab.colab_url("me/course", "students-abc", "01_td_basics.ipynb") in links
    assert colab.binder_url("me/course", "students-abc", "01_td_basics.ipynb") in links
    snb, _ = site.site_notebook(nb, "01_td_basics", tmp_path, None)
    assert "mybinder" not in json.dumps(snb) and "colab.research" not in json.dumps(snb)


def test_repository_links_are_checked_at_build_time():
    ok = site.repository_links("[the report](../results/REPORT.md)", "me/c", "v1")
    assert ok == "[the report](https://github.com/me/c/blob/v1/results/REPORT.md)"
    head = next(line for line in (REPO / "results" / "REPORT.md").read_text().splitlines()
                if line.startswith("## "))
    anchor = site._slug(head[3:])
    assert site.repository_links(f"[x](../results/REPORT.md#{anchor})", "me/c") .endswith(
        f"#{anchor})")
    with pytest.raises(ValueError, match="no heading"):
        site.repository_links("[x](../results/REPORT.md#no-such-claim)", "me/c")
    with pytest.raises(ValueError, match="does not have"):
        site.repository_links("[x](../results/NO_SUCH.md)", "me/c")
    assert site.repository_links("[x](../results/REPORT.md)", None) == (
        "x (`results/REPORT.md` in the students' copy)")
    assert site._slug("Claim 5: mountain car, best α per λ") == (
        "claim-5-mountain-car-best-α-per-λ")


def test_footer_and_theme_name_the_licence_the_build_and_the_pinned_copy():
    info = dict(date="2026-11-27", commit="0123456789abcdef")
    foot = site_conf.footer_html("me/course", info)
    assert "CC BY 4.0" in foot and "MIT" in foot and "2026-11-27" in foot
    assert "github.com/me/course/tree/students" in foot and "0123456789abcdef" not in foot
    opts = site_conf.theme_options("me/course", "students-abc", foot)
    assert opts["repository_branch"] == "students-abc"
    assert opts["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert "launch_buttons" not in site_conf.theme_options(None, "x", foot)
    conf = site_conf.conf_py(opts, "2026")
    assert "ftd-site.js" in conf
    ns = {}
    ns["__file__"] = "/site/src/conf.py"  # as Sphinx runs it
    exec(compile(conf, "conf.py", "exec"), ns)
    # MathJax 3 from the site, no menu (it made formulas tab stops), TeX's delimiters and $...$
    assert ns["mathjax_path"] == "mathjax3/tex-chtml.js"
    assert ns["mathjax3_config"]["options"] == {"enableMenu": False}
    assert ns["mathjax3_config"]["tex"]["inlineMath"] == [["$", "$"], ["\\(", "\\)"]]
    assert (REPO / "LICENSE").is_file() and (REPO / "LICENSE-TEXT").is_file()
    assert "MIT License" in (REPO / "LICENSE").read_text()
    assert "Attribution 4.0 International" in (REPO / "LICENSE-TEXT").read_text()
    assert "ftdcourse2026" in landing.citation()
    # a group author in double braces (one corporate name, not a surname), "_" escaped,
    # TD braced against lower-casing, the course's address when there is one
    bib = landing.citation(url="https://github.com/me/course")
    assert "author = {{" in bib and "\\_" in bib and "Forward {TD}(λ)" in bib
    assert "url    = {https://github.com/me/course}," in bib
    assert ns["copyright"].startswith("2026, ")
    assert "author.html" not in str(opts["footer_content_items"])
    # the README's symbols as words on the landing page (no emoji font: empty boxes)
    assert landing.in_words("it says ✅ or ❌; a folded 💡 hint") == ("it says Correct or Not "
                                                                    "yet; a folded hint")


def test_students_zip_holds_the_copy_under_one_folder(tmp_path):
    rel = tmp_path / "rel"
    (rel / "notebooks").mkdir(parents=True)
    (rel / "notebooks" / "a.ipynb").write_text("{}")
    (rel / "README.md").write_text("r")
    import zipfile

    size = site.students_zip(rel, tmp_path / "copy.zip")
    names = zipfile.ZipFile(tmp_path / "copy.zip").namelist()
    assert sorted(names) == ["copy/README.md", "copy/notebooks/a.ipynb"] and size > 0


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
    # the run buttons launch the students' copy of this build: the tag the workflow pushes,
    # made from the zip the site offers, before the site is deployed
    assert '--ref "$FTD_STUDENTS_REF"' in runs and "--repo" in runs
    assert build["env"]["FTD_STUDENTS_REF"] == (
        "students-${{ github.event.workflow_run.head_sha || github.sha }}")
    # it publishes only a commit of main whose full suite passed (tests.yml), that very commit
    on = wf.get("on", wf.get(True))
    assert on["workflow_run"] == {"workflows": ["tests"], "types": ["completed"],
                                  "branches": ["main"]} and "push" not in on
    assert "workflow_dispatch" not in on  # a run by hand is the tests workflow's, then this
    assert "conclusion == 'success'" in build["if"]
    checkout = next(s for s in build["steps"] if "checkout" in s.get("uses", ""))
    assert checkout["with"]["ref"] == "${{ github.event.workflow_run.head_sha || github.sha }}"
    assert "ftd-course-students.zip" in runs and 'git tag "$FTD_STUDENTS_REF"' in runs
    assert wf["permissions"]["contents"] == "read"  # the copy goes to its own repository
    names = [s.get("name", s.get("uses", "")) for s in build["steps"]]
    assert names.index("Publish the students' copy the site launches (the zip on its landing "
                       "page)") < names.index("actions/upload-pages-artifact@v5")
    # torch's CPU build from its own index in setup_env.sh alone (no second index for every
    # install), a pip cache, Node-24 majors of the actions, no CI override
    assert "PIP_EXTRA_INDEX_URL" not in build["env"]
    setup = next(s for s in build["steps"] if "setup-python" in s.get("uses", ""))
    assert setup["with"]["cache"] == "pip"
    majors = {s["uses"].split("@")[0]: int(s["uses"].split("@v")[1])
              for job in (build, deploy) for s in job["steps"] if "uses" in s}
    assert majors == {"actions/checkout": 5, "actions/setup-python": 6,
                      "actions/configure-pages": 6, "actions/upload-pages-artifact": 5,
                      "actions/deploy-pages": 5}
    # the link previews' absolute addresses: the build is given the Pages site's address,
    # from configure-pages, a step before it
    build_step = next(s for s in build["steps"] if "python -m ftd_lib site" in s.get("run", ""))
    assert '--url "$FTD_SITE_URL"' in build_step["run"]
    assert build_step["env"]["FTD_SITE_URL"] == "${{ steps.pages.outputs.base_url }}"
    assert names.index("actions/configure-pages@v6") < names.index(build_step["name"])
    assert "python -m ftd_lib site --out" in (REPO / "README.md").read_text()


def test_a_raising_cell_fails_the_build(tmp_path):
    """The site's Sphinx configuration executes every notebook and stops on a cell error."""
    src = tmp_path / "src"
    (src / "_static").mkdir(parents=True)
    (src / "_extra").mkdir()
    (src / "conf.py").write_text(site_conf.conf_py(
        site_conf.theme_options("me/course", "v1", "<p>footer</p>"), "2026"))
    for name in ("ftd-search-scorer.js", "favicon.svg"):  # what the conf names, as the build
        shutil.copy2(site.STATIC / name, src / "_static" / name)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A page\n\nThe math $\\alpha$."),
        nbformat.v4.new_code_cell(site.ALT_CELL, metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("print(6 * 7)"),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                                  "plt.plot([1, 2]); plt.title(r'Step size $\\alpha$');"),
    ])
    nb.metadata["kernelspec"] = dict(name="python3", display_name="Python 3", language="python")
    nbformat.write(nb, src / "index.ipynb")
    site.sphinx_build(src, tmp_path / "ok", tmp_path / "doctrees")
    page = (tmp_path / "ok" / "index.html").read_text()
    assert "42" in page  # executed at build time (the notebook was saved without outputs)
    # the search's scorer, read from the conf's folder whatever the working directory
    assert "titleHasAll" in (tmp_path / "ok" / "_static" / "language_data.js").read_text()
    # MathJax 3 from the site itself (site_static/mathjax3), whose files are there to copy
    assert "_static/mathjax3/tex-chtml.js" in page and "cdn" not in page.lower()
    # a link preview: a description and Open Graph data; no placeholder byline
    desc = site_conf.DESCRIPTION
    assert f'<meta name="description" content="{desc}"' in page.replace("&#x27;", "'")
    assert '<meta property="og:title" content="A page' in page
    # no empty general index; the theme's mode defaults to the system's (no "Got invalid
    # theme mode" on every load)
    assert not (tmp_path / "ok" / "genindex.html").exists()
    assert 'localStorage.getItem("mode") || "auto"' in page
    assert "By the course" not in page
    mj = site.STATIC / "mathjax3"
    assert (mj / "tex-chtml.js").stat().st_size > 10**6 and (mj / "LICENSE").is_file()
    assert len(list((mj / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))) >= 20
    # the figure's alt text is its title (ftd_lib.publish.figure_alt), not its file name
    assert 'alt="Figure: Step size α"' in page and 'alt="_images/' not in page
    assert "<p>footer</p>" in page and "from ftd_lib.publish" not in page
    nb.cells.append(nbformat.v4.new_code_cell("raise ValueError('a broken cell')"))
    nbformat.write(nb, src / "index.ipynb")
    with pytest.raises(RuntimeError, match=r"(?s)index.ipynb.*a broken cell"):
        site.sphinx_build(src, tmp_path / "bad", tmp_path / "doctrees2")


def test_figure_alt_text_is_the_figures_titles_in_words():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ftd_lib.publish import figure_alt as FA

    fig, (a, b, c) = plt.subplots(1, 3)
    fig.suptitle(r"Step size $\alpha$ against $\hat V(S_t)$")
    a.set_title(r"TD($\lambda$), $\gamma\lambda = 0.9$")
    b.set_xlabel("episode")
    b.set_ylabel("RMS error")
    c.axis("off")
    assert FA.figure_alt(fig) == ("Figure: Step size α against V(St); TD(λ), γλ = 0.9; "
                                  "RMS error against episode")
    # a colour bar is no panel: its label is not read as one
    fig.colorbar(a.imshow([[0, 1]]), ax=a, label="trace")
    assert "trace" not in FA.figure_alt(fig)
    plt.close(fig)
    # a panel with one label is that label, no dangling
    # "against"; a title that says "Figure 1" gets no "Figure:" before it
    fig, (a, b) = plt.subplots(1, 2)
    a.set_title("Figure 1: random walk")
    b.set_ylabel("trace")
    assert FA.figure_alt(fig) == "Figure 1: random walk; trace"
    plt.close(fig)
    # panels that plot the same under different titles: what they plot said once, then the
    # titles, then the lines the legend names (a title alone, "200 runs; 1000 runs", said
    # nothing of what is drawn)
    fig, (a, b) = plt.subplots(1, 2)
    for ax, title in ((a, "200 runs"), (b, "1000 runs")):
        ax.plot([1, 2], label="TD(0)")
        ax.plot([2, 1], label=r"forward TD($\lambda$)")
        ax.set(title=title, xlabel=r"step size $\alpha$", ylabel="RMS error")
    a.legend()
    assert FA.figure_alt(fig) == ("Figure: RMS error against step size α: 200 runs; 1000 runs; "
                                  "lines: TD(0), forward TD(λ)")
    b.set_ylabel("weight")  # panels that plot different things: each says its own
    assert FA.figure_alt(fig) == ("Figure: 200 runs (RMS error against step size α); 1000 runs "
                                  "(weight against step size α); lines: TD(0), forward TD(λ)")
    for k in range(9):
        b.plot([k, k], label=f"run {k}")
    b.legend()
    assert FA.figure_alt(fig).endswith("run 2, run 3, …")  # at most MAX_LEGEND lines named
    plt.close(fig)
    empty = plt.figure()
    assert FA.figure_alt(empty) == "Figure"
    # the kernel's PNG formatter then hands MyST-NB the alt as the output's metadata
    wrapped = FA._with_alt(lambda fig, fmt="png", **kw: b"PNG" if fmt == "png" else "<svg/>")
    assert wrapped(empty, "png") == (b"PNG", {"alt": "Figure"})
    assert wrapped(empty, "svg") == "<svg/>"
    plt.close(empty)


def test_every_site_static_file_ships_in_the_package():
    """A wheel of ftd_lib carries the site's static files, MathJax 3's subfolders included:
    pyproject's package-data patterns, globbed from the package as setuptools does, match every
    file under ``site_static/`` (``site_static/*`` alone misses ``mathjax3/es5/...``)."""
    import tomllib

    root = Path(site.__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())[
        "tool"]["setuptools"]["package-data"]["ftd_lib.publish"]
    package = Path(site.__file__).parent
    matched = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    files = {p for p in (package / "site_static").rglob("*") if p.is_file()}
    assert any("mathjax3" in p.parts for p in files)
    assert files - matched == set(), sorted(str(p) for p in files - matched)[:5]


def test_a_kernels_figures_carry_alt_text_and_text_size_together():
    """Both PNG hooks in one kernel (the site's alt text, the deck's smallest text and dpi):
    each adds its own metadata and keeps the other's, whichever was installed first, and a
    second install adds nothing twice."""
    from nbclient import NotebookClient

    from ftd_lib.figure_text import KEY_DPI, KEY_PT

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in (
        "from ftd_lib import figure_text\nfrom ftd_lib.publish import figure_alt\n"
        "figure_text.install(); figure_alt.install(); figure_text.install()",
        "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(dpi=90)\nax.set_title('a title', fontsize=11)\n"
        "ax.tick_params(labelsize=9)")])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    png = [o for o in nb.cells[1].outputs if "image/png" in o.get("data", {})]
    assert len(png) == 1
    md = png[0]["metadata"]["image/png"]
    assert md == {"alt": "Figure: a title", KEY_PT: 9.0, KEY_DPI: 90.0}


def test_a_deck_links_a_notebook_as_its_page():
    """On the site, a deck's link to a notebook file (which the
    site does not have) goes to that notebook's page, one folder up; other links stay."""
    from ftd_lib.publish import deck

    html = ('<a href="A1_reproduction_engineering.ipynb">A1</a> '
            '<a href="./05_nn_prediction.ipynb#claim-4">claim 4</a> '
            '<a href="https://github.com/x/y/blob/main/a.ipynb">elsewhere</a>')
    out = site.deck_links_to_pages(html)
    assert 'href="../A1_reproduction_engineering.html"' in out
    assert 'href="../05_nn_prediction.html#claim-4"' in out
    assert 'href="https://github.com/x/y/blob/main/a.ipynb"' in out
    # a link out of the notebooks' folder (the site has no results/): to GitHub at the ref,
    # or, without a repository, its words unlinked (it was a dead link on lecture 3's deck)
    report = '<a href="../results/REPORT.md#claim-5">the report</a>'
    assert site.deck_links_to_pages(report, "me/course", "v1") == (
        '<a href="https://github.com/me/course/blob/v1/results/REPORT.md#claim-5">the report</a>')
    assert site.deck_links_to_pages(report) == "the report"
    assert 'href="../A1_reproduction_engineering.html"' in site.deck_links_to_pages(html, "me/c")
    # the slide number's colours: 7:1, not reveal.js's 2.84:1
    assert ".slide-number { background-color: #595959; color: #fff; }" in deck.DECK_CSS


def test_pages_drop_the_icon_script_and_preload_mathjax_fonts(tmp_path):
    """The theme's fontawesome.js (542 KB gzipped, beside the webfont its stylesheet already
    loads) is cut from every page Sphinx wrote and from _static; MathJax's two commonest fonts
    are preloaded, with the right path from a page one folder down; the decks are left alone."""
    from ftd_lib.publish import page_weight

    head = ('<html><head><meta charset="utf-8" />'
            '<link rel="stylesheet" href="{p}_static/styles/theme.css" />'
            '<link rel="preload" as="script" href="{p}_static/scripts/theme.js" />'
            '<script defer src="{p}_static/scripts/fontawesome.js?digest=9"></script>'
            '<script defer="defer" src="{p}_static/mathjax3/tex-chtml.js?v=1"></script>'
            '<script src="{p}_static/documentation_options.js?v=2"></script>'
            '<script src="{p}_static/doctools.js?v=3"></script>'
            '<script src="{p}_static/ftd-site.js?v=4"></script>'
            '<script src="{p}_static/searchtools.js"></script>'
            '<script src="{p}searchindex.js"></script></head><body>x</body></html>')
    (tmp_path / "_static" / "scripts").mkdir(parents=True)
    (tmp_path / "_static" / "scripts" / "fontawesome.js").write_text("x" * 1000)
    (tmp_path / "_static" / "scripts" / "bootstrap.js").write_text("y")
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(head.format(p=""))
    (tmp_path / "sub" / "page.html").write_text(head.format(p="../"))
    (tmp_path / "search.html").write_text(head.format(p=""))
    (tmp_path / "slides").mkdir()
    deck_html = "<html><head><script src='_deck/reveal.js'></script></head></html>"
    (tmp_path / "slides" / "lecture1.html").write_text(deck_html)
    got = page_weight.lighten(tmp_path)
    assert got == {"pages": 3, "bytes_saved": 1000,
                   "icon_fonts": {"codepoints": 0, "fonts": {}}}  # no icon font here
    assert not (tmp_path / "_static" / "scripts" / "fontawesome.js").exists()
    assert (tmp_path / "_static" / "scripts" / "bootstrap.js").exists()
    for page, prefix in (("index.html", ""), ("sub/page.html", "../")):
        text = (tmp_path / page).read_text()
        assert "fontawesome" not in text and "tex-chtml.js" in text
        for font in page_weight.MATHJAX_FONTS:
            assert f'href="{prefix}{page_weight.FONT_DIR}/{font}" as="font"' in text
            assert (page_weight.REPO_FONTS / font).is_file()
        # MathJax asked for first, at high priority, at the very address its script tag
        # names (so the tag reuses it), before any stylesheet; the search scripts deferred
        early = (f'<link rel="preload" href="{prefix}_static/mathjax3/tex-chtml.js?v=1" '
                 'as="script" fetchpriority="high">')
        assert text.index(early) < text.index("stylesheet") < text.index("<script")
        assert text.index('<meta charset="utf-8" />') < text.index(early)
        assert f'<script defer src="{prefix}searchindex.js"></script>' in text
        assert f'<script defer src="{prefix}_static/searchtools.js"></script>' in text
        for deferred in ("_static/doctools.js?v=3", "_static/ftd-site.js?v=4"):
            assert f'<script defer src="{prefix}{deferred}"></script>' in text
        # the head's inline scripts use DOCUMENTATION_OPTIONS at once: it stays blocking
        assert f'<script src="{prefix}_static/documentation_options.js?v=2">' in text
    search = (tmp_path / "search.html").read_text()  # the search page needs them at once
    assert '<script src="searchindex.js"></script>' in search and "fetchpriority" in search
    assert '<script src="_static/doctools.js?v=3"></script>' in search  # searchtools needs it
    assert (tmp_path / "slides" / "lecture1.html").read_text() == deck_html
    assert page_weight.lighten(tmp_path)["pages"] == 0  # idempotent


def test_figure_tags_carry_text_size_picture_size_and_lazy_loading(tmp_path):
    """A figure's text-size class (figure_alt.text_class, from the kernel's metadata) becomes
    the decks' data-ftd-text-pt/data-ftd-dpi; a local PNG gets its own width and height (read
    from the file); every picture loads lazily; a second pass changes nothing."""
    import io

    from PIL import Image

    from ftd_lib.publish import figure_alt, site_figures

    (tmp_path / "_images").mkdir()
    buf = io.BytesIO()
    Image.new("RGB", (1890, 540)).save(buf, "PNG")
    (tmp_path / "_images" / "a.png").write_bytes(buf.getvalue())
    cls = figure_alt.text_class(12.5, 135)
    assert cls == "ftd-text-12_5pt-135dpi" and figure_alt.text_class(float("inf"), 90) == ""
    assert figure_alt.text_class(None, 90) == ""
    tag = f'<img alt="Figure: x" class="{cls}" src="_images/a.png" />'
    page = f"<p>{tag}</p><img src=\"logo.svg\" alt=\"\">"
    out = site_figures.figures_page(page, tmp_path)
    assert ('<img alt="Figure: x" src="_images/a.png" data-ftd-text-pt="12.5" '
            'data-ftd-dpi="135" width="1890" height="540" loading="lazy" decoding="async">'
            in out), out
    assert '<img src="logo.svg" alt="" loading="lazy" decoding="async">' in out
    assert site_figures.figures_page(out, tmp_path) == out
    assert site_figures.png_size(tmp_path / "missing.png") is None
    # an explorer's picture says its text size the same way
    assert SE.text_size_attributes({"ftd_text_pt": 13.0, "ftd_dpi": 90.0}) == (
        ' data-ftd-text-pt="13" data-ftd-dpi="90"')
    assert SE.text_size_attributes({"ftd_text_pt": float("inf"), "ftd_dpi": 90.0}) == ""


def test_a_page_says_its_own_goals_once_and_its_head_once():
    """A notebook page's link preview is its own learning goals in words (no Markdown or
    TeX), cut at a word; the head keeps one viewport tag; the status table's emoji are words;
    the goals' paragraph listed a second time on a page is left out, the rest of its cell
    kept; the footer names the students' copy's ref as a ref; an explorer names the call that
    makes it live."""
    d = site_conf.page_description("compute the $\\lambda$-return `G`; use **TD(0)**")
    assert d == "You will learn: compute the λ-return G; use TD(0)"
    long = site_conf.page_description("word " * 200)
    assert len(long) <= 300 and long.endswith("word…")
    head = ('<head><meta name="viewport" content="a" /><meta name="viewport" content="b"/>'
            '<meta name="viewport" content="c" /></head><td><p>✅</p></td>')
    tidy = site_conf.tidy_page(head)
    assert tidy.count('name="viewport"') == 1 and 'content="a"' in tidy
    assert "<p>ran</p>" in tidy and "✅" not in tidy
    # the landing page's title said once ("X — X" before); another page's keeps the site's
    assert site_conf.tidy_page("<title>A course on TD &#8212; A course</title>") == (
        "<title>A course on TD</title>")
    assert site_conf.tidy_page("<title>01 · TD &#8212; A course</title>") == (
        "<title>01 · TD &#8212; A course</title>")
    src = ("*Course on the paper.*\nThe learning goals in full: describe an episode;\n"
           "compute its return.\n\nAll the code lives in `ftd_lib`.")
    assert site.without_goals_in_full(src) == ("*Course on the paper.*\n\n\nAll the code lives "
                                               "in `ftd_lib`.")
    assert site.without_goals_in_full("The learning goals in full: a; b.").strip() == ""
    foot = site_conf.footer_html("me/course", dict(date="2026-12-07", commit="0" * 40),
                                 "students")
    assert "the students' copy (ref <a" in foot and "<code>students</code>" in foot
    assert 'href="status.html">build status</a>' in foot
    status = landing.status_page(dict(date="2026-12-07", commit="0" * 40), "me/c", "v1")
    assert "orphan: true" in status and "{nb-exec-table}" in status and "`v1`" in status
    assert SE.call_text("k_explorer", {"eta": 0.01, "gl": 0.9}) == "k_explorer(eta=0.01, gl=0.9)"
    man = dict(factory="k_explorer", note="n", start=[0], kwargs={}, call="k_explorer()",
               sliders=[dict(name="eta", label="η", values=[0.1], shown=["0.1"])],
               frames=[dict(src="a/000.png", readout="r")])
    assert "In Jupyter: <code>k_explorer()</code>." in SE.html_block(man, "x")
