"""The notebooks' Colab cell (ftd_lib/course/colab.py), run here without the network: outside
Colab it does nothing; in a simulated Colab (a ``google.colab`` module, the copy's zip served
from memory, pip and the widget manager recorded) it unpacks the copy, installs it with pip
and moves into its notebooks/ folder."""

import io
import os
import subprocess
import sys
import types
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import colab, roles

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_opens_with_the_colab_cell(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source == colab.cell_source(colab.REPO, colab.REF)
    assert roles.has(code[0], roles.COLAB) and colab.TAG == roles.COLAB
    assert sum(colab.is_install_cell(c) for c in nb.cells) == 1
    assert code[0].outputs == []  # it did nothing where the notebook was run


def _run_cell(source, monkeypatch, tmp_path, *, colab_here):
    calls = dict(urls=[], pip=[], widgets=0)
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as z:
        z.writestr("REPO-students-abc/pyproject.toml", "[project]\nname='ftd_lib'\n")
        z.writestr("REPO-students-abc/notebooks/01_td_basics.ipynb", "{}")

    def urlopen(url):
        calls["urls"].append(url)
        return io.BytesIO(zbuf.getvalue())

    def run(cmd, check):
        calls["pip"].append((cmd, check))
        return subprocess.CompletedProcess(cmd, 0)

    output = types.SimpleNamespace(enable_custom_widget_manager=lambda: calls.__setitem__(
        "widgets", calls["widgets"] + 1))
    google = types.ModuleType("google")
    gcolab = types.ModuleType("google.colab")
    gcolab.output = output
    google.colab = gcolab
    if colab_here:
        monkeypatch.setitem(sys.modules, "google", google)
        monkeypatch.setitem(sys.modules, "google.colab", gcolab)
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(subprocess, "run", run)
    content = tmp_path / "content"
    real_join = os.path.join
    monkeypatch.setattr(os.path, "join", lambda a, *p: real_join(
        str(content) if a == "/content" else a, *p))
    real_extract = zipfile.ZipFile.extractall
    monkeypatch.setattr(zipfile.ZipFile, "extractall", lambda self, path=None, *a, **k:
                        real_extract(self, str(content) if path == "/content" else path))
    monkeypatch.chdir(tmp_path)
    exec(compile(source, "<the Colab cell>", "exec"), {})
    return calls, content


def test_outside_colab_the_cell_does_nothing(monkeypatch, tmp_path):
    calls, content = _run_cell(colab.cell_source("me/course", "students-1234"), monkeypatch,
                               tmp_path, colab_here=False)
    assert calls == dict(urls=[], pip=[], widgets=0)
    assert not content.exists() and Path.cwd() == tmp_path


def test_in_colab_the_cell_installs_the_pinned_copy_and_works_in_it(monkeypatch, tmp_path):
    src = colab.cell_source("me/course", "students-1234")
    calls, content = _run_cell(src, monkeypatch, tmp_path, colab_here=True)
    assert calls["urls"] == ["https://github.com/me/course/archive/students-1234.zip"]
    root = content / "REPO-students-abc"
    assert calls["pip"] == [([sys.executable, "-m", "pip", "install", "--quiet", str(root)],
                             True)]
    assert calls["widgets"] == 1
    assert Path.cwd() == root / "notebooks"
    assert (root / "notebooks" / "01_td_basics.ipynb").is_file()


def test_the_buttons_and_the_cell_name_the_same_copy():
    assert colab.copy_url("me/course", "students-1234") in colab.cell_source(
        "me/course", "students-1234")
    assert colab.colab_url("me/course", "students-1234", "01_td_basics.ipynb") == (
        "https://colab.research.google.com/github/me/course/blob/students-1234/notebooks/"
        "01_td_basics.ipynb")
    assert colab.binder_url("me/course", "students-1234", "01_td_basics.ipynb") == (
        "https://mybinder.org/v2/gh/me/course/students-1234?urlpath=lab/tree/notebooks/"
        "01_td_basics.ipynb")


def test_stamp_writes_the_repository_and_ref_into_the_cell():
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    assert colab.stamp(nb, "me/course", "students-1234") == 1
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert '"https://github.com/me/course/archive/students-1234.zip"' in first.source
    assert "OWNER/REPO" not in first.source


@pytest.mark.parametrize("repo, ref, what", [("not a repo", "main", "repo"),
                                            ("me/course", "a b", "ref"),
                                            ("me/course", "../x", "ref"),
                                            ("me/course", "", "ref")])
def test_bad_repository_or_ref(repo, ref, what):
    with pytest.raises(ValueError, match=what):
        colab.copy_url(repo, ref)
