"""The website's Sphinx configuration (:mod:`ftd_lib.publish.site` writes it as the build's
``conf.py``): MyST-NB executing every notebook and failing on an error, sphinx-book-theme with
the run buttons on the students' copy and the footer, MathJax 3 from the site itself, and the
link previews (a description and Open Graph data on every page; with the site's address, each
page's own address and a picture of the paper's Figure 3)."""

from __future__ import annotations

import datetime
import html
import os
import re
import subprocess

from ..course import colab
from . import landing
from .release import REPO

CONF = """\
# Sphinx configuration of the course website, written by ftd_lib/publish/site.py.
project = "Forward TD(λ): a course"
# the authors as CITATION.cff names them (one place); the footer says it once, in the
# copyright line (no second "By ..." line: footer_content_items)
author = {author!r}
copyright = "{year}, " + author
# figure_alt: a figure's <img alt> is its titles (MyST-NB takes the alt its kernel sends)
extensions = ["myst_nb", "ftd_lib.publish.figure_alt"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "sphinx_book_theme"
html_title = "Forward TD(λ): a course"
html_static_path = ["_static"]
html_extra_path = ["_extra"]
html_css_files = ["ftd-site.css"]
html_js_files = ["ftd-site.js", "ftd-static-explorer.js"]
# the search lists first the pages whose title holds every word of the query (Sphinx opens
# this file from its working directory, not from this folder: an absolute path)
import os as _os

html_search_scorer = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_static",
                                   "ftd-search-scorer.js")
html_favicon = "_static/favicon.svg"
html_last_updated_fmt = None
# the site's address where it is published (--url): each page's <link rel="canonical">
html_baseurl = {url!r}
# no general index: the course defines no index entries, so it was an empty "Index" page
html_use_index = False
# the theme's light/dark mode follows the reader's system unless they pick one (without a
# default the theme logged "Got invalid theme mode" on every page load)
html_context = {{"default_mode": "auto"}}
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {theme!r}
# one search box (the header's button, on every width), not a second one in the sidebar
html_sidebars = {{"**": ["navbar-logo.html", "icon-links.html", "sbt-sidebar-nav.html"]}}
# MathJax 3 (CHTML, its TeX fonts) from the site itself (site_static/mathjax3, vendored from npm
# mathjax@3): inline math sits on the text's baseline (MathJax 2.7's HTML-CSS output with the
# STIX web fonts set it 3.5 px above). No contextual menu: it would lazy-load accessibility
# modules the site does not ship, and it made every formula a tab stop; screen readers get
# the hidden MathML copy (assistive MathML) all the same
mathjax_path = "mathjax3/tex-chtml.js"
# $...$ too: outputs (HTML, Markdown) carry TeX as Jupyter shows it
mathjax3_config = {{"tex": {{"inlineMath": [["$", "$"], ["\\\\(", "\\\\)"]],
                            "processEscapes": True}},
                    "options": {{"enableMenu": False}}}}
myst_update_mathjax = False
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image"]
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type"]
# execute every notebook at build time; a raising cell fails the build
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 1800
nb_merge_streams = True
# Markdown outputs (the glossary table) as MyST: tables and $...$ math, as Jupyter shows them
nb_render_markdown_format = "myst"
# no widget manager (it comes from a CDN and cannot redraw without a kernel): widget outputs
# show the picture saved with them
nb_ipywidgets_js = {{}}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None),
                              ("html", "application/vnd.jupyter.widget-state+json", None)]
"""


#: what a link preview (Moodle, Canvas, Slack: ``<meta name="description">`` and Open Graph)
#: says of every page
DESCRIPTION = ("A course on one paper, van Seijen (2016), forward TD(λ): Jupyter notebooks from "
               "TD(0) to multi-step TD learning with neural networks, with exercises that check "
               "themselves, lecture decks and handouts.")

