r"""The methods at a glance: one summary card per method of :data:`ftd_lib.methods.METHODS`, and
the website's page made of them (``methods.html``, :func:`methods_page`).

A card says, one line each: what the method learns toward, when a weight update happens, its
cost per step and its memory, whether it stays stable with a network (non-linear function
approximation) and why; then its key equations in the paper's notation (van Seijen 2016:
:math:`\theta`, :math:`\hat V(S|\theta)`, the interim :math:`\lambda`-return
:math:`G_t^{\lambda|h}` of eq. 2, the general TD update of eq. 1, Sec. 3), the update in at
most six lines of pseudocode where that helps (forward TD(:math:`\lambda`): Algorithm 1,
Sec. 5, condensed), where the course teaches it (a notebook's section, linked), the paper's
section, and how to run it with the library. A method the paper does not treat (true online
TD(:math:`\lambda`), the block :math:`\lambda`-return, Watkins's Q(:math:`\lambda`), n-step
Sarsa, Expected Sarsa) says so and names what the course cites instead.

Nothing of a method's row is written twice: its label and kind come from ``METHODS``, its run
call and its per-run reference from the row (:func:`run_call`, :func:`reference_name`).
:func:`problems` checks a set of cards: one card per method id and none for an unknown id,
every course link a heading anchor of its notebook's page (:func:`page_anchor`, the id
Sphinx gives a MyST heading), every formula's braces balanced and its macros among those the
site's MathJax typesets offline (:data:`MATHJAX_MACROS`), at most :data:`WORD_LIMIT` words
and :data:`PSEUDOCODE_LINES` lines of pseudocode, so that a card fits one 1280 x 720 screen.
:func:`methods_page` refuses cards with a problem (a ``ValueError`` that fails the build).
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..methods import METHODS, example_params
from .release import REPO

#: the page's name in the site (``methods.html``)
PAGE = "methods"
#: the most words of prose a card may have (its facts, its line of sources, its links' words
#: and notes; an inline formula is one word), with at most :data:`EQUATION_LINES` display
#: lines and :data:`PSEUDOCODE_LINES` lines of pseudocode: the heaviest card (3 display lines,
#: 6 of pseudocode, 81 words) is 634 px tall in Chromium at 1280 x 720, under the theme's 54 px
#: header (688 of 720 px); two more wrapped lines of facts would not fit. A coarse guard: the
#: site's browser test measures every card (tests/publish/test_site_browser.py)
WORD_LIMIT = 85
#: the most display lines of equations a card may have
EQUATION_LINES = 3
#: the most lines of pseudocode a card may have, and characters a line (wider scrolls sideways)
PSEUDOCODE_LINES, PSEUDOCODE_WIDTH = 6, 88
#: the TeX macros a card's formula may use: MathJax 3's base and ams packages, which the site's
#: bundle (``site_static/mathjax3/tex-chtml.js``) holds; not the paper's own ``\w``, ``\bs``,
#: ``\x``, nor a macro MathJax would autoload (``\boldsymbol``: a file the site lacks)
MATHJAX_MACROS = frozenset("""
    alpha beta gamma delta epsilon eta theta lambda rho pi phi sum max min log hat bar mathbf
    nabla le ge leftarrow to quad qquad forall dots ldots cdot top lceil rceil big Big bigl bigr
    text begin end mid in infty
