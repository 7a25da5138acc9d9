"""Deals from seeds: an HMAC-SHA256 stream in counter mode, an unbiased shuffle.

The key is the server seed. The message names the match's binding (what the
server promised: its commitment, and for a season the head and leaf index), the
match, the four client seeds and the deal number; block ``i`` of the stream is
``HMAC(server_seed, message || u32be(i))``.
A Fisher-Yates shuffle draws from the stream with rejection sampling (never a
bare modulo), so every order of the deck is exactly as likely. The first dealer
is drawn the same way from a message with its own tag.

>>> server_seed = bytes(range(32))             # fixed seeds: examples only
>>> seeds = [b"north seat seed!", b"east seat seed!!", b"south seat seed!", b"west seat seed!!"]
>>> d = DealDeriver(server_seed, "m-1", seeds)
>>> deck = d.deck(0)
>>> sorted(deck) == list(range(52))
True
>>> deck == derive_deck(server_seed, "m-1", seeds, 0)
True
>>> deal = d.deal(0)
>>> deal.dealer == (d.first_dealer() + 0) % 4, deal.thirteenth == deck[51]
(True, True)
>>> deal.seat_of(0) == (deal.dealer + 1) % 4, len(deal.cards(deal.dealer))
(True, 13)

This layer hands out permutations and positions and knows no rules: which
trump a deal gives, and the hands as bit masks, are the rules layer's business
(:mod:`tarneeb.replay.rules.dealing`).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .encoding import (
    DEAL_TAG,
    FIRST_DEALER_TAG,
    MAX_DEAL_NUMBER,
    check_bytes,
    check_client_seeds,
    check_deal_number,
    check_match_id,
    check_seat,
    check_server_seed,
    lp16,
    u32be,
)
from .errors import AuditInputError, DealMismatchError
from .seeds import SeasonLeaf, match_binding, server_commitment

DECK_SIZE = 52
SEATS = 4
BLOCK_LEN = 32
MAX_SHUFFLE_SIZE = 65536


# ---------------------------------------------------------------- messages --

def _seed_fields(binding: bytes, match_id: bytes | str, client_seeds: Sequence[bytes]) -> bytes:
    b = check_bytes(binding, "match binding")
    if len(b) != 32:
        raise AuditInputError(f"match binding: {len(b)} bytes; it must be 32 (see match_binding)")
    return _fields(b, check_match_id(match_id), check_client_seeds(client_seeds))


def _fields(binding: bytes, match_id: bytes, client_seeds: Sequence[bytes]) -> bytes:
    """The seed fields of checked values."""
    return binding + lp16(match_id) + b"".join(lp16(s) for s in client_seeds)


def deal_message(match_id: bytes | str, client_seeds: Sequence[bytes], deal_number: int,
                 binding: bytes) -> bytes:
    """``b"tarneeb-fair-v2/deal\\x00" || binding || lp16(match_id) || lp16(seed_0) …
    lp16(seed_3) || u32be(deal_number)``, where ``lp16(x) = u16be(len(x)) || x`` and
    ``binding`` is :func:`~tarneeb.audit.seeds.match_binding`.

    >>> m = deal_message(b"m", [bytes([s]) * 16 for s in range(4)], 7, bytes(32))
    >>> m[:21], len(m), m[-4:].hex()
    (b'tarneeb-fair-v2/deal\\x00', 132, '00000007')
    """
    return DEAL_TAG + _seed_fields(binding, match_id, client_seeds) + u32be(
        check_deal_number(deal_number))


def first_dealer_message(match_id: bytes | str, client_seeds: Sequence[bytes],
                         binding: bytes) -> bytes:
    """``b"tarneeb-fair-v2/first-dealer\\x00" || binding || lp16(match_id) || lp16(seed_0) …
    lp16(seed_3)``."""
    return FIRST_DEALER_TAG + _seed_fields(binding, match_id, client_seeds)


def hmac_block(server_seed: bytes, message: bytes, counter: int) -> bytes:
    """Block ``counter`` of the stream: ``HMAC-SHA256(server_seed, message || u32be(counter))``."""
    return hmac.digest(check_server_seed(server_seed), message + u32be(counter), "sha256")


class HmacStream:
    """The byte stream ``block 0 || block 1 || …``, computed as far as it is read.

    >>> s = HmacStream(bytes(32), b"msg")
    >>> s.read(40) == hmac_block(bytes(32), b"msg", 0) + hmac_block(bytes(32), b"msg", 1)[:8]
    True
    >>> s.offset, len(s.blocks)
    (40, 2)
    """

    def __init__(self, server_seed: bytes, message: bytes) -> None:
        self._key = check_server_seed(server_seed)
        self._message = bytes(message)
        self.blocks: list[bytes] = []
        self._buf = bytearray()
        self.offset = 0

    def read(self, k: int) -> bytes:
        while len(self._buf) < self.offset + k:
            block = hmac.digest(self._key, self._message + u32be(len(self.blocks)), "sha256")
            self.blocks.append(block)
            self._buf += block
        out = bytes(self._buf[self.offset:self.offset + k])
        self.offset += k
        return out


# ----------------------------------------------------------------- sampler --

def draw_width(n: int) -> int:
    """Bytes per draw when shuffling ``n`` items: 1 up to 256 items, else 2."""
    return 1 if n <= 256 else 2


def accept_limit(bound: int, width: int) -> int:
    """Draws below this value are accepted for a uniform index in ``0..bound-1``.

    It is the largest multiple of ``bound`` not above ``256**width``, so
    ``draw % bound`` is exactly uniform over the accepted draws.

    >>> accept_limit(52, 1), accept_limit(4, 1), accept_limit(5, 1)
    (208, 256, 255)
    """
    space = 1 << (8 * width)
    return space - space % bound


@dataclass(frozen=True, slots=True)
class Draw:
    """One draw of the sampler, for traces and test vectors."""

    offset: int  # byte offset of the draw in the stream
    bound: int  # the index wanted is uniform in 0..bound-1
    value: int  # the raw draw: one byte, or two bytes big-endian
    index: int | None  # value % bound when accepted, None when rejected

    @property
    def accepted(self) -> bool:
        return self.index is not None


def uniform_index(bound: int, stream: HmacStream, width: int = 1,
                  trace: list[Draw] | None = None) -> int:
    """A uniform index in ``0..bound-1`` from ``stream``, rejecting draws at or above the limit."""
    limit = accept_limit(bound, width)
    while True:
        offset = stream.offset
        value = int.from_bytes(stream.read(width), "big")
        if value < limit:
            if trace is not None:
                trace.append(Draw(offset, bound, value, value % bound))
            return value % bound
        if trace is not None:
            trace.append(Draw(offset, bound, value, None))


def shuffle(n: int, stream: HmacStream, trace: list[Draw] | None = None) -> list[int]:
    """A uniform permutation of ``0..n-1``: Fisher-Yates from the top, draws from ``stream``.

    ``order = [0, 1, …, n-1]``; for ``i`` from ``n-1`` down to ``1``: ``j`` = a uniform
    index in ``0..i``, swap ``order[i]`` and ``order[j]``.

    >>> sorted(shuffle(5, HmacStream(bytes(32), b"x")))
    [0, 1, 2, 3, 4]
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_SHUFFLE_SIZE:
        raise AuditInputError(f"shuffle size {n!r}: it must be 1-{MAX_SHUFFLE_SIZE}")
    width = draw_width(n)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_index(i + 1, stream, width, trace)
        order[i], order[j] = order[j], order[i]
    return order


