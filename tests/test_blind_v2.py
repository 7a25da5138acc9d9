"""tarneeb-blind-v2: every pass and round of decryptions proven, each cheat on its own seat.

The soundness trials run ``TARNEEB_SOUNDNESS_TRIALS`` random wrong passes (300 by
default, so the file runs in seconds; ``TARNEEB_SOUNDNESS_TRIALS=10000`` for the
full run the protocol's claim rests on). Each cheat is played in two rule sets in turn
(each rule set meets three or four cheats), so the file runs in seconds;
``TARNEEB_BLIND_EVERY_CHEAT=1`` plays every cheat in every rule set.
"""

from __future__ import annotations

import hashlib
import os
import random
from functools import cache

import pytest
from wrong_passes import KINDS, wrong_pass_proven

from tarneeb.audit import blind
from tarneeb.audit.blind import BlindSeat, card_points, fixed_rng, invert, mul, reduce64
from tarneeb.audit.blind.proofs import (
    SHUFFLE_PROOF_LEN,
    batch_context,
    deal_blind_v2,
    prove_batch,
    prove_shuffle,
    shuffle_context,
    verify_batch,
    verify_deal_v2,
    verify_shuffle,
)
from tarneeb.replay.log import parse_log
from tarneeb.replay.server import blind as blindplay
from tarneeb.replay.server.simulate import MatchSecrets
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations import REGISTRY
from tarneeb.testing.alterations.base import _close, _open

RULES = ("eram41", "qahwa41", "sahrat41", "sahrat400", "classic")
CHEATS = ("pass-substitutes-card", "pass-wrong-exponent", "forged-shuffle-proof",
          "replayed-shuffle-proof", "wrong-batched-decryption", "forged-batch-proof",
          "pass-duplicates-card", "pass-drops-card", "wrong-partial-decryption")
TRIALS = int(os.environ.get("TARNEEB_SOUNDNESS_TRIALS", "300"))
EVERY = os.environ.get("TARNEEB_BLIND_EVERY_CHEAT") == "1"  # each cheat in each rule set


def _scalar(label: bytes) -> bytes:
    return reduce64(hashlib.sha512(label).digest())


@cache
def _log(rules: str, version: int = 3) -> tuple[bytes, object]:
    seed = b"blind-v%d " % version + rules.encode()
    return (blindplay.play_blind_match(rules, seed=seed, target=3, version=version),
            MatchSecrets(seed).key)


def test_a_v2_deal_verifies_from_its_proofs_alone_and_gives_each_seat_its_hand() -> None:
    seats = [BlindSeat.new(s, b"v2", 0, rng=fixed_rng(b"v2", s)) for s in range(4)]
    deal = deal_blind_v2(seats, b"v2", 0, dealer=1, version=2)
    assert verify_deal_v2(deal) == []
    assert verify_deal_v2(deal, [s.reveal() for s in seats]) == []
    hands = [sorted(s.hand()) for s in seats]
    assert sorted(c for h in hands for c in h) == list(range(52))
    assert deal.byte_size() == 128 + 4 * 1664 + 3 * 1664 + 12 * 64 + 4 * SHUFFLE_PROOF_LEN


