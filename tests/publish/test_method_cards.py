r"""The methods at a glance (ftd_lib/publish/method_cards.py): one card per method of
``ftd_lib.methods.METHODS`` and none for an unknown id (a maintainer who adds a method is told
to add its card); every course link a heading anchor of its notebook's page, with the anchor
Sphinx gives the heading (checked against docutils' own ``make_id`` where docutils is
installed, and in the built site by tests/publish/test_site_browser.py); every "run it" call
run for real (one episode; the engine named where ``auto`` would compile the kernel); every
formula balanced and made of macros the site's MathJax bundle holds without autoloading;
words and lines within one screen's budget. Each check is shown to catch its wrong forms
(mutants)."""

import ast
import dataclasses
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ftd_lib import engine
from ftd_lib.approx import MLP, Linear
from ftd_lib.methods import METHODS
from ftd_lib.publish import landing
from ftd_lib.publish import method_cards as mc

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / "ftd_lib" / "publish" / "site_static" / "mathjax3" / "tex-chtml.js"


def test_the_cards_have_no_problem_and_one_card_per_method():
    assert mc.problems() == []
    assert sorted(c.id for c in mc.CARDS) == sorted(METHODS)


def _card(id):
    return next(c for c in mc.CARDS if c.id == id)


@pytest.mark.parametrize("mutant, says", [
    (lambda cs: cs[1:], "method 'td0' has no card"),  # a method added without its card
    (lambda cs: cs + (dataclasses.replace(cs[0], id="td_gamma"),),
     "card for unknown method 'td_gamma'"),
    (lambda cs: cs + (cs[0],), "'td0' has 2 cards"),
    (lambda cs: (dataclasses.replace(cs[0], taught=(("02_lambda_return", "td-lambda"),)),)
     + cs[1:], "td0: no heading of 02_lambda_return has anchor #td-lambda"),
    (lambda cs: (dataclasses.replace(cs[0], taught=(("09_nothing", "summary"),)),) + cs[1:],
     "td0: links notebook 09_nothing"),
    (lambda cs: (dataclasses.replace(cs[0], equations=(r"\theta_{t+1 = \w_t",)),) + cs[1:],
     "td0: unbalanced braces"),
    (lambda cs: (dataclasses.replace(cs[0], target=r"$G_t^{\lambda|h}$"),) + cs[1:],
     "td0: a '|' in the fact"),
    (lambda cs: (dataclasses.replace(cs[0], network=cs[0].network + " word" * 40),)
     + cs[1:], f"words, more than {mc.WORD_LIMIT}"),
    (lambda cs: (dataclasses.replace(cs[0], equations=cs[0].equations * 2),) + cs[1:],
     "td0: 4 display lines"),
    (lambda cs: (dataclasses.replace(cs[0], pseudocode="x\n" * 7),) + cs[1:],
     "td0: pseudocode over 6 lines"),
    (lambda cs: (dataclasses.replace(cs[0], pseudocode="x" * 100),) + cs[1:],
     "td0: pseudocode over 6 lines of 88 characters"),
    (lambda cs: (dataclasses.replace(cs[0], paper=""),) + cs[1:],
     "td0: needs where it is taught and the paper's section or a source"),
])
def test_a_wrong_card_is_reported(mutant, says, monkeypatch):
    found = mc.problems(mutant(mc.CARDS))
    assert any(says in p for p in found), found
    monkeypatch.setattr(mc, "CARDS", mutant(mc.CARDS))
    with pytest.raises(ValueError, match="the method cards"):  # and fails the site's build
        mc.methods_page()


#: headings and the ids the built site gives them (read off the pages of a site build)
SITE_IDS = {
    "4. TD(λ): the same idea, backwards, with traces": "td-the-same-idea-backwards-with-traces",
    "Notation, part 4: notebooks 04–06": "notation-part-4-notebooks-0406",
    r"2. The interim λ-return $G_t^{\lambda|h}$": "the-interim-return-g-t-lambda-h",
    "Exercise 3 — how greedy is ε-greedy? (required)": "exercise-3-how-greedy-is-greedy-required",
    "02 · The λ-return: online and offline λ-return algorithms, TD(λ) and Figure 1":
        "the-return-online-and-offline-return-algorithms-td-and-figure-1",
    "Why the best λ trails the best n early": "why-the-best-trails-the-best-n-early",
}


