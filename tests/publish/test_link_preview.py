"""A page's link preview (ftd_lib/publish/site_conf.py): with the site's published address,
each page's own og:url (Sphinx's canonical address) and og:image, the paper's Figure 3 cut to
the 1.91 : 1 of a preview; without one (a local build), neither, since a preview needs absolute
addresses. The site's conf.py is executed and its page hook called, as Sphinx does."""

import pytest
from PIL import Image

from ftd_lib import figure_layout
from ftd_lib.publish import site, site_conf


def _head(url, pagename):
    ns = {}
    conf = site_conf.conf_py(site_conf.theme_options(None, "v1", "<p>f</p>"), "2026",
                             {"04_forward_td": "You will learn: K"}, url)
    ns["__file__"] = "/site/src/conf.py"  # as Sphinx runs it
    exec(compile(conf, "conf.py", "exec"), ns)
    context = dict(title="04 · Forward TD(λ)", metatags="")
    ns["_link_preview"](None, pagename, "page.html", context, None)
    return ns, context["metatags"]


def test_each_page_names_its_own_address_and_the_preview_picture():
    ns, head = _head("https://me.github.io/course", "04_forward_td")
    assert ns["html_baseurl"] == "https://me.github.io/course/"  # Sphinx's canonical links
    assert '<meta property="og:url" content="https://me.github.io/course/04_forward_td.html">' \
        in head
    assert ('<meta property="og:image" content="https://me.github.io/course/_static/'
            'link-preview.png">') in head
    assert '<meta property="og:image:width" content="1200">' in head
    assert '<meta property="og:image:height" content="630">' in head
    assert 'content="You will learn: K"' in head  # its own description, as before
    assert head.count("og:url") == 1 and "twitter:card" in head
    _, other = _head("https://me.github.io/course/", "index")
    assert 'og:url" content="https://me.github.io/course/index.html"' in other


def test_a_local_build_has_no_preview_address():
    ns, head = _head(None, "index")
    assert ns["html_baseurl"] == ""
    assert "og:url" not in head and "og:image" not in head
    assert '<meta property="og:title" content="04 · Forward TD(λ)">' in head


@pytest.mark.parametrize("bad", ["me.github.io/course", "ftp://me.github.io/", "https://",
                                 "https://a b/", "https://h/p?q=1", True, 3.0])
def test_a_bad_address_is_refused_naming_the_option(bad, tmp_path):
    with pytest.raises(ValueError, match="--url"):
        site_conf.site_url(bad)
    with pytest.raises(ValueError, match="--url"):  # before any work
        site.build_site(tmp_path / "s", url=bad)
    assert not (tmp_path / "s").exists()


def test_the_preview_picture_is_figure_3_at_1200_by_630_with_no_text_over_data(tmp_path):
    fig = site_conf.link_figure(None)  # the repository's stored results
    assert [ax.get_title() for ax in fig.axes][0].startswith("Mountain car evaluation")
    assert len(fig.axes) == 2 and all(ax.lines for ax in fig.axes)  # data, not "no data"
    assert figure_layout.problems(fig) == []
    assert site_conf.link_image(tmp_path / "p.png", None) == site_conf.IMAGE
    assert Image.open(tmp_path / "p.png").size == (1200, 630)
