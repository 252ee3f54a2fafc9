"""INSTRUCTORS.md covers every notebook and every exercise, its lecture plan fits the lectures,
its run times fit the 60-second budget, and the README links it and quotes the same run times."""

import re
from pathlib import Path

from ftd_lib.course.exercises.hints import HINTS

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
BUDGET_S = 60.0


def _text():
    return (REPO / "INSTRUCTORS.md").read_text()


def _run_times(text: str) -> dict[str, list[float]]:
    """``{notebook stem: [seconds, ...]}`` from the table rows that start with a notebook."""
    out = {}
    for nb in NOTEBOOKS:
        row = next((ln for ln in text.splitlines() if ln.startswith(f"| `{nb.stem}`")), None)
        assert row is not None, f"no table row for {nb.stem}"
        cells = [c.strip() for c in row.strip("|").split("|")]
        times = next((c for c in cells if re.fullmatch(r"[\d.]+ s( \([\d.]+ s [^)]*\))?", c)),
                     None)
        assert times is not None, f"no run time in the row of {nb.stem}: {row}"
        out[nb.stem] = [float(x) for x in re.findall(r"([\d.]+) s", times)]
    return out


def test_instructors_page():
    text = _text()
    for nb in NOTEBOOKS:
        assert f"`{nb.stem}`" in text, f"INSTRUCTORS.md has no row for {nb.stem}"
    for key in HINTS:
        assert f"`{key}`" in text, (
            f"INSTRUCTORS.md does not describe exercise {key}: its row is in ROWS of "
            "ftd_lib/publish/exercise_rows.py; then python -m "
            "ftd_lib.publish.lecture_plan --write")
    for topic in ("three-lecture plan", "two-lecture variant", "Replacing traces", "DQN",
                  "forward Sarsa(1)", "η result", "Binder", "Offline",
                  "python -m ftd_lib reproduce", "jupyterlab-rise", "Explore further"):
        assert topic.lower() in text.lower(), topic
    assert "](INSTRUCTORS.md)" in (REPO / "README.md").read_text()


def test_the_exercises_it_names_by_key_exist():
    """The page names exercises by key (a name, unlike the label 02.3, which moves when an
    exercise is inserted): each `nbNN.name` it quotes is an exercise's key (or a name in
    ftd_lib/course/exercises/nbNN.py)."""
    import importlib

    for nb, name in set(re.findall(r"`(nb0\d)\.([a-z_0-9]+)", _text())):
        key = f"{nb}.{name}"
        module = importlib.import_module(f"ftd_lib.course.exercises.{nb}")
        assert key in HINTS or hasattr(module, name), (
            f"INSTRUCTORS.md names {key!r}, no exercise's key (keys: hint(...) in the notebooks, "
            "HINTS in ftd_lib/course/exercises/hints.py)")


def test_every_lecture_fills_its_time_and_no_more():
    text = _text()
    lectures = re.findall(r"\*\*Lecture (\d) \((\d+) min\)[^\n]*\*\*\n\n((?:\|[^\n]*\n)+)", text)
    assert [n for n, _, _ in lectures] == ["1", "2", "3"]
    for n, length, table in lectures:
        spans = [tuple(map(int, m)) for m in re.findall(r"^\| (\d+)–(\d+) \|", table, re.M)]
        assert spans, f"lecture {n} has no timetable"
        assert spans[0][0] == 0 and spans[-1][1] == int(length), f"lecture {n}: {spans}"
        for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
            assert start == end, f"lecture {n}: a gap or an overlap at minute {end}"
    # 04 and 05 make lecture 2; 06 from §3 (§1–2 are pre-reading) and 07 lecture 3
    l2, l3 = lectures[1][2], lectures[2][2]
    assert re.search(r"^\| 0–\d+ \| 04 §1:", l2, re.M) and "| 06" not in l2
    assert re.search(r"^\| 0–\d+ \| 06 §3:", l3, re.M) and "| 07 §1:" in l3


def test_run_times_fit_the_budget_and_match_the_readme():
    ours = _run_times(_text())
    readme = _run_times((REPO / "README.md").read_text())
    for stem, times in ours.items():
        assert all(0 < t <= BUDGET_S for t in times), f"{stem}: {times} s"
        assert readme[stem] == times, f"{stem}: README says {readme[stem]}, INSTRUCTORS {times}"
    assert len(ours["06_nn_control"]) == 2  # cached kernel, and the first (compiling) run


def test_its_pictures_exist_are_small_and_go_with_the_instructors_release():
    """Every picture INSTRUCTORS.md shows is a PNG in the repository, under 150 kB, in a folder
    the instructors' release copies beside it (a broken image there otherwise); and every
    picture of that folder is shown (none left behind when a paragraph goes)."""
    from ftd_lib.publish.release import INSTRUCTORS_ONLY

    shown = re.findall(r"!\[[^\]]+\]\(([^)\s]+)\)", _text())
    assert len(shown) >= 2, shown
    for path in shown:
        f = REPO / path
        assert f.is_file(), f"{path}: made by python scripts/screenshot_grading.py"
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size < 150_000, path
        assert any(path == d or path.startswith(d + "/") for d in INSTRUCTORS_ONLY), path
    folders = {str(Path(p).parent) for p in shown}
    kept = {str(p.relative_to(REPO)) for d in folders for p in (REPO / d).glob("*.png")}
    assert kept == set(shown), kept ^ set(shown)
