"""``scripts/tag_release.py`` tags the commit that dated a release in CHANGELOG.md, once the
version agrees in every file there, on a throwaway repository made here (a handful of git calls,
no network)."""

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("tag_release", REPO / "scripts" / "tag_release.py")
T = importlib.util.module_from_spec(spec)
spec.loader.exec_module(T)

ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")


def _commit(repo: Path, version: str, changelog: str, citation: str | None = None) -> str:
    (repo / "ftd_lib").mkdir(exist_ok=True)
    (repo / "pyproject.toml").write_text(f'[project]\nname = "x"\nversion = "{version}"\n')
    (repo / "ftd_lib" / "__init__.py").write_text(f'"""x"""\n__version__ = "{version}"\n')
    (repo / "CITATION.cff").write_text(f"cff-version: 1.2.0\nversion: {citation or version}\n")
    (repo / "CHANGELOG.md").write_text(changelog)
    for args in (["add", "-A"], ["commit", "-q", "-m", f"at {version}"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=ENV)
    return T.git("rev-parse", "HEAD", repo=repo)


@pytest.fixture
def repo(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=ENV)
    head, old = "# Changelog\n", "# Changelog\n\n## 0.1.0 (2026-09-01)\n\nFirst.\n"
    _commit(tmp_path, "0.1.0", old)
    _commit(tmp_path, "0.1.0", old.replace(head, head + "\n## Unreleased\n\n- b\n"))
    dated = _commit(tmp_path, "0.2.0", old.replace(head, head + "\n## 0.2.0 (2026-11-28)\n\n- b\n"))
    _commit(tmp_path, "0.2.0", old.replace(head, head + "\n## Unreleased\n\n- c\n\n"
                                           "## 0.2.0 (2026-11-28)\n\n- b\n"))
    return tmp_path, dated


def test_the_tag_goes_on_the_commit_that_dated_the_release(repo):
    path, dated = repo
    assert T.release_commit("0.2.0", path) == dated  # not the newest commit, which has it too
    assert "would go on" in T.tag("0.2.0", repo=path)
    assert not T.git("tag", "--list", repo=path)  # only checked
    assert "made on" in T.tag("0.2.0", create=True, repo=path)
    assert T.git("rev-parse", "v0.2.0^{}", repo=path) == dated
    assert "already names" in T.tag("0.2.0", create=True, repo=path)
    assert T.release_commit("0.1.0", path) != dated  # an older release: its own first commit


def test_a_release_not_dated_or_not_agreed_is_not_tagged(repo):
    path, _ = repo
    with pytest.raises(ValueError, match="no commit of CHANGELOG.md"):
        T.tag("0.3.0", create=True, repo=path)
    with pytest.raises(ValueError, match="X.Y.Z"):
        T.tag("v0.2", repo=path)
    log = (path / "CHANGELOG.md").read_text().replace("## Unreleased", "## 0.3.0 (2026-12-07)")
    _commit(path, "0.3.0", log, citation="0.2.0")  # CITATION.cff left behind
    with pytest.raises(ValueError, match="CITATION.cff gives 0.2.0"):
        T.tag("0.3.0", create=True, repo=path)
    assert not T.git("tag", "--list", repo=path)


def test_a_tag_elsewhere_is_refused(repo):
    path, dated = repo
    T.git("tag", "-a", "v0.2.0", "HEAD", "-m", "wrong place", repo=path)
    with pytest.raises(ValueError, match="exists on"):
        T.tag("0.2.0", repo=path)
