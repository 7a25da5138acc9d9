"""Options several commands share, declared once so each says and does the same.

>>> [o.__metadata__[0].default for o in (PinKey, PinKeys, PinRoot)]
['--key', '--keys', '--root']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .flags import FLAGS


def option(name: str) -> Any:
    """The typer option of the row ``name`` of :data:`~tarneeb.cli.flags.FLAGS`: its name,
    metavar and help as the fast parser knows them."""
    flag = FLAGS[name]
    if flag.takes_value:
        return typer.Option(flag.name, metavar=flag.metavar, help=flag.help)
    return typer.Option(flag.name, help=flag.help)


# the platform's key, pinned, wherever a verdict is given (verify, show, report, audit)
PinKey = Annotated[Path | None, option("--key")]
PinKeys = Annotated[Path | None, option("--keys")]
PinRoot = Annotated[str | None, option("--root")]

# the groups of ``tarneeb --help``'s command list, in the order it shows them: each command
# names its own with ``rich_help_panel``
CHECK, SEEDS, PLAY, FILES, ENGINES = ("Check matches", "Seeds and deals", "Play, keys and rules",
                                      "Log files", "Test an engine")
PANELS = (CHECK, SEEDS, PLAY, FILES, ENGINES)

__all__ = ["CHECK", "ENGINES", "FILES", "PANELS", "PLAY", "SEEDS", "PinKey", "PinKeys",
           "PinRoot", "option"]
