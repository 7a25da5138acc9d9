"""Options several commands share, declared once so each says and does the same.

>>> [o.__metadata__[0].default for o in (PinKey, PinKeys, PinRoot)]
['--key', '--keys', '--root']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from tarneeb.replay.log.stream import Limits

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


# the caps on an untrusted log (tarneeb.replay.log.stream.Limits), raisable wherever logs are read
MaxBytes = Annotated[int, typer.Option(
    "--max-bytes", min=1, help="Refuse a log larger than this many bytes.")]
MaxRecords = Annotated[int, typer.Option(
    "--max-records", min=1, help="Refuse a log of more records than this.")]
MaxHands = Annotated[int, typer.Option(
    "--max-hands", min=1, help="Refuse a match of more dealing attempts than this.")]


def limits_of(max_bytes: int, max_records: int, max_hands: int) -> Limits:
    return Limits(max_bytes=max_bytes, max_records=max_records, max_hands=max_hands)
