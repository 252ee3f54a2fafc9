"""The one table of methods: one record per method -- id, label, colour, line style, kind,
numerics version and its implementations.

Every module, figure, report and notebook names a method by its id here and reads its label
and colour from this table; the engine derives its method lists and
:data:`ftd_lib.engine.NUMERICS_VERSION` from it, and finds each implementation through it.

========================  ====================  ==========  ========  =========================
id                        label                 kind        numerics  implementations
========================  ====================  ==========  ========  =========================
``td0``                   TD(0)                 prediction  1         reference, batch
``td_lambda``             TD(λ)                 prediction  1         reference, batch
``forward_td_lambda``     forward TD(λ)         prediction  1         reference, batch
``online_lambda_return``  online λ-return       prediction  1         reference, batch
``offline_lambda_return`` offline λ-return      prediction  1         reference, batch
``true_online_td_lambda`` true online TD(λ)     prediction  --        reference
``block_lambda_return``   block λ-return (GAE)  prediction  1         reference, batch
``sarsa_lambda``          Sarsa(λ)              control     2         reference, batch, kernel (p)
``forward_sarsa_lambda``  forward Sarsa(λ)      control     2         reference, batch, kernel (p)
``watkins_q_lambda``      Watkins's Q(λ)        control     1         reference
``n_step_sarsa``          n-step Sarsa          control     1         reference, kernel (n, p)
``expected_sarsa``        Expected Sarsa        control     1         reference
========================  ====================  ==========  ========  =========================

(n): a parameter of its own; (p): written as pieces of the kernel's extension point too (its
row's ``compiled``), so the kernel runs it on every task with compiled dynamics -- the
paper's two on cart-pole and mountain car through the kernel's own runs, on the others
through their pieces (the same numbers where both run).

A new method: its per-run reference and one row here. Where the reference goes: a prediction
method on recorded episodes in :mod:`ftd_lib.algorithms` (the row names the function:
``"td_lambda"``); a control method, live on an environment, in a file of its own under
:mod:`ftd_lib.references` (the row names it ``"references.<file>:<function>"``; the paper's
two are ``"references.sarsa_lambda:sarsa_lambda"`` and its forward twin). Then
``run_control(..., engine="reference")`` and an experiment file run it, and
:func:`ftd_lib.engine.method_check.check_method` checks it (its hand-worked episode, written
beside the reference as ``HAND_WORKED``, on the four-step template of
:mod:`ftd_lib.references.template`; agreement with every engine that claims it). The
golden numbers of a new method: ``python tests/engine/test_engine_golden.py <id>``; the
whole recipe: ``experiments/README.md``. A batch or kernel implementation is registered
where it is written (:data:`ftd_lib.engine.control.ITERATIONS`,
:data:`ftd_lib.engine.kernel.RUNS`) and named in ``engines`` here; a method written as
pieces of the kernel's extension point (:mod:`ftd_lib.engine.kernel.extend`) is named by its
row's ``compiled`` (n-step Sarsa: ``"engine.compiled.n_step_sarsa"``) with ``"kernel"`` in
``engines``; ``numerics`` is the version its stored results are keyed by (``None``: it joins
no experiment).

A method's own parameters (beyond the settings columns alpha, lambda, gamma, eta, K_max) are
its row's ``params``: one :class:`Param` each (name, check, default or required, an example
value for the checks). :func:`check_params` validates what a caller gives (a ``ValueError``
naming the parameter); ``run_control(..., params={...})``, an experiment file's per-curve
``params = {...}`` and ``check_method`` forward them to the method's implementations by
keyword; a chunk's identity holds them (only when there are any).

Colours are the Okabe-Ito palette (Okabe & Ito 2008), which stays distinguishable under the
common colour-vision deficiencies: the backward view (TD(λ), Sarsa(λ)) is vermillion, the
forward view (forward TD(λ), forward Sarsa(λ)) blue, so a pair never relies on red against
orange. Line styles separate the methods a second way (grey-scale print, projectors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .style import OKABE_ITO
from .validate import check_int

#: a parameter's default when it has none (the caller must give it)
REQUIRED = object()


@dataclass(frozen=True)
class Param:
    """One parameter of a method beyond the settings columns: ``name`` (the keyword its
    implementations take), ``check(value) -> value`` (raises ``ValueError`` naming it),
    ``default`` (:data:`REQUIRED`: none), ``example`` (the value the checks and golden
    workloads run it at; the default when there is one), ``doc`` (for people) and ``other``
    (a second value ``check_method`` runs it at)."""

    name: str
    check: Callable
    default: object = REQUIRED
    example: object = None
    doc: str = ""
    #: a second value the checks run it at (``None``: its default where that is not the
    #: example; else the example again)
    other: object = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Method:
    """One row of the table: ``id`` (the spelling everywhere), ``label`` (for people),
    ``colour`` and ``ls`` (matplotlib line style), ``kind`` (``"prediction"`` or
    ``"control"``), ``numerics`` (the version stored results are keyed by; ``None``: no
    experiment runs it), ``reference`` (its per-run function: a name in
    :mod:`ftd_lib.algorithms`, or ``"module:function"`` of :mod:`ftd_lib`, or ``None``) and
    ``engines`` (the fast implementations: ``"batch"``, ``"kernel"``), ``params`` (its own
    parameters, :class:`Param`; every implementation takes them by keyword), ``ignores``
    (the settings columns it does not read)."""

    id: str
    label: str
    colour: str
    ls: str
    kind: str
    numerics: int | None
    reference: str | None
    engines: tuple[str, ...]
    params: tuple[Param, ...] = ()
    #: the settings columns its numbers do not depend on (``"lam"``, ``"eta"``, ``"k_max"``):
    #: an experiment runs it at one fixed value of each (:data:`IGNORED_SETTINGS`), never the
    #: grid's, so they neither key its chunks nor appear in its labels
    ignores: tuple[str, ...] = ()
    #: its compiled form for the kernel's extension point (:mod:`ftd_lib.engine.kernel.extend`):
    #: a module under ``ftd_lib`` with its pieces ``kernel_params``, ``kernel_init``,
    #: ``kernel_step``, ``kernel_end`` (``None``: none; ``"kernel"`` in ``engines`` with it)
    compiled: str | None = None

    def style(self) -> dict:
        """Keyword arguments for ``ax.plot``: ``color``, ``ls``, ``label``."""
        return dict(color=self.colour, ls=self.ls, label=self.label)


_C = OKABE_ITO
_B, _BK = ("batch",), ("batch", "kernel")
METHODS: dict[str, Method] = {m.id: m for m in (
    Method("td0", "TD(0)", _C["black"], ":", "prediction", 1, "td0", _B),
    Method("td_lambda", "TD(λ)", _C["vermillion"], "-", "prediction", 1, "td_lambda", _B),
    Method("forward_td_lambda", "forward TD(λ)", _C["blue"], "-", "prediction", 1,
           "forward_td_lambda", _B),
    Method("online_lambda_return", "online λ-return", _C["bluish_green"], "-", "prediction",
           1, "online_lambda_return", _B),
    Method("offline_lambda_return", "offline λ-return", _C["reddish_purple"], "--",
           "prediction", 1, "offline_lambda_return", _B),
    Method("true_online_td_lambda", "true online TD(λ)", _C["sky_blue"], "-.", "prediction",
           None, "true_online_td_lambda", ()),
    Method("block_lambda_return", "block λ-return (GAE)", _C["orange"], "--", "prediction",
           1, "block_lambda_return", _B),
    Method("sarsa_lambda", "Sarsa(λ)", _C["vermillion"], "-", "control", 2,
           "references.sarsa_lambda:sarsa_lambda", _BK,
           compiled="engine.compiled.sarsa_lambda"),
    Method("forward_sarsa_lambda", "forward Sarsa(λ)", _C["blue"], "-", "control", 2,
           "references.forward_sarsa_lambda:forward_sarsa_lambda", _BK,
           compiled="engine.compiled.forward_sarsa_lambda"),
    Method("watkins_q_lambda", "Watkins's Q(λ)", _C["bluish_green"], "--", "control", 1,
           "references.watkins_q_lambda:watkins_q_lambda", ()),
    Method("n_step_sarsa", "n-step Sarsa", _C["reddish_purple"], "-.", "control", 1,
           "references.n_step_sarsa:n_step_sarsa", ("kernel",),
           (Param("n", lambda v: check_int("n", v, 1), example=3, other=1,
                  doc="steps before bootstrapping (Sutton & Barto 2018, Sec. 7.2)"),),
           ignores=("lam", "eta", "k_max"), compiled="engine.compiled.n_step_sarsa"),
    Method("expected_sarsa", "Expected Sarsa", _C["yellow"], "--", "control", 1,
           "references.expected_sarsa:expected_sarsa", (), ignores=("lam", "eta", "k_max")),
)}

#: the value an experiment gives a settings column that a method ignores (``Method.ignores``)
IGNORED_SETTINGS = {"lam": 0.0, "eta": 0.01, "k_max": None}

#: the methods of each kind, in the table's order (the order of every legend)
PREDICTION = tuple(m.id for m in METHODS.values() if m.kind == "prediction")
CONTROL = tuple(m.id for m in METHODS.values() if m.kind == "control")
#: the numerics version of every method an engine runs (stored results are keyed by it)
NUMERICS_VERSION = {m.id: m.numerics for m in METHODS.values() if m.numerics is not None}


def implemented(kind: str, engine: str) -> tuple[str, ...]:
    """The methods of ``kind`` that ``engine`` (``"reference"``, ``"batch"``, ``"kernel"``)
    runs, in the table's order."""
    return tuple(m.id for m in METHODS.values() if m.kind == kind and (
        m.reference is not None if engine == "reference" else engine in m.engines))


