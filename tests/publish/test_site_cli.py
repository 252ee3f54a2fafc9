"""``python -m ftd_lib site --help`` says what ``--repo`` really defaults to: the run buttons'
repository is ``$FTD_STUDENTS_REPO`` (the students' copy), never the instructors' (the
repository the workflow runs in, ``$GITHUB_REPOSITORY``), and none without it. Each case runs
the real command line in a fresh interpreter with that environment (the default is read at
import), ``build_site`` replaced by a recorder."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN = """
import contextlib, io, json, sys
from ftd_lib.publish import site
seen = {}
site.build_site = lambda out, **kw: seen.update(kw) or {"pages": [], "explorers": [],
                                                     "seconds": {"total_s": 0}}
site.main(["--out", sys.argv[1]])
text = io.StringIO()
with contextlib.redirect_stdout(text), contextlib.suppress(SystemExit):
    site.main(["--help"])
print(json.dumps({"repo": seen["repo"], "help": " ".join(text.getvalue().split())}))
"""


@pytest.mark.parametrize("students", ["me/course-students", None])
def test_the_help_names_the_default_repo_that_is_used(students, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "FTD_STUDENTS_REPO"}
    env.update(PYTHONPATH=str(REPO), GITHUB_REPOSITORY="me/course")  # as in the workflow
    if students:
        env["FTD_STUDENTS_REPO"] = students
    r = subprocess.run([sys.executable, "-c", RUN, str(tmp_path / "site")], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["repo"] == students  # what the command really uses
    said = out["help"].split("--repo REPO the ", 1)[1].split("--ref REF", 1)[0]
    assert "(default: $FTD_STUDENTS_REPO, " in said and "GITHUB_REPOSITORY" not in said
    assert (f"now {students!r}" if students else "unset now: no run buttons") in said, said
    assert "me/course'" not in said and "me/course " not in said  # never the instructors'