def permutation(server_seed: bytes, message: bytes, n: int) -> list[int]:
    """The permutation of ``0..n-1`` that the stream of ``(server_seed, message)`` gives.

    The same sampler as the deal, for any deck size; ``n = 52`` with a deal message
    is the deck.
    """
    return shuffle(n, HmacStream(server_seed, message))


# -------------------------------------------------------------------- deals --

@dataclass(frozen=True, slots=True)
class Deal:
    """One dealing attempt: the deck order, its number and its dealer.

    ``deck[p]`` is the card (0-51) dealt ``p``-th; it goes to seat ``(dealer + 1 + p) % 4``,
    so the dealer receives last. What the cards mean (hands, trump) is up to the rules.

    >>> deal = Deal(0, 3, tuple(range(52)))
    >>> deal.seat_of(0), deal.positions(0)[:3], deal.cards(3)[-1]
    (0, (0, 4, 8), 51)
    """

    deal_number: int
    dealer: int
    deck: tuple[int, ...]

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int, deal_number: int = 0) -> Deal:
        return cls(deal_number, check_seat(dealer), tuple(deck))

    @property
    def thirteenth(self) -> int:
        """The dealer's 13th card: the last card dealt, ``deck[51]``."""
        return self.deck[-1]

    def seat_of(self, position: int) -> int:
        """The seat that receives the card dealt at ``position`` (0-51)."""
        return (self.dealer + 1 + position) % SEATS

    def positions(self, seat: int) -> tuple[int, ...]:
        """The deck positions dealt to ``seat``, in the order dealt."""
        first = (check_seat(seat) - self.dealer - 1) % SEATS
        return tuple(range(first, len(self.deck), SEATS))

    def cards(self, seat: int) -> tuple[int, ...]:
        """The cards dealt to ``seat``, in the order dealt."""
        return tuple(self.deck[p] for p in self.positions(seat))

    def to_dict(self) -> dict[str, object]:
        return {"deal_number": self.deal_number, "dealer": self.dealer,
                "deck": list(self.deck), "thirteenth": self.thirteenth}


