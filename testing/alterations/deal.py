"""Alterations of where a log's deals come from and what they are: the seeds and their
commitments, the season's inclusion proof, the first dealer, a hand's deal number,
dealer, recorded deal and revealed card; and :func:`with_recorded_deals`, the same
match as a platform without the seed protocol logs it.

Each registers in :data:`~tarneeb.testing.alterations.REGISTRY` (see
:mod:`tarneeb.testing.alterations` for the call form).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.seeds import SeasonLeaf, client_commitments, match_binding
from tarneeb.replay.log import (
    BatchProof,
    EndRecord,
    RecordedDeal,
)
from tarneeb.replay.rules.cards import card_name, cards_of, colour_mate, suit_of
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    NotApplicable,
    _close,
    _deal_of,
    _deriver,
    _flip_bit,
    _open,
    _pick_hand,
    _played,
    _register,
    _replay,
)
from tarneeb.testing.alterations.play import replace_played_card

# ---------------------------------------------------------------- the seeds

@_register("corrupt-server-seed", "flip a bit of the revealed server seed", match_level=True)
def corrupt_server_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """A bit of the revealed server seed flipped: it no longer matches its commitment."""
    log = _open(data)
    if log.end is None or log.end.server_seed is None:
        raise NotApplicable("the log reveals no server seed")
    i = random.Random(choice).randrange(32 * 8)
    log.end = EndRecord(log.end.winner, _flip_bit(log.end.server_seed, i))
    return _close(log, resign), Alteration(
        "corrupt-server-seed", None, f"bit {i % 8} of server seed byte {i // 8} flipped",
        expect="server-seed")


@_register("hide-server-seed", "leave the server seed unrevealed", match_level=True)
def hide_server_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record reveals no server seed."""
    log = _open(data)
    if log.end is None or log.end.server_seed is None:
        raise NotApplicable("the log reveals no server seed")
    log.end = EndRecord(log.end.winner, None)
    return _close(log, resign), Alteration(
        "hide-server-seed", None, "the server seed is not revealed", expect="seed-not-revealed")


@_register("corrupt-client-seed", "flip a bit of one seat's client seed", match_level=True)
def corrupt_client_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """A bit of one client seed flipped: it no longer matches that seat's commitment."""
    log = _open(data)
    seeds = log.header.client_seeds
    if seeds is None:
        raise NotApplicable("the log has no client seeds")
    rng = random.Random(choice)
    seat = rng.randrange(4)
    bit = rng.randrange(len(seeds[seat]) * 8)
    new = list(seeds)
    new[seat] = _flip_bit(seeds[seat], bit)
    log.header = replace(log.header, client_seeds=new)
    return _close(log, resign), Alteration(
        "corrupt-client-seed", None, f"bit {bit % 8} of seat {seat}'s client seed byte "
        f"{bit // 8} flipped", seat=seat, expect="client-seed")


@_register("bad-batch-proof", "claim an inclusion proof that leads to another root",
           match_level=True)
