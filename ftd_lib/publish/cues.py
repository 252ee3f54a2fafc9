"""The lecturer's one-line cue on every slide of the deck: what to say, for how long (the
timing rule's minutes for that slide, :func:`ftd_lib.publish.lectures.slide_minutes`), and
whether the slide is core or optional (and why: ``lecture-optional``, homework, self-study,
dropped from the plan). It opens the slide's speaker notes (reveal.js's speaker view, key S).

What to say comes from :data:`CUES` where a slide needs words of its own (Algorithm 1, the
stepper, the GAE recursion, ...: keyed by the first line of the slide's opening cell), else
from what the slide holds: an exercise, a figure, a derivation, or the first sentence of the
slide's own speaker notes.
"""

from __future__ import annotations

import re

from ..course import roles
from . import lectures as L
from . import slide_words

#: the first line of a slide's opening cell (without ``#``s) -> what to say there
CUES = {
    "3. Algorithm 1, step by step": "the plan of the next slides: Algorithm 1 whole in two "
        "halves, its parts lit one by one, then the stepper runs it.",
    "Algorithm 1: forward TD(λ) (van Seijen 2016), lines 1–16":
        "walk the set-up (lines 1–9: K from η, the queue, U_sync, c), then one pass of "
        "the loop (10–16: ρ, δ′); each key press lights the next part.",
    "Algorithm 1: forward TD(λ) (van Seijen 2016), lines 17–33":
        "the swap at i = K − 1 (17–22), the update once ready "
        "(23–28: pop, update, move U on), the flush at the episode's end (29–33).",
    "What Algorithm 1 keeps, per episode": "the state of the algorithm in one breath: the "
        "queue of K states, U, U_sync, c, i; no trace.",
    "The stepper": "the episode (10 states, V̂(s) = s, K = 4) and how to read a frame: the "
        "boxes are time steps, the queue is light, the update dark; the next slide steps "
        "through it.",
    "The stepper, frame by frame (→: the next time step)": "one key press per time step, "
        "t = 0…13 and the episode's end: say which line of Algorithm 1 acts, then check the "
        "target against the definition's value beside it; half a minute a frame, the heart "
        "of the paper.",
    "1. GAE is an interim λ-return": "PPO's rollout in the paper's terms; the recursion "
        "A_t = δ_t + γλ A_{t+1} is App. B's ρ-identity with the value subtracted.",
    "The derivation": "go line by line: App. B's identity, subtract V̂(S_t), and GAE's "
        "recursion falls out; stop for questions after the last line.",
    "Checked on data": "the numbers agree to rounding: GAE plus the values is eq. (2)'s "
        "interim λ-return, across an episode's end.",
    "Discussion questions": "nb07's own questions in full for self-study (07-Q1, 07-Q2 here, "
        "07-Q3…07-Q5 on the next two slides), numbered so they do not collide with "
        "INSTRUCTORS.md's; the lecture's discussion is the plan's, on the deck's last slides.",
    "Discussion questions (continued)": "07-Q3 in full, for self-study; skip to the plan's "
        "discussion at the end of the deck.",
    "Discussion questions (end)": "07-Q4 and 07-Q5 in full, for self-study; the plan's "
        "discussion comes next.",
}

REASONS = {"optional": "optional (lecture-optional)", "homework": "optional: homework",
           "self-study": "optional: guided self-study", "dropped": "optional: dropped from "
           "the plan"}


def _first_line(cell) -> str:
    """The first line a slide shows of ``cell``: a markdown cell's (without ``#``s), a code
    cell's first Markdown output's (without bold marks)."""
    if cell.get("cell_type") == "code":
        src = next((slide_words._src({"source": o["data"]["text/markdown"]})
                    for o in cell.get("outputs", []) if "text/markdown" in o.get("data", {})),
                   "")
        src = src.replace("*", "")
    else:
        src = slide_words._src(cell)
    src = src.strip()
    return src.splitlines()[0].lstrip("#").strip() if src else ""