_IPAD = bytes(b ^ 0x36 for b in range(256))
_OPAD = bytes(b ^ 0x5C for b in range(256))


def _hmac_pads(key: bytes) -> tuple[bytes, bytes]:
    k = key.ljust(64, b"\x00")
    return k.translate(_IPAD), k.translate(_OPAD)


_DECK_TEMPLATE = list(range(DECK_SIZE))
# For each position i (51 … 1): a 256-byte table giving, for a draw b, the index
# b % (i + 1), or 255 when b is rejected (b >= accept_limit(i + 1, 1)).
# The accepted draws 0 … limit-1 are limit // (i+1) repeats of 0 … i (built in C: this
# table is made at import, so on every start of the command).
_DECK_STEPS = tuple(
    (bytes(range(i + 1)) * (accept_limit(i + 1, 1) // (i + 1))
     + b"\xff" * (256 - accept_limit(i + 1, 1)), i)
    for i in range(DECK_SIZE - 1, 0, -1))
_PACK_II = struct.Struct(">II").pack
_BITS = tuple(1 << c for c in range(DECK_SIZE))


class DealDeriver:
    """Derives the deals of one match; keyed once, then cheap per deal.

    ``server_seed`` is 32 bytes, ``match_id`` 1-64 bytes (text is taken as UTF-8),
    ``client_seeds`` four seeds of 16-64 bytes in seat order; ``season`` is where
    the match stands in a season (``None`` for a match committed alone). The
    binding (:func:`~tarneeb.audit.seeds.match_binding`) follows from the server
    seed's commitment and the season leaf.

    >>> seeds = [bytes([s]) * 16 for s in range(4)]
    >>> d = DealDeriver(bytes(32), b"m", seeds)
    >>> stream = HmacStream(bytes(32), deal_message(b"m", seeds, 3, d.binding))
    >>> d.deck(3) == shuffle(52, stream)
    True
    """

    __slots__ = ("_fields", "_first_dealer", "_inner", "_ipad", "_outer", "binding",
                 "client_seeds", "match_id", "season", "server_seed")

    def __init__(self, server_seed: bytes, match_id: bytes | str,
                 client_seeds: Sequence[bytes], season: SeasonLeaf | None = None,
                 binding: bytes | None = None) -> None:
        self.server_seed = check_server_seed(server_seed)
        self.match_id = check_match_id(match_id)
        self.client_seeds = check_client_seeds(client_seeds)
        self.season = season
        # the binding is always the one of this seed and season (two short hashes): a
        # ``binding`` given (a verifier has just computed it) must be that very one, since
        # deals derived under any other would not be the protocol's
        self.binding = match_binding(server_commitment(self.server_seed), season)
        if binding is not None and not (isinstance(binding, bytes | bytearray)
                                        and hmac.compare_digest(bytes(binding), self.binding)):
            raise AuditInputError("match binding: not the binding of this server seed and "
                                  "season leaf (see match_binding)")
        # HMAC (RFC 2104) by hand, so that the constant start of every message is
        # hashed once: inner = SHA-256(key ^ ipad || message), outer = SHA-256(key ^ opad || inner).
        ipad, opad = _hmac_pads(self.server_seed)
        self._ipad = ipad
        # the seed fields, made once from the values checked above: every deal message and
        # the first dealer's start with them
        self._fields = _fields(self.binding, self.match_id, self.client_seeds)
        self._inner = hashlib.sha256(ipad + DEAL_TAG + self._fields)
        self._outer = hashlib.sha256(opad)
        self._first_dealer: int | None = None

    def deal_hashes(self) -> tuple[Any, Any]:
        """The two keyed hashlib objects every deal's HMAC blocks start from: the inner
        hash (key ^ ipad and the message's constant part, hashed) and the outer (key ^
        opad). A caller copies them (``.copy()``) and never updates them; block ``i`` of
        deal ``n`` is ``outer' <- inner'.update(u32be(n) || u32be(i)).digest()``."""
        return self._inner, self._outer

    def message(self, deal_number: int) -> bytes:
        """The deal message of ``deal_number``."""
        return deal_message(self.match_id, self.client_seeds, deal_number, self.binding)

    def stream(self, deal_number: int) -> HmacStream:
        """The HMAC stream of ``deal_number`` (for traces; :meth:`deck` does not need it)."""
        return HmacStream(self.server_seed, self.message(deal_number))

    def blocks(self, deal_number: int, count: int) -> list[bytes]:
        """Blocks ``0..count-1`` of the stream of ``deal_number``."""
        check_deal_number(deal_number)
        return [self._block(self._inner, _PACK_II(deal_number, i)) for i in range(count)]

    def _block(self, start: Any, rest: bytes) -> bytes:
        """An HMAC block whose inner hash has taken ``start`` (pad and constant part of the
        message, hashed once) and takes ``rest``."""
        inner = start.copy()
        inner.update(rest)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()

    def _two_blocks(self, deal_number: int) -> bytes:
        """Blocks 0 and 1 of the stream of ``deal_number`` (not checked): 51 draws and up
        to 13 rejections, almost always enough for a deal."""
        inner = self._inner.copy()
        inner.update(_PACK_II(deal_number, 0))
        outer = self._outer.copy()
        outer.update(inner.digest())
        b0 = outer.digest()
        inner = self._inner.copy()
        inner.update(_PACK_II(deal_number, 1))
        outer = self._outer.copy()
        outer.update(inner.digest())
        return b0 + outer.digest()

    def deck(self, deal_number: int) -> list[int]:
        """The deck order of deal ``deal_number``: a permutation of the 52 cards."""
        if deal_number.__class__ is not int or not 0 <= deal_number <= MAX_DEAL_NUMBER:
            check_deal_number(deal_number)
        it: Iterator[int] = iter(self._two_blocks(deal_number))
        deck = _DECK_TEMPLATE[:]
        try:
            for table, i in _DECK_STEPS:
                j = table[next(it)]
                while j == 255:
                    j = table[next(it)]
                deck[i], deck[j] = deck[j], deck[i]
        except StopIteration:
            return shuffle(DECK_SIZE, self.stream(deal_number))
        return deck

    def dealt(self, deal_number: int, dealer: int) -> tuple[int, int, int, int, int]:
        """The cards each seat receives in deal ``deal_number`` dealt by ``dealer``, as
        four sets in seat order (bit ``c`` set: card ``c``), and the last card dealt.

        The sets mean nothing more than :meth:`Deal.cards` does.

        >>> d = DealDeriver(bytes(32), b"m", [bytes([s]) * 16 for s in range(4)])
        >>> deal = d.deal(5, dealer=2)
        >>> d.dealt(5, 2) == (*(sum(1 << c for c in deal.cards(s)) for s in range(4)),
        ...                   deal.thirteenth)
        True
        """
        deal = self.deal(deal_number, dealer)
        a, b, c, d = (sum(_BITS[card] for card in deal.cards(s)) for s in range(SEATS))
        return a, b, c, d, deal.thirteenth

    def first_dealer(self) -> int:
        """The first dealer of the match (0-3), drawn under its own tag."""
        if self._first_dealer is None:
            # block 0 of the stream of FIRST_DEALER_TAG || fields, with the pads made once;
            # a draw below 256 is never rejected for 4 seats (accept_limit(4, 1) == 256)
            start = hashlib.sha256(self._ipad + FIRST_DEALER_TAG + self._fields)
            self._first_dealer = self._block(start, u32be(0))[0] % SEATS
        return self._first_dealer

    def dealer_for(self, deal_number: int) -> int:
        """The dealer of ``deal_number``: the deal passes right after every hand, so
        ``(first_dealer + deal_number) % 4``."""
        return (self.first_dealer() + check_deal_number(deal_number)) % SEATS

    def deal(self, deal_number: int, dealer: int | None = None) -> Deal:
        """The :class:`Deal` of ``deal_number``; ``dealer`` defaults to :meth:`dealer_for`."""
        if dealer is None:
            dealer = self.dealer_for(deal_number)
        elif dealer.__class__ is not int or not 0 <= dealer <= 3:
            check_seat(dealer)
        return Deal(deal_number, dealer, tuple(self.deck(deal_number)))

    def verify_deck(self, deal_number: int, deck: Sequence[int]) -> None:
        """Raise :class:`~tarneeb.audit.errors.DealMismatchError` unless ``deck`` is the
        deck order the seeds give for ``deal_number``."""
        want = self.deck(deal_number)
        got = list(deck)
        if got != want:
            pos = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                       min(len(got), len(want)))
            raise DealMismatchError(
                f"deal {deal_number}: the recorded deck is not the one the committed seeds "
                f"produce (first difference at position {pos})")


