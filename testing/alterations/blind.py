"""Cheating seats in a log dealt blind: each alteration is one seat's cheat, as it would be logged.

A cheat in blind dealing is a seat publishing something its secrets cannot
justify: a partial decryption that is not its layer removed, a shuffle pass that
replaces, drops or duplicates a card, a card played that was not dealt to it, a
proof made without its key. Each alteration here writes the log as it would be
if one seat had cheated that way, everyone else honest (later passes and the
partial decryptions are recomputed from the revealed keys where the cheat
changes what the honest seats were given), and names the finding ``verify``
must report, with the seat.

They register in :data:`~tarneeb.testing.alterations.REGISTRY` like the others,
with ``blind=True``; on a log not dealt blind they raise ``NotApplicable``.

>>> from tarneeb.replay.server.blind import play_blind_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> from tarneeb.testing.alterations import alter
>>> log = play_blind_match("qahwa41", seed=b"cheat doc", target=3)  # reproducible: not secret
>>> bad, alt = alter("forged-play-proof", log)
>>> alt.expect, alt.seat == next(f.seat for f in verify_bytes(bad).findings
...                              if f.kind == "card-not-dealt")
('card-not-dealt', True)
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import HandRecord

if TYPE_CHECKING:
    from tarneeb.audit.blind import BlindSeat
from tarneeb.replay.rules.cards import card_name
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    _close,
    _open,
    _pick_hand,
    _register,
)


def _blind_log(data: bytes) -> EditableLog:
    log = _open(data)
    if not log.header.blind:
        raise NotApplicable("the log is not dealt blind")
    return log


def _seats(log: EditableLog, n: int) -> list[BlindSeat]:
    """The four seats of deal ``n`` rebuilt from their revealed keys."""
    from tarneeb.audit.blind import BlindSeat

    keys = next((k for k in log.keys if k.deal_number == n), None)
    if keys is None:
        raise NotApplicable(f"deal {n}'s keys are not revealed: it cannot be re-dealt")
    seats = []
    for s, (scalar, permutation) in enumerate(zip(keys.scalars, keys.permutations, strict=True)):
        if scalar is None or permutation is None:
            raise NotApplicable(f"deal {n}'s keys are not all revealed: it cannot be re-dealt")
        seats.append(BlindSeat(s, log.header.match_id, n, scalar, tuple(permutation)))
    return seats


def _split(raw: bytes, size: int) -> list[bytes]:
    return [raw[i:i + size] for i in range(0, len(raw), size)]


def _redeal(log: EditableLog, n: int, seat: int, changed: list[bytes]) -> None:
    """Deal ``n`` as it goes when ``seat`` publishes ``changed`` as its pass and every
    other seat is honest: later passes and every partial decryption recomputed."""
    from tarneeb.audit.blind import decrypt_order, owner

    rec = log.hands[n]
    t = rec.blind
    assert t is not None
    if t.shuffle_proofs is not None:  # tarneeb-blind-v2: the honest seats prove as they go
        rebuild(log, n, passes={seat: changed})
        return
    seats = _seats(log, n)
    passes = [_split(d, 32) for d in t.passes]
    passes[seat] = changed
    for s in range(seat + 1, 4):
        passes[s] = list(seats[s].shuffle(passes[s - 1]))
    elements: list[list[bytes]] = [[], [], []]
    proofs: list[list[bytes]] = [[], [], []]
    for p in range(52):
        element = passes[3][p]
        for r, k in enumerate(decrypt_order(owner(p, rec.dealer))):
            element, proof = seats[k].partial(p, element)
            elements[r].append(element)
            proofs[r].append(proof)
    rec.blind = replace(
        t, passes=[b"".join(d) for d in passes], partials=[b"".join(e) for e in elements],
        partial_proofs=[b"".join(q) for q in proofs])


def rebuild(log: EditableLog, n: int, *, passes: dict[int, list[bytes]] | None = None,
            shuffle_proofs: dict[int, bytes] | None = None,
            partials: dict[tuple[int, int], bytes] | None = None,
            batch_proofs: dict[tuple[int, int], bytes] | None = None) -> None:
    """Deal ``n`` of a v2 or v3 log as it goes when one seat publishes the given values.

    ``passes[s]`` replaces seat ``s``'s pass (its proof stays the one it had, unless
    ``shuffle_proofs[s]`` gives another); ``partials[(r, p)]`` replaces the element of
    round ``r`` at position ``p`` (the batch it is in keeps its proof unless
    ``batch_proofs[(r, seat)]`` gives another). Everything else is what honest seats
    compute from what they were given, with honest proofs.
    """
    from tarneeb.audit.blind import card_points, invert, mul
    from tarneeb.audit.blind.proofs import (
        batch_context,
        prove_batch,
        prove_pass,
        round_positions,
        shuffle_context,
    )

    passes, shuffle_proofs = passes or {}, shuffle_proofs or {}
    partials, batch_proofs = partials or {}, batch_proofs or {}
    rec = log.hands[n]
    t = rec.blind
    assert t is not None and t.shuffle_proofs is not None and t.batch_proofs is not None
    seats = _seats(log, n)
    match_id = log.header.match_id
    deck: list[bytes] = list(card_points())
    decks, sproofs = [], []
    for s in range(4):
        if s in passes:
            out, proof = passes[s], shuffle_proofs.get(s, t.shuffle_proofs[s])
        else:
            out = list(seats[s].shuffle(deck))
            proof = shuffle_proofs.get(s) or prove_pass(
                t.version, seats[s].scalar, seats[s].permutation, deck, out,
                shuffle_context(match_id, n, s))
        decks.append(out)
        sproofs.append(proof)
        deck = out
    old = _split(t.batch_proofs, 64)
    rows, batch = [deck], list(old)
    for r in range(3):
        row = [b""] * 52
        for k in range(4):
            positions = round_positions(rec.dealer, r, k)
            ins = [rows[r][p] for p in positions]
            inverse = invert(seats[k].scalar)
            outs = [partials.get((r, p)) or mul(inverse, e) for p, e in zip(positions, ins,
                                                                           strict=True)]
            changed = any((r, p) in partials for p in positions)
            batch[4 * r + k] = batch_proofs.get((r, k)) or (old[4 * r + k] if changed else
                                                            prove_batch(seats[k].scalar,
                                                                        positions, ins, outs,
                                                                        batch_context(match_id,
                                                                                      n, k, r)))
            for p, e in zip(positions, outs, strict=True):
                row[p] = e
        rows.append(row)
    rec.blind = replace(
        t, passes=[b"".join(d) for d in decks], partials=[b"".join(rows[r + 1]) for r in range(3)],
        shuffle_proofs=sproofs, batch_proofs=b"".join(batch))


def _blind_hand(rec: HandRecord) -> bool:
    return rec.blind is not None


def _played_blind(rec: HandRecord) -> bool:
    return rec.blind is not None and len(rec.plays) == 52 and len(rec.blind.play_proofs) == 52


@_register("wrong-partial-decryption", "a seat publishes a wrong partial decryption of a card",
           blind=True)
def wrong_partial_decryption(data: bytes, *, choice: int = 0, hand: int | None = None,
                             resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's partial decryption of one position replaced by another element (the
    one it gave another position): its proof no longer holds."""
    from tarneeb.audit.blind import decrypt_order, owner

    log = _blind_log(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _blind_hand, "dealt blind")
    rec = log.hands[n]
    t = rec.blind
    assert t is not None
    p, r = rng.randrange(52), rng.randrange(3)
    q = (p + 1 + rng.randrange(51)) % 52
    row = _split(t.partials[r], 32)
    if t.shuffle_proofs is not None:  # v2: the later rounds decrypt it honestly
        _seats(log, n)  # NotApplicable without the keys
        rebuild(log, n, partials={(r, p): row[q]})
    else:
        row[p] = row[q]
        partials = list(t.partials)
        partials[r] = b"".join(row)
        rec.blind = replace(t, partials=partials)
    seat = decrypt_order(owner(p, rec.dealer))[r]
    return _close(log, resign), Alteration(
        "wrong-partial-decryption", n, f"hand {n}: seat {seat}'s partial decryption of "
        f"position {p} replaced by its element of position {q}", seat=seat,
        expect="wrong-decryption")


