"""One reading of a TOML file that is not TOML, as both verifiers say it.

A keys file (and a rules file) is read with the standard library's ``tomllib``; the
TypeScript verifier reads keys files with smol-toml. Each parser words its error its own
way and places it where it stops (the same broken line is "line 1, column 18" to one and
"end of document" to the other), so neither parser's words are shown. The line named is
the parsers' common ground: the first line after the longest run of whole lines, from the
start, that is a TOML document. Any two parsers that follow TOML 1.0 agree on it, and
js/src/text/tomltext.ts finds it the same way (tests/test_js_conformance.py holds the two to
the same line on every vector).

>>> from_line('name = "x"\\nbase = "classic\\ntarget = 41\\n')
2
>>> from_line('a = [\\n  1,\\n]\\nb = = 2\\n')
4
"""

from __future__ import annotations

import re
import sys
import tomllib
from typing import Any

MOST_TRIES = 1000  # prefixes parsed at most to find the line, else the line is not named
# nor when the prefixes parsed would hold more than this many bytes (UTF-8) together: each
# parse of a long prefix costs its length (a 1 MiB file with a string left open on its first
# line took a thousand parses of about 1 MiB: minutes)
MOST_BYTES = 2 * 1024 * 1024
_TOKEN = re.compile("\"\"\"|'''|[\"'#\\[\\]{}\\n]")
_BASIC_END = {'"""': re.compile(r'\\[\s\S]|"""'), '"': re.compile(r'\\[^\n]|["\n]')}
_AT = re.compile(r"\(at line (\d+), column \d+\)$")
# TOML's integers: 64-bit signed; one outside them "cannot be represented losslessly" and
# makes the document no TOML (tomllib reads it anyway, smol-toml refuses it or reads it as
# a BigInt): a rules file's 2**64 was taken and could not be written into a log
INT_RANGE = (-2**63, 2**63 - 1)


class NotToml(ValueError):
    """The text is not TOML; the message is one line in the project's words."""


def _parses(text: str) -> bool:
    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError):  # TOMLDecodeError, or what _unreadable names
        return False
    return not out_of_range(doc)


def out_of_range(value: Any) -> bool:
    """Whether ``value`` (a TOML document as tomllib reads it) holds an integer outside
    TOML's 64-bit integers (:data:`INT_RANGE`).

    >>> out_of_range({"a": [1, {"b": 2**63}]}), out_of_range({"a": -2**63})
    (True, False)
    """
    low, high = INT_RANGE
    stack = [value]
    while stack:  # (no recursion: a document may be nested as deep as tomllib goes)
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, int) and not isinstance(v, bool) and not low <= v <= high:
            return True
    return False


def _unreadable(source: str, error: BaseException) -> NotToml:
    """The error for a TOML document ``tomllib`` cannot hold (``error``, not a
    ``TOMLDecodeError``): arrays or tables nested deeper than Python's recursion goes, or
    an integer longer than Python turns from text (4300 digits,
    ``sys.get_int_max_str_digits``)."""
    if isinstance(error, RecursionError):
        return NotToml(f"{source}: arrays or tables nested too deeply to read")
    return NotToml(f"{source}: a number too long to read (more than "
                   f"{sys.get_int_max_str_digits()} digits)")


def from_line(text: str, stopped_at: int | None = None) -> int | None:
    """The line (from 1) from which ``text``, which is not TOML, stops being TOML: the one
    after the longest prefix of whole lines that parses; ``None`` when that takes more
    than :data:`MOST_TRIES` parses, or parses of more than :data:`MOST_BYTES` bytes
    together. ``stopped_at`` is the line where the parser stopped (the first wrong line is
    not after it; ``None``: the end of the text)."""
    ends = [m.end() for m in re.finditer("\n", text)]
    if not text.endswith("\n"):
        ends.append(len(text))
    k = len(ends) - 1 if stopped_at is None else min(stopped_at, len(ends)) - 1
    inside = open_at_line_ends(text)
    spent = 0
    for _ in range(MOST_TRIES):
        while k > 0 and inside[k - 1]:  # a prefix ending in a string or an array: no TOML
            k -= 1
        if k <= 0:
            return 1
        prefix = text[:ends[k - 1]]
        spent += _utf8_length(prefix)
        if spent > MOST_BYTES:
            return None
        if _parses(prefix):
            return k + 1
        k -= 1
    return None