""".split())


@dataclass(frozen=True)
class Card:
    r"""One method's summary: ``id`` (its row of ``METHODS``); the facts, one line each (may
    hold inline ``$...$``): ``target`` (what it learns toward), ``updates`` (when a weight
    update happens), ``cost`` (per step), ``memory``, ``network`` (stable with non-linear
    function approximation or not, and why), ``policy`` (on- or off-policy); ``equations``
    (display TeX lines, each aligned at its ``&`` when every line has one); ``pseudocode``
    (at most :data:`PSEUDOCODE_LINES` lines, ``""``: none); ``taught`` (``(notebook, heading
    anchor)`` pairs: where the course teaches it or, ``in_course=False``, what it builds on);
    ``paper`` (the paper's sections, ``""``: not in the paper); ``cites`` (what the course
    cites instead, for a method beyond the paper); ``note`` (on running it, ``""``: none)."""

    id: str
    target: str
    updates: str
    cost: str
    memory: str
    network: str
    policy: str
    equations: tuple[str, ...]
    taught: tuple[tuple[str, str], ...]
    paper: str = ""
    cites: str = ""
    pseudocode: str = ""
    note: str = ""
    in_course: bool = True


_V = r"\hat V"
_Q = r"\hat Q"
#: the trace and the update of Sarsa(lambda) as notebook 06 writes them: theta holds every
#: action's network, the gradient of Q(S_t, A_t) is non-zero in theta_{A_t} only
_TRACE = (r"e_t &= \gamma\lambda e_{t-1} + \nabla_\theta\hat Q(S_t,A_t|\theta_t),\quad "
          r"\theta_{t+1} = \theta_t + \alpha\delta_t e_t")


def _eq1(new, old, target, arg, w, *, rel="=", f=_V, grad_w=None):
    """The general TD update, eq. (1) (Sec. 3), as a display line: ``new`` (aligned at its
    relation ``rel``) is ``old`` plus :math:`\\alpha` (``target`` minus ``f(arg|w)``) times
    the gradient of ``f(arg|grad_w)`` (``grad_w``: ``w`` unless given)."""
    return (rf"{new} &{rel} {old} + \alpha\big({target} - {f}({arg}|{w})\big)"
            rf"\nabla_\theta{f}({arg}|{grad_w or w})")


def _upd(target):
    """Eq. (1) for the network of the action taken, toward ``target``."""
    return _eq1(r"\theta_{A_t}", r"\theta_{A_t}", target, "S_t,A_t", r"\theta",
                rel=r"\leftarrow", f=_Q, grad_w=r"\theta_{A_t}")
_ALG1 = """K ← min(K_max, ⌈log η/log γλ⌉); per episode: FIFO F ← ∅, U_sync ← V_current ← 0, c ← 1
each step {s} → R, S'{a}:  V_next ← {v}(S'{a}), 0 if S' is terminal
  push ⟨{s}, ρ = R + γ(1−λ)V_next⟩; δ' ← R + γV_next − V_current; V_current ← V_next
  every K-th step: U ← U_sync, U_sync ← V_current, c ← 1; else U_sync += cδ', c ← γλc
  from step K on: U += (γλ)^(K−1)δ'; pop ⟨{p}, ρ_p⟩; update it toward U (eq. 1)
  then U ← (U − ρ_p)/γλ if K > 1.  Episode end: pop the rest alike (U ← U_sync if T < K)"""

CARDS: tuple[Card, ...] = (
    Card("td0", r"the one-step target $U_t = R_{t+1} + \gamma\hat V(S_{t+1}\mid\theta_t)$",
         "every step", "one value and one gradient", "the weights only",
         "follows eq. (1) exactly (like every semi-gradient method, no convergence "
         "guarantee for networks)", "on-policy",
         (r"U_t &= R_{t+1} + \gamma" + _V + r"(S_{t+1}|\theta_t)",
          _eq1(r"\theta_{t+1}", r"\theta_t", "U_t", "S_t", r"\theta_t")),
         (("01_td_basics", "learning-values-the-general-td-update"),
          ("04_forward_td_lambda", "exercise-6-k-1-is-td-0-optional")),
         paper="Sec. 3, eq. (1)"),
    Card("td_lambda", r"the $\lambda$-return, only approximately: the trace sums past "
         "gradients (Theorem 1: as $\\alpha \\to 0$ it nears the online $\\lambda$-return)",
         "every step", "one value, one gradient and the trace", "weights and one trace $e$",
         r"no: it deviates from eq. (1); in the one-state example ($\lambda = 1$) "
         r"$\beta = \alpha T$ can pass 2: the value diverges (Sec. 4, Fig. 2)", "on-policy",
         (r"\delta_t &= R_{t+1} + \gamma" + _V + r"(S_{t+1}|\theta_t) - " + _V +
          r"(S_t|\theta_t)",
          r"e_t &= \gamma\lambda e_{t-1} + \nabla_\theta" + _V + r"(S_t|\theta_t)",
          r"\theta_{t+1} &= \theta_t + \alpha\delta_t e_t"),
         (("02_lambda_return", "td-the-same-idea-backwards-with-traces"),
          ("03_one_state_divergence", "why-2-means-divergence")),
         paper="Sec. 3; Sec. 4 (Theorem 1, the one-state example)"),
    Card("forward_td_lambda", r"the $K$-bounded $\lambda$-return $G_t^{\lambda\mid t+K}$",
         "delayed $K$ steps, the last $K$ at the episode's end",
         "TD(0)'s on average: one value and one update", r"the last $K$ states, $O(nK)$ "
         r"for $n$ features ($K_{max}$ bounds it); no trace",
         "yes: eq. (1) exactly, with a delay (Sec. 5; it beats TD($\\lambda$) in Fig. 3)",
         "on-policy",
         (r"K &= \min\big(K_{max}, \lceil\log\eta/\log(\gamma\lambda)\rceil\big)",
          _eq1(r"\theta_{t+K}", r"\theta_{t+K-1}", r"G_t^{\lambda|t+K}", "S_t",
               r"\theta_{t+K-1}"),
          r"G_t^{\lambda|h+1} &= G_t^{\lambda|h} + (\gamma\lambda)^{h-t}\delta'_h,\quad "
          r"G_{t+1}^{\lambda|h} = (G_t^{\lambda|h} - \rho_t)/\gamma\lambda"),
         (("04_forward_td_lambda", "the-k-bounded-return"),
          ("04_forward_td_lambda", "algorithm-1-step-by-step")),
         paper="Sec. 5 (eqs. 5-7, Algorithm 1), App. B",
         pseudocode=_ALG1.format(s="S", a="", v="V̂", p="S_p")),
    Card("online_lambda_return", r"the interim $\lambda$-return $G_k^{\lambda\mid t}$, "
         "its horizon $t$ growing", "every step, redoing the episode's updates from "
         r"$\theta_0$", "$t$ updates at step $t$: $O(T^2)$ an episode",
         "the whole episode so far", r"yes: eq. (1) exactly; one-state example: "
         r"$\beta = 1-(1-\alpha)^T \le 1$ for $\alpha \le 1$ (Sec. 4)", "on-policy",
         (r"G_t^{\lambda|h} &= (1-\lambda)\sum_{n=1}^{h-t-1}\lambda^{n-1}G_t^{(n)} + "
          r"\lambda^{h-t-1}G_t^{(h-t)}",
          _eq1(r"\theta_{k+1}^t", r"\theta_k^t", r"G_k^{\lambda|t}", "S_k", r"\theta_k^t")
          + r",\quad 0 \le k < t,\quad \theta_t = \theta_t^t"),
         (("02_lambda_return", "the-online-and-the-offline-return-algorithm"),
          ("05_nn_prediction", "figure-3-left-four-methods-against-the-step-size")),
         paper="Sec. 4 (eqs. 2-3)",
         pseudocode="per episode: θ_0 ← θ;  at each step t = 1 … T (after R_t, S_t):\n"
                    "  V_t ← V̂(S_t|θ), 0 if terminal (the values G_k^{λ|t} bootstraps from)\n"
                    "  θ ← θ_0;  for k = 0 … t−1:  θ ← θ + α(G_k^{λ|t} − V̂(S_k|θ))∇V̂(S_k|θ)"),
    Card("offline_lambda_return", r"the $\lambda$-return $G_k^{\lambda\mid T}$, values "
         r"from $\theta_0$", "at the episode's end only", "none during the episode, $T$ "
         "updates at its end", "the episode",
         r"yes: eq. (1) exactly (Sec. 4); but no learning within an episode, and none on a "
         "task without episodes", "on-policy",
         (r"\theta_t &= \theta_0 \quad (0 \le t < T),\qquad \theta_T = \theta_T^T",
          _eq1(r"\theta_{k+1}^T", r"\theta_k^T", r"G_k^{\lambda|T}", "S_k", r"\theta_k^T")
          + r",\quad 0 \le k < T"),
         (("02_lambda_return", "the-online-and-the-offline-return-algorithm"),
          ("05_nn_prediction", "figure-3-left-four-methods-against-the-step-size")),
         paper="Sec. 4"),
    Card("true_online_td_lambda", r"the online $\lambda$-return, exactly (linear "
         r"features $\phi$)", "every step", r"a few dot products: $O(n)$",
         r"weights, a dutch trace $e$ and $V_{old}$",
         r"linear only: its derivation needs a gradient that does not depend on $\theta$ "
         "(Sec. 2); the library refuses a network", "on-policy",
         (r"\delta_t &= R_{t+1} + \gamma\theta_t^\top\phi_{t+1} - \theta_t^\top\phi_t",
          r"e_t &= \gamma\lambda e_{t-1} + \phi_t - \alpha\gamma\lambda"
          r"(e_{t-1}^\top\phi_t)\phi_t",
          r"\theta_{t+1} &= \theta_t + \alpha(\delta_t + \theta_t^\top\phi_t - V_{old})e_t - "
          r"\alpha(\theta_t^\top\phi_t - V_{old})\phi_t,\quad V_{old} = "
          r"\theta_{t-1}^\top\phi_t"),
         (("02_lambda_return", "notation-part-4-notebooks-0406"),),
         cites="van Seijen & Sutton (2014); Sutton & Barto (2018), §12.5",
         note="with `approx=Linear(n)` of `ftd_lib.approx`", in_course=False),
    Card("block_lambda_return", r"GAE targets $A_t + \hat V(S_t\mid\theta_s) = "
         r"G_t^{\lambda\mid e}$, horizon at the block's end", "every $B$ steps, one SGD "
         "pass over the block in time order", "one value and one update a step, on average",
         "the block: $B$ states", r"yes: eq. (1) exactly, targets frozen over a block "
         r"($B = 1$: TD(0); $B \ge T$: the offline $\lambda$-return)", "on-policy",
         (r"G_t &= A_t + " + _V + r"(S_t|\theta_s) = G_t^{\lambda|e},\quad s \le t < e = "
          r"\min(s+B, T)",
          r"A_t &= \delta_t + \gamma\lambda A_{t+1},\quad A_e = 0,\quad \delta_t = R_{t+1} + "
          r"\gamma" + _V + r"(S_{t+1}|\theta_s) - " + _V + r"(S_t|\theta_s)",
          _eq1(r"\theta", r"\theta", "G_t", "S_t", r"\theta", rel=r"\leftarrow")
          + r",\quad t = s, \dots, e-1"),
         (("07_modern_lambda_returns", "gae-is-an-interim-return"),
          ("07_modern_lambda_returns", "sliding-window-against-block")),
         cites="Schulman et al. (2016) for GAE; one SGD pass is the course's choice",
         note="the block length $B$ is the settings' `k_max`"),
    Card("sarsa_lambda", "TD($\\lambda$)'s target on action values, approximately",
         "every step", "one value per action, every network's trace",
         "all networks' weights and one trace over them",
         r"no: TD($\lambda$)'s deviation from eq. (1); on cart-pole higher $\lambda$ hurts "
         "(Sec. 6, Fig. 4)", r"on-policy ($\epsilon$-greedy)",
         (r"\delta_t &= R_{t+1} + \gamma" + _Q + r"(S_{t+1},A_{t+1}|\theta_t) - " + _Q +
          r"(S_t,A_t|\theta_t)",
          _TRACE),
         (("06_nn_control", "from-td-to-sarsa-one-network-per-action"),
          ("06_nn_control", "figure-4")),
         paper="Sec. 6 (one network per action)"),
    Card("forward_sarsa_lambda", r"the $K$-bounded $\lambda$-return of action values",
         "delayed $K$ steps, the last $K$ at the episode's end",
         "one value per action, one update of one network",
         r"the last $K$ state-action pairs; no trace",
         "yes: eq. (1) exactly per network; it beats Sarsa($\\lambda$) in Fig. 4 except at "
         r"$\lambda = 1$", r"on-policy ($\epsilon$-greedy)",
         (_upd(r"G_t^{\lambda|t+K}"),
          r"G_t^{\lambda|h} &= R_{t+1} + \gamma\big((1-\lambda)" + _Q +
          r"(S_{t+1},A_{t+1}) + \lambda G_{t+1}^{\lambda|h}\big),\quad G_h^{\lambda|h} = " +
          _Q + r"(S_h,A_h)"),
         (("06_nn_control", "from-td-to-sarsa-one-network-per-action"),
          ("06_nn_control", "how-long-forward-sarsa-waits")),
         paper="Sec. 6 (Algorithm 1 with action values)",
         pseudocode=_ALG1.format(s="S, A", a=", A'", v="Q̂", p="S_p, A_p")),
    Card("watkins_q_lambda", r"the greedy policy's values: one-step $\max_a$ targets, "
         "traced", "every step", "one value per action, every network's trace",
         "all networks' weights and one trace over them",
         "not reliably: Sarsa($\\lambda$)'s traces plus off-policy bootstrapping (Sutton & "
         "Barto §11.3)",
         r"off-policy (learns greedy values while $\epsilon$-greedy)",
         (r"\delta_t &= R_{t+1} + \gamma\max_a" + _Q + r"(S_{t+1},a|\theta_t) - " + _Q +
          r"(S_t,A_t|\theta_t)",
          _TRACE + r",\quad \text{then } e_t \leftarrow 0 \text{ if } A_{t+1} \text{ is not "
          r"greedy}"),
         (("06_nn_control", "from-td-to-sarsa-one-network-per-action"),),
         cites="Watkins (1989); Sutton & Barto (2018), §12.10", in_course=False),
    Card("n_step_sarsa", r"the $n$-step return $G_t^{(n)}$ (Sutton & Barto: "
         r"$G_{t:t+n}$)", "delayed $n$ steps, the last $n$ at the episode's end",
         "one value per action and one update", "the last $n$ pairs and rewards",
         r"yes: eq. (1) exactly; it is forward Sarsa($\lambda$) at $\lambda = 1$, "
         r"$K_{max} = n$ (while $\gamma^n > \eta$)", r"on-policy ($\epsilon$-greedy)",
         (r"G_t^{(n)} &= \sum_{k=1}^{n}\gamma^{k-1}R_{t+k} + \gamma^n" + _Q +
          r"(S_{t+n},A_{t+n}|\theta)\quad \text{(0 past } T\text{)}",
          _upd(r"G_t^{(n)}")),
         (("02_lambda_return", "n-step-returns"),
          ("06_nn_control", "from-td-to-sarsa-one-network-per-action")),
         cites="Sutton & Barto (2018), §7.2, §10.2", in_course=False),
    Card("expected_sarsa", r"the one-step target, averaged over the $\epsilon$-greedy "
         r"policy $\pi$", "every step", "one value per action (those that choose $A'$) "
         "and one update", "the weights only",
         "follows eq. (1) exactly, one step; less variance than Sarsa's sampled target",
         r"on-policy here ($\pi$ is the policy it follows); off-policy with another $\pi$",
         (r"\bar V(S_{t+1}) &= \sum_a \pi(a|S_{t+1})" + _Q + r"(S_{t+1},a|\theta)",
          _upd(r"R_{t+1} + \gamma\bar V(S_{t+1})")),
         (("06_nn_control", "exercise-3-how-greedy-is-greedy-required"),),
         cites="van Seijen, van Hasselt, Whiteson & Wiering (2009); Sutton & Barto (2018), "
               "§6.6, §10.2", in_course=False),
)


def page_anchor(heading: str) -> str:
    """The id Sphinx gives a MyST heading on a page (docutils' ``make_id`` of its text):
    Markdown marks and ``$`` dropped, lower case, accents and other non-ASCII letters dropped
    (λ, β, —), every run of other characters a hyphen, no leading digit or hyphen
    (``"4. TD(λ): the same idea"`` -> ``"td-the-same-idea"``)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"[`*$]", "", text).lower()
    text = text.translate(str.maketrans({"ø": "o", "đ": "d", "ł": "l", "ħ": "h", "ß": "sz",
                                         "æ": "ae", "œ": "oe"}))
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^a-z0-9]+", "-", " ".join(text.split()))
    return re.sub(r"^[-0-9]+|-+$", "", text)


