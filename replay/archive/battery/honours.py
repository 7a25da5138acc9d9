"""The trump honours: a measure of the archive audit (:mod:`~.measures`).

The points of the trump suit's ace, king, queen and jack (4, 3, 2, 1) in a hand, or in
the hands of a set of seats, where the deal fixes the trump before anyone bids (a fixed
trump, or the suit of the dealer's revealed card or its mate). A platform that hands the
trump ace to its computer seats, or to one table seat, can make up the points, the
aces, the trump count and every suit's length by a swap (the trump ace for a side ace
of the same hand); the trump honours' points it cannot.

Under a uniform deal the seats' trump honours are the values of cards drawn without
replacement from a population: the four honours (4, 3, 2, 1) and the deck's other cards
(0), less the dealer's revealed card where the rules show one (it is known to be the
dealer's: the dealer draws the rest of its hand from the 51 others, and its revealed
card's value is left out of the dealer's measure). ``HONOUR_POPS`` gives the population
by a code:

* 0: the deal fixes no trump (the declarer names it);
* 1: a fixed trump, no card shown (the 52 cards);
* 2: a card shown that is no trump honour (the 51 others: four honours and 47 cards);
* 3, 4, 5, 6: the shown card is the trump ace, king, queen, jack (the 51 others).

>>> from tarneeb.replay.rules.cards import mask_of, parse_card
>>> honour_points(mask_of([parse_card(c) for c in ["AH", "JH", "KS", "2H"]]), 2)
5
>>> honour_code("revealed", True, 2, parse_card("KH")), honour_code("fixed", False, 2, None)
(4, 1)
"""

from __future__ import annotations

TRUMP_HONOURS = "trump honours"
HONOUR_VALUES = (4, 3, 2, 1)  # the ace, king, queen and jack
HONOUR_RANKS = (12, 11, 10, 9)  # their ranks (a card is 13 × suit + rank)
_ALL = tuple((v, 1) for v in HONOUR_VALUES)
HONOUR_POPS: tuple[tuple[tuple[int, int], ...] | None, ...] = (
    None, (*_ALL, (0, 48)), (*_ALL, (0, 47)),
    *((*((w, 1) for w in HONOUR_VALUES if w != v), (0, 48)) for v in HONOUR_VALUES))


def honour_points(mask: int, trump: int) -> int:
    """The trump honours' points in the hand (or hands) ``mask``, ``trump`` the suit."""
    return sum(v for v, r in zip(HONOUR_VALUES, HONOUR_RANKS, strict=True)
               if mask >> (13 * trump + r) & 1)


def honour_code(trump_rule: str, reveals: bool, trump: int | None,
                thirteenth: int | None) -> int:
    """The population the deal's trump honours are drawn from (``HONOUR_POPS``' code),
    by the rules' trump (``RuleSet.trump``), whether they show the dealer's card, the
    deal's trump (None: not fixed by the deal) and its shown card."""
    if trump is None:
        return 0
    if trump_rule == "fixed":
        return 1
    if trump_rule == "revealed" and thirteenth is not None and thirteenth % 13 >= 9:
        return 3 + 12 - thirteenth % 13  # the shown card is a trump honour
    return 2 if reveals else 0


def shown_value(code: int) -> int:
    """The points of the shown card in the dealer's hand (a trump honour's: codes 3-6)."""
    return HONOUR_VALUES[code - 3] if code >= 3 else 0


__all__ = ["HONOUR_POPS", "HONOUR_RANKS", "HONOUR_VALUES", "TRUMP_HONOURS", "honour_code",
           "honour_points", "shown_value"]
