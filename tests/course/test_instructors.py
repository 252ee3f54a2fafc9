"""INSTRUCTORS.md covers every notebook and every exercise, and the README links it."""

from pathlib import Path

from ftd_lib.course.exercises.hints import HINTS

REPO = Path(__file__).resolve().parents[2]


def test_instructors_page():
    text = (REPO / "INSTRUCTORS.md").read_text()
    for nb in sorted((REPO / "notebooks").glob("0*.ipynb")):
        assert f"`{nb.stem}`" in text, f"INSTRUCTORS.md has no row for {nb.stem}"
    for key in HINTS:
        assert f"`{key}`" in text, f"INSTRUCTORS.md does not describe exercise {key}"
    for topic in ("two-lecture plan", "Replacing traces", "DQN", "forward Sarsa(1)", "η result",
                  "Binder", "Offline", "python -m ftd_lib reproduce", "jupyterlab-rise"):
        assert topic.lower() in text.lower(), topic
    assert "](INSTRUCTORS.md)" in (REPO / "README.md").read_text()
