"""Platform names a person compares by eye: when two look the same, and which scripts one uses.

A keys file names each platform's key, and a verdict says "signed by <name>". Two
names that look alike — Latin ``ERAM`` and ``ЕRАМ`` with Cyrillic Е, А, М, a name
and the same with a zero-width space, a fullwidth form — would let a forger's key
read as a trusted platform. :func:`name_keys` are the forms names are compared in (two
names that share one look the same); :func:`name_scripts` says which scripts a name's
letters come from, so a verdict can flag a name that mixes them.

The look-alike data is Unicode's own (confusables.txt and the script property of
UTS #39, as the ``confusable_homoglyphs`` package ships them). Its limits: only a
character confusable with one character is mapped (``rn`` and ``m`` still differ),
and spaces count (``card room`` is not ``cardroom``).

>>> sorted(name_keys("\\u0415R\\u0410\\u041c") & name_keys("Eram"))
['eram']
>>> name_scripts("\\u0415R\\u0410\\u041c"), name_scripts("Club 400")
(('Cyrillic', 'Latin'), ('Latin',))
"""

from __future__ import annotations

import functools
import unicodedata

# scripts that go with any other: digits, punctuation, spaces, combining marks
_NEUTRAL = frozenset({"COMMON", "INHERITED", "Unknown"})


@functools.cache
def _representatives() -> dict[str, str]:
    """Each character that has look-alikes → one character of its class (the lowest),
    the classes joined wherever the data lists two characters as confusable."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, glyphs in confusables_data.items():
        for glyph in glyphs:
            other = glyph["c"]
            if len(char) == 1 and len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: find(c) for c in parent}


def _invisible(c: str) -> bool:
    """A character that shows nothing: a format character (zero-width space and joiners,
    soft hyphen, bidi marks, tags), a variation selector, a Hangul filler."""
    cp = ord(c)
    return (unicodedata.category(c) == "Cf" or 0xFE00 <= cp <= 0xFE0F
            or 0xE0100 <= cp <= 0xE01EF or cp in (0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0))


def _skeleton(text: str) -> str:
    rep = _representatives()
    return "".join(rep.get(c, c) for c in unicodedata.normalize("NFD", text)
                   if not _invisible(c))


def name_keys(name: str) -> frozenset[str]:
    """The forms in which two names that look the same share one: NFKC, invisible characters
    dropped, each character replaced by one of its look-alikes, and case folded — once
    before the look-alikes (``CARDROOM`` is ``cardroom``, though capital O looks like 0
    and small o does not) and once after (``ЕRАМ`` is ``ERAM``, though small Cyrillic м
    looks like no Latin letter).

    >>> keys = [name_keys(n) for n in ("card\\u200broom", "Cardroom", "ＣＡＲＤＲＯＯＭ")]
    >>> sorted(keys[0] & keys[1] & keys[2])
    ['cardroom']
    """
    plain = unicodedata.normalize("NFKC", name)
    first = _skeleton(unicodedata.normalize("NFKC", plain.casefold()))
    then = _skeleton(unicodedata.normalize("NFKC", _skeleton(plain).casefold()))
    return frozenset(unicodedata.normalize("NFC", k) for k in (first, then))


@functools.lru_cache(maxsize=64)
def name_scripts(name: str) -> tuple[str, ...]:
    """The scripts a name's letters come from, sorted (digits, spaces and punctuation go
    with any script and are not counted). Cached: a verifier asks it of the same few
    signers' names once per log.

    >>> name_scripts("Club Tarneeb 400"), name_scripts("2024")
    (('Latin',), ())
    """
    if name.isascii():  # its letters are Latin, the rest goes with any script: no data to load
        return ("Latin",) if any(c.isalpha() for c in name) else ()
    from confusable_homoglyphs.categories import alias

    return tuple(sorted({alias(c).title() for c in unicodedata.normalize("NFKC", name)
                         if alias(c) not in _NEUTRAL and not _invisible(c)}))


__all__ = ["name_keys", "name_scripts"]
