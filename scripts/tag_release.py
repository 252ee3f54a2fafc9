"""Tag a release, from the repository root::

    python scripts/tag_release.py X.Y.Z            # say which commit gets vX.Y.Z, and check it
    python scripts/tag_release.py X.Y.Z --create   # make the annotated tag there
    git push origin vX.Y.Z                         # publish it (nothing else tags: CI does not)

The tag goes on the commit that dated the release: the first commit whose ``CHANGELOG.md`` has
the heading ``## X.Y.Z (date)`` (CONTRIBUTING.md's "Prepare a term" makes it, moving
"Unreleased" under the new version). At that commit ``pyproject.toml``, ``ftd_lib/__init__.py``
and ``CITATION.cff`` must give the same version, else nothing is tagged. An older release is
tagged the same way after the fact (``python scripts/tag_release.py 0.2.0 --create``). A tag
that exists already is left as it is when it names that commit, and refused otherwise.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: where each file gives the version
VERSION_IN = {"pyproject.toml": r'(?m)^version = "([^"]+)"',
              "ftd_lib/__init__.py": r'(?m)^__version__ = "([^"]+)"',
              "CITATION.cff": r"(?m)^version: \"?([^\"\s]+)"}


def git(*args: str, repo: Path = REPO) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def release_commit(version: str, repo: Path = REPO) -> str:
    """The first commit whose CHANGELOG.md has the heading ``## <version> (``."""
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        raise ValueError(f"version must be X.Y.Z, got {version!r}")
    found = git("log", "--reverse", "--format=%H", "-S", f"## {version} (", "--",
                "CHANGELOG.md", repo=repo).split()
    if not found:
        raise ValueError(f"no commit of CHANGELOG.md has the heading '## {version} (date)': "
                         "date the release there first (CONTRIBUTING.md, 'Prepare a term')")
    return found[0]


def versions_at(commit: str, repo: Path = REPO) -> dict:
    """``{file: the version it gives}`` at ``commit`` (None where it gives none)."""
    out = {}
    for path, pattern in VERSION_IN.items():
        m = re.search(pattern, git("show", f"{commit}:{path}", repo=repo))
        out[path] = m.group(1) if m else None
    return out


def check(version: str, repo: Path = REPO) -> str:
    """The commit to tag ``v<version>``, once every file there gives that version."""
    commit = release_commit(version, repo)
    wrong = {p: v for p, v in versions_at(commit, repo).items() if v != version}
    if wrong:
        raise ValueError(f"commit {commit[:10]} dates {version} in CHANGELOG.md, but "
                         + ", ".join(f"{p} gives {v}" for p, v in wrong.items())
                         + ": set the version there in the same commit")
    return commit


def tag(version: str, create: bool = False, repo: Path = REPO) -> str:
    """Check, then (``create``) make the annotated tag; returns what was done, in words."""
    commit = check(version, repo)
    name = f"v{version}"
    existing = subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/tags/{name}^{{}}"],
                              cwd=repo, capture_output=True, text=True).stdout.strip()
    if existing:
        if existing != commit:
            raise ValueError(f"tag {name} exists on {existing[:10]}, not on {commit[:10]}, the "
                             "commit that dates the release: fix it by hand")
        return f"{name} already names {commit[:10]}"
    if not create:
        return f"{name} would go on {commit[:10]}: run again with --create, then git push " \
               f"origin {name}"
    git("tag", "-a", name, commit, "-m", f"Release {version}", repo=repo)
    return f"{name} made on {commit[:10]}: now git push origin {name}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version", help="X.Y.Z, as CHANGELOG.md's heading gives it")
    ap.add_argument("--create", action="store_true", help="make the tag (else only check)")
    args = ap.parse_args(argv)
    try:
        print(tag(args.version, args.create))
    except (ValueError, subprocess.CalledProcessError) as e:
        print(f"tag_release: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
