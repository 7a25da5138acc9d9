"""tarneeb-blind-v3: each pass proven by the compact shuffle argument (PROTOCOL.md §13.9).

The argument must accept every honest pass and nothing else: random wrong passes
(``TARNEEB_SOUNDNESS_TRIALS``, 300 by default, 10,000 for the soundness run), any
byte of a proof changed, a proof moved to another place, a non-canonical scalar or
element, an identity in the statement. A v3 deal is smaller than a v1 deal.
"""

from __future__ import annotations

import os
import random

import pytest
from wrong_passes import KINDS, point, scalar, wrong_pass_proven

from tarneeb.audit import blind
from tarneeb.audit.blind import BlindSeat, L, card_points, fixed_rng, mul
from tarneeb.audit.blind.argument import (
    SHUFFLE_ARGUMENT_LEN,
    argument_len,
    prove_shuffle,
    verify_shuffle,
)
from tarneeb.audit.blind.proofs import deal_blind_v2, shuffle_context, verify_deal_v2, verify_pass

TRIALS = int(os.environ.get("TARNEEB_SOUNDNESS_TRIALS", "300"))


_scalar, _point = scalar, point


@pytest.mark.parametrize("kind", KINDS)
def test_random_wrong_passes_never_verify(kind: str) -> None:
    rng = random.Random("v3 " + kind)
    for trial in range(-(-TRIALS // 4)):  # at least TRIALS in all
        n = 52 if trial % 25 == 0 else rng.choice((2, 3, 5, 6, 8))  # the deck now and then
        y, deck, out, proof, ctx = wrong_pass_proven(rng, n, kind, prove_shuffle)
        assert len(proof) == argument_len(n)
        assert not verify_shuffle(y, deck, out, proof, ctx), (kind, trial, n)


def test_an_honest_pass_verifies_and_only_in_its_own_place() -> None:
    seat = BlindSeat.new(2, b"place", 4, rng=fixed_rng(b"place", 2))
    deck = [mul(_scalar(b"before"), p) for p in card_points()]
    out = list(seat.shuffle(deck))
    ctx = shuffle_context(b"place", 4, 2)
    proof = prove_shuffle(seat.scalar, seat.permutation, deck, out, ctx)
    assert len(proof) == 2112 and verify_shuffle(seat.public, deck, out, proof, ctx)
    assert proof == prove_shuffle(seat.scalar, seat.permutation, deck, out, ctx)  # no rng
    for other in (shuffle_context(b"other", 4, 2), shuffle_context(b"place", 5, 2),
                  shuffle_context(b"place", 4, 3)):
        assert not verify_shuffle(seat.public, deck, out, proof, other)
    for i in range(0, SHUFFLE_ARGUMENT_LEN, 53):  # any byte of the argument changed
        bad = bytearray(proof)
        bad[i] ^= 1 << (i % 8)
        assert not verify_shuffle(seat.public, deck, out, bytes(bad), ctx), i
    assert not verify_shuffle(seat.public, out, deck, proof, ctx)  # decks swapped
    assert not verify_shuffle(seat.public, deck, out, proof[:-32], ctx)
    other = BlindSeat.new(2, b"place", 4, rng=fixed_rng(b"another", 2))
    assert not verify_shuffle(other.public, deck, out, proof, ctx)  # another seat's key


def test_non_canonical_values_and_identities_are_refused() -> None:
    seat = BlindSeat.new(0, b"canon", 0, rng=fixed_rng(b"canon", 0))
    deck = list(card_points()[:8])
    perm = [3, 0, 7, 1, 6, 2, 5, 4]
    out = [mul(seat.scalar, deck[i]) for i in perm]
    ctx = b"canonical"
    proof = prove_shuffle(seat.scalar, perm, deck, out, ctx)
    assert verify_shuffle(seat.public, deck, out, proof, ctx)
    last = int.from_bytes(proof[-32:], "little")
    assert not verify_shuffle(seat.public, deck, out,  # the same scalar plus L: not canonical
                              proof[:-32] + (last + L).to_bytes(32, "little"), ctx)
    assert not verify_shuffle(seat.public, deck, out, bytes(32) * 66, ctx)
    identity = bytes(32)
    assert not verify_shuffle(seat.public, [identity, *deck[1:]], out, proof, ctx)
    assert not verify_shuffle(identity, deck, out, proof, ctx)
    assert not verify_shuffle(seat.public, deck, out, b"\xff" * 32 + proof[32:], ctx)


def test_a_v3_deal_is_proven_from_its_arguments_and_is_smaller_than_v1() -> None:
    seats = [BlindSeat.new(s, b"v3", 0, rng=fixed_rng(b"v3", s)) for s in range(4)]
    deal = deal_blind_v2(seats, b"v3", 0, dealer=2)
    assert all(len(p) == SHUFFLE_ARGUMENT_LEN for p in deal.shuffle_proofs or ())
    assert verify_deal_v2(deal) == []
    assert verify_deal_v2(deal, [s.reveal() for s in seats]) == []
    assert sorted(c for s in seats for c in s.hand()) == list(range(52))
    size = 128 + 4 * 1664 + 3 * 1664 + 12 * 64 + 4 * SHUFFLE_ARGUMENT_LEN
    assert deal.byte_size() == size == 20_992
    v1 = blind.deal_blind([BlindSeat.new(s, b"v1", 0, rng=fixed_rng(b"v1", s))
                           for s in range(4)], b"v1", 0, dealer=2)
    assert size < v1.byte_size()
    # a v2 proof in the same place is still checked, by its own length
    v2 = deal_blind_v2(seats, b"v3", 0, dealer=2, version=2)
    ctx = shuffle_context(b"v3", 0, 1)
    proofs = v2.shuffle_proofs or []
    assert verify_pass(seats[1].public, v2.passes[0], v2.passes[1], proofs[1], ctx)
    assert not verify_pass(seats[1].public, v2.passes[0], v2.passes[1], proofs[1][:2112], ctx)


def test_an_encoding_with_bit_255_set_is_refused_everywhere() -> None:
    """libsodium reads an encoding with bit 255 set as the element without it; RFC 9496 and
    the TypeScript verifier refuse it, and so does every check here (one element, one
    encoding: a duplicated card cannot hide behind a second spelling)."""
    seats = [BlindSeat.new(s, b"bit", 0, rng=fixed_rng(b"bit", s)) for s in range(4)]
    v1 = blind.deal_blind(seats, b"bit", 0, dealer=0)
    high = bytes([*v1.passes[3][5][:31], v1.passes[3][5][31] | 0x80])
    v1.passes[2] = (*v1.passes[2][:5], bytes([*v1.passes[2][5][:31], v1.passes[2][5][31] | 0x80]),
                    *v1.passes[2][6:])
    assert any(f.seat == 2 and "canonical" in f.what for f in blind.verify_deal(v1))
    with pytest.raises(blind.BlindError):
        mul(_scalar(b"s"), high)
    x = _scalar(b"dleq")
    h = card_points()[3]
    ctx = b"ctx"
    proof = blind.prove_dleq(x, h, ctx)
    z = mul(x, h)
    assert blind.verify_dleq(blind.mul_base(x), h, z, proof, ctx)
    assert not blind.verify_dleq(blind.mul_base(x), h, bytes([*z[:31], z[31] | 0x80]), proof, ctx)
    seat = seats[0]
    deck = list(card_points()[:4])
    out = [mul(seat.scalar, deck[i]) for i in (2, 0, 3, 1)]
    arg = prove_shuffle(seat.scalar, [2, 0, 3, 1], deck, out, ctx)
    assert verify_shuffle(seat.public, deck, out, arg, ctx)
    out[1] = bytes([*out[1][:31], out[1][31] | 0x80])
    assert not verify_shuffle(seat.public, deck, out, arg, ctx)
