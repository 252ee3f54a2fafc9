"""The pictures of INSTRUCTORS.md's "What the TA and the student see": the TA's report of
``python -m ftd_lib grade --nbgrader`` and a student's nbgrader feedback page, from a class of
three graded with real nbgrader as INSTRUCTORS.md's block says (the class of
``tests/grader/test_class_of_three.py``, :func:`class_of_three`, on notebook 02: an honest
student, one who copied the honest notebook, one with tricks).

    python scripts/screenshot_grading.py [--out docs/images] [--keep DIR]

Writes ``grading-ta-report.png`` (the report, ``ftd-grades-course.txt``, as the TA's terminal
shows it) and ``grading-feedback.png`` (the tricked student's feedback page: its total and
every test cell's score at the top, then exercise 1: the answer cell with the grader's comment
and flags, and its test cell's score). About 3 minutes (nbgrader runs the notebook, then the
grader runs it again); Chromium (``/usr/bin/chromium``) through Playwright; each picture
re-encoded with a palette (:mod:`ftd_lib.publish.png_palette`), each under :data:`MAX_BYTES`.
"""

from __future__ import annotations

import argparse
import html
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "grader")]

from ftd_lib.publish.png_palette import shrink  # noqa: E402

#: the largest a picture may be (the repository keeps them)
MAX_BYTES = 75_000
CHROMIUM = "/usr/bin/chromium"
WIDTH = 980

#: the report as a terminal shows it
REPORT_PAGE = """<!doctype html><meta charset="utf-8"><style>
body {{ margin: 0; background: #fff; }}
pre {{ margin: 0; padding: 12px 16px; background: #1e1e1e; color: #e6e6e6;
       font: 12.5px/1.45 "DejaVu Sans Mono", monospace; white-space: pre-wrap; }}
.prompt {{ color: #8fd18f; }} .flag {{ color: #ffb454; }} .fail {{ color: #ff8080; }}
</style><pre>{text}</pre>"""

#: on the feedback page: keep the header (total and per-cell scores) and exercise 1, from its
#: heading to its test cell; hide every other cell
KEEP_EXERCISE_1 = """() => {
  const cells = [...document.querySelectorAll('#notebook-container > .cell')];
  const first = cells.findIndex(c => c.textContent.includes('Exercise 1 —'));
  const test = cells.findIndex((c, i) => i > first && c.textContent.includes('Grade cell'));
  cells.forEach((c, i) => { if (i < first || i > test) c.style.display = 'none'; });
  return [first, test];
}"""


def report_html(text: str) -> str:
    """The report's text as a terminal page: the command, then its lines, FAIL and FLAGGED
    lines coloured."""
    lines = ['<span class="prompt">$ python -m ftd_lib grade --nbgrader course</span>']
    for line in text.splitlines():
        cls = ("flag" if "FLAGGED" in line or line.startswith("    cell ") else
               "fail" if line.strip().startswith("FAIL") else "")
        esc = html.escape(line)
        lines.append(f'<span class="{cls}">{esc}</span>' if cls else esc)
    return REPORT_PAGE.format(text="\n".join(lines))


def pictures(root: Path) -> dict[str, bytes]:
    """``{file name: PNG}`` of the TA's report and the tricked student's feedback page of the
    graded class in ``root``."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": 600})
        page.set_content(report_html((root / "ftd-grades-course.txt").read_text()))
        out["grading-ta-report.png"] = page.locator("pre").screenshot()
        page.goto((root / "feedback" / "tricked" / "course" / "02_lambda_return.html")
                  .as_uri())
        first, test = page.evaluate(KEEP_EXERCISE_1)
        if first < 0 or test < 0:
            raise RuntimeError("the feedback page has no exercise 1 or no test cell after it")
        out["grading-feedback.png"] = page.screenshot(full_page=True)
        browser.close()
    return {name: shrink(png) for name, png in out.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(REPO / "docs" / "images"),
                   help="the folder for the pictures (default: docs/images)")
    p.add_argument("--keep", help="grade the class in this folder and keep it (default: a "
                   "temporary one)")
    a = p.parse_args(argv)
    from test_class_of_three import class_of_three

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(a.keep or tmp)
        base.mkdir(parents=True, exist_ok=True)
        root, _, _, _, times = class_of_three(base)
        print("graded the class of three, seconds per step:", times)
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        for name, png in pictures(root).items():
            if len(png) > MAX_BYTES:
                raise SystemExit(f"{name} is {len(png)} bytes, over {MAX_BYTES}: make it "
                                 "smaller (WIDTH, or fewer cells kept)")
            (out / name).write_bytes(png)
            print(f"wrote {out / name} ({len(png) // 1000} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