def bad_batch_proof(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header claims the commitment is in a published root it does not lead to
    (a proof the log had is corrupted; a log without one gets a made-up one)."""
    log = _open(data)
    if log.header.server_commitment is None:
        raise NotApplicable("the log has no server commitment")
    b = log.header.batch
    if b is not None:
        root, index, size, path = _flip_bit(b.root, choice % 256), b.index, b.size, b.path
        what = "the published root changed by one bit"
    else:
        fake = hashlib.sha256(b"tarneeb tamper batch %d" % choice).digest()
        root, index, size, path = hashlib.sha256(fake).digest(), 1, 2, [fake]
        what = "an inclusion proof added that does not lead to its root"
    leaf = SeasonLeaf(index, size, root)
    head_signature = leaf.head.sign(resign) if resign is not None else bytes(64)
    batch = BatchProof(index, size, path, root, head_signature)
    header = log.header
    if header.client_seeds is not None and header.server_commitment is not None:
        # the platform re-makes the commitments to match
        binding = match_binding(header.server_commitment, leaf)
        header = replace(header, client_commitments=list(
            client_commitments(header.match_id, header.client_seeds, binding)))
    log.header = replace(header, batch=batch)
    return _close(log, resign), Alteration("bad-batch-proof", None, what, expect="batch-proof")


@_register("first-dealer", "name another first dealer", match_level=True)
def first_dealer(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header names another seat as first dealer than the seeds draw."""
    log = _open(data)
    if _deriver(log) is None:
        raise NotApplicable("the first dealer is only drawn from seeds")
    old = log.header.first_dealer
    new = (old + 1 + choice % 3) & 3
    log.header = replace(log.header, first_dealer=new)
    return _close(log, resign), Alteration(
        "first-dealer", None, f"first dealer seat {old} → seat {new}", seat=new,
        expect="wrong-first-dealer")


@_register("strip-seeds", "remove every seed and commitment, so no deal can be derived",
           match_level=True)
def strip_seeds(data: bytes, *, choice: int = 0, hand: int | None = None,
                resign: Ed25519PrivateKey | None = None) -> Altered:
    """The server commitment, the season proof, the client commitments and seeds and the
    revealed server seed removed: nothing proves (or records) any deal, so no hand can be
    replayed, and whatever the hands claim goes unchecked unless the replayer says so."""
    log = _open(data)
    if log.header.server_commitment is None:
        raise NotApplicable("the log has no seeds")
    if any(rec.deal is not None for rec in log.hands):
        raise NotApplicable("the log records deals too")
    log.header = replace(log.header, server_commitment=None, batch=None,
                                     client_commitments=None, client_seeds=None)
    if log.end is not None:
        log.end = EndRecord(log.end.winner, None)
    return _close(log, resign), Alteration(
        "strip-seeds", None, "every seed and commitment removed: no deal can be derived",
        expect="not-replayed")

# ---------------------------------------------------------------- hand headers and deals

def _reveals(rules: RuleSet) -> bool:
    return rules.reveals_card

@_register("change-deal-number", "renumber one dealing attempt")
def change_deal_number(data: bytes, *, choice: int = 0, hand: int | None = None,
                       resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's deal number changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    new = n + 1 + rng.randrange(3) if n == 0 or rng.random() < 0.5 else n - 1
    log.hands[n] = replace(log.hands[n], deal_number=new)
    return _close(log, resign), Alteration(
        "change-deal-number", n, f"hand {n} numbered {new}", expect="wrong-deal-number")


@_register("change-dealer", "name another dealer for one hand")
def change_dealer(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's dealer changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    old = log.hands[n].dealer
    new = (old + 1 + rng.randrange(3)) & 3
    log.hands[n] = replace(log.hands[n], dealer=new)
    return _close(log, resign), Alteration(
        "change-dealer", n, f"hand {n} dealt by seat {new}, not seat {old}", seat=new,
        expect="wrong-dealer")


@_register("record-wrong-deal", "record a deal the seeds do not produce")
def record_wrong_deal(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """A seeded log gets a recorded deal for one hand: the seeds' deal with one card
    moved between two hands."""
    log = _open(data)
    deriver = _deriver(log)
    if deriver is None:
        raise NotApplicable("the log's deals are not derived from seeds")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is None, "without a recorded deal")
    rec = log.hands[n]
    hands, thirteenth = _deal_of(log, deriver, n, rec.dealer)
    moved, what = _move_card(hands, rng)
    log.hands[n] = replace(rec, deal=RecordedDeal(moved, thirteenth))
    return _close(log, resign), Alteration(
        "record-wrong-deal", n, f"hand {n} records the seeds' deal with {what}",
        expect="wrong-deal")


def _move_card(hands: tuple[int, int, int, int],
               rng: random.Random) -> tuple[tuple[int, int, int, int], str]:
    a = rng.randrange(4)
    b = (a + 1 + rng.randrange(3)) & 3
    card = rng.choice(cards_of(hands[a]))
    out = list(hands)
    out[a] &= ~(1 << card)
    out[b] |= 1 << card
    return (out[0], out[1], out[2], out[3]), f"{card_name(card)} moved from seat {a} to seat {b}"


@_register("move-dealt-card", "move a card between hands: in a recorded deal, or "
           "(seeded logs) as a played card of another seat")
def move_dealt_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """A card moved from one seat's hand to another's.

    With recorded deals the deal itself changes (one seat has 12 cards, another 14);
    in a seeded log, whose deals the seeds fix, a played card is replaced by a card
    another seat holds (see :func:`replace_played_card`).
    """
    log = _open(data)
    if _deriver(log) is not None:
        out, alt = replace_played_card(data, choice=choice, hand=hand, resign=resign)
        return out, replace(alt, name="move-dealt-card")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is not None, "a recorded deal")
    rec = log.hands[n]
    assert rec.deal is not None
    moved, what = _move_card(rec.deal.hands, rng)
    log.hands[n] = replace(rec, deal=RecordedDeal(moved, rec.deal.thirteenth))
    return _close(log, resign), Alteration("move-dealt-card", n, f"hand {n}: {what}",
                                           expect="bad-deal")


@_register("nil-deal", "a recorded deal set to nil, and that hand's plays changed")
def nil_deal(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """In a log of recorded deals, one played hand's deal removed and two of its plays
    swapped: without a deal nothing shows the swap, unless the hand is reported as not
    replayed."""
    log = _open(data)
    if _deriver(log) is not None:
        raise NotApplicable("the log's deals are derived from seeds")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is not None and _played(r),
                   "played with a recorded deal")
    rec = log.hands[n]
    i = rng.randrange(51)
    plays = bytearray(rec.plays)
    plays[i], plays[i + 1] = plays[i + 1], plays[i]
    log.hands[n] = replace(rec, deal=None, plays=bytes(plays))
    return _close(log, resign), Alteration(
        "nil-deal", n, f"hand {n}: deal set to nil, plays {i} and {i + 1} swapped",
        expect="not-replayed")


@_register("change-revealed", "reveal another card (or one where none is shown)")
def change_revealed(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's revealed card changed (for rules that reveal none: a card added)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    rec = log.hands[n]
    old = rec.revealed
    new = rng.choice([c for c in range(52) if c != old])
    log.hands[n] = replace(rec, revealed=new)
    shown = card_name(old) if old is not None else "nothing"
    seat = rec.dealer if log.rules.reveals_card else None
    return _close(log, resign), Alteration(
        "change-revealed", n, f"hand {n} reveals {card_name(new)}, not {shown}", seat=seat,
        expect="wrong-revealed-card")


@_register("change-revealed-and-trump", "reveal another card of the dealer's and claim "
           "its trump", needs=_reveals)
def change_revealed_and_trump(data: bytes, *, choice: int = 0, hand: int | None = None,
                              resign: Ed25519PrivateKey | None = None) -> Altered:
    """A consistent lie: another card of the dealer's of another colour is revealed,
    and the trump claimed is its colour-mate."""
    log = _open(data)
    if not log.rules.reveals_card:
        raise NotApplicable(f"{log.rules.name} reveals no card")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    rec = log.hands[n]
    dealt = _replay(log, n)[-1].hands[rec.dealer]
    assert rec.revealed is not None
    colour = (suit_of(rec.revealed), colour_mate(suit_of(rec.revealed)))
    others = [c for c in cards_of(dealt) if suit_of(c) not in colour]
    if not others:
        raise NotApplicable(f"the dealer of hand {n} holds only one colour")
    new = rng.choice(others)
    log.hands[n] = replace(rec, revealed=new, trump=log.rules.trump_for_deal(new))
    return _close(log, resign), Alteration(
        "change-revealed-and-trump", n, f"hand {n} reveals {card_name(new)} (not "
        f"{card_name(rec.revealed)}) with its trump", seat=rec.dealer,
        expect="wrong-revealed-card")

# ---------------------------------------------------------------- conversions

def with_recorded_deals(data: bytes, resign: Ed25519PrivateKey) -> bytes:
    """The same match as a platform without the seed protocol logs it: every deal
    written out in the hand records, no seeds or commitments, signed by ``resign``.

    Not an alteration: the result verifies clean (with a note that the deals are
    recorded, not proven). It is the base for :func:`move_dealt_card`'s ``bad-deal``.
    """
    log = _open(data)
    deriver = _deriver(log)
    if deriver is None:
        raise NotApplicable("the log's deals are not derived from seeds")
    first = deriver.first_dealer()
    for n, rec in enumerate(log.hands):
        hands, thirteenth = _deal_of(log, deriver, n, rec.dealer)
        log.hands[n] = replace(rec, deal=RecordedDeal(hands, thirteenth))
    log.header = replace(log.header, server_commitment=None, batch=None,
                                     client_commitments=None, client_seeds=None,
                                     first_dealer=first)
    if log.end is not None:
        log.end = EndRecord(log.end.winner, None)
    return _close(log, resign)
