"""Checking the blind deals of a log: the transcripts, the play proofs, the revealed keys.

For each dealing attempt of a log dealt blind (``docs/PROTOCOL.md`` §13), the
verifier checks the transcript (:func:`tarneeb.audit.blind.verify_deal`: every
partial decryption's proof; with revealed keys, every pass), the proof of the
revealed card and of every card played, and works out the hands the rules are
replayed on: from the cards the plays opened when the hand was played out, from
the revealed keys otherwise. A hand whose cards stay secret (not played out, no
keys revealed) is replayed only when nothing in it depends on the cards (a hand
cancelled in the bidding); otherwise it is not replayed, and the verdict says so.
Every fault is a finding that names the seat.

This module imports :mod:`tarneeb.audit.blind` (libsodium) only when a log is
dealt blind: a log dealt from seeds never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tarneeb.audit.blind import (
    DECK,
    BlindDeal,
    BlindError,
    BlindFault,
    Opening,
    Partial,
    RevealedKey,
    check_opening,
    decrypt_order,
    owner,
)
from tarneeb.audit.blind.deal import check_half
from tarneeb.audit.blind.proofs import verify_any, verify_unfinished
from tarneeb.replay.log.blind import (
    ELEMENT,
    OPENED_POSITION,
    PROOF_LEN,
    BlindTranscript,
    RevealedKeys,
)
from tarneeb.replay.log.records import HandRecord, Header, ParsedLog
from tarneeb.replay.rules.cards import card_name
from tarneeb.replay.verify.findings import Verdict

Hands = tuple[int, int, int, int]
_Half = tuple[int, bytes | None, tuple[int, ...] | None]  # a seat, its scalar, its permutation


def _split(raw: bytes, size: int) -> list[bytes]:
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def blind_deal(header: Header, rec: HandRecord, n: int, dealer: int) -> BlindDeal:
    """The :class:`~tarneeb.audit.blind.BlindDeal` of a hand's transcript (no openings)."""
    t = rec.blind
    assert t is not None
    elements = [_split(r, ELEMENT) for r in t.partials]
    v2 = t.shuffle_proofs is not None
    proofs = [[b""] * DECK] * 3 if v2 else [_split(r, PROOF_LEN) for r in t.partial_proofs]
    partials = [[Partial(seat, elements[r][p], proofs[r][p])
                 for r, seat in enumerate(decrypt_order(owner(p, dealer)))]
                for p in range(DECK)]
    return BlindDeal(header.match_id, n, dealer, _split(t.publics, ELEMENT),
                     [tuple(_split(d, ELEMENT)) for d in t.passes], partials,
                     shuffle_proofs=None if not v2 else list(t.shuffle_proofs or ()),
                     batch_proofs=None if not v2 else _split(t.batch_proofs or b"", PROOF_LEN))


_KINDS = (("revealed scalar", "wrong-key"), ("revealed permutation", "wrong-key"),
          ("partial decryption", "wrong-decryption"), ("public key", "blind-transcript"),
          ("not a valid", "blind-transcript"), ("missing or out of order", "blind-transcript"))


def _kind(fault: BlindFault) -> str:
    return next((k for text, k in _KINDS if text in fault.what), "wrong-shuffle")


_AFTER = (" (the deal's transcript is at fault above: the seat named there changed what "
          "this card's owner was given)")


@dataclass
class BlindHand:
    """What the checks of one blind hand give the replay."""

    hands: Hands | None  # the four hands, or None when they cannot be made out at all
    thirteenth: int | None
    proven: bool  # every card of every hand is proven (opened by the plays, or by keys)
    faults: int  # findings this hand added
    waiting: int | None = None  # an unfinished deal: the seat that did not deliver