def _cheating_pass(data: bytes, choice: int, hand: int | None,
                   resign: Ed25519PrivateKey | None, mode: str) -> Altered:
    from tarneeb.audit.blind import element_from_hash, mul

    log = _blind_log(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _blind_hand, "dealt blind")
    _seats(log, n)  # NotApplicable without the keys
    t = log.hands[n].blind
    assert t is not None
    seat = rng.randrange(4)
    changed = _split(t.passes[seat], 32)
    j = rng.randrange(52)
    if mode == "duplicate":
        i = (j + 1 + rng.randrange(51)) % 52
        changed[j] = changed[i]
        what = f"puts the card of its position {i} at position {j} too (a duplicate)"
    else:  # an element that is no card: the card at j is dropped
        stray = element_from_hash(hashlib.sha512(b"stray element %d" % choice).digest())
        changed[j] = mul(_seats(log, n)[seat].scalar, stray)
        what = f"drops the card at position {j} for an element that is no card"
    _redeal(log, n, seat, changed)
    name = "pass-duplicates-card" if mode == "duplicate" else "pass-drops-card"
    return _close(log, resign), Alteration(
        name, n, f"hand {n}: seat {seat}'s shuffle pass {what}", seat=seat,
        expect="wrong-shuffle")


@_register("pass-duplicates-card", "a seat's shuffle pass duplicates one card over another",
           blind=True)