def notebook_headings(path: Path) -> dict[str, str]:
    """The headings of notebook ``path`` (its Markdown cells) by their page anchor; a heading
    whose anchor another heading shares, or that has none, is left out (no link can name it
    for sure)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    found = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            fence = False
            for line in cell.source.splitlines():
                fence ^= line.lstrip().startswith(("```", "~~~"))
                m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    found.append((page_anchor(m.group(1)), m.group(1)))
    ids = [a for a, _ in found]
    return {a: h for a, h in found if a and ids.count(a) == 1}


def run_call(id: str) -> str | None:
    """The library call that runs method ``id`` through an engine, from its row:
    ``run_control`` for a control method (its example parameters), ``run_prediction`` for a
    prediction method with a batch implementation; ``None`` for one with its reference only."""
    m = METHODS[id]
    if m.kind == "control":
        params = example_params(id)
        more = f", params={params!r}".replace("'", '"') if params else ""
        return f'run_control("{id}", settings, seed, run_ids, n_episodes, env="cartpole"{more})'
    if "batch" in m.engines:
        return f'run_prediction("{id}", settings, seed, run_ids, n_episodes)'
    return None


def reference_name(id: str) -> str:
    """The dotted name of method ``id``'s per-run reference (its row's ``reference``, found
    as the engine finds it: :func:`ftd_lib.engine.reference.reference_function`)."""
    from ..engine.reference import reference_function

    f = reference_function(id)
    return f"{f.__module__}.{f.__name__}"


def _tex(card: Card) -> list[str]:
    """Every formula of ``card``: its display lines and its facts' inline ``$...$``."""
    facts = [card.target, card.updates, card.cost, card.memory, card.network, card.policy,
             card.note]
    return list(card.equations) + [m for f in facts for m in re.findall(r"\$([^$]*)\$", f)]


