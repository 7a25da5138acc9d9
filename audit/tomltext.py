"""One reading of a TOML file that is not TOML, as both verifiers say it.

A keys file (and a rules file) is read with the standard library's ``tomllib``; the
TypeScript verifier reads keys files with smol-toml. Each parser words its error its own
way and places it where it stops (the same broken line is "line 1, column 18" to one and
"end of document" to the other), so neither parser's words are shown. The line named is
the parsers' common ground: the first line after the longest run of whole lines, from the
start, that is a TOML document. Any two parsers that follow TOML 1.0 agree on it, and
js/src/tomltext.ts finds it the same way (tests/test_js_conformance.py holds the two to
the same line on every vector).

>>> from_line('name = "x"\\nbase = "classic\\ntarget = 41\\n')
2
>>> from_line('a = [\\n  1,\\n]\\nb = = 2\\n')
4
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

MOST_TRIES = 1000  # prefixes parsed at most to find the line, else the line is not named
_AT = re.compile(r"\(at line (\d+), column \d+\)$")


class NotToml(ValueError):
    """The text is not TOML; the message is one line in the project's words."""


def _parses(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def from_line(text: str, stopped_at: int | None = None) -> int | None:
    """The line (from 1) from which ``text``, which is not TOML, stops being TOML: the one
    after the longest prefix of whole lines that parses; ``None`` when that takes more
    than :data:`MOST_TRIES` parses. ``stopped_at`` is the line where the parser stopped
    (the first wrong line is not after it; ``None``: the end of the text)."""
    ends = [m.end() for m in re.finditer("\n", text)]
    if not text.endswith("\n"):
        ends.append(len(text))
    k = len(ends) - 1 if stopped_at is None else min(stopped_at, len(ends)) - 1
    for _ in range(MOST_TRIES):
        if k <= 0 or _parses(text[:ends[k - 1]]):
            return max(k, 0) + 1
        k -= 1
    return None


def not_toml(source: str, text: str, error: tomllib.TOMLDecodeError, hint: str) -> NotToml:
    """The error for ``text`` (the file ``source``), which ``tomllib`` refused with
    ``error``: ``keys.toml: not TOML from line 3: <hint>``."""
    at = _AT.search(str(error))
    line = from_line(text, int(at[1]) if at else None)
    return NotToml(f"{source}: not TOML" + (f" from line {line}" if line else "") + f": {hint}")


def read_toml(text: str, source: str, hint: str) -> dict[str, Any]:
    """The TOML document ``text``; :class:`NotToml` in one line when it is none."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise not_toml(source, text, e, hint) from None


KEYS_HINT = ('a keys file holds lines "platform name" = "its key" (64 hex digits, or a PEM '
             "public key)")
