"""Cheating seats against the proofs of ``tarneeb-blind-v2``: passes and batches that lie.

In a log dealt under ``tarneeb-blind-v2`` every pass carries a shuffle proof and
each seat's partial decryptions of a round one batched proof (``docs/PROTOCOL.md``
§13.6). Each alteration here is one seat's cheat as it would be logged: the seat
publishes something its secrets cannot justify and keeps (or forges) a proof,
and every other seat deals on honestly from what it was given
(:func:`~tarneeb.testing.alterations.blind.rebuild` recomputes the later passes, the
decryptions and their proofs from the revealed keys). ``verify`` must name the
cheating seat from the proofs alone and no other.

>>> from tarneeb.replay.server.blind import play_blind_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> from tarneeb.testing.alterations import alter
>>> log = play_blind_match("qahwa41", seed=b"shuffle doc", target=3)  # reproducible: not secret
>>> bad, alt = alter("pass-wrong-exponent", log)
>>> {f.seat for f in verify_bytes(bad).findings if f.seat is not None} == {alt.seat}
True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import HandRecord
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    _close,
    _pick_hand,
    _register,
)
from tarneeb.testing.alterations.blind import _blind_log, _seats, _split, rebuild


def _v2(rec: HandRecord) -> bool:
    return rec.blind is not None and rec.blind.shuffle_proofs is not None


Cheat = Callable[[EditableLog, int, int, random.Random], str]


def _pass_cheat(name: str, summary: str, expect: str = "wrong-shuffle") -> Callable[[Cheat], Cheat]:
    """Register a cheat on one seat's pass (or its proof) of one v2 or v3 deal."""
    def register(cheat: Cheat) -> Cheat:
        def alteration(data: bytes, *, choice: int = 0, hand: int | None = None,
                       resign: Ed25519PrivateKey | None = None) -> Altered:
            log = _blind_log(data)
            rng = random.Random(choice)
            n = _pick_hand(log, rng, hand, _v2, "dealt blind under tarneeb-blind-v2 or v3")
            _seats(log, n)  # NotApplicable without the keys
            seat = rng.randrange(4)
            what = cheat(log, n, seat, rng)
            return _close(log, resign), Alteration(name, n, f"hand {n}: seat {seat} {what}",
                                                   seat=seat, expect=expect)
        alteration.__doc__ = cheat.__doc__
        _register(name, summary, blind=True)(alteration)
        return cheat
    return register


def _pass_of(log: EditableLog, n: int, seat: int) -> list[bytes]:
    t = log.hands[n].blind
    assert t is not None
    return _split(t.passes[seat], 32)


def _prove(log: EditableLog, n: int, x: bytes, order: list[int], deck_in: list[bytes],
           out: list[bytes], ctx: bytes) -> bytes:
    """A pass's proof of the version the hand's transcript holds (v2 or v3)."""
    from tarneeb.audit.blind.proofs import prove_pass
    t = log.hands[n].blind
    assert t is not None
    return prove_pass(t.version, x, order, deck_in, out, ctx)


def _input_of(log: EditableLog, n: int, seat: int) -> list[bytes]:
    from tarneeb.audit.blind import card_points
    return list(card_points()) if seat == 0 else _pass_of(log, n, seat - 1)


