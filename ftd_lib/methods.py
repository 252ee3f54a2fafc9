"""The one table of methods: id, label, colour, line style, and where each one runs.

Every module, figure, report and notebook names a method by its id here and reads its label
and colour from this table; the batched engine (:mod:`ftd_lib.engine`) uses the same ids.

========================  ====================  ==========  ==========================
id                        label                 kind        runs in
========================  ====================  ==========  ==========================
``td0``                   TD(0)                 prediction  algorithms, engine
``td_lambda``             TD(λ)                 prediction  algorithms, engine
``forward_td_lambda``     forward TD(λ)         prediction  algorithms, engine
``online_lambda_return``  online λ-return       prediction  algorithms, engine
``offline_lambda_return`` offline λ-return      prediction  algorithms, engine
``true_online_td_lambda`` true online TD(λ)     prediction  algorithms
``block_lambda_return``   block λ-return (GAE)  prediction  algorithms, engine
``sarsa_lambda``          Sarsa(λ)              control     engine
``forward_sarsa_lambda``  forward Sarsa(λ)      control     engine
========================  ====================  ==========  ==========================

Colours are the Okabe-Ito palette (Okabe & Ito 2008), which stays distinguishable under the
common colour-vision deficiencies: the backward view (TD(λ), Sarsa(λ)) is vermillion, the
forward view (forward TD(λ), forward Sarsa(λ)) blue, so a pair never relies on red against
orange. Line styles separate the methods a second way (grey-scale print, projectors).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the Okabe-Ito palette (plus a neutral grey for "nothing"): every colour of the course
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}


@dataclass(frozen=True)
class Method:
    """One row of the table: ``id`` (the spelling everywhere), ``label`` (for people),
    ``colour`` and ``ls`` (matplotlib line style), ``kind`` (``"prediction"`` or
    ``"control"``), ``engine`` (the batched engine runs it) and ``algorithms`` (a per-run
    reference function of that name exists in :mod:`ftd_lib.algorithms`)."""

    id: str
    label: str
    colour: str
    ls: str
    kind: str
    engine: bool
    algorithms: bool

    def style(self) -> dict:
        """Keyword arguments for ``ax.plot``: ``color``, ``ls``, ``label``."""
        return dict(color=self.colour, ls=self.ls, label=self.label)


_C = OKABE_ITO
METHODS: dict[str, Method] = {m.id: m for m in (
    Method("td0", "TD(0)", _C["black"], ":", "prediction", True, True),
    Method("td_lambda", "TD(λ)", _C["vermillion"], "-", "prediction", True, True),
    Method("forward_td_lambda", "forward TD(λ)", _C["blue"], "-", "prediction", True, True),
    Method("online_lambda_return", "online λ-return", _C["bluish_green"], "-", "prediction",
           True, True),
    Method("offline_lambda_return", "offline λ-return", _C["reddish_purple"], "--",
           "prediction", True, True),
    Method("true_online_td_lambda", "true online TD(λ)", _C["sky_blue"], "-.", "prediction",
           False, True),
    Method("block_lambda_return", "block λ-return (GAE)", _C["orange"], "--", "prediction",
           True, True),
    Method("sarsa_lambda", "Sarsa(λ)", _C["vermillion"], "-", "control", True, False),
    Method("forward_sarsa_lambda", "forward Sarsa(λ)", _C["blue"], "-", "control", True, False),
)}

#: the methods of each kind, in the table's order (the order of every legend)
PREDICTION = tuple(m.id for m in METHODS.values() if m.kind == "prediction")
CONTROL = tuple(m.id for m in METHODS.values() if m.kind == "control")


def method(id: str) -> Method:
    """The table's row for ``id``; a ``ValueError`` names the known ids otherwise."""
    try:
        return METHODS[id]
    except KeyError:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {id!r}") from None


def label(id: str) -> str:
    """The method's label for people, e.g. ``"forward TD(λ)"``; an unknown name is returned
    as it is (curves of a figure that are not methods, such as ``"η = 0.1"``)."""
    m = METHODS.get(id)
    return id if m is None else m.label


def style(id: str) -> dict:
    """``color``, ``ls`` and ``label`` for ``ax.plot`` (just a label for an unknown name)."""
    m = METHODS.get(id)
    return dict(label=id) if m is None else m.style()
