"""What a key of a share is to the share's writing
(:func:`~tarneeb.replay.archive.shares.pack_share`): most keys are written numbered, as
pairs of number and value; those of a value drawn, of a match alone, and a card
position's cell or a count of a test by position that the match's deals give, apart.
"""

from __future__ import annotations

from typing import Any


def _drawn(key: tuple[Any, ...]) -> bool:
    """A key of a value drawn (the repeat tests': one a deal or hand, the value last)."""
    return key[0] == "repeat" and len(key) == 5


def _own(key: tuple[Any, ...], sums: bool) -> bool:
    """A key of one match alone (its row of the match-state tests, its place in a season
    for the lag test): kept in that match's share only, neither among the state's keys
    nor in its totals (the state adds those of the shares counted back at each run)."""
    return (key[0] == "ordered" and len(key) == 5) if sums else \
        (key[0] == "rows" and len(key) == 4)


_SPECIAL = frozenset(("repeat", "rows", "ordered", "placed"))  # kinds of key written apart


# what a key is to a share's writing
KINDS = PLAIN, DRAWN, OWN, PLACED, SEATED, OTHER = range(6)
NUMBERED = (PLAIN, PLACED, SEATED, OTHER)  # the kinds written numbered (some, not always)


def kind_of(key: tuple[Any, ...], sums: bool) -> int:
    """What ``key`` (of the counts, or of the ``sums``) is to a share's writing: a value
    drawn, a key of one match alone, a card position's cell or count, a key that may be
    of a test by position (of the counts: ``fit`` or ``fit+mean`` of a test by seat), or
    else a key written numbered, of a kind written apart or not."""
    if key[0] not in _SPECIAL:
        if not sums and (key[0] == "fit" or key[0] == "fit+mean") and len(key) >= 3 \
                and isinstance(key[1], tuple) and len(key[1]) == 3 and key[1][1] == "seat":
            return SEATED
        return PLAIN
    if _drawn(key):
        return DRAWN
    if _own(key, sums):
        return OWN
    return PLACED if key[0] == "placed" else OTHER


__all__ = ["DRAWN", "KINDS", "NUMBERED", "OTHER", "OWN", "PLACED", "PLAIN", "SEATED", "kind_of"]