@_pass_cheat("pass-substitutes-card", "a seat's shuffle pass puts another card in place of one")
def pass_substitutes_card(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """One element of the pass replaced by the seat's layer on a card point of its choice
    (a card it wants dealt, skipping the layers before it); its proof kept."""
    from tarneeb.audit.blind import card_points, mul
    deck = _pass_of(log, n, seat)
    j = rng.randrange(52)
    x = _seats(log, n)[seat].scalar
    c = rng.choice([c for c in range(52) if mul(x, card_points()[c]) != deck[j]])
    deck[j] = mul(x, card_points()[c])
    rebuild(log, n, passes={seat: deck})
    return f"substitutes card {c} for the element at position {j} of its pass"


@_pass_cheat("pass-wrong-exponent", "a seat's shuffle pass is made with a scalar that is not "
             "its key")
def pass_wrong_exponent(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """The whole pass made with another scalar than the public key's, and proven with it."""
    from tarneeb.audit.blind import BlindSeat, reduce64
    from tarneeb.audit.blind.proofs import shuffle_context
    honest = _seats(log, n)[seat]
    other = reduce64(hashlib.sha512(b"other exponent %d" % rng.randrange(1 << 30)).digest())
    cheat = BlindSeat(seat, honest.match_id, n, other, honest.permutation)
    deck_in = _input_of(log, n, seat)
    out = list(cheat.shuffle(deck_in))
    proof = _prove(log, n, other, list(honest.permutation), deck_in, out,
                   shuffle_context(log.header.match_id, n, seat))
    rebuild(log, n, passes={seat: out}, shuffle_proofs={seat: proof})
    return "makes its pass with a scalar that is not its key's"


@_pass_cheat("forged-shuffle-proof", "an honest pass whose shuffle proof is made without the "
             "seat's secrets")
def forged_shuffle_proof(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """The pass kept, its proof replaced by the proof of another permutation under another
    scalar: what a seat that lost its secrets (or never had them) can make."""
    from tarneeb.audit.blind import reduce64
    from tarneeb.audit.blind.proofs import shuffle_context
    forger = reduce64(hashlib.sha512(b"forger %d" % rng.randrange(1 << 30)).digest())
    order = list(range(52))
    rng.shuffle(order)
    proof = _prove(log, n, forger, order, _input_of(log, n, seat), _pass_of(log, n, seat),
                   shuffle_context(log.header.match_id, n, seat))
    rebuild(log, n, passes={seat: _pass_of(log, n, seat)}, shuffle_proofs={seat: proof})
    return "publishes a shuffle proof made without its secrets"


@_pass_cheat("replayed-shuffle-proof", "a pass with a shuffle proof made for another match, "
             "deal or position")
def replayed_shuffle_proof(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """A substituted pass whose proof is a valid proof of the same decks made for another
    context (another match, deal or seat): the context binds each proof to its place."""
    from tarneeb.audit.blind import card_points, mul
    from tarneeb.audit.blind.proofs import shuffle_context
    honest = _seats(log, n)[seat]
    where = rng.choice(("match", "deal", "position"))
    ctx = {"match": shuffle_context(b"another match", n, seat),
           "deal": shuffle_context(log.header.match_id, n + 1, seat),
           "position": shuffle_context(log.header.match_id, n, (seat + 1) % 4)}[where]
    deck_in = _input_of(log, n, seat)
    out = _pass_of(log, n, seat)
    proof = _prove(log, n, honest.scalar, list(honest.permutation), deck_in, out, ctx)
    out[0] = mul(honest.scalar, card_points()[rng.randrange(52)])  # then it changes a card
    rebuild(log, n, passes={seat: out}, shuffle_proofs={seat: proof})
    return f"changes a card of its pass and proves it with a proof made for another {where}"


def _batch_cheat(log: EditableLog, n: int, seat: int, rng: random.Random, forge: bool) -> str:
    from tarneeb.audit.blind import element_from_hash, reduce64
    from tarneeb.audit.blind.proofs import (
        batch_context,
        prove_batch,
        round_input,
        round_positions,
    )
    from tarneeb.replay.verify.blind import blind_deal
    r = rng.randrange(3)
    positions = round_positions(log.hands[n].dealer, r, seat)
    p = rng.choice(positions)
    if not forge:  # a wrong element, under the batched proof it had
        stray = element_from_hash(hashlib.sha512(b"stray partial %d" % p).digest())
        rebuild(log, n, partials={(r, p): stray})
        return f"publishes a wrong partial decryption of position {p} in round {r + 1}"
    deal = blind_deal(log.header, log.hands[n], n, log.hands[n].dealer)
    ins = [round_input(deal, r, q) for q in positions]
    outs = [deal.partials[q][r].element for q in positions]
    forger = reduce64(hashlib.sha512(b"batch forger %d" % p).digest())
    proof = prove_batch(forger, positions, ins, outs,
                        batch_context(log.header.match_id, n, seat, r))
    rebuild(log, n, batch_proofs={(r, seat): proof})
    return f"publishes a batched proof of round {r + 1} made without its key"


@_pass_cheat("wrong-batched-decryption", "a seat's partial decryption under its round's "
             "batched proof is wrong", expect="wrong-decryption")
def wrong_batched_decryption(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """One element of a seat's round replaced; the next seats decrypt it honestly."""
    return _batch_cheat(log, n, seat, rng, forge=False)


@_pass_cheat("forged-batch-proof", "a seat's batched proof of a round made without its key",
             expect="wrong-decryption")
def forged_batch_proof(log: EditableLog, n: int, seat: int, rng: random.Random) -> str:
    """The partial decryptions kept, the round's batched proof made under another scalar."""
    return _batch_cheat(log, n, seat, rng, forge=True)


__all__ = ["forged_batch_proof", "forged_shuffle_proof", "pass_substitutes_card",
           "pass_wrong_exponent", "replayed_shuffle_proof", "wrong_batched_decryption"]
