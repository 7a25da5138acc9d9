"""Self-contained HTML reports: a match report for players, and the page machinery under it.

Every page is one HTML file that opens with no network: the stylesheet is inline,
plots are inline SVG, nothing is fetched. Text goes through Jinja2 with autoescape on,
so a player name or a file name from a log can never become markup.

The machinery, for any report:

* :func:`render_page` renders a template of this package (``templates/``); every
  template extends ``base.html``, which gives the stylesheet (screen and print), the
  verdict banner and the page frame. See ``docs/REPORTS.md`` for the blocks and classes.
* :func:`write_page` writes a page with the user's umask, atomically.
* :mod:`tarneeb.report.plots` turns a matplotlib figure into inline SVG (extra ``report``).
* :mod:`tarneeb.report.browser` opens a page in headless Chromium, collects console
  errors and network attempts, and saves a screenshot (tests and the demo).

>>> html = render_page("base.html", title="A <test>", verdict=Banner("clean", "All good"))
>>> "<title>A &lt;test&gt;</title>" in html, 'class="verdict clean"' in html
(True, True)
"""

from __future__ import annotations

from .page import Banner, render_page, write_page

__all__ = ["Banner", "render_page", "write_page"]