META = """
# link previews: a description and Open Graph data on every page, each notebook's its own
# learning goals
DESCRIPTION = {description!r}
DESCRIPTIONS = {descriptions!r}
# the site's address ("" for a local build: no og:url, no og:image, whose addresses must be
# absolute for a preview to fetch them)
URL = html_baseurl
IMAGE = {image!r}


def _link_preview(app, pagename, templatename, context, doctree):
    import html as _html

    title = _html.escape(context.get("title") or html_title, quote=True)
    desc = _html.escape(DESCRIPTIONS.get(pagename, DESCRIPTION), quote=True)
    context["metatags"] = context.get("metatags", "") + (
        f'\\n<meta name="description" content="{desc}">'
        f'\\n<meta property="og:type" content="website">'
        f'\\n<meta property="og:site_name" content="{_html.escape(html_title, quote=True)}">'
        f'\\n<meta property="og:title" content="{title}">'
        f'\\n<meta property="og:description" content="{desc}">')
    if URL:  # the same address as Sphinx's canonical link
        context["metatags"] += (
            f'\\n<meta property="og:url" content="{URL}{pagename}.html">'
            f'\\n<meta property="og:image" content="{URL}_static/{IMAGE["file"]}">'
            f'\\n<meta property="og:image:width" content="{IMAGE["width"]}">'
            f'\\n<meta property="og:image:height" content="{IMAGE["height"]}">'
            f'\\n<meta property="og:image:alt" content="{_html.escape(IMAGE["alt"])}">'
            '\\n<meta name="twitter:card" content="summary_large_image">')


def setup(app):
    app.connect("html-page-context", _link_preview)
"""


#: the link preview's picture (in the site's ``_static``): the paper's Figure 3 at the size
#: Open Graph previews show (1.91 : 1), made by :func:`link_image`
IMAGE = dict(file="link-preview.png", width=1200, height=630,
             alt="The paper's Figure 3 as the course reproduces it: mountain car prediction, "
                 "the error of four methods against the step size (left) and of forward TD(λ) "
                 "against λ (right)")


def site_url(url: str | None) -> str | None:
    """The site's published address ``https://HOST/PATH/`` (a trailing ``/`` added), or
    ``None``: a ``ValueError`` naming ``--url`` for anything else (a link preview needs an
    absolute address)."""
    if url is None:
        return None
    if not isinstance(url, str) or not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", url):
        raise ValueError(f"--url must be the site's address, https://HOST/PATH/; got {url!r}")
    return url if url.endswith("/") else url + "/"


def link_figure(results):
    """The link preview's picture as a matplotlib figure: the paper's Figure 3 from the stored
    results in ``results`` (:func:`ftd_lib.figures.figure_3`) at its own width and text size,
    cut to :data:`IMAGE`'s shape (1.91 : 1)."""
    from ..figures import figure_3

    fig = figure_3(results).fig
    width = fig.get_size_inches()[0]
    fig.set_size_inches(width, width * IMAGE["height"] / IMAGE["width"])
    fig.tight_layout()
    return fig


def link_image(path, results) -> dict:
    """Write :func:`link_figure` to ``path`` as a PNG of :data:`IMAGE`'s pixels; returns
    :data:`IMAGE`."""
    fig = link_figure(results)
    fig.savefig(path, dpi=IMAGE["width"] / fig.get_size_inches()[0])
    return IMAGE


def conf_py(theme: dict, year: str, descriptions: dict | None = None,
            url: str | None = None) -> str:
    """The site's ``conf.py``: :data:`CONF` with the theme's options, the year and the authors
    (CITATION.cff), and the link previews (:data:`META`: ``descriptions`` maps a page's name
    to its own description, :func:`page_description`; other pages get :data:`DESCRIPTION`;
    with the site's address ``url`` (:func:`site_url`), each page's ``og:url`` and the
    ``og:image`` :data:`IMAGE`, which the build writes)."""
    return (CONF.format(theme=theme, year=year, author=" and ".join(landing.authors()),
                        url=site_url(url) or "")
            + META.replace("{description!r}", repr(DESCRIPTION)).replace(
                "{descriptions!r}", repr(dict(descriptions or {}))).replace(
                "{image!r}", repr(IMAGE)))


