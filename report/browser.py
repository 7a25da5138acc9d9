"""Open a report in headless Chromium, as a person would see it (tests and the demo).

Drives the system's Chromium (Debian's ``chromium``; ``$TARNEEB_CHROMIUM`` names another)
through Playwright's Chrome DevTools Protocol client; no browser is downloaded. The
page is opened from its file with every network request refused and recorded, so a
page that is not self-contained shows up in :attr:`OpenPage.requests`; console errors
and uncaught exceptions land in :attr:`OpenPage.errors`.

Needs Playwright (``pip install playwright``, in the ``dev`` extra). :func:`open_page`
opens one page; :class:`Chromium` keeps one browser for many (the tests' ``chromium``
fixture in ``tests/conftest.py``). Example::

    with open_page("match.html", screenshot="match.png") as page:
        assert page.errors == [] and page.requests == []
        print(page.text("#verdict .headline"))
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# flags for a quiet, offline browser: no sync, no updates, no first-run pages
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage"]


class BrowserMissing(RuntimeError):
    """No Chromium to open pages with."""


def chromium_path() -> str:
    """The Chromium executable: ``$TARNEEB_CHROMIUM``, else ``chromium`` on the PATH."""
    path = os.environ.get("TARNEEB_CHROMIUM") or shutil.which("chromium") \
        or shutil.which("chromium-browser")
    if not path:
        raise BrowserMissing("no chromium on the PATH (Debian: apt-get install chromium; "
                             "make test installs it)")
    return path


@dataclass
class OpenPage:
    """A page loaded in Chromium. ``page`` is the Playwright page, for anything more."""

    page: Any
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions
    requests: list[str] = field(default_factory=list)  # network requests refused

    def text(self, selector: str) -> str:
        """The visible text of the first element ``selector`` matches."""
        return str(self.page.locator(selector).first.inner_text())

    def count(self, selector: str) -> int:
        """How many elements ``selector`` matches."""
        return int(self.page.locator(selector).count())

    def texts(self, selector: str) -> list[str]:
        """The visible text of every element ``selector`` matches."""
        return [str(t) for t in self.page.locator(selector).all_inner_texts()]

    def screenshot(self, path: str | os.PathLike[str], full_page: bool = False) -> None:
        self.page.screenshot(path=str(path), full_page=full_page)

    def pdf(self, path: str | os.PathLike[str]) -> None:
        """Print the page to PDF with its print stylesheet, as "Save as PDF" does."""
        self.page.pdf(path=str(path), format="A4", print_background=True)


class Chromium:
    """One headless Chromium, for opening many pages (a test session, the demo).

    >>> with Chromium() as browser:                                # doctest: +SKIP
    ...     with browser.open("a.html") as page: ...
    """

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        try:
            self._browser = self._pw.chromium.launch(executable_path=chromium_path(),
                                                     headless=True, args=FLAGS)
        except BaseException:
            self._pw.stop()
            raise

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._browser.close()
        self._pw.stop()

    @contextmanager
    def open(self, path: str | os.PathLike[str], screenshot: str | os.PathLike[str] | None = None,
             width: int = 1200, height: int = 900) -> Iterator[OpenPage]:
        """Load the HTML file ``path`` in a fresh browser context (no shared state); save
        the first screen to ``screenshot`` (PNG) once loaded, when given."""
        url = Path(path).resolve().as_uri()
        context = self._browser.new_context(viewport={"width": width, "height": height},
                                            device_scale_factor=1)
        try:
            page = context.new_page()
            opened = OpenPage(page)

            def refuse(route: Any) -> None:
                if route.request.url == url:
                    route.continue_()
                else:
                    opened.requests.append(route.request.url)
                    route.abort()

            context.route("**/*", refuse)
            page.on("console", lambda m: opened.errors.append(f"console: {m.text}")
                    if m.type == "error" else None)
            page.on("pageerror", lambda e: opened.errors.append(f"exception: {e}"))
            page.goto(url, wait_until="load")
            if screenshot is not None:
                page.screenshot(path=str(screenshot))
            yield opened
        finally:
            context.close()


@contextmanager
def open_page(path: str | os.PathLike[str], screenshot: str | os.PathLike[str] | None = None,
              width: int = 1200, height: int = 900) -> Iterator[OpenPage]:
    """Load the HTML file ``path`` in a Chromium of its own (see :meth:`Chromium.open`)."""
    with Chromium() as browser, browser.open(path, screenshot, width, height) as page:
        yield page