def pass_duplicates_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                         resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's pass puts the same card at two positions; the other seats deal on."""
    return _cheating_pass(data, choice, hand, resign, "duplicate")


@_register("pass-drops-card", "a seat's shuffle pass replaces a card by an element that is "
           "no card", blind=True)
def pass_drops_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's pass drops a card for another element; the other seats deal on."""
    return _cheating_pass(data, choice, hand, resign, "drop")


def _pick_play(log: EditableLog, choice: int, hand: int | None) -> tuple[int, int, int, int]:
    """A played card of a blind hand: (hand, play index, position, owner seat)."""
    from tarneeb.audit.blind import owner

    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played_blind, "dealt blind and played out")
    rec = log.hands[n]
    assert rec.blind is not None
    k = rng.randrange(52)
    p = rec.blind.play_proofs[k][0]
    return n, k, p, owner(p, rec.dealer)


@_register("play-not-dealt", "a seat plays a card it was not dealt", blind=True)
def play_not_dealt(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """One card played replaced by another seat's card, with the proof of the card it
    was dealt: the proof cannot hold for another card."""
    log = _blind_log(data)
    n, k, _, seat = _pick_play(log, choice, hand)
    rec = log.hands[n]
    rng = random.Random(choice + 1)
    other = rng.choice([c for c in range(52) if c != rec.plays[k]])
    plays = bytearray(rec.plays)
    old = plays[k]
    plays[k] = other
    rec.plays = bytes(plays)
    return _close(log, resign), Alteration(
        "play-not-dealt", n, f"hand {n}: seat {seat} plays {card_name(other)} in trick "
        f"{k // 4 + 1} instead of {card_name(old)}, the card it was dealt", trick=k // 4 + 1,
        seat=seat, expect="card-not-dealt")


@_register("forged-play-proof", "a played card's proof made without the seat's key",
           blind=True)
def forged_play_proof(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """One play's proof replaced by a proof of the same statement under another scalar
    (what anyone without the seat's key can make)."""
    from tarneeb.audit.blind import card_points, dleq_context, prove_dleq, reduce64

    log = _blind_log(data)
    n, k, p, seat = _pick_play(log, choice, hand)
    rec = log.hands[n]
    assert rec.blind is not None
    forger = reduce64(hashlib.sha512(b"forger %d" % choice).digest())
    ctx = dleq_context(log.header.match_id, n, "play", seat, p)
    rec.blind.play_proofs[k] = (p, prove_dleq(forger, card_points()[rec.plays[k]], ctx))
    return _close(log, resign), Alteration(
        "forged-play-proof", n, f"hand {n}: the proof of seat {seat}'s {card_name(rec.plays[k])}"
        f" in trick {k // 4 + 1} made without its key", trick=k // 4 + 1, seat=seat,
        expect="card-not-dealt")


@_register("drop-play-proof", "a card played without its proof", blind=True)
def drop_play_proof(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """One play's proof record left out: nothing shows the card was dealt to its seat."""
    log = _blind_log(data)
    n, k, _, _ = _pick_play(log, choice, hand)
    rec = log.hands[n]
    assert rec.blind is not None
    del rec.blind.play_proofs[k]
    return _close(log, resign), Alteration(
        "drop-play-proof", n, f"hand {n}: {card_name(rec.plays[k])} in trick {k // 4 + 1} "
        "written without its proof", trick=k // 4 + 1, expect="blind-transcript")


@_register("wrong-revealed-key", "a seat reveals a scalar that is not its key", blind=True)
def wrong_revealed_key(data: bytes, *, choice: int = 0, hand: int | None = None,
                       resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's revealed scalar of one deal replaced by another."""
    from tarneeb.audit.blind import reduce64

    log = _blind_log(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _blind_hand, "dealt blind")
    keys = next((k for k in log.keys if k.deal_number == n), None)
    seat = rng.randrange(4)
    if keys is None or keys.scalars[seat] is None:
        raise NotApplicable(f"seat {seat} reveals no key for deal {n}")
    keys.scalars[seat] = reduce64(hashlib.sha512(b"other key %d" % choice).digest())
    return _close(log, resign), Alteration(
        "wrong-revealed-key", n, f"hand {n}: seat {seat} reveals another scalar", seat=seat,
        expect="wrong-key")


__all__ = [
    "drop_play_proof",
    "forged_play_proof",
    "pass_drops_card",
    "pass_duplicates_card",
    "play_not_dealt",
    "rebuild",
    "wrong_partial_decryption",
    "wrong_revealed_key",
]