def open_at_line_ends(text: str) -> list[bool]:
    """Per line end of ``text`` (each newline), whether it is inside a string, an array
    or an inline table: where no prefix that is TOML ends, which :func:`from_line` does
    not parse. Strings and comments are read as TOML reads them, so this is exact on what
    is TOML (after what is not, it says what it says: such a prefix is no TOML anyway).

    >>> open_at_line_ends("a = '''x\\ny'''\\nb = [ # ]\\n 1,\\n]\\nc = '['\\n")
    [True, False, True, True, False, False]
    """
    out: list[bool] = []
    depth, pos = 0, 0
    while (m := _TOKEN.search(text, pos)) is not None:
        t, pos = m[0], m.end()
        if t == "\n":
            out.append(depth > 0)
        elif t == "#":
            pos = len(text) if (end := text.find("\n", pos)) < 0 else end
        elif t in "[{":
            depth += 1
        elif t in "]}":
            depth = max(depth - 1, 0)
        else:  # a string, read to its end: a multi-line one's line ends are inside it
            end = _string_end(text, t, pos)
            if len(t) == 3:
                out.extend([True] * text.count("\n", pos, end))
            pos = end
    return out


def _string_end(text: str, quote: str, pos: int) -> int:
    """Where the string opened by ``quote`` just before ``pos`` ends: after its closing
    quotes (a multi-line string's with up to two more of its content before them), at its
    line's end when a one-line string is not closed on its line, at the end of the text
    when a multi-line one is not closed at all."""
    if quote in _BASIC_END:  # backslash escapes
        for m in _BASIC_END[quote].finditer(text, pos):
            if m[0] == quote:
                return _more_quotes(text, quote, m.end())
            if m[0] == "\n":
                return m.start()
        return len(text)
    found = text.find(quote, pos)
    line = text.find("\n", pos) if quote == "'" else -1
    if line >= 0 and (found < 0 or line < found):
        return line
    return len(text) if found < 0 else _more_quotes(text, quote, found + len(quote))


def _more_quotes(text: str, quote: str, end: int) -> int:
    """After a multi-line string's closing quotes at ``end``, up to two more quotes: its
    content's, the closing ones after them."""
    if len(quote) == 3:
        for _ in range(2):
            if text.startswith(quote[0], end):
                end += 1
    return end


def _utf8_length(text: str) -> int:
    """The length of ``text`` in UTF-8 (a lone surrogate, which no file read as UTF-8
    holds, as three bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def not_toml(source: str, text: str, error: tomllib.TOMLDecodeError, hint: str) -> NotToml:
    """The error for ``text`` (the file ``source``), which ``tomllib`` refused with
    ``error``: ``keys.toml: not TOML from line 3: <hint>``."""
    at = _AT.search(str(error))
    line = from_line(text, int(at[1]) if at else None)
    return NotToml(f"{source}: not TOML" + (f" from line {line}" if line else "") + f": {hint}")


def read_toml(text: str, source: str, hint: str) -> dict[str, Any]:
    """The TOML document ``text``; :class:`NotToml` in one line when it is none."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise not_toml(source, text, e, hint) from None
    except (ValueError, RecursionError) as e:  # a TOML document too deep or long to hold
        raise _unreadable(source, e) from None
    if out_of_range(doc):
        line = from_line(text)
        raise NotToml(f"{source}: not TOML" + (f" from line {line}" if line else "") + f": {hint}")
    return doc


def read_toml_value(text: str, source: str) -> tuple[bool, Any]:
    """The TOML value ``text`` (``target=61``'s ``61``): ``(True, value)``, or
    ``(False, None)`` when it is not TOML; :class:`NotToml` naming ``source`` for a value
    too deeply nested or with too long a number to read.

    >>> read_toml_value("[1, 2]", "x"), read_toml_value("H", "x")
    ((True, [1, 2]), (False, None))
    """
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return False, None
    except (ValueError, RecursionError) as e:
        raise _unreadable(source, e) from None
    if out_of_range(value):
        raise NotToml(f"{source}: a whole number outside TOML's 64-bit integers "
                      f"({INT_RANGE[0]} to {INT_RANGE[1]})")
    return True, value


KEYS_HINT = ('a keys file holds lines "platform name" = "its key" (64 hex digits, or a PEM '
             "public key)")