def page_description(goals: str, limit: int = 300) -> str:
    """A notebook page's description for a link preview: its learning goals (the landing
    page's "What it teaches", Markdown and TeX as plain words), at most ``limit`` characters,
    cut at a word."""
    from .figure_alt import words

    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", goals.replace("\\|", "|"))
    text = re.sub(r"[`*]", "", text)
    text = re.sub(r"\$([^$]*)\$", lambda m: words(m.group(1)), text)
    text = "You will learn: " + re.sub(r"\s+", " ", text).strip()
    if len(text) > limit:
        text = text[:limit - 1].rsplit(" ", 1)[0].rstrip(";,.") + "…"
    return text


def theme_options(repo: str | None, ref: str, footer: str) -> dict:
    """sphinx-book-theme's options: Binder and Colab launch buttons on the students' copy at
    ``ref`` of ``repo`` (none without a repository), ``footer`` under every page."""
    opts = {
        # no download menu: it would offer the Sphinx source, which the site does not copy;
        # the PDF handout is linked under each title
        "use_download_button": False,
        "use_repository_button": False,
        "navigation_with_keys": False,
        "show_toc_level": 1,
        "extra_footer": footer,
        "footer_content_items": ["copyright.html", "last-updated.html", "extra-footer.html"],
    }
    if repo:
        opts.update({
            "repository_url": f"https://github.com/{repo}",
            "repository_branch": ref,
            "path_to_docs": "notebooks",
            "launch_buttons": {"binderhub_url": "https://mybinder.org",
                               "colab_url": "https://colab.research.google.com",
                               "notebook_interface": "jupyterlab"},
        })
    return opts


def build_info() -> dict:
    """The build's date (UTC) and the repository's commit (``$GITHUB_SHA``, else ``git``;
    ``"unknown"`` outside a git checkout)."""
    commit = os.environ.get("GITHUB_SHA", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                                    text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = "unknown"
    return dict(date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
                commit=commit)


def footer_html(repo: str | None, info: dict, ref: str = colab.REF) -> str:
    """The footer: the licence, how to cite, the build's date and what it was built from: with
    ``repo`` (the students' public repository) a link to the students' copy ``ref`` there,
    never to the instructors' commit (their repository holds the worked solutions); without
    one (a local preview), the commit's name, unlinked."""
    if repo:  # "from the students' copy students" read as a typo where the ref is a branch
        built = (f'the students\' copy (ref <a href="https://github.com/{repo}/tree/{ref}">'
                 f'<code>{html.escape(ref)}</code></a>)')
    else:
        built = f'commit {info["commit"][:12]}'
    return (f'<p class="ftd-footer">{landing.LICENCE_HTML} · '
            '<a href="index.html#cite-this-course">cite this course</a> · built '
            f'{info["date"]} from {built} · <a href="{landing.STATUS}.html">build status</a>'
            '</p>')


VIEWPORT = re.compile(r'\s*<meta name="viewport"[^>]*>')
#: a page's title as Sphinx's layout writes it: the page's, " — ", the site's
TITLE = re.compile(r"<title>(.*?) &#8212; (.*?)</title>")
#: the status table's marks (MyST-NB's emoji: empty boxes without an emoji font) as words
MARKS = {"✅": "ran", "❌": "failed"}


def tidy_page(text: str) -> str:
    """A page's head with one viewport tag (Sphinx's layout, the theme's and its metatags
    wrote two or three), its title without the site's name where it opens with it already (the
    landing page read "X — X"), and the status table's marks in words."""
    seen = []

    def once(m):
        seen.append(m)
        return m.group(0) if len(seen) == 1 else ""

    text = VIEWPORT.sub(once, text)
    text = TITLE.sub(lambda m: f"<title>{m.group(1)}</title>" if m.group(1).startswith(
        m.group(2)) else m.group(0), text, count=1)
    for mark, word in MARKS.items():
        text = text.replace(f"<p>{mark}</p>", f"<p>{word}</p>").replace(
            f">{mark}</abbr>", f">{word}</abbr>")
    return text


def tidy(html_dir) -> int:
    """:func:`tidy_page` on every page Sphinx wrote under ``html_dir`` (not the decks or the
    theme's files); returns how many changed."""
    from .page_weight import edit_pages

    return edit_pages(html_dir, lambda text, rel: tidy_page(text),
                      skip=("_static", landing.DECKS))
