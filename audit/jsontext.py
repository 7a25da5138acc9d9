"""One reading of a small JSON document (a receipt), the same in both verifiers
(``js/src/text/jsontext.ts`` reads it alike, docs/PROTOCOL.md §8.1 pins it).

JSON readers disagree at the edges: Python's reads ``0.0`` as a float and ``NaN`` as a
number, JavaScript's reads ``0.0`` and ``0`` alike and refuses ``NaN``; one skips a
byte-order mark that the other refuses; of a key given twice, each keeps one; past 2^53 a
JavaScript number is not the integer written. :func:`read_json` refuses each of these, so
a document has one meaning or none, checked in this order:

1. at most ``limit`` bytes; no UTF-8 byte-order mark at the start; UTF-8;
2. arrays and objects nested at most :data:`MAX_DEPTH` deep;
3. JSON (RFC 8259: no ``NaN``, ``Infinity``, comments or trailing commas);
4. every number a whole number written without a fraction or exponent, not ``-0``, of at
   most 2^53 − 1 either side of 0;
5. no string (key or value) holding a lone surrogate (an escape ``\\ud800`` not one of a
   pair);
6. no object holding a key twice.

>>> read_json(b'{"index": 0, "name": "x"}', "a receipt")
{'index': 0, 'name': 'x'}
>>> for text in (b'{"index": 0.0}', b'\\xef\\xbb\\xbf{}', b'{"a": 1, "a": 2}'):
...     try:
...         read_json(text, "a receipt")
...     except JsonTextError as e:
...         print(str(e)[:60])
the number 0.0: a receipt's numbers are whole numbers (no fr
it begins with a byte-order mark (U+FEFF); a receipt is UTF-
a key appears twice in one JSON object
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 16
_SAFE = 2**53 - 1
_SAFE_DIGITS = len(str(-_SAFE))  # a longer whole number is past it (and int() may refuse it)
_BOM = b"\xef\xbb\xbf"
_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]*)")


class JsonTextError(ValueError):
    """A document that is not one JSON value with one meaning: one line saying why."""


def _scan(text: str) -> tuple[int, str | None]:
    """The deepest nesting of ``text`` and its first number that is not a whole one (in
    the order of the text), strings skipped."""
    depth = deepest = 0
    bad: str | None = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
        elif c == "-" or "0" <= c <= "9":
            j = i
            while j < n and text[j] in "+-.eE0123456789":
                j += 1
            token = text[i:j]
            if bad is None and (not _WHOLE.fullmatch(token) or token == "-0"
                                or len(token) > _SAFE_DIGITS or abs(int(token)) > _SAFE):
                bad = token
            i = j
            continue
        i += 1
    return deepest, bad


def _int(token: str) -> int:
    """A JSON integer: one longer than any whole number allowed (which :func:`_scan` finds,
    a later rule) is read as 0, not refused by ``int`` past Python's 4300 digits."""
    return int(token) if len(token) <= _SAFE_DIGITS else 0


def _lone_surrogate(value: object) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    return False


def read_json(data: bytes, what: str, limit: int | None = None) -> Any:
    """The JSON value of ``data``, read as module's rules say; raises :class:`JsonTextError`
    (``what`` names the document in the message: "a receipt")."""
    if limit is not None and len(data) > limit:
        raise JsonTextError(f"{len(data)} bytes; {what} is at most {limit}")
    if data.startswith(_BOM):
        raise JsonTextError(f"it begins with a byte-order mark (U+FEFF); {what} is UTF-8 "
                            "without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise JsonTextError("not JSON (UnicodeDecodeError)") from None
    deepest, bad = _scan(text)
    if deepest > MAX_DEPTH:
        raise JsonTextError(f"not JSON (nested deeper than {MAX_DEPTH} levels)")
    repeated = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        obj = dict(items)
        repeated = repeated or len(obj) != len(items)
        return obj

    def constant(name: str) -> Any:
        raise json.JSONDecodeError(f"{name} is not JSON", text, 0)

    try:
        doc = json.loads(text, object_pairs_hook=pairs, parse_constant=constant,
                         parse_int=_int)
    except ValueError:
        raise JsonTextError("not JSON (JSONDecodeError)") from None
    if bad is not None:
        raise JsonTextError(f"the number {bad}: {what}'s numbers are whole numbers (no "
                            "fraction or exponent, not -0, at most 2^53 - 1 either side of 0)")
    if _lone_surrogate(doc):
        raise JsonTextError("a string holds a lone surrogate (an escape of one half of a "
                            "surrogate pair without the other)")
    if repeated:
        raise JsonTextError("a key appears twice in one JSON object")
    return doc


__all__ = ["MAX_DEPTH", "JsonTextError", "read_json"]