class BlindChecker:
    """Checks each blind hand of one log, adding findings to the verdict."""

    def __init__(self, log: ParsedLog, v: Verdict) -> None:
        self.header, self.v = log.header, v
        self.keys: dict[int, RevealedKeys] = {}
        self.faults = 0  # findings about blind deals
        for k, at in zip(log.keys, log.key_offsets, strict=True):
            if k.deal_number in self.keys or k.deal_number >= len(log.hands):
                v.add("blind-transcript", f"a keys record for hand {k.deal_number}, which "
                      + ("has one already" if k.deal_number in self.keys else
                         "the log does not hold"), offset=at)
                self.faults += 1
                continue
            self.keys[k.deal_number] = k
        self.secret_cancelled: list[int] = []  # hands replayed without their cards
        self.v1_hands: list[int] = []  # tarneeb-blind-v1 transcripts: passes not proven
        self.consequence = False  # the hand being checked has a v2 transcript at fault

    def _count(self, before: int) -> int:
        added = len(self.v.findings) - before
        self.faults += added
        return added

    def check(self, rec: HandRecord, n: int, dealer: int, reveals: bool,
              offset: int) -> BlindHand | None:
        """The hands of ``rec`` as far as its transcript proves them; ``None`` when the
        hand has no transcript (a finding)."""
        v = self.v
        before = len(v.findings)
        if rec.blind is None:
            v.add("blind-transcript", "the hand has no blind record: nothing proves its deal",
                  hand=n, offset=offset)
            self._count(before)
            return None
        if rec.blind.waiting_for is not None:
            return self._unfinished(rec, n, dealer, offset, before)
        deal = blind_deal(self.header, rec, n, dealer)
        if rec.blind.shuffle_proofs is None:
            self.v1_hands.append(n)
        keys, halves = self._keys(n)
        try:
            faults = verify_any(deal, keys)
            for seat, scalar, perm in halves:  # a key revealed in part
                faults += check_half(deal, seat, scalar, perm)
        except (BlindError, ValueError) as e:  # no value of a log may stop the check
            faults = [BlindFault(-1, f"the transcript cannot be checked: {e}")]
        for f in faults:
            v.add(_kind(f), f"{f.what}" + ("" if f.position is None else
                                           f" (position {f.position})"),
                  hand=n, seat=None if f.seat < 0 else f.seat, offset=offset)
        # under v2 a fault names the seat that made it; a card that then fails to open is
        # what follows from it, not its owner's cheat
        self.consequence = bool(faults) and rec.blind.shuffle_proofs is not None
        known: dict[int, int] = {}  # position -> card, as proven
        if len(v.findings) == before:
            for k in keys:  # the hand of each seat that revealed its scalar
                try:
                    for p, c in zip(deal.positions_of(k.seat), deal.cards_of(k.seat, [k]),
                                    strict=True):
                        known[p] = c
                except (BlindError, ValueError) as e:
                    v.add("wrong-shuffle", str(e), hand=n, seat=k.seat, offset=offset)
        thirteenth = self._opened(rec, deal, dealer, reveals, known, n, offset)
        self._plays(rec, deal, known, n, offset)
        proven = len(known) == DECK and len(set(known.values())) == DECK
        if len(known) == DECK and not proven:
            v.add("wrong-shuffle", "the cards opened are not the 52 cards of the deck: a pass "
                  "replaced, dropped or duplicated a card (the revealed keys name the seat)",
                  hand=n, offset=offset)
        hands = _fill(known, dealer)
        if thirteenth is None and reveals and hands is not None:
            thirteenth = known.get(OPENED_POSITION)
        return BlindHand(hands, thirteenth, proven, self._count(before))

    def _unfinished(self, rec: HandRecord, n: int, dealer: int, offset: int,
                    before: int) -> BlindHand:
        """A v2 deal that stopped at a seat that did not deliver: the steps it holds are
        checked, and the hand must stop there, with nothing played."""
        t = rec.blind
        assert t is not None and t.waiting_for is not None
        seat = t.waiting_for
        for f in verify_unfinished(
                self.header.match_id, n, dealer, _split(t.publics, ELEMENT),
                [_split(d, ELEMENT) for d in t.passes], t.shuffle_proofs or [],
                [_split(r, ELEMENT) for r in t.partials],
                _split(t.batch_proofs or b"", PROOF_LEN)):
            self.v.add(_kind(f), f.what, hand=n, seat=None if f.seat < 0 else f.seat,
                       offset=offset)
        if rec.closed or rec.calls or rec.plays or rec.trump is not None:
            self.v.add("blind-transcript", f"the deal is not finished (seat {seat} has not "
                       f"delivered {waiting_step(t)}), yet the hand goes on", hand=n,
                       offset=offset)
        return BlindHand(None, None, False, self._count(before), waiting=seat)

    def _keys(self, n: int) -> tuple[list[RevealedKey], list[_Half]]:
        """The keys the seats revealed of hand ``n``: each seat's scalar with its
        permutation; and those revealed in part (a scalar without its permutation, or the
        other way round), per seat what it revealed, each half checked on its own."""
        whole: list[RevealedKey] = []
        halves: list[_Half] = []
        k = self.keys.get(n)
        if k is None:
            return whole, halves
        for s in range(4):
            scalar, perm = k.scalars[s], k.permutations[s]
            if scalar is not None and perm is not None:
                whole.append(RevealedKey(s, scalar, tuple(perm)))
            elif scalar is not None or perm is not None:
                halves.append((s, scalar, None if perm is None else tuple(perm)))
        return whole, halves

    def _opened(self, rec: HandRecord, deal: BlindDeal, dealer: int, reveals: bool,
                known: dict[int, int], n: int, offset: int) -> int | None:
        """The dealer's 13th card, shown to all with its proof where the rules show it."""
        t = rec.blind
        assert t is not None
        if not reveals:
            if t.opened is not None:
                self.v.add("not-canonical", "the blind record opens the dealer's 13th card, "
                           "but these rules show no card", hand=n, offset=offset)
            return None
        if rec.revealed is None or t.opened is None:
            self.v.add("blind-transcript", "the dealer's 13th card is not opened with its "
                       "proof", hand=n, seat=dealer, offset=offset)
            return None
        fault = check_opening(deal, Opening(OPENED_POSITION, rec.revealed, "open", t.opened))
        if fault is not None:
            self.v.add("card-not-dealt", f"the dealer shows {card_name(rec.revealed)} as its "
                       "13th card, but its proof does not verify: it is not the card dealt "
                       "there" + _AFTER * self.consequence, hand=n,
                       seat=None if self.consequence else dealer, card=card_name(rec.revealed),
                       offset=offset)
            return None
        known.setdefault(OPENED_POSITION, rec.revealed)
        return rec.revealed

    def _plays(self, rec: HandRecord, deal: BlindDeal, known: dict[int, int], n: int,
               offset: int) -> None:
        """Each card played must come with the proof that it is the card dealt there."""
        t = rec.blind
        assert t is not None
        for k, card in enumerate(rec.plays):
            trick = k // 4 + 1
            if k not in t.play_proofs:
                self.v.add("blind-transcript", f"{card_name(card)} is played without the proof "
                           "that it is a card dealt to the seat", hand=n, trick=trick,
                           card=card_name(card), offset=offset)
                continue
            p, proof = t.play_proofs[k]
            fault = check_opening(deal, Opening(p, card, "play", proof))
            if fault is not None:
                self.v.add("card-not-dealt", f"{card_name(card)} is played as the card dealt to "
                           f"seat {fault.seat} at position {p}, but its proof does not verify: "
                           "it is not the card dealt there" + _AFTER * self.consequence,
                           hand=n, trick=trick, card=card_name(card), offset=offset,
                           seat=fault.seat if fault.seat >= 0 and not self.consequence else None)
                continue
            if known.get(p, card) != card:  # cannot be, with the proofs sound
                self.v.add("card-not-dealt", f"position {p} is opened as two cards", hand=n,
                           trick=trick, offset=offset)
            known[p] = card


def waiting_step(t: BlindTranscript) -> str:
    """What an unfinished deal waits for: ``its shuffle pass`` or ``its partial
    decryptions of round 2``."""
    if len(t.passes) < 4:
        return "its shuffle pass"
    return f"its partial decryptions of round {len(t.batch_proofs or b'') // 256 + 1}"


def _fill(known: dict[int, int], dealer: int) -> Hands | None:
    """Four hands with the known cards in place and the others anywhere: ``None`` when
    the known cards are not distinct."""
    if len(set(known.values())) != len(known):
        return None
    rest = iter(sorted(set(range(DECK)) - set(known.values())))
    hands = [0, 0, 0, 0]
    for p in range(DECK):
        c = known[p] if p in known else next(rest)
        hands[owner(p, dealer)] |= 1 << c
    return hands[0], hands[1], hands[2], hands[3]


__all__ = ["BlindChecker", "BlindHand", "blind_deal", "waiting_step"]