def test_page_anchor_is_the_id_a_heading_gets_on_the_site():
    assert {h: mc.page_anchor(h) for h in SITE_IDS} == SITE_IDS


def test_page_anchor_is_docutils_make_id_for_every_heading_of_every_notebook():
    nodes = pytest.importorskip("docutils.nodes")  # the site's role has it, the fast one not
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for anchor, heading in mc.notebook_headings(path).items():
            assert anchor == nodes.make_id(re.sub(r"[`*$]", "", heading)), (path.stem, heading)


def test_a_heading_that_is_not_one_gets_no_anchor(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 01 · Title\n\n## Summary\n\n```text\n# not a heading"
                                      "\n```"),
        nbformat.v4.new_markdown_cell("## Summary\n\n### λ\n\n### 3. Two `words`"),
        nbformat.v4.new_code_cell("# a comment, not a heading")])
    nbformat.write(nb, tmp_path / "x.ipynb")
    # twice "Summary" (which would the link mean?), one with no letters, a code comment
    assert mc.notebook_headings(tmp_path / "x.ipynb") == {"title": "01 · Title",
                                                          "two-words": "3. Two `words`"}


def _call(text):
    """``(function, positional names, keywords)`` of a card's run call."""
    call = ast.parse(text, mode="eval").body
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name), text
    return (call.func.id, [a.value if isinstance(a, ast.Constant) else a.id for a in call.args],
            {k.arg: ast.literal_eval(k.value) for k in call.keywords})


def _run(text, names):
    """Run a card's call with the page's names (``settings``, ``seed``, ...), one episode,
    five evaluation states; a control method through its batch or its reference (``auto``
    would compile the kernel: minutes, cold)."""
    name, args, kw = _call(text)
    m = METHODS.get(args[0])
    fast = (dict(n_eval=5) if name == "run_prediction" else
            dict(engine="batch" if m and "batch" in m.engines else "reference"))
    f = getattr(engine, name)
    return f(*[a if i == 0 else names[a] for i, a in enumerate(args)], **kw, **fast)


@pytest.fixture(scope="module")
def page_names():
    """The names the page's first code block defines, by running it."""
    block = re.search(r"```python\n(.*?)```", mc.methods_page(), re.S).group(1)
    names = {}
    exec(block, names)
    assert len(names["settings"]) == len(names["run_ids"])
    return dict(names, n_episodes=1)


@pytest.mark.parametrize("id", list(METHODS))
def test_each_run_call_runs(id, page_names):
    """The card's call runs as shown (:func:`_run`: one episode), and its reference is the
    engine's; true online TD(λ), with no engine, runs its reference on linear features and
    refuses a network, as its card says."""
    m = METHODS[id]
    call = mc.run_call(id)
    ref = mc.reference_name(id)
    module, _, fn = ref.rpartition(".")
    assert getattr(__import__(module, fromlist=[fn]), fn) is (
        engine.reference.reference_function(id))
    if call is None:
        assert m.engines == () and m.kind == "prediction" and "Linear(n)" in _card(id).note
        x = np.eye(4)[[0, 1, 2, 3]]
        f = getattr(__import__(module, fromlist=[fn]), fn)
        w = f([(x, np.ones(3))], np.zeros(4), approx=Linear(4), alpha=0.1, lam=0.9, gamma=1.0)
        assert w.shape == (3, 4) and np.all(np.isfinite(w))
        with pytest.raises(ValueError, match="Linear"):
            f([(x, np.ones(3))], MLP(4, 3).init(np.random.default_rng(0)), approx=MLP(4, 3),
              alpha=0.1, lam=0.9, gamma=1.0)
        return
    name, args, kw = _call(call)
    assert args[0] == id and name == ("run_control" if m.kind == "control" else
                                      "run_prediction")
    res = _run(call, page_names)
    assert len(res.diverged) == len(page_names["run_ids"])