def method(id: str) -> Method:
    """The table's row for ``id``; a ``ValueError`` names the known ids otherwise."""
    try:
        return METHODS[id]
    except KeyError:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {id!r}") from None


def check_params(id: str, params=None) -> dict:
    """``params`` (a dict, or ``None``: none) checked against the row of ``id``: every key one
    of its :class:`Param`, every value through the param's check, the defaults filled in;
    a ``ValueError`` names the method and the parameter otherwise (an unknown one, a missing
    required one, a bad value)."""
    return check_param_values(id, params, method(id).params,
                              "; alpha, lam, gamma, eta, k_max are settings")


def check_param_values(owner: str, params, known, note: str = "") -> dict:
    """``params`` (a dict, or ``None``: none) checked against ``known``, the
    :class:`Param` of ``owner`` (a method's or a task's row): every key one of them, every
    value through its check, the defaults filled in; a ``ValueError`` names ``owner`` and
    the parameter otherwise (an unknown one -- its message ends with ``note`` --, a missing
    required one, a bad value)."""
    params = {} if params is None else params
    if not isinstance(params, dict):
        raise ValueError(f"params of {owner} must be a table of name = value, got {params!r}")
    known = {p.name: p for p in known}
    for k in params:
        if k not in known:
            have = ", ".join(known) or "none"
            raise ValueError(f"params.{k}: {owner} has no parameter {k!r} (its parameters: "
                             f"{have}{note})")
    out = {}
    for name, p in known.items():
        if name not in params:
            if p.required:
                raise ValueError(f"params.{name}: {owner} needs it ({p.doc or 'no default'})")
            out[name] = p.default
            continue
        try:
            out[name] = p.check(params[name])
        except ValueError as e:
            raise ValueError(f"params.{name} of {owner}: {e}") from None
    return out


def example_params(id: str) -> dict:
    """The parameters ``id``'s checks and golden workloads run it at: each param's example
    (its default when it has no example)."""
    return {p.name: p.default if p.example is None else p.example for p in method(id).params}


def label(id: str) -> str:
    """The method's label for people, e.g. ``"forward TD(λ)"``; an unknown name is returned
    as it is (curves of a figure that are not methods, such as ``"η = 0.1"``)."""
    m = METHODS.get(id)
    return id if m is None else m.label


def style(id: str) -> dict:
    """``color``, ``ls`` and ``label`` for ``ax.plot`` (just a label for an unknown name)."""
    m = METHODS.get(id)
    return dict(label=id) if m is None else m.style()
