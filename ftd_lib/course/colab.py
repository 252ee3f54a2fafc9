"""Running a course notebook on Google Colab: the first code cell of every notebook.

Colab opens one notebook from GitHub, in a Python that has no ``ftd_lib`` and none of the
course's files (``../results``, ``../experiments``). So the first code cell of each notebook
(tagged ``colab-install``, :data:`ftd_lib.course.roles.COLAB`) does, on Colab only: fetch the
students' copy of the course that the notebook belongs to (a zip of the commit the website was
built from), unpack it, install its ``ftd_lib`` with pip, switch on Colab's widget manager
(the explorers are ipywidgets) and work in the copy's ``notebooks/`` folder, where the
notebook's relative paths hold. Anywhere else (JupyterLab, Binder, nbval, the website's build)
the cell does nothing.

The cell is plain code a student can read (it cannot import ``ftd_lib``: that is what it
installs); :func:`cell_source` writes it, and the notebooks hold exactly
``cell_source(REPO, REF)`` with the placeholders :data:`REPO` and :data:`REF`. The website's
build (:mod:`ftd_lib.publish.site`) writes the real repository and the pinned ref into the
students' copy it publishes (:func:`stamp`), so the Colab button, the cell and the zip all name
the same commit. tests/course/test_colab.py runs the cell in a simulated Colab.
"""

from __future__ import annotations

import re

#: the placeholders the repository's notebooks carry (the site's build writes the real ones)
REPO = "OWNER/REPO"
REF = "students"

#: the cell's role tag (``ftd_lib.course.roles.COLAB``)
TAG = "colab-install"

_SAFE = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SAFE_REF = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*")

CELL = '''\
# On Colab only (it has no ftd_lib): fetch the students' copy of the course this notebook
# belongs to, install its ftd_lib and work in its notebooks/ folder. Elsewhere: nothing.
import sys

if "google.colab" in sys.modules:
    import importlib, io, os, subprocess, urllib.request, zipfile
    COPY = "{url}"
    with zipfile.ZipFile(io.BytesIO(urllib.request.urlopen(COPY).read())) as z:
        top = z.namelist()[0].split("/")[0]
        z.extractall("/content")
    root = os.path.join("/content", top)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", root], check=True)
    importlib.invalidate_caches()
    os.chdir(os.path.join(root, "notebooks"))
    from google.colab import output
    output.enable_custom_widget_manager()'''


def _check(repo: str, ref: str) -> None:
    if not isinstance(repo, str) or not _SAFE.fullmatch(repo):
        raise ValueError(f"repo must be OWNER/NAME (a GitHub repository), got {repo!r}")
    if not isinstance(ref, str) or not _SAFE_REF.fullmatch(ref) or ".." in ref:
        raise ValueError(f"ref must be a git branch, tag or commit name, got {ref!r}")


def copy_url(repo: str = REPO, ref: str = REF) -> str:
    """The zip of the students' copy at ``ref`` of GitHub repository ``repo`` (GitHub's archive
    of a branch, tag or commit)."""
    _check(repo, ref)
    return f"https://github.com/{repo}/archive/{ref}.zip"


def cell_source(repo: str = REPO, ref: str = REF) -> str:
    """The notebooks' first code cell, installing from :func:`copy_url` ``(repo, ref)``."""
    return CELL.format(url=copy_url(repo, ref))


def colab_url(repo: str, ref: str, notebook: str) -> str:
    """The Open-in-Colab address of ``notebooks/<notebook>`` at ``ref`` of ``repo``."""
    _check(repo, ref)
    return f"https://colab.research.google.com/github/{repo}/blob/{ref}/notebooks/{notebook}"


def binder_url(repo: str, ref: str, notebook: str) -> str:
    """The Binder address that opens ``notebooks/<notebook>`` of ``repo`` at ``ref`` in
    JupyterLab."""
    _check(repo, ref)
    return f"https://mybinder.org/v2/gh/{repo}/{ref}?urlpath=lab/tree/notebooks/{notebook}"


def is_install_cell(cell) -> bool:
    """True for the Colab cell (its role tag)."""
    return TAG in cell.get("metadata", {}).get("tags", [])


#: the Colab cell of a copy made without a repository (``release`` without ``--repo``): there
#: is nothing to fetch, and on Colab it says so instead of fetching a placeholder's address
UNSTAMPED = '''\
# On Colab only: this copy of the course was made without a repository to install it from
# (release without --repo), so it cannot set itself up there. Elsewhere: nothing.
import sys

if "google.colab" in sys.modules:
    raise RuntimeError("This copy of the course names no repository to install from: open the "
                       "notebook with the course website's 'on Colab' button, or run it in "
                       "JupyterLab (README.md, 'Set it up and open it').")'''


def unstamp(nb) -> int:
    """Put :data:`UNSTAMPED` in place of the Colab cell of notebook ``nb`` (in place, for a copy
    that names no repository); return how many cells it replaced."""
    return _set_install_cells(nb, UNSTAMPED)


def stamp(nb, repo: str, ref: str) -> int:
    """Write ``repo`` and ``ref`` into the Colab cell of notebook ``nb`` (in place); return
    how many cells were stamped (one in a course notebook)."""
    return _set_install_cells(nb, cell_source(repo, ref))


def _set_install_cells(nb, source: str) -> int:
    """Every Colab install cell of notebook ``nb`` gets ``source`` (in place); returns how
    many there were."""
    n = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and is_install_cell(cell):
            cell.source = source
            n += 1
    return n