def tex_problems(formula: str) -> list[str]:
    """What is wrong with TeX ``formula`` for the site: braces that do not balance (``\\{``
    aside), a macro not in :data:`MATHJAX_MACROS`, a ``$`` inside it."""
    out, depth = [], 0
    for ch in re.sub(r"\\[{}]", "", formula):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth:
        out.append(f"unbalanced braces in {formula!r}")
    unknown = sorted(set(re.findall(r"\\([A-Za-z]+)", formula)) - MATHJAX_MACROS)
    if unknown:
        out.append(f"macros the site's MathJax lacks: {unknown} in {formula!r}")
    if "$" in formula:
        out.append(f"a $ inside {formula!r}")
    return out


def card_words(card: Card) -> int:
    """The words of prose of ``card`` (:data:`WORD_LIMIT`): its facts, its line of sources,
    its links' words (their anchors' words) and its note, an inline formula one word; its
    display equations and pseudocode are bounded by their lines instead."""
    text = " ".join([card.target, card.updates, card.cost, card.memory, card.network,
                     card.policy, card.paper, card.cites, card.note,
                     *(a.replace("-", " ") for _, a in card.taught)])
    return len(re.findall(r"\w+", re.sub(r"\$[^$]*\$", " x ", text)))


def problems(cards=CARDS, notebooks: Path = REPO / "notebooks") -> list[str]:
    """Everything wrong with ``cards`` (``[]``: nothing): a method id of ``METHODS`` without
    a card, a card for an unknown id or a second card for one, a course link to a notebook
    that ``notebooks`` lacks or to an anchor none of its headings gives, a formula with a
    problem (:func:`tex_problems`), a fact with a ``|`` (it would cut the facts table), more
    than :data:`WORD_LIMIT` words, :data:`EQUATION_LINES` display lines or
    :data:`PSEUDOCODE_LINES` lines of pseudocode."""
    ids = [c.id for c in cards]
    out = [f"method {i!r} has no card" for i in METHODS if i not in ids]
    out += [f"card for unknown method {i!r}" for i in ids if i not in METHODS]
    out += [f"{i!r} has {ids.count(i)} cards" for i in dict.fromkeys(ids) if ids.count(i) > 1]
    heads = {}
    for c in cards:
        for stem, anchor in c.taught:
            path = Path(notebooks) / f"{stem}.ipynb"
            if not path.is_file():
                out.append(f"{c.id}: links notebook {stem}, which {notebooks} lacks")
                continue
            if stem not in heads:
                heads[stem] = notebook_headings(path)
            if anchor not in heads[stem]:
                out.append(f"{c.id}: no heading of {stem} has anchor #{anchor}")
        out += [f"{c.id}: {p}" for f in _tex(c) for p in tex_problems(f)]
        facts = (c.target, c.updates, c.cost, c.memory, c.network, c.policy)
        out += [f"{c.id}: a '|' in the fact {f!r} (write \\mid)" for f in facts if "|" in f]
        if card_words(c) > WORD_LIMIT:
            out.append(f"{c.id}: {card_words(c)} words, more than {WORD_LIMIT}")
        if not 1 <= len(c.equations) <= EQUATION_LINES:
            out.append(f"{c.id}: {len(c.equations)} display lines, not 1 to {EQUATION_LINES}")
        code = c.pseudocode.splitlines()
        if len(code) > PSEUDOCODE_LINES or max(map(len, code), default=0) > PSEUDOCODE_WIDTH:
            out.append(f"{c.id}: pseudocode over {PSEUDOCODE_LINES} lines of "
                       f"{PSEUDOCODE_WIDTH} characters")
        if not c.taught or not (c.paper or c.cites):
            out.append(f"{c.id}: needs where it is taught and the paper's section or a source")
    return out


