"""The page machinery every report is built on, opened in headless Chromium."""

from __future__ import annotations

import os
import stat

import jinja2
import matplotlib
import pytest

from tarneeb.report import Banner, render_page, write_page
from tarneeb.report.page import env
from tarneeb.report.plots import figure_svg

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def _plot(title: str) -> str:
    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.bar(["observed", "expected"], [10, 12])
    ax.set_title(title)
    return figure_svg(fig, title, caption=f"{title}: observed against expected")


def test_page_escapes_text_and_opens_cleanly_in_chromium(tmp_path, chromium):
    """Text from a log (a player's name, a file name) is shown, never run; inline plots
    render; the page asks for nothing on the network and logs no error."""
    hostile = '<script>console.error("injected")</script><img src="http://x.invalid/y.png">'
    template = env().from_string(
        '{% extends "base.html" %}{% block content %}<p id="name">{{ name }}</p>'
        "{% for p in plots %}{{ p }}{% endfor %}{% endblock %}")
    html = template.render(title="Report for " + hostile, subtitle="", generator="tarneeb",
                           verdict=Banner("findings", "2 problems found", "See below."),
                           name=hostile, plots=[_plot("First"), _plot("Second")])
    page_file = tmp_path / "page.html"
    write_page(page_file, html)
    shot = tmp_path / "page.png"
    with chromium.open(page_file, screenshot=shot) as page:
        assert page.errors == []
        assert page.requests == []
        assert page.text("#name") == hostile
        assert page.text("#verdict .headline") == "2 problems found"
        assert page.count("figure.plot svg") == 2
        assert page.count("script") == 0
        # ids of the two figures never collide
        ids = page.page.eval_on_selector_all("svg [id]", "els => els.map(e => e.id)")
        assert len(ids) == len(set(ids)) > 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_page_reports_console_errors_and_network_requests(tmp_path, chromium):
    """The harness itself catches what a broken page does (else the checks above prove nothing)."""
    bad = tmp_path / "bad.html"
    bad.write_text('<p>x</p><img src="https://example.invalid/a.png">'
                   "<script>console.error('boom'); null.x;</script>")
    with chromium.open(bad) as page:
        assert page.requests == ["https://example.invalid/a.png"]
        assert any("boom" in e for e in page.errors)
        assert any(e.startswith("exception:") for e in page.errors)


def test_undefined_variable_is_an_error_not_an_empty_string():
    with pytest.raises(jinja2.UndefinedError):
        render_page("base.html", title="t")  # no verdict


def test_print_stylesheet_hides_screen_only_parts(tmp_path, chromium):
    template = env().from_string('{% extends "base.html" %}{% block content %}'
                                 '<p class="no-print" id="hint">screen only</p>{% endblock %}')
    f = tmp_path / "p.html"
    write_page(f, template.render(title="t", subtitle="", generator="",
                                  verdict=Banner("clean", "ok")))
    with chromium.open(f) as page:
        assert page.page.locator("#hint").is_visible()
        page.page.emulate_media(media="print")
        assert not page.page.locator("#hint").is_visible()
        page.pdf(tmp_path / "p.pdf")
    assert (tmp_path / "p.pdf").read_bytes()[:5] == b"%PDF-"


def test_write_page_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_page(tmp_path / "r.html", "<p>x</p>")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.html").stat().st_mode) == 0o644


@pytest.mark.parametrize("name", ["tarneeb.report", "tarneeb.report.page", "tarneeb.report.plots"])
def test_doctests(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_a_label_from_input_is_drawn_as_it_is_not_read_as_mathematics():
    """A group's label (a rule set's or a player's name, the platform's word) between two
    ``$`` in the archive report's plots: drawn as typed, not read as mathematics (where
    ``$\\oops$`` ended the report in a traceback and ``$\\mathrm{x}$`` drew as ``x``)."""
    from tarneeb.audit.fairness.tests import StatResult
    from tarneeb.report.archive import _figures

    for name in ("$\\oops$", "$\\mathrm{x}$"):
        r = StatResult(("trumps", "rules", name), "G-test", 100, 1.0, 3, 0.5,
                       categories=["0", "1", "2", "3"], observed=[20, 30, 30, 20],
                       expected=[25, 25, 25, 25], p_adjusted=0.5)
        (svg,) = _figures("platform", [r])
        assert f"{name}: p (Holm)" in str(svg)


def test_names_written_right_to_left_keep_the_auction_in_its_order():
    """Arabic names beside bids ("سامي 7, علي pass") were drawn reordered by the browser's
    bidi algorithm, as if علي had bid 7: each name in the auction and the seeds' list is
    isolated (<bdi>)."""
    import dataclasses
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tarneeb.report.match import match_report
    from tarneeb.testing.alterations.base import rewrite

    def names(log):
        log.header = dataclasses.replace(log.header, seats=[
            dataclasses.replace(s, name=n)
            for s, n in zip(log.header.seats, ["Ben", "سامي", "علي", "Dee"], strict=True)])

    data = (Path(__file__).resolve().parent.parent / "fixtures" / "matches"
            / "classic-01.tlog").read_bytes()
    page, _ = match_report(rewrite(data, names, resign=Ed25519PrivateKey.generate()), "m.tlog")
    auction = page.split("Auction, in order: ", 1)[1].split("</p>", 1)[0]
    assert "<bdi>سامي</bdi>" in auction and "<bdi>Ben</bdi>" in auction
    assert "<dt><bdi>علي</bdi>&#39;s seed</dt>" in page or "<dt><bdi>علي</bdi>'s seed</dt>" in page
