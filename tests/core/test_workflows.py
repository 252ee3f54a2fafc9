"""The GitHub workflows' own rules (they cannot run here): every ``apt-get install`` after an
``apt-get update`` in the same step; the website says loudly, at its first step, that it is not
deployed when the students' deploy key is missing (the step's script run here, with and without
a key); no second package index for every install of the website's job."""

import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def _steps(path: Path):
    wf = yaml.safe_load(path.read_text())
    for name, job in wf["jobs"].items():
        for step in job.get("steps", []):
            yield name, step


def apt_without_update(run: str) -> bool:
    """Whether ``run`` installs with apt-get before (or without) refreshing the package lists."""
    install = run.find("apt-get install")
    return install >= 0 and not 0 <= run.find("apt-get update") < install


def test_the_apt_rule_by_hand():
    assert apt_without_update("sudo apt-get install -y fonts-noto-color-emoji")
    assert apt_without_update("sudo apt-get install -y x\nsudo apt-get update")
    assert not apt_without_update("sudo apt-get update -q\nsudo apt-get install -y x")
    assert not apt_without_update("python -m pip install x")


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_apt_install_follows_an_update(path):
    for job, step in _steps(path):
        assert not apt_without_update(step.get("run", "")), (
            f"{path.name}, job {job}, step {step.get('name')!r}: apt-get install without "
            "apt-get update first (a stale runner's lists 404): add it to the step")


def _key_step():
    wf = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    build = wf["jobs"]["build"]
    return build, build["steps"][0]


@pytest.mark.parametrize("key", ["", "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n"])
def test_the_website_says_loudly_when_the_deploy_key_is_missing(tmp_path, key):
    build, step = _key_step()
    assert step["env"]["STUDENTS_DEPLOY_KEY"] == "${{ secrets.STUDENTS_DEPLOY_KEY }}"
    summary = tmp_path / "summary.md"
    env = {"PATH": "/usr/bin:/bin", "STUDENTS_DEPLOY_KEY": key, "GITHUB_STEP_SUMMARY":
           str(summary), "FTD_STUDENTS_REPO": "me/course-students"}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True,
                          text=True)
    if key:
        assert done.returncode == 0 and not done.stdout and not summary.exists()
    else:  # the run fails at once, with an error annotation and a line in its summary
        assert done.returncode == 1
        assert done.stdout.startswith("::error title=Website not deployed")
        assert "me/course-students" in done.stdout and "STUDENTS_DEPLOY_KEY" in done.stdout
        assert "NOT deployed" in summary.read_text()
    # it is the build's first step: nothing is built before it
    publish = next(i for i, s in enumerate(build["steps"])
                   if s.get("name", "").startswith("Publish the students' copy"))
    assert publish > 0 and "STUDENTS_DEPLOY_KEY" in build["steps"][publish]["run"]


def test_the_website_adds_no_second_index_to_every_install():
    """torch's CPU build comes from its own index in scripts/setup_env.sh, alone and without
    its dependencies; the job's environment does not widen every other install to that index
    (which mirrors common packages, with pins but no hashes)."""
    build, _ = _key_step()
    assert "PIP_EXTRA_INDEX_URL" not in build.get("env", {})
    assert not any("PIP_EXTRA_INDEX_URL" in (s.get("env") or {}) for s in build["steps"])
    setup = (REPO / "scripts" / "setup_env.sh").read_text()
    assert "--no-deps --extra-index-url https://download.pytorch.org/whl/cpu" in setup