def _link(stem: str, anchor: str, heading: str) -> str:
    words = re.sub(r"\s*\$[^$]*\$", "", heading)
    words = html.escape(re.sub(r"^(\d+)\.\s+", r"§\1 ", words))
    return f'<a class="ftd-course-link" href="{stem}.html#{anchor}">{stem[:2]} {words}</a>'


def card_markdown(card: Card, notebooks: Path = REPO / "notebooks") -> str:
    """One card as MyST Markdown: a heading (the method's label, with the method id as its
    anchor), a line with its kind, policy and the paper's section (or what the course cites
    instead), the facts table, the equations, the pseudocode, where it is taught and how to
    run it."""
    m = METHODS[card.id]
    where = (f"paper: {card.paper}" if card.paper else
             f"not in the paper; the course cites {card.cites}")
    if card.paper and card.cites:
        where += f"; {card.cites}"
    rows = [("learns toward", card.target), ("updates", card.updates),
            ("cost a step", card.cost), ("memory", card.memory),
            ("with a network", card.network)]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    lines = card.equations
    eq = "\n \\\\ ".join(lines)
    if len(lines) > 1:
        env = "aligned" if all("&" in x for x in lines) else "gathered"
        eq = f"\\begin{{{env}}}{eq}\\end{{{env}}}"
    elif "&" in eq:
        eq = eq.replace("&", "")
    code = f"\n```text\n{card.pseudocode}\n```\n" if card.pseudocode else ""
    heads = {}
    links = []
    for stem, anchor in card.taught:
        heads.setdefault(stem, notebook_headings(Path(notebooks) / f"{stem}.ipynb"))
        links.append(_link(stem, anchor, heads[stem][anchor]))
    taught = ("Taught in" if card.in_course else "Not in a notebook; builds on") + ": "
    call = run_call(card.id)
    run = f"`{call}` · reference" if call else "reference only:"
    note = f" ({card.note})" if card.note else ""
    return f"""({card.id.replace("_", "-")})=
### {m.label}

::::{{container}} ftd-method-card
*{m.kind} · {card.policy} · {where}*

| | |
| --- | --- |
{table}

$$
{eq}
$$
{code}
{taught}{" · ".join(links)}.
Run it: {run} `{reference_name(card.id)}`{note}.
::::
"""