@pytest.mark.parametrize("wrong, says", [
    ('run_control("td0", settings, seed, run_ids, n_episodes, env="cartpole")',
     "method must be one of"),
    ('run_prediction("sarsa_lambda", settings, seed, run_ids, n_episodes)',
     "method must be one of"),
    ('run_prediction("true_online_td_lambda", settings, seed, run_ids, n_episodes)',
     "method must be one of"),
    ('run_control("sarsa_lambda", settings, seed, run_ids, n_episodes, env="cartpole", '
     'params={"n": 3})', "sarsa_lambda has no parameter 'n'"),
    ('run_control("n_step_sarsa", settings, seed, run_ids, n_episodes, env="cart_pole", '
     'params={"n": 3})', "env must be one of"),
    ('run_control("n_step_sarsa", settings, seed, run_ids, n_episodes, env="cartpole")',
     "n_step_sarsa needs it"),
])
def test_a_wrong_run_call_fails(wrong, says, page_names):
    with pytest.raises(ValueError, match=re.escape(says)):
        _run(wrong, page_names)


def test_formulas_are_balanced_and_typeset_offline():
    """Every macro a card may use is in the site's MathJax bundle (a command or a delimiter)
    and not one that MathJax would fetch a file for (its autoload list: the site ships no
    extension file); the wrong forms are caught."""
    bundle = BUNDLE.read_text()
    auto = re.search(r"autoload:\(0,\w+\.expandable\)\((\{.*?\})\)", bundle).group(1)
    autoloaded = set(re.findall(r'"([A-Za-z]+)"', auto))
    assert {"boldsymbol", "color", "href"} <= autoloaded
    for name in mc.MATHJAX_MACROS:
        assert re.search(rf"[{{,]{name}:", bundle) or f'"\\\\{name}"' in bundle, name
        assert name not in autoloaded, name
    assert not {"w", "bs", "x"} & mc.MATHJAX_MACROS  # the paper's own \newcommand's
    formulas = [f for c in mc.CARDS for f in mc._tex(c)]
    assert len(formulas) > 40 and all(mc.tex_problems(f) == [] for f in formulas)
    for wrong in (r"\w_{t+1}", r"\boldsymbol{e}_t", r"\frac{a}{b", r"a}{b", r"\bs e",
                  r"x $y$", r"\color{red}{x}"):
        assert mc.tex_problems(wrong), wrong


def test_the_page_groups_the_cards_and_links_each_method():
    page = mc.methods_page()
    heads = re.findall(r"^(##+) (.*)$", page, re.M)
    want = [("#" * 2, "Prediction")] + [("###", METHODS[i].label) for i in METHODS
                                       if METHODS[i].kind == "prediction"]
    want += [("#" * 2, "Control")] + [("###", METHODS[i].label) for i in METHODS
                                     if METHODS[i].kind == "control"]
    assert heads == want
    for c in mc.CARDS:
        md = mc.card_markdown(c)
        assert md.startswith(f"({c.id.replace('_', '-')})=\n### {METHODS[c.id].label}\n")
        assert md.count('class="ftd-course-link"') == len(c.taught)
        assert f"*{METHODS[c.id].kind} · " in md
        assert ("not in the paper" in md) == (not c.paper)


def test_the_landing_page_links_it_and_lists_it_in_the_contents(tmp_path):
    (tmp_path / "README.md").write_text((REPO / "release" / "README.students.md").read_text())
    md = landing.landing_page(["01_td_basics"], {"01_td_basics": "x"}, {}, tmp_path, None, "x")
    assert f'href="{mc.PAGE}.html"' in md
    assert re.search(rf":caption: Reference\n:hidden:\n\n{mc.PAGE}\n```", md)
