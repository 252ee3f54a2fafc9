"""A notebook as a reader who cannot run it sees it: the one transform every static way out
(the deck, the handouts, the website) applies, driven by the cells' roles
(:mod:`ftd_lib.course.roles`), never by their text.

What each role becomes on a static page (``way`` is ``"deck"``, ``"handout"`` or ``"site"``):

- a worked solution (``solution``): left out, everywhere;
- the notebook's last cell (``self-check``: "n of m pass" for the session) and the cell where
  a student writes their id (``student-id``): left out, everywhere;
- the Colab cell (``colab-install``, :mod:`ftd_lib.course.colab`): left out, everywhere (it
  does something on Colab only);
- an exercise's answer cell (``exercise``: the scaffold and its check): its source and its
  output are left out (an unrun scaffold, a "No answer yet" verdict or a stub's
  ``NotImplementedError`` make sense only after running); on the handouts and the site one
  line takes its place: where the exercise is run and checked (:data:`RUN_IT`). The
  question is the markdown before it, which stays. On the deck, an answer cell tagged
  ``show-code`` as well (the exercise is to write a function whose contract is the point: the
  GAE exercise) shows its source up to its first blank line (:func:`signature`: the
  signature and the docstring), never its output;
- a hint (``hint``): on the site its text, folded (the same box the notebook shows), on the
  handouts the same box printed open (paper cannot be clicked); its summary in words only (a
  💡 is an empty box where no emoji font is installed, and a PDF keeps that box); on the deck
  nothing (the lecturer has the speaker notes);
- any other code cell: on the deck and the handouts its output alone, its source only where
  the cell is tagged ``show-code``; on the site (a page a student reads beside the
  notebook) the source folded under its output's cell (MyST-NB's ``hide-input``), shown
  open where tagged ``show-code``.

The website executes its notebooks while it builds (its outputs are new), so there a cell is
kept and tagged for MyST-NB (``remove-cell``, ``hide-input``) rather than deleted: a later
cell may need what it defines. The deck and the handouts use the outputs saved with the
notebook, so a cell they do not show is simply left out.
"""

from __future__ import annotations

import copy
import re

import nbformat

from ..course import roles

WAYS = ("deck", "handout", "site")

#: the line that stands for an exercise's answer cell on a page nobody runs
RUN_IT = ("*✎ Your turn: answer this in the notebook (on Binder, on Colab, or with "
          "`./start.sh` on your machine); its check runs there and says Correct or Not yet.*")

_HINT_CALL = re.compile(r"""hint\(\s*["']([^"']+)["']\s*\)""")


#: a hint's summary ends so while its box is folded (``ftd_lib.course.exercises.hint_markdown``)
FOLDED = ": click to open"

#: symbols a page or a PDF may lack the font for, each beside its words already: left out there
_EMOJI = ("💡 ",)


def _words_only(text: str) -> str:
    for symbol in _EMOJI:
        text = text.replace(symbol, "")
    return text


def _hint(key: str, way: str) -> str:
    """The hint box of exercise ``key`` on a page (folded) or on paper (open: a PDF cannot
    be clicked), its summary in words only."""
    from ..course.exercises import hint_markdown

    text = _words_only(hint_markdown(key))
    if way == "handout":
        return text.replace("<details>", "<details open>", 1).replace(FOLDED, "", 1)
    # on the site the words go once the box is open (site_static/ftd-site.css)
    return text.replace(FOLDED, f'<span class="ftd-when-folded">{FOLDED}</span>', 1)


def _check_way(way: str) -> None:
    if way not in WAYS:
        raise ValueError(f"way must be one of {WAYS}, got {way!r}")


def hint_key(cell) -> str | None:
    """The exercise key of a hint cell (``hint("nb03.beta_td_lambda")`` ->
    ``"nb03.beta_td_lambda"``), else None."""
    if cell.get("cell_type") != "code":
        return None
    m = _HINT_CALL.search(cell.get("source", ""))
    return m.group(1) if m else None


def _markdown(text: str, like) -> nbformat.NotebookNode:
    """A markdown cell with ``text`` that keeps ``like``'s slide type."""
    cell = nbformat.v4.new_markdown_cell(text)
    show = like.get("metadata", {}).get("slideshow")
    if show:
        cell.metadata["slideshow"] = copy.deepcopy(show)
    return cell


def _add_tag(cell, tag: str) -> None:
    tags = cell.metadata.setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


def present(nb, way: str):
    """A copy of notebook ``nb`` as the static way out ``way`` shows it (module docstring)."""
    _check_way(way)
    nb = copy.deepcopy(nbformat.from_dict(nb))
    cells = []
    for cell in nb.cells:
        if roles.is_solution(cell) or roles.has(cell, roles.COLAB):
            continue
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        # "n of m pass" (a count only a run has), the student's id (numbers only a run draws)
        if roles.has(cell, roles.SELF_CHECK) or roles.has(cell, roles.STUDENT_ID):
            if way == "site":
                _add_tag(cell, "remove-cell")
                cells.append(cell)
            continue
        if roles.has(cell, roles.EXERCISE):
            if way == "deck" and roles.shows_code(cell):
                cell.source = signature(cell.source)
                cell.outputs = []
                cell.metadata.setdefault("slideshow", {})["slide_type"] = "-"
                cells.append(cell)
                continue
            if way == "site":
                _add_tag(cell, "remove-cell")
                cells.append(cell)
            if way != "deck":
                cells.append(_markdown(RUN_IT, cell))
            continue
        key = hint_key(cell) if roles.has(cell, roles.HINT) else None
        if key is not None:
            if way == "site":
                _add_tag(cell, "remove-cell")
                cells.append(cell)
            if way != "deck":
                cells.append(_markdown(_hint(key, way), cell))
            continue
        if way == "site":
            if not roles.shows_code(cell):
                _add_tag(cell, "hide-input")
        elif not roles.shows_code(cell):  # nbconvert's templates skip a source so marked
            cell.metadata.setdefault("transient", {})["remove_source"] = True
            _add_tag(cell, "remove-input")
        cells.append(cell)
    nb.cells = cells
    return nb


def signature(source: str) -> str:
    """An answer cell's function: its signature and docstring, without the scaffold's body
    below them (a stub line such as ``advantages = None  # your code``) and the check call;
    a source that does not parse, or has no documented function first: up to its first
    blank line."""
    import ast

    try:
        fn = ast.parse(source).body[0]
    except (SyntaxError, IndexError):
        fn = None
    if (isinstance(fn, ast.FunctionDef) and fn.body and isinstance(fn.body[0], ast.Expr)
            and isinstance(fn.body[0].value, ast.Constant)
            and isinstance(fn.body[0].value.value, str)):
        return "\n".join(source.splitlines()[:fn.body[0].end_lineno]).strip("\n").rstrip()
    return source.strip("\n").split("\n\n", 1)[0].rstrip()


def shown_source(cell) -> bool:
    """True when a deck or a handout made by :func:`present` shows this cell's source."""
    return cell.get("cell_type") != "code" or "remove-input" not in roles.tags(cell)