@pytest.mark.parametrize("kind", KINDS)
def test_random_wrong_passes_never_verify(kind: str) -> None:
    rng = random.Random(kind)
    for trial in range(-(-TRIALS // len(KINDS))):  # at least TRIALS in all
        n = 52 if trial % 25 == 0 else 6  # the full deck now and then, small decks for speed
        y, deck, out, proof, ctx = wrong_pass_proven(rng, n, kind, prove_shuffle)
        assert not verify_shuffle(y, deck, out, proof, ctx), (kind, trial)


def test_an_honest_pass_verifies_and_only_in_its_own_place() -> None:
    seat = BlindSeat.new(2, b"place", 4, rng=fixed_rng(b"place", 2))
    deck = [mul(_scalar(b"before"), p) for p in card_points()]
    out = list(seat.shuffle(deck))
    ctx = shuffle_context(b"place", 4, 2)
    proof = prove_shuffle(seat.scalar, seat.permutation, deck, out, ctx)
    assert verify_shuffle(seat.public, deck, out, proof, ctx)
    for other in (shuffle_context(b"other", 4, 2), shuffle_context(b"place", 5, 2),
                  shuffle_context(b"place", 4, 3)):
        assert not verify_shuffle(seat.public, deck, out, proof, other)
    for i in range(0, SHUFFLE_PROOF_LEN, 997):  # any byte of the proof changed
        bad = bytearray(proof)
        bad[i] ^= 1
        assert not verify_shuffle(seat.public, deck, out, bytes(bad), ctx)
    assert not verify_shuffle(seat.public, out, deck, proof, ctx)  # decks swapped


def test_a_batched_proof_fails_on_any_wrong_element_and_elsewhere() -> None:
    x = _scalar(b"batch")
    positions = list(range(3, 16))
    ins = [mul(_scalar(b"e %d" % p), card_points()[p]) for p in positions]
    outs = [mul(invert(x), e) for e in ins]
    ctx = batch_context(b"m", 2, 1, 0)
    y = blind.mul_base(x)
    assert verify_batch(y, positions, ins, outs, prove_batch(x, positions, ins, outs, ctx), ctx)
    proof = prove_batch(x, positions, ins, outs, ctx)
    for other in (batch_context(b"n", 2, 1, 0), batch_context(b"m", 3, 1, 0),
                  batch_context(b"m", 2, 2, 0), batch_context(b"m", 2, 1, 1)):
        assert not verify_batch(y, positions, ins, outs, proof, other)
    rng = random.Random(7)
    for _ in range(TRIALS // 10):
        wrong = list(outs)
        j = rng.randrange(len(wrong))
        wrong[j] = blind.element_from_hash(hashlib.sha512(b"w %d" % rng.getrandbits(64)).digest())
        assert not verify_batch(y, positions, ins, wrong, prove_batch(x, positions, ins, wrong,
                                                                      ctx), ctx)


def _without_keys(data: bytes, key: object) -> bytes:
    log = _open(data)
    log.keys = []
    return _close(log, key)  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", RULES)
def test_every_cheat_is_named_on_its_seat_from_the_proofs_alone(rules: str) -> None:
    """No revealed key: the proofs name the cheating seat, and no finding names another."""
    data, key = _log(rules)
    r = RULES.index(rules)
    for i, name in enumerate(CHEATS):
        if not EVERY and r not in (i % len(RULES), (i + 3) % len(RULES)):
            continue
        out, alt = REGISTRY[name](data, choice=i + len(rules), resign=key)  # type: ignore[arg-type]
        v = verify_bytes(_without_keys(out, key))
        assert not v.clean and not v.deals_proven
        named = {f.seat for f in v.findings if f.seat is not None}
        assert named == {alt.seat}, (name, alt, [str(f) for f in v.findings][:4])
        assert any(f.kind == alt.expect and f.seat == alt.seat and f.hand == alt.hand
                   for f in v.findings), (name, [str(f) for f in v.findings][:4])


@pytest.mark.parametrize("version", [2, 3])
def test_a_v2_or_v3_log_without_keys_verifies_clean(version: int) -> None:
    data, key = _log("qahwa41", version)
    log = parse_log(data)
    assert all(h.blind is not None and h.blind.version == version for h in log.hands)
    v = verify_bytes(_without_keys(data, key))
    assert v.clean, [str(f) for f in v.findings]
    assert "every hand proven by the deal's transcript" in v.deals_line()
    assert not any("tarneeb-blind-v1" in n for n in v.notes)


def test_a_v1_log_still_reads_but_does_not_claim_its_passes_proven() -> None:
    data = blindplay.play_blind_match("eram41", seed=b"a v1 log", target=3, version=1)
    assert all(h.blind is not None and h.blind.version == 1 for h in parse_log(data).hands)
    v = verify_bytes(data)
    assert v.clean, [str(f) for f in v.findings]
    assert "shuffle passes not proven" in v.deals_line()
    assert any("tarneeb-blind-v1" in n and "carry no proofs" in n for n in v.notes)
    from tarneeb.report.match import match_report

    html, _ = match_report(data)
    assert "carry no proofs" in html and "proven by its transcript" not in html
