"""The options of ``tarneeb verify`` (and the pins every verdict takes), as one table.

A plain ``tarneeb verify LOG...`` is parsed without typer, so that it starts fast (an
archive runs it once per log): :func:`tarneeb.cli.verify_cmd.parse_fast` reads its
options from this table, and the typer command declares its own from the same rows
(:func:`tarneeb.cli.options.option`), so the two parsers cannot drift apart. This module
imports nothing but the standard library.

>>> FLAGS["--key"].dest, FLAGS["--key"].takes_value, FLAGS["--json"].takes_value
('key', True, False)
>>> [f for f in FAST]
['--json', '--key', '--keys', '--root']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Flag:
    """One option: its name on the command line, the parameter it sets, the metavar of its
    value (``None`` for a switch, which takes none) and its help.

    >>> Flag("--json", "as_json", None, "The verdicts as JSON.")
    Flag(name='--json', dest='as_json', metavar=None, help='The verdicts as JSON.')
    """

    name: str
    dest: str
    metavar: str | None
    help: str

    @property
    def takes_value(self) -> bool:
        return self.metavar is not None


FLAGS: dict[str, Flag] = {f.name: f for f in (
    Flag("--json", "as_json", None, "The verdicts as JSON."),
    Flag("--key", "key", "PUBLIC_KEY",
         "The platform's public key (PEM) to pin; otherwise the key inside the log. Not "
         "with --keys."),
    Flag("--keys", "keys", "FILE",
         "A keys file (TOML: platform name = its public key, hex or PEM) to pin: the log "
         "must be signed by one of them, and the verdict names that platform. Default: "
         "keys.toml in the user's config directory, when it exists."),
    Flag("--root", "root", "HEX", "The season root the platform published, to pin."),
    Flag("--receipt", "receipt", "FILE",
         "A seat's pre-play receipt ('tarneeb play --receipt-out'): the log must be the "
         "match it promised. One LOG only."),
    Flag("--server-seed", "server_seed", "HEX",
         "The server seed the platform revealed for a log that does not hold it (cut short "
         "by a crash), to check its moves; a log that reveals its own must reveal this one."),
    Flag("--require-proof", "require_proof", None,
         "Every deal must be proven from the log: a deal the platform recorded, or dealt "
         "blind under tarneeb-blind-v1 (its passes without proofs), is a finding (exit 1)."),
)}

# what a plain verify may hold and still skip typer (anything else goes to typer)
FAST = ("--json", "--key", "--keys", "--root")

__all__ = ["FAST", "FLAGS", "Flag"]
