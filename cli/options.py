"""Options several commands share, declared once so each says and does the same.

>>> [o.__metadata__[0].default for o in (PinKey, PinKeys, PinRoot)]
['--key', '--keys', '--root']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# the platform's key, pinned, wherever a verdict is given (verify, show, report, audit)
PinKey = Annotated[Path | None, typer.Option(
    "--key", metavar="PUBLIC_KEY",
    help="The platform's public key (PEM) to pin; otherwise the key inside the log.")]
PinKeys = Annotated[Path | None, typer.Option(
    "--keys", metavar="FILE",
    help="A keys file (TOML: platform name = its public key, hex or PEM) to pin: the log "
         "must be signed by one of them, and the verdict names that platform. Default: "
         "keys.toml in the user's config directory, when it exists.")]

PinRoot = Annotated[str | None, typer.Option(
    "--root", metavar="HEX", help="The season root the platform published, to pin.")]

# the groups of ``tarneeb --help``'s command list, in the order it shows them: each command
# names its own with ``rich_help_panel``
CHECK, SEEDS, PLAY, FILES, ENGINES = ("Check matches", "Seeds and deals", "Play, keys and rules",
                                      "Log files", "Test an engine")
PANELS = (CHECK, SEEDS, PLAY, FILES, ENGINES)

__all__ = ["CHECK", "ENGINES", "FILES", "PANELS", "PLAY", "SEEDS", "PinKey", "PinKeys",
           "PinRoot"]