def methods_page(notebooks: Path = REPO / "notebooks") -> str:
    """The site's page of the cards (MyST Markdown), prediction first, then control, each in
    ``METHODS``' order; ``notebooks``: the folder of the notebooks the site's pages are made
    from (their headings give the links' anchors). A card with a problem (:func:`problems`)
    is a ``ValueError``, which fails the build."""
    bad = problems(CARDS, notebooks)
    if bad:
        raise ValueError("the method cards: " + "; ".join(bad))
    by_id = {c.id: c for c in CARDS}
    parts = []
    for kind in ("prediction", "control"):
        parts.append(f"## {kind.capitalize()}\n")
        parts += [card_markdown(by_id[i], notebooks) for i, m in METHODS.items()
                  if m.kind == kind]
    return f"""# Methods at a glance

One card per method of the course's library (`ftd_lib.methods`), one screen each: what it
learns toward, when it updates, its cost and memory, whether it holds up with a network, its
key equations in the paper's notation (van Seijen 2016: weights $\\theta$, values
$\\hat V(S|\\theta)$, the interim $\\lambda$-return $G_t^{{\\lambda|h}}$ of eq. (2), the general
TD update of eq. (1)), where the course teaches it and how to run it. Sutton & Barto's names
for the same things: <a class="ftd-handout" href="handouts/00_notation.pdf">the notation
sheet</a>. The run calls need:

```python
from ftd_lib.engine import Settings, run_control, run_prediction
settings = Settings.make(alpha=[0.01, 0.01], lam=[0.0, 0.9], gamma=1.0)  # a row a run
seed, run_ids, n_episodes = 0, [0, 1], 50
```

{chr(10).join(parts)}"""