def _sentences(text: str) -> list:
    """The sentences of a markdown text, without tags, emphasis, code marks and list bullets."""
    text = re.sub(r"<[^>]+>|`", "", text)
    text = re.sub(r"(?m)^\s*(?:[*+-]|\d+\.)\s+", "", text).replace("*", "")
    text = " ".join(text.split())
    ends = [e.start() + 1 for e in re.finditer(r"[.?!](?=\s|$)", text)
            if not re.search(r"\b(?:Sec|App|Fig|eq|e\.g|i\.e|cf|vs)$", text[:e.start()])]
    out, start = [], 0
    for end in ends + [len(text)]:
        if text[start:end].strip():
            out.append(text[start:end].strip())
        start = end
    return out


def _first_sentence(text: str, words: int = 24) -> str:
    """The first sentence of ``text`` that says something: a bold lead-in ("**Reading Figure
    1.**") or a sentence of at most three words ("Learning goals:") is joined to the sentence
    after it."""
    lead_in = re.match(r"\s*(?:[*+-]\s+)?\*\*[^*]{1,60}[.:]\*\*", text) is not None
    parts = _sentences(text)
    if not parts:
        return ""
    text = parts[0]
    if (lead_in or len(text.split()) <= 3) and len(parts) > 1:
        text = f"{text} {parts[1]}"
    toks = text.split()
    return " ".join(toks[:words]) + (" …" if len(toks) > words else "")


def say(cells, exercise: bool, homework: bool) -> str:
    """What to say on a slide made of ``cells`` (all of its cells, the hidden ones too)."""
    shown = [c for c in cells if slide_words.slide_type(c) not in ("skip", "notes")]
    head = _first_line(shown[0]) if shown else ""
    if head in CUES:
        return CUES[head]
    if exercise and homework:
        return "homework: read the question out and move on; its check runs in the notebook."
    if exercise:
        return "put the question to the room: 2 min in pairs, then take one answer."
    notes = [c for c in cells if slide_words.slide_type(c) == "notes"
             and slide_words._src(c).strip()]
    if sum(slide_words.figures(c) for c in shown):
        return ("read the figure with the room: the axes, each curve, then the point"
                + (f" ({_first_sentence(slide_words._src(notes[0]), 16)})" if notes else "."))
    if sum(slide_words.display_formulas(c) for c in shown):
        return "one line of the formula at a time; say what each symbol is."
    if notes:
        return _first_sentence(slide_words._src(notes[0]))
    if len(shown) == 1 and slide_words.cell_words(shown[0]) <= 8:
        return f"announce the section: {head}."
    # the slide's own first sentence after its heading, not the heading again
    body = "\n".join(slide_words._src(c) for c in shown if c.get("cell_type") == "markdown")
    body = "\n".join(ln for ln in body.splitlines() if not ln.lstrip().startswith("#"))
    said = _first_sentence(body, 20)
    return f"the point: {said}" if said else f"announce the section: {head}."


def cue(cells, minutes: float, reason: str | None, exercise: bool = False) -> str:
    """The cue line: ``**Cue** (1.5 min, core): what to say``."""
    m = max(0.5, round(minutes * 2) / 2)
    status = "core" if reason is None else REASONS.get(reason, f"optional: {reason}")
    return f"**Cue** ({m:g} min, {status}): {say(cells, exercise, reason == 'homework')}"


def slide_cue(cells, moved_flags, reason: str | None) -> str:
    """The cue of a slide of the deck: ``cells`` are all its cells (before the deck's view),
    ``moved_flags[k]``: cell ``k`` is moved out by the plan."""
    shown = [k for k, c in enumerate(cells)
             if slide_words.slide_type(c) not in ("skip", "notes")]
    n_ex = sum(roles.has(c, roles.EXERCISE) for c in cells)
    core, opt = L.slide_minutes([cells[k] for k in shown],
                                [L.is_optional(cells[k]) or moved_flags[k] for k in shown],
                                n_ex) if shown else (0.0, 0.0)
    return cue(cells, core + opt, reason, exercise=n_ex > 0)