def derive_deck(server_seed: bytes, match_id: bytes | str, client_seeds: Sequence[bytes],
                deal_number: int, season: SeasonLeaf | None = None) -> list[int]:
    """The deck order of one deal (see :class:`DealDeriver` to derive many)."""
    return DealDeriver(server_seed, match_id, client_seeds, season).deck(deal_number)


def derive_deal(server_seed: bytes, match_id: bytes | str, client_seeds: Sequence[bytes],
                deal_number: int, dealer: int | None = None,
                season: SeasonLeaf | None = None) -> Deal:
    """The :class:`Deal` of one deal; ``dealer`` defaults to the first dealer + deal number."""
    return DealDeriver(server_seed, match_id, client_seeds, season).deal(deal_number, dealer)


def derive_first_dealer(server_seed: bytes, match_id: bytes | str,
                        client_seeds: Sequence[bytes], season: SeasonLeaf | None = None) -> int:
    """The first dealer of the match, 0-3."""
    return DealDeriver(server_seed, match_id, client_seeds, season).first_dealer()


__all__ = [
    "DECK_SIZE", "Deal", "DealDeriver", "Draw", "HmacStream", "accept_limit", "deal_message",
    "derive_deal", "derive_deck", "derive_first_dealer", "draw_width", "first_dealer_message",
    "hmac_block", "permutation", "shuffle", "uniform_index",
]
