"""Blind dealing: a deck shuffled and dealt by commutative encryption (mental poker).

In the seed protocol (:mod:`tarneeb.audit.derive`) the server can compute every
hand once the client seeds are in. In blind dealing nobody, the server included,
learns a card that is not their own: the deck is encrypted and shuffled by all
four seats in turn, and each card is decrypted by the three seats that do not
receive it, so only its owner can remove the last layer.

The group is **ristretto255** (a prime-order group of order ``L``, via the libsodium
that the ``rbcl`` package bundles: no system library is needed),
so every element is a valid group element and the quadratic-residue leak of the
original SRA scheme cannot occur: there is no subgroup of even order to read a
card's parity from. ``docs/PROTOCOL.md`` (section "Blind dealing") specifies the
scheme to the byte; this module is its reference implementation and knows no
game rules: it deals 52 *positions* to seats and names cards by number 0-51.

The steps of one deal, for seats ``0..3`` with per-deal secret scalars ``x_s``
and public keys ``Y_s = x_s·B``:

1. **Shuffle.** ``D_0 = [P_0, …, P_51]``, the card points (hashed to the group,
   so nobody knows their discrete logarithms). Seat ``s`` publishes
   ``D_{s+1}[j] = x_s · D_s[π_s(j)]`` with its secret permutation ``π_s``.
2. **Deal.** Position ``p`` of ``D_4`` goes to seat ``o = owner(p, dealer)``.
   The other three seats, in the order ``o+1, o+2, o+3``, each publish
   ``E' = x_k⁻¹ · E`` with a proof that ``log_B(Y_k) = log_E'(E)``. What is
   left is ``x_o · P_c``: only ``o`` can remove it and learn ``c``.
3. **Open.** A card shown to all (the dealer's 13th under some rules) or played
   is opened by its owner: it names ``c`` and proves ``log_B(Y_o) = log_{P_c}(E)``
   for the element ``E`` left after the three partial decryptions. So a played
   card is checked when it is played.
4. **Reveal** (after the match, optional). Each seat publishes ``x_s`` and
   ``π_s``; every pass can then be recomputed.

Every proof is a Chaum-Pedersen proof of equal discrete logarithms made
non-interactive by Fiat-Shamir over a domain-separated transcript bound to the
match id, the deal number and the step (:func:`dleq_context`).

>>> seats = [BlindSeat.new(s, b"doc-match", 0, rng=fixed_rng(b"doc", s)) for s in range(4)]
>>> deal = deal_blind(seats, b"doc-match", 0, dealer=3)
>>> verify_deal(deal) == []
True
>>> sorted(seats[0].hand()) == sorted(deal.cards_of(0, [s.reveal() for s in seats]))
True
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import rbcl

from ..encoding import lp16, tag, u32be
from ..errors import AuditError

BLIND_PROTOCOL = "tarneeb-blind-v1"
GROUP = "ristretto255"
ELEMENT_LEN = 32
SCALAR_LEN = 32
PROOF_LEN = 64
DECK = 52
SEATS = 4

L = 2**252 + 27742317777372353535851937790883648493
"""The order of ristretto255."""


def blind_tag(purpose: str) -> bytes:
    """``b"tarneeb-blind-v1/" + purpose + b"\\x00"``: no tag is a prefix of another."""
    return tag(purpose, BLIND_PROTOCOL)


CARD_TAG = blind_tag("card")
DLEQ_TAG = blind_tag("dleq")
NONCE_TAG = blind_tag("nonce")


class BlindError(AuditError):
    """A blind-dealing value that is malformed or does not verify."""


def _remove_library_file() -> None:
    """Remove the copy of libsodium that ``rbcl`` wrote to the temporary directory.

    ``rbcl`` carries libsodium inside its wheel, writes it to a temporary file when
    imported and loads it from there, leaving the file behind: 2.7 MB in the
    temporary directory for every process that deals or checks a deal blind. Once
    loaded the file is no longer needed (a loaded library stays mapped after its
    file is removed), so it is removed; where the system refuses (Windows keeps a
    loaded library's file), it stays.
    """
    path = getattr(sys.modules.get("rbcl._sodium"), "lib_path", None)
    if (isinstance(path, str) and os.path.dirname(path) == tempfile.gettempdir()
            and os.path.basename(path).startswith("tmp")):
        with contextlib.suppress(OSError):
            os.unlink(path)


_remove_library_file()


# ------------------------------------------------------------------ the group --

def _check_element(e: bytes, what: str) -> bytes:
    if not isinstance(e, bytes | bytearray) or len(e) != ELEMENT_LEN:
        raise BlindError(f"{what}: a group element is {ELEMENT_LEN} bytes")
    if e[31] & 0x80 or not rbcl.crypto_core_ristretto255_is_valid_point(bytes(e)):
        # libsodium ignores bit 255, which RFC 9496 (and the TypeScript verifier) refuse:
        # without this one element would have two encodings
        raise BlindError(f"{what}: not a valid ristretto255 element")
    return bytes(e)


def scalar_from_int(n: int) -> bytes:
    """A scalar (``0 <= n < L``) as 32 little-endian bytes."""
    return (n % L).to_bytes(SCALAR_LEN, "little")


def scalar_to_int(s: bytes) -> int:
    return int.from_bytes(s, "little")


def reduce64(data: bytes) -> bytes:
    """A 64-byte string reduced modulo ``L`` (wide reduction: negligible bias)."""
    return rbcl.crypto_core_ristretto255_scalar_reduce(data)


def coefficients(seed: bytes, n: int) -> list[int]:
    """``reduce64(SHA-512(seed ‖ u8(i)))`` for ``i < n``, as ints: the scalars a proof draws
    from one seed (a 64-byte string read little-endian and taken modulo ``L``, as
    :func:`reduce64` does).

    >>> coefficients(b"seed", 2) == [scalar_to_int(reduce64(hashlib.sha512(b"seed" + bytes([i]))
    ...                                                      .digest())) for i in range(2)]
    True
    """
    return [int.from_bytes(hashlib.sha512(seed + bytes([i])).digest(), "little") % L
            for i in range(n)]


def hash_to_scalar(*parts: bytes) -> bytes:
    return reduce64(hashlib.sha512(b"".join(parts)).digest())


def mul(scalar: bytes, element: bytes) -> bytes:
    """``scalar · element``; raises :class:`BlindError` where the result is the identity, or
    for an encoding with bit 255 set (which libsodium would read as the element without it)."""
    if element[31:32] >= b"\x80":
        raise BlindError("not a canonical ristretto255 encoding (bit 255 set)")
    try:
        return rbcl.crypto_scalarmult_ristretto255(scalar, element)
    except RuntimeError as exc:  # libsodium refused: the identity, or no group element
        raise BlindError("scalar multiplication gave the identity") from exc


def mul_base(scalar: bytes) -> bytes:
    try:
        return rbcl.crypto_scalarmult_ristretto255_base(scalar)
    except RuntimeError as exc:
        raise BlindError("scalar multiplication gave the identity") from exc


def invert(scalar: bytes) -> bytes:
    return rbcl.crypto_core_ristretto255_scalar_invert(scalar)


def element_from_hash(digest: bytes) -> bytes:
    """The group element of a 64-byte hash (RFC 9496's one-way map): nobody knows its log."""
    return rbcl.crypto_core_ristretto255_from_hash(digest)


@lru_cache(maxsize=1)
def card_points() -> tuple[bytes, ...]:
    """``P_c = from_hash(SHA-512(CARD_TAG ‖ u8(c)))`` for ``c = 0 … 51``."""
    return tuple(element_from_hash(hashlib.sha512(CARD_TAG + bytes([c])).digest())
                 for c in range(DECK))


@lru_cache(maxsize=1)
def _point_cards() -> dict[bytes, int]:
    return {p: c for c, p in enumerate(card_points())}


def card_of_point(point: bytes) -> int | None:
    """The card whose point is ``point``, or ``None``."""
    return _point_cards().get(point)


# ------------------------------------------------------------------- proofs --

def dleq_context(match_id: bytes, deal_number: int, step: str, seat: int,
                 position: int) -> bytes:
    """What a proof is bound to: ``lp16(match_id) ‖ u32(deal) ‖ lp16(step) ‖ u8(seat) ‖ u8(pos)``.

    ``step`` is ``"decrypt"``, ``"open"`` or ``"play"``; ``position`` is 0-51.
    """
    return (lp16(match_id) + u32be(deal_number) + lp16(step.encode("ascii"))
            + bytes([seat, position]))


def _challenge(context: bytes, g: bytes, y: bytes, h: bytes, z: bytes, a: bytes,
               b: bytes) -> bytes:
    return hash_to_scalar(DLEQ_TAG, context, g, y, h, z, a, b)


_BASE = rbcl.crypto_scalarmult_ristretto255_base(scalar_from_int(1))


def prove_dleq(x: bytes, h: bytes, context: bytes) -> bytes:
    """Proof that ``log_B(x·B) = log_h(x·h)``: ``c ‖ s`` (64 bytes).

    The nonce is derived from the secret and the statement (as in Ed25519), so a
    proof never depends on a random source and never reuses a nonce across
    statements.
    """
    y, z = mul_base(x), mul(x, h)
    r = hash_to_scalar(NONCE_TAG, x, context, h, z)
    a, b = mul_base(r), mul(r, h)
    c = _challenge(context, _BASE, y, h, z, a, b)
    s = scalar_from_int(scalar_to_int(r) + scalar_to_int(c) * scalar_to_int(x))
    return c + s


def verify_dleq(y: bytes, h: bytes, z: bytes, proof: bytes, context: bytes) -> bool:
    """Whether ``proof`` shows ``log_B(y) = log_h(z)`` under ``context``."""
    if not isinstance(proof, bytes | bytearray) or len(proof) != PROOF_LEN:
        return False
    c, s = bytes(proof[:32]), bytes(proof[32:])
    if scalar_to_int(c) >= L or scalar_to_int(s) >= L:
        return False  # one byte form for every proof
    neg_c = scalar_from_int(-scalar_to_int(c))
    try:  # the sums' terms are products, so group elements: add cannot fail
        a = rbcl.crypto_core_ristretto255_add(mul_base(s), mul(neg_c, y))
        b = rbcl.crypto_core_ristretto255_add(mul(s, h), mul(neg_c, z))
    except (BlindError, ValueError):
        return False
    return secrets.compare_digest(_challenge(context, _BASE, y, h, z, a, b), c)


# -------------------------------------------------------------------- seats --

Rng = Callable[[int], bytes]
"""A source of random bytes: ``rng(n)`` returns ``n`` bytes."""


def fixed_rng(label: bytes, seat: int) -> Rng:
    """A reproducible byte source (SHA-512 in counter mode) for tests and vectors: NOT secret."""
    counter = 0

    def rng(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            out += hashlib.sha512(b"fixed-rng\x00" + label + bytes([seat])
                                  + counter.to_bytes(8, "big")).digest()
            counter += 1
        return out[:n]

    return rng


def _random_scalar(rng: Rng) -> bytes:
    while True:
        s = reduce64(rng(64))
        if scalar_to_int(s) != 0:
            return s


def _random_permutation(n: int, rng: Rng) -> list[int]:
    """Fisher-Yates with rejection sampling on 32-bit draws from ``rng``."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        m = i + 1
        limit = (2**32 // m) * m
        while True:
            v = int.from_bytes(rng(4), "big")
            if v < limit:
                break
        j = v % m
        order[i], order[j] = order[j], order[i]
    return order


def owner(position: int, dealer: int) -> int:
    """The seat that receives position ``position``: ``(dealer + 1 + position) % 4``."""
    return (dealer + 1 + position) % SEATS


def decrypt_order(owner_seat: int) -> tuple[int, int, int]:
    """The seats that strip a layer from a card of ``owner_seat``, in order."""
    return ((owner_seat + 1) % 4, (owner_seat + 2) % 4, (owner_seat + 3) % 4)


@dataclass(frozen=True, slots=True)
class RevealedKey:
    """What a seat may publish after the match: its scalar and its permutation."""

    seat: int
    scalar: bytes
    permutation: tuple[int, ...]


@dataclass
class BlindSeat:
    """One seat's secret side of a deal: its scalar, its permutation, what it learned.

    Each seat (computer players included) holds its own; nothing here is shared.
    """

    seat: int
    match_id: bytes
    deal_number: int
    scalar: bytes = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    learned: dict[int, int] = field(default_factory=dict)  # position -> card
    unreadable: list[int] = field(default_factory=list)  # positions that gave no card

    @classmethod
    def new(cls, seat: int, match_id: bytes, deal_number: int, rng: Rng | None = None) -> BlindSeat:
        """Fresh secrets for one deal, from :mod:`secrets` unless ``rng`` is given."""
        source = rng or secrets.token_bytes
        return cls(seat, match_id, deal_number, _random_scalar(source),
                   tuple(_random_permutation(DECK, source)))

    @property
    def public(self) -> bytes:
        return mul_base(self.scalar)

    def shuffle(self, deck: Sequence[bytes]) -> tuple[bytes, ...]:
        """This seat's pass: ``out[j] = x · deck[π(j)]``."""
        return tuple(mul(self.scalar, deck[i]) for i in self.permutation)

    def _context(self, step: str, position: int) -> bytes:
        return dleq_context(self.match_id, self.deal_number, step, self.seat, position)

    def partial(self, position: int, element: bytes) -> tuple[bytes, bytes]:
        """Strip this seat's layer from a card it does not receive: ``(x⁻¹·E, proof)``."""
        out = mul(invert(self.scalar), element)
        # log_B(Y) = log_out(element): element = x · out
        return out, prove_dleq(self.scalar, out, self._context("decrypt", position))

    def learn(self, position: int, element: bytes) -> int | None:
        """Remove the last layer of a card dealt to this seat and remember it.

        ``None`` when what is left is no card: a pass or a partial decryption
        before it was wrong. The seat then refuses to play on; with the keys
        revealed, :func:`verify_deal` names the seat at fault.
        """
        card = card_of_point(mul(invert(self.scalar), element))
        if card is None:
            self.unreadable.append(position)
        else:
            self.learned[position] = card
        return card

    def open(self, position: int, step: str = "play") -> tuple[int, bytes]:
        """Open a card of this seat's hand to everyone: ``(card, proof)``."""
        card = self.learned[position]
        return card, prove_dleq(self.scalar, card_points()[card], self._context(step, position))

    def hand(self) -> list[int]:
        return list(self.learned.values())

    def position_of(self, card: int) -> int:
        for p, c in self.learned.items():
            if c == card:
                return p
        raise BlindError(f"seat {self.seat} was not dealt card {card}")

    def reveal(self) -> RevealedKey:
        return RevealedKey(self.seat, self.scalar, self.permutation)


# ---------------------------------------------------------------- transcript --

@dataclass(frozen=True, slots=True)
class Partial:
    """One partial decryption: ``seat`` stripped its layer from ``position``."""

    seat: int
    element: bytes
    proof: bytes


@dataclass(frozen=True, slots=True)
class Opening:
    """A card shown to everyone: ``step`` is ``"open"`` (revealed) or ``"play"``."""

    position: int
    card: int
    step: str
    proof: bytes


@dataclass
class BlindDeal:
    """The public transcript of one blind deal: everything a verifier needs.

    ``publics[s]`` is ``Y_s``; ``passes[s]`` is the deck seat ``s`` published;
    ``partials[p]`` the three partial decryptions of position ``p``;
    ``openings`` the cards opened so far (revealed and played).
    """

    match_id: bytes
    deal_number: int
    dealer: int
    publics: list[bytes]
    passes: list[tuple[bytes, ...]]
    partials: list[list[Partial]]
    openings: list[Opening] = field(default_factory=list)
    # tarneeb-blind-v2 (tarneeb.audit.blind.proofs): the proof of each pass, and twelve
    # batched proofs of the partial decryptions (round r, seat k at 4r + k); the
    # Partial proofs are then empty
    shuffle_proofs: list[bytes] | None = None
    batch_proofs: list[bytes] | None = None

    def final(self, position: int) -> bytes:
        """What is left of ``position`` after the three partial decryptions."""
        return self.partials[position][-1].element

    def positions_of(self, seat: int) -> list[int]:
        return [p for p in range(DECK) if owner(p, self.dealer) == seat]

    def cards_of(self, seat: int, keys: Sequence[RevealedKey]) -> list[int]:
        """The hand of ``seat``, computed from its revealed key (after the match)."""
        x = next(k.scalar for k in keys if k.seat == seat)
        out = []
        for p in self.positions_of(seat):
            card = card_of_point(mul(invert(x), self.final(p)))
            if card is None:
                raise BlindError(f"position {p} of seat {seat} does not decrypt to a card")
            out.append(card)
        return out

    def byte_size(self) -> int:
        """Bytes of group elements and proofs this deal adds to a log."""
        proofs = (DECK * 3 * PROOF_LEN if self.shuffle_proofs is None else
                  sum(map(len, self.shuffle_proofs)) + sum(map(len, self.batch_proofs or ())))
        return (ELEMENT_LEN * (SEATS + SEATS * DECK) + DECK * 3 * ELEMENT_LEN + proofs
                + len(self.openings) * (PROOF_LEN + 2))


def deal_blind(seats: Sequence[BlindSeat], match_id: bytes, deal_number: int,
               dealer: int) -> BlindDeal:
    """Run the shuffle and the deal between four honest seats; each learns its own hand.

    In a real match every step is a message from one party; this runs them in
    one process, for simulation, tests and the reference transcript.
    """
    deck: tuple[bytes, ...] = card_points()
    passes = []
    for s in seats:
        deck = s.shuffle(deck)
        passes.append(deck)
    partials: list[list[Partial]] = []
    for p in range(DECK):
        o = owner(p, dealer)
        element, chain = deck[p], []
        for k in decrypt_order(o):
            element, proof = seats[k].partial(p, element)
            chain.append(Partial(k, element, proof))
        partials.append(chain)
        seats[o].learn(p, element)
    return BlindDeal(match_id, deal_number, dealer, [s.public for s in seats], passes, partials)


# --------------------------------------------------------------- verification --

@dataclass(frozen=True, slots=True)
class BlindFault:
    """Something in a blind transcript that does not verify, blamed on ``seat``."""

    seat: int
    what: str
    position: int | None = None

    def __str__(self) -> str:
        where = "" if self.position is None else f", position {self.position}"
        return f"seat {self.seat}{where}: {self.what}"


def check_opening(deal: BlindDeal, opening: Opening) -> BlindFault | None:
    """Whether an opened or played card is the card dealt at its position."""
    p = opening.position
    if not 0 <= p < DECK:
        return BlindFault(-1, f"position {p} is outside the deck")
    o = owner(p, deal.dealer)
    if not 0 <= opening.card < DECK:
        return BlindFault(o, f"card {opening.card} is not a card", p)
    ctx = dleq_context(deal.match_id, deal.deal_number, opening.step, o, p)
    if not verify_dleq(deal.publics[o], card_points()[opening.card], deal.final(p),
                       opening.proof, ctx):
        return BlindFault(o, f"card {opening.card} is not the card dealt at this position", p)
    return None


def public_key_faults(publics: Sequence[bytes]) -> list[BlindFault]:
    """Each seat's public key that is not a group element, as a fault on that seat."""
    faults: list[BlindFault] = []
    for s, y in enumerate(publics):
        try:
            _check_element(y, f"seat {s}'s public key")
        except BlindError as exc:
            faults.append(BlindFault(s, str(exc)))
    return faults


def verify_deal(deal: BlindDeal, keys: Sequence[RevealedKey] = ()) -> list[BlindFault]:
    """Every check of one deal's transcript; an empty list means it verifies.

    From the proofs alone: each public key, each partial decryption, each
    opened card, and, once all 52 positions are open, that they are the 52
    cards. With revealed keys also: each key matches its public key, each
    permutation is a permutation, each pass is that seat's re-encryption and
    permutation of the deck before it, and each hand decrypts to cards.
    """
    faults = public_key_faults(deal.publics)
    if faults:
        return faults
    if len(deal.passes) != SEATS or any(len(d) != DECK for d in deal.passes):
        return [BlindFault(-1, "the transcript does not hold four passes of 52 elements")]
    for s, d in enumerate(deal.passes):
        if any(e[31] & 0x80 for e in d):  # one element, two encodings: refused (RFC 9496)
            faults.append(BlindFault(s, "its pass holds an element that is not a canonical "
                                        "ristretto255 encoding"))
            break
        if len(set(d)) != DECK:  # later passes inherit it: blame the first
            faults.append(BlindFault(s, "its pass holds the same element twice"))
            break
    for p in range(DECK):
        o = owner(p, deal.dealer)
        chain = deal.partials[p]
        if [q.seat for q in chain] != list(decrypt_order(o)):
            faults.append(BlindFault(o, "partial decryptions missing or out of order", p))
            continue
        element = deal.passes[-1][p]
        for q in chain:
            ctx = dleq_context(deal.match_id, deal.deal_number, "decrypt", q.seat, p)
            if not verify_dleq(deal.publics[q.seat], q.element, element, q.proof, ctx):
                faults.append(BlindFault(q.seat, "a wrong partial decryption", p))
                break
            element = q.element
    faults.extend(f for o in deal.openings if (f := check_opening(deal, o)) is not None)
    opened = {o.position: o.card for o in deal.openings}
    if len(opened) == DECK and len(set(opened.values())) != DECK:
        faults.append(BlindFault(-1, "the opened cards are not the 52 cards of the deck: "
                                     "a pass replaced, dropped or duplicated a card"))
    for k in keys:
        faults.extend(check_revealed(deal, k))
    return faults


def check_half(deal: BlindDeal, seat: int, scalar: bytes | None,
               permutation: Sequence[int] | None) -> list[BlindFault]:
    """What of a seat's key is revealed, each half on its own: its scalar against its
    public key, its permutation a permutation (a key revealed in part, the other half
    kept, is checked as far as it goes)."""
    if scalar is not None and (not 0 < scalar_to_int(scalar) < L
                               or mul_base(scalar) != deal.publics[seat]):
        return [BlindFault(seat, "its revealed scalar does not match its public key")]
    if permutation is not None and sorted(permutation) != list(range(DECK)):
        return [BlindFault(seat, "its revealed permutation is not a permutation of 52 "
                                 "positions")]
    return []


def check_revealed(deal: BlindDeal, key: RevealedKey) -> list[BlindFault]:
    """Whether a revealed key matches its public key and its seat's pass."""
    s = key.seat
    halves = check_half(deal, s, key.scalar, key.permutation)
    if halves:
        return halves
    before = card_points() if s == 0 else deal.passes[s - 1]
    for j, i in enumerate(key.permutation):
        try:  # an element of the deck before that is no group element gives no product
            same = mul(key.scalar, before[i]) == deal.passes[s][j]
        except (BlindError, ValueError):
            same = False
        if not same:
            return [BlindFault(s, "its pass is not its re-encryption and permutation of the "
                                  "deck before it", j)]
    return []
