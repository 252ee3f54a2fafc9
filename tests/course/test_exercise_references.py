"""Every reference an exercise's text makes resolves (review 4: 04 said "exercise 4" for the
horizon-extension identity, exercise 5; 04.6 said "your λ" and printed none; the site review:
"printed below" with nothing printed).

- "exercise N" in a notebook's text (not a worked solution's) names an exercise of that
  notebook, and its neighbourhood says what that exercise is about: a word of its title;
- an exercise whose question says "printed below" prints its numbers (``print(nbNN.given_…())``
  in its cells), and "your λ" (ε, η, γ, α) is a number its printed or named ``given_*`` holds.
"""

import importlib
import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import roles
from ftd_lib.course.exercises import default_numbers

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))

#: an exercise's heading: "### Exercise 5 — the horizon-extension identity (optional)"
HEAD = re.compile(r"(?m)^#+\s*Exercise\s+(\d+)\s*[—-]+\s*([^\n(]+)")
#: a symbol a question calls "your ..." and the key of the given numbers that holds it
SYMBOLS = {"λ": "lam", "ε": "epsilon", "η": "eta", "γ": "gamma", "α": "alpha"}
LATEX = {r"\rho": "ρ", r"\lambda": "λ", r"\beta": "β", r"\gamma": "γ", r"\eta": "η",
         r"\alpha": "α", r"\varepsilon": "ε"}
STOP = {"exercise", "required", "optional", "the", "of", "a", "an", "on", "at", "what", "does",
        "with", "from", "and", "is", "to", "by", "how", "it"}
GIVEN = re.compile(r"(nb\d\d)\.(given_\w+)\(\)")


def tokens(text: str) -> set[str]:
    for tex, sym in LATEX.items():
        text = text.replace(tex, sym)
    return {w.lower() for w in re.split(r"[\s\-,.?;:()`$\\{}_^|*]+", text) if w} - STOP


def _text(nb) -> str:
    return "\n".join(c.source for c in nb.cells
                     if c.cell_type == "markdown" and not roles.is_solution(c))


def sections(nb) -> list[tuple[int, str, str]]:
    """(number, question, code) per exercise: the Markdown and the code (hints and worked
    solutions left out) from its heading to the next heading."""
    out, cur = [], None
    for c in nb.cells:
        if roles.is_solution(c) or roles.has(c, roles.HINT):
            continue
        if c.cell_type == "markdown" and re.search(r"(?m)^#", c.source):
            m = HEAD.search(c.source)
            cur = [int(m.group(1)), "", ""] if m else None
            if cur:
                out.append(cur)
        if cur is not None:
            cur[1 if c.cell_type == "markdown" else 2] += c.source + "\n"
    return [tuple(s) for s in out]


def given_keys(names) -> set[str]:
    keys = set()
    for module, fn in names:
        mod = importlib.import_module(f"ftd_lib.course.exercises.{module}")
        keys |= set(default_numbers(getattr(mod, fn)))
    return keys


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_exercise_n_names_that_exercise(path):
    text = _text(nbformat.read(path, as_version=4))
    titles = {int(m.group(1)): m.group(2) for m in HEAD.finditer(text)}
    for m in re.finditer(r"(?<![#\w])exercise (\d+)", text):
        n = int(m.group(1))
        assert n in titles, f"{path.name}: {m.group(0)} does not exist"
        near = text[max(0, m.start() - 300):m.end() + 120]
        assert tokens(titles[n]) & tokens(near), (
            f"{path.name}: '{m.group(0)}' ({titles[n].strip()!r}) in {near[-200:]!r}")


def test_the_check_of_references_finds_a_wrong_number():
    """Review 4's stale reference, put back, fails the test above's rule."""
    text = (REPO / "notebooks" / "src" / "04_forward_td_lambda.md").read_text()
    old = text.replace("eq. 14; exercise 5 below", "eq. 14; exercise 4 below")
    titles = {int(m.group(1)): m.group(2) for m in HEAD.finditer(old)}
    i = old.index("exercise 4 below")
    assert not tokens(titles[4]) & tokens(old[i - 300:i + 136])
    assert tokens(titles[5]) & tokens(text[i - 300:i + 136])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_printed_below_and_your_numbers_resolve(path):
    for n, question, code in sections(nbformat.read(path, as_version=4)):
        printed = re.findall(r"print\((nb\d\d)\.(given_\w+)\(\)\)", code)
        if re.search(r"printed (below|by the cell below)", question):
            assert printed, f"{path.name} exercise {n}: 'printed below', nothing printed"
        keys = given_keys(printed + GIVEN.findall(question))
        for sym, key in SYMBOLS.items():
            if re.search(rf"\byour {sym}", question):
                assert key in keys, f"{path.name} exercise {n}: 'your {sym}' is not printed"
