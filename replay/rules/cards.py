"""Cards as small integers, hands as 52-bit masks.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank``, where suits are
numbered ``♣ 0, ♦ 1, ♥ 2, ♠ 3`` and ranks ``2 0 … A 12``. A set of cards
(a hand, the cards played so far) is an ``int`` bit mask with bit ``card`` set.

>>> parse_card("10♥"), parse_card("TH"), parse_card("th"), parse_card("10h")
(34, 34, 34, 34)
>>> card_name(34), card_name(34, symbols=False)
('10♥', 'TH')
>>> format_hand(mask_of([parse_card(c) for c in ["AS", "2S", "KH"]]))
'♠ A 2  ♥ K'
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import TypeVar

_T = TypeVar("_T")

Card = int
Suit = int
Mask = int

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS: tuple[Suit, ...] = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

FULL_DECK: Mask = (1 << 52) - 1
SUIT_MASKS: tuple[Mask, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)
RED_SUITS = frozenset({DIAMONDS, HEARTS})

_SUIT_INPUT = {
    **{c: i for i, c in enumerate(SUIT_LETTERS)},
    **{c: i for i, c in enumerate(SUIT_LETTERS.lower())},
    **{c: i for i, c in enumerate(SUIT_SYMBOLS)},
    "♧": CLUBS,
    "♢": DIAMONDS,
    "♡": HEARTS,
    "♤": SPADES,
}
_RANK_INPUT = {
    **{c: i for i, c in enumerate(RANK_LETTERS)},
    **{c: i for i, c in enumerate(RANK_LETTERS.lower())},
    "10": 8,
}


class CardError(ValueError):
    """Raised for text that does not name a card or a suit."""


def make_card(rank: int, suit: Suit) -> Card:
    """The card of ``rank`` (0 = 2 … 12 = ace) in ``suit``."""
    return suit * 13 + rank


def suit_of(card: Card) -> Suit:
    return card // 13


def rank_of(card: Card) -> int:
    return card % 13


def colour_mate(suit: Suit) -> Suit:
    """The other suit of the same colour: ♣↔♠, ♦↔♥.

    >>> SUIT_SYMBOLS[colour_mate(CLUBS)], SUIT_SYMBOLS[colour_mate(HEARTS)]
    ('♠', '♦')
    """
    return 3 - suit


def parse_suit(text: str) -> Suit:
    """A suit from a letter (``S``/``h``), a symbol (``♠``) or a name (``spades``)."""
    if not isinstance(text, str):
        raise CardError(f"not a suit: {text!r} is not text (use C, D, H, S or ♣ ♦ ♥ ♠)")
    t = text.strip()
    if t in _SUIT_INPUT:
        return _SUIT_INPUT[t]
    lowered = t.lower()
    for i, name in enumerate(SUIT_NAMES):
        if lowered in (name, name[:-1]):
            return i
    raise CardError(f"not a suit: {text!r} (use C, D, H, S or ♣ ♦ ♥ ♠)")


def parse_card(text: str) -> Card:
    """A card from text such as ``10♥``, ``TH``, ``th``, ``10h`` or ``A♠``."""
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} is not text (write it like AS, 10h, K♥)")
    t = text.strip()
    if len(t) < 2:
        raise CardError(f"not a card: {text!r} (write it like AS, 10h, K♥)")
    rank_text, suit_text = t[:-1], t[-1]
    rank = _RANK_INPUT.get(rank_text)
    suit = _SUIT_INPUT.get(suit_text)
    if rank is None or suit is None:
        raise CardError(f"not a card: {text!r} (write it like AS, 10h, K♥)")
    return make_card(rank, suit)


def card_name(card: Card, symbols: bool = True) -> str:
    """``10♥`` (or ``TH`` with ``symbols=False``)."""
    if not isinstance(card, int):
        try:
            card = operator.index(card)  # a NumPy integer is a card number too
        except TypeError:
            raise CardError(f"not a card number: {card!r} (cards are 0-51; parse_card reads "
                            "a card's name)") from None
    if not 0 <= card < 52:
        raise CardError(f"not a card number: {card} (cards are 0-51)")
    if symbols:
        return RANK_NAMES[rank_of(card)] + SUIT_SYMBOLS[suit_of(card)]
    return RANK_LETTERS[rank_of(card)] + SUIT_LETTERS[suit_of(card)]


def mask_of(cards: Iterable[Card]) -> Mask:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: Mask) -> list[Card]:
    """The cards of a mask, lowest first."""
    if mask < 0:
        raise CardError(f"not a set of cards: {mask} is negative")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def count(mask: Mask) -> int:
    return mask.bit_count()


def lowest(mask: Mask) -> Card:
    """The lowest card of a non-empty mask (lowest suit, then lowest rank)."""
    return (mask & -mask).bit_length() - 1


def highest(mask: Mask) -> Card:
    return mask.bit_length() - 1


def format_hand(mask: Mask, symbols: bool = True) -> str:
    """A hand sorted by suit (♠ ♥ ♣ ♦ alternate colours), high cards first."""
    parts = []
    for s in (SPADES, HEARTS, CLUBS, DIAMONDS):
        in_suit = [c for c in reversed(cards_of(mask & SUIT_MASKS[s]))]
        if not in_suit:
            continue
        label = SUIT_SYMBOLS[s] if symbols else SUIT_LETTERS[s]
        ranks = " ".join(RANK_NAMES[rank_of(c)] if symbols else RANK_LETTERS[rank_of(c)]
                         for c in in_suit)
        parts.append(f"{label} {ranks}")
    return "  ".join(parts)


def deal_hands(deck: list[Card] | bytes, dealer: int) -> tuple[Mask, Mask, Mask, Mask]:
    """The four hands from a deck order: card ``i`` goes to seat ``(dealer+1+i) % 4``.

    The dealer's 13th card is ``deck[51]``. A deck that is not the 52 cards 0-51, each
    once, raises :class:`CardError`.
    """
    try:
        bits = list(map(_BITS.__getitem__, deck))
    except (KeyError, TypeError):  # a value that is no card number 0-51; no sequence
        bits = []
    f0, f1, f2, f3 = _FIRST[dealer & 3]  # where each seat's first card lies in the deck
    hands = sum(bits[f0::4]), sum(bits[f1::4]), sum(bits[f2::4]), sum(bits[f3::4])
    # 52 powers of two add up to the full deck only if they are 52 different cards
    if len(bits) != 52 or sum(hands) != FULL_DECK:
        raise CardError(f"a deck is the 52 cards 0-51, each once, not {_deck_text(deck)}")
    return hands


def check_deal(hands: tuple[Mask, ...], dealer: int, thirteenth: Card | None,
               needs_thirteenth: bool) -> str | None:
    """Why four masks are not a valid deal, or ``None``."""
    if len(hands) != 4:
        return "a deal has four hands"
    seen = 0
    for s, h in enumerate(hands):
        if not isinstance(h, int) or h < 0 or h > FULL_DECK:
            return f"hand of seat {s} is not a set of cards"
        if h.bit_count() != 13:
            return f"seat {s} was dealt {h.bit_count()} cards, not 13"
        if seen & h:
            return (f"seat {s} was dealt {card_name(cards_of(seen & h)[0])}, "
                    "dealt to another seat too")
        seen |= h
    if thirteenth is None:
        if needs_thirteenth:
            return "the dealer's 13th card is missing"
        return None
    if not isinstance(thirteenth, int) or not 0 <= thirteenth < 52:
        return "the dealer's 13th card is not a card"
    if not hands[dealer] >> thirteenth & 1:
        return f"the dealer's 13th card {card_name(thirteenth)} is not in the dealer's hand"
    return None


_BITS = {c: 1 << c for c in range(52)}  # a dict: a negative number is no index into it
_FIRST = tuple(tuple((s - d - 1) & 3 for s in range(4)) for d in range(4))


def _deck_text(deck: object) -> str:
    """What is wrong with a deck :func:`deal_hands` refused."""
    try:
        cards = list(deck)  # type: ignore[call-overload]
    except TypeError:
        return f"{type(deck).__name__} {deck!r}"[:80]
    if len(cards) != 52:
        return f"{len(cards)} cards"
    for c in cards:
        if not isinstance(c, int | float) or c not in _BITS:
            return f"one holding {c!r}"[:80]
    for c in cards:
        if cards.count(c) > 1:
            return f"one holding {card_name(c)} {cards.count(c)} times"
    return repr(deck)[:80]  # pragma: no cover - a deck of 52 different cards is read


def by_seat(values: Iterable[_T]) -> tuple[_T, _T, _T, _T]:
    """Four values by seat (hands, totals …) as a tuple of four; a ``ValueError`` unless
    there are four.

    >>> by_seat([1, 2, 3, 4])
    (1, 2, 3, 4)
    """
    a, b, c, d = values
    return a, b, c, d
