"""The browser tests' offline page (``conftest.offline_page``): what it records is what the
site, deck and JupyterLab tests assert empty, so each failure it must catch is caught here."""

from __future__ import annotations

import pytest
from conftest import is_local, needs_chromium, offline_page, serving

pytestmark = needs_chromium("the offline page's check")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("offline")
    (root / "ok.html").write_text("<p>here</p>")
    with serving(root) as url:
        yield url


def test_what_is_local():
    assert all(map(is_local, ("http://127.0.0.1:8000/a", "http://localhost/", "http://[::1]/",
                              "file:///tmp/a.html", "data:text/plain,x", "about:blank")))
    assert not any(map(is_local, ("https://cdn.example.org/a.js", "http://10.0.0.1/")))


def test_a_local_page_records_nothing(browser, server):
    ctx, page = offline_page(browser)
    try:
        page.goto(f"{server}/ok.html")
        assert page.failures == []
    finally:
        ctx.close()


def test_it_refuses_the_network_and_records_a_missing_file(browser, server):
    ctx, page = offline_page(browser)
    try:
        page.goto(f"{server}/ok.html")
        page.set_content('<img src="https://cdn.example.org/a.png">'
                         f'<img src="{server}/missing.png">')
        page.wait_for_load_state("networkidle")
        assert "non-local request refused: https://cdn.example.org/a.png" in page.failures
        assert f"HTTP 404: GET {server}/missing.png" in page.failures
    finally:
        ctx.close()


@pytest.mark.parametrize("ignore", [None, lambda r: "missing" in r.url])
def test_a_failed_local_request_is_recorded_unless_ignored(browser, tmp_path, ignore):
    (tmp_path / "page.html").write_text('<img src="missing.png">')
    ctx, page = offline_page(browser, ignore=ignore)
    try:
        page.goto((tmp_path / "page.html").as_uri())
        page.wait_for_load_state("networkidle")
        failed = [f for f in page.failures if f.startswith("request failed: GET file://")
                  and "missing.png" in f]
        assert len(failed) == (0 if ignore else 1), page.failures
    finally:
        ctx.close()
