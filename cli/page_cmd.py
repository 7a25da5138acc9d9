"""``tarneeb verifier``: write the verifier page, one HTML file a player opens to check a
match in their own browser (the TypeScript verifier of ``js/``, bundled into the page).

The page is built by the npm package (``make js``, or ``cd js && npm ci && npm run
build``) into ``js/dist/verify.html``; a wheel carries it inside the package, as
``tarneeb/verify.html`` (``setup.py`` builds it then); this command copies it where the
user asks. ``$TARNEEB_VERIFIER_PAGE`` names another built page (an installed
``tarneeb-js``'s ``dist/verify.html``).

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.callback.__name__ for c in app.registered_commands]
['verifier']
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from .common import fail, write_output
from .options import CHECK

BUILD = "make js (or: cd js && npm ci && npm run build)"


def page_path() -> Path:
    """Where the built page is: ``$TARNEEB_VERIFIER_PAGE``, else the copy installed with the
    package (``tarneeb/verify.html``), else ``js/dist/verify.html`` in the source tree this
    tarneeb runs from (an editable install)."""
    named = os.environ.get("TARNEEB_VERIFIER_PAGE")
    if named:
        return Path(named)
    import tarneeb

    package = Path(tarneeb.__file__).resolve().parent
    installed = package / "verify.html"
    return installed if installed.is_file() else package.parent / "js" / "dist" / "verify.html"


def built_page() -> bytes:
    """The page's bytes; one line saying how to build it when it is not built (exit 2)."""
    path = page_path()
    try:
        data = path.read_bytes()
    except OSError:
        fail(f"the verifier page is not built ({path} is missing): build it with {BUILD}")
    if b"<script" not in data or b"data-verdict" not in data:
        fail(f"{path} is not the verifier page: build it again with {BUILD}")
    return data


def verifier(
    output: Annotated[str, typer.Option(
        "-o", "--output", metavar="HTML",
        help="The page to write, or - for standard output.")] = "verify.html",
) -> None:
    """Write the verifier page: a browser checks a log offline.

    A player opens it from a file (no server, no network: it loads nothing), chooses or
    drops a .tlog, optionally gives the platform's public key, and reads the verdict,
    every proof step and their own hand in every deal, logs dealt blind included (their
    shuffle and decryption proofs checked too).
    """
    data = built_page()
    write_output(output, data)
    if str(output) != "-":
        from tarneeb.audit.encoding import shown

        # (the URL percent-encoded, as a browser takes it: no control character left)
        typer.echo(f"wrote {shown(str(output))}: open it in a browser "
                   f"({shown(Path(output).resolve().as_uri())})")


def register(app: typer.Typer) -> None:
    """Add ``verifier`` to ``app``."""
    app.command(rich_help_panel=CHECK)(verifier)


__all__ = ["page_path", "register"]
