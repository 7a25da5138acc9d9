"""Blind dealing: honest deals verify, each cheat is caught and blamed on its seat,
the composed shuffle is uniform, and the vectors are what the code gives."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.audit import blind
from tarneeb.audit.blind import (
    DECK,
    BlindSeat,
    Opening,
    Partial,
    RevealedKey,
    card_points,
    deal_blind,
    fixed_rng,
    owner,
    verify_deal,
)
from tarneeb.audit.vectors import blind_vectors

VECTORS = Path(__file__).resolve().parent.parent / "fixtures" / "vectors" / "blind.json"


def honest(label: bytes, dealer: int = 0, deal_number: int = 0):
    seats = [BlindSeat.new(s, b"m-blind", deal_number, rng=fixed_rng(label, s)) for s in range(4)]
    return seats, deal_blind(seats, b"m-blind", deal_number, dealer)


@pytest.fixture(scope="module")
def table():
    return honest(b"table", dealer=1)


def play_all(seats, deal):
    """Every card opened by its owner, as in a played-out hand."""
    for p in range(DECK):
        card, proof = seats[owner(p, deal.dealer)].open(p)
        deal.openings.append(Opening(p, card, "play", proof))


def test_each_seat_learns_thirteen_cards_and_together_the_deck(table):
    seats, deal = table
    hands = [sorted(s.hand()) for s in seats]
    assert all(len(h) == 13 for h in hands)
    assert sorted(c for h in hands for c in h) == list(range(DECK))
    keys = [s.reveal() for s in seats]
    assert [sorted(deal.cards_of(s, keys)) for s in range(4)] == hands
    assert verify_deal(deal) == [] and verify_deal(deal, keys) == []


def test_a_seat_learns_nothing_from_another_seats_final_element(table):
    seats, deal = table
    mine = seats[0]
    for p in deal.positions_of(1):
        # removing seat 0's layer again does not give a card point: only seat 1 can
        assert blind.card_of_point(blind.mul(blind.invert(mine.scalar), deal.final(p))) is None


@settings(max_examples=4, deadline=None)
@given(st.binary(min_size=1, max_size=8), st.integers(0, 3))
def test_honest_passes_deal_a_permutation_and_the_hands_learned(label, dealer):
    seats, deal = honest(label, dealer)
    learned = {p: c for s in seats for p, c in s.learned.items()}
    assert sorted(learned) == list(range(DECK)) and sorted(learned.values()) == list(range(DECK))
    keys = [s.reveal() for s in seats]
    for s in range(4):
        assert deal.cards_of(s, keys) == [learned[p] for p in deal.positions_of(s)]
    play_all(seats, deal)
    assert verify_deal(deal, keys) == []


def copy(deal):
    return blind.BlindDeal(deal.match_id, deal.deal_number, deal.dealer, list(deal.publics),
                           list(deal.passes), [list(c) for c in deal.partials],
                           list(deal.openings))


def test_a_wrong_partial_decryption_is_blamed_on_its_seat(table):
    _seats, deal = table
    bad = copy(deal)
    p = 17
    q = bad.partials[p][1]
    bad.partials[p][1] = Partial(q.seat, card_points()[3], q.proof)
    faults = verify_deal(bad)
    assert [(f.seat, f.position) for f in faults] == [(q.seat, p)]
    assert "wrong partial decryption" in str(faults[0])


def test_a_forged_proof_is_blamed(table):
    _seats, deal = table
    bad = copy(deal)
    q = bad.partials[5][0]
    bad.partials[5][0] = Partial(q.seat, q.element, hashlib.sha512(b"forged").digest())
    assert [(f.seat, f.position) for f in verify_deal(bad)] == [(q.seat, 5)]


def test_a_played_card_that_was_not_dealt_is_caught_when_played(table):
    seats, deal = table
    bad = copy(deal)
    p = deal.positions_of(2)[0]
    mine = seats[2].learned[p]
    other = next(c for c in range(DECK) if c not in seats[2].hand())
    # seat 2 claims another card at its position, with a proof made for that claim
    proof = blind.prove_dleq(seats[2].scalar, card_points()[other],
                             blind.dleq_context(b"m-blind", 0, "play", 2, p))
    bad.openings.append(Opening(p, other, "play", proof))
    faults = verify_deal(bad)
    assert [(f.seat, f.position) for f in faults] == [(2, p)]
    assert f"card {other} is not the card dealt" in str(faults[0])
    good = copy(deal)
    card, proof = seats[2].open(p)
    assert card == mine
    good.openings.append(Opening(p, card, "play", proof))
    assert verify_deal(good) == []


@pytest.mark.parametrize("cheat", ["replace", "drop", "duplicate"])
def test_a_pass_that_changes_the_cards_is_caught_and_blamed_with_the_keys(cheat):
    seats = [BlindSeat.new(s, b"m-blind", 0, rng=fixed_rng(b"cheat", s)) for s in range(4)]
    cheater = seats[1]
    honest_shuffle = cheater.shuffle

    def cheating_shuffle(deck):
        out = list(honest_shuffle(deck))
        if cheat == "replace":  # a card of its choosing, encrypted as the pass would
            out[0] = blind.mul(cheater.scalar, blind.mul(seats[0].scalar, card_points()[0]))
            out[0] = out[0] if out[0] not in out[1:] else blind.mul(cheater.scalar, out[0])
        elif cheat == "drop":  # one card gone, another in twice ... re-encrypted so it differs
            out[0] = blind.mul(cheater.scalar, out[1])
        else:  # the same card twice, exactly
            out[0] = out[1]
        return tuple(out)

    cheater.shuffle = cheating_shuffle
    deal = deal_blind(seats, b"m-blind", 0, dealer=0)
    if cheat == "drop":  # what it put there is no card: the seat that gets it cannot read it
        assert sum(len(s.unreadable) for s in seats) == 1
    keys = [s.reveal() for s in seats]
    faults = verify_deal(deal, keys)
    assert faults and {f.seat for f in faults if "pass" in f.what} == {1}


def test_proofs_alone_catch_a_duplicated_card_once_every_card_is_open():
    seats = [BlindSeat.new(s, b"m-blind", 0, rng=fixed_rng(b"dup", s)) for s in range(4)]
    deal = deal_blind(seats, b"m-blind", 0, dealer=0)
    bad = copy(deal)
    # seat 3 (the last pass) copies position 0's element over position 4 (both seat 1's)
    passes = list(bad.passes)
    last = list(passes[3])
    last[4] = last[0]
    passes[3] = tuple(last)
    bad.passes = passes
    # the partial decryptions of position 4 are those of position 0, proofs re-made honestly
    chain, element = [], last[4]
    for k in blind.decrypt_order(owner(4, 0)):
        element, proof = seats[k].partial(4, element)
        chain.append(Partial(k, element, proof))
    bad.partials[4] = chain
    seats[1].learned[4] = seats[1].learned[0]
    play_all(seats, bad)
    faults = verify_deal(bad)
    assert any("pass" in f.what and "replaced, dropped or duplicated" in f.what for f in faults)
    keyed = verify_deal(bad, [s.reveal() for s in seats])
    assert {f.seat for f in keyed if "its pass" in f.what} == {3}


def test_revealed_keys_that_do_not_match_are_blamed(table):
    seats, deal = table
    keys = [s.reveal() for s in seats]
    wrong = RevealedKey(2, seats[3].scalar, keys[2].permutation)
    assert [f.seat for f in verify_deal(deal, [*keys[:2], wrong, keys[3]])] == [2]
    not_perm = RevealedKey(0, keys[0].scalar, (0,) * DECK)
    assert "not a permutation" in str(verify_deal(deal, [not_perm])[0])


def test_proofs_are_bound_to_match_deal_and_step(table):
    _seats, deal = table
    q = deal.partials[9][0]
    before = deal.passes[-1][9]
    for ctx in (blind.dleq_context(b"other", 0, "decrypt", q.seat, 9),
                blind.dleq_context(b"m-blind", 1, "decrypt", q.seat, 9),
                blind.dleq_context(b"m-blind", 0, "open", q.seat, 9),
                blind.dleq_context(b"m-blind", 0, "decrypt", q.seat, 10)):
        assert not blind.verify_dleq(deal.publics[q.seat], q.element, before, q.proof, ctx)
    assert blind.verify_dleq(deal.publics[q.seat], q.element, before, q.proof,
                             blind.dleq_context(b"m-blind", 0, "decrypt", q.seat, 9))


def test_the_composed_shuffle_is_uniform_when_one_seat_is_honest():
    """4 cards, 24 orders; seats 0, 1 and 3 collude with fixed permutations, seat 2 shuffles.

    720 deterministic runs (30 per order), chi-square with 23 degrees of freedom.
    """
    points = card_points()[:4]
    fixed = [(1, 0, 3, 2), (3, 2, 1, 0), None, (0, 2, 1, 3)]
    counts: Counter[tuple[int, ...]] = Counter()
    runs = 720
    for i in range(runs):
        rng = fixed_rng(b"uniform %d" % i, 0)
        deck = points
        scalars = []
        for perm in fixed:
            x = blind._random_scalar(rng)
            perm = perm or tuple(blind._random_permutation(4, rng))
            deck = tuple(blind.mul(x, deck[j]) for j in perm)
            scalars.append(x)
        order = []
        for e in deck:
            for x in scalars:
                e = blind.mul(blind.invert(x), e)
            order.append(points.index(e))
        counts[tuple(order)] += 1
    assert len(counts) == 24
    expected = runs / 24
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in counts)
    # P(chi2_23 > 49.7) = 0.001
    assert chi2 < 49.7, chi2
    assert math.isfinite(chi2)


def test_vectors_are_what_the_code_gives():
    text = json.dumps(blind_vectors(), indent=1) + "\n"
    assert VECTORS.read_text(encoding="utf-8") == text, \
        "run: make vectors"


def test_vectors_check_with_libsodium_primitives_alone():
    """A reader of the protocol text re-checks the vector deal from its primitives."""
    import rbcl  # libsodium's functions, nothing of tarneeb's

    v = json.loads(VECTORS.read_text(encoding="utf-8"))
    pts = [bytes.fromhex(h) for h in v["card_points"]]
    tag = b"tarneeb-blind-v1/card\x00"
    assert pts == [rbcl.crypto_core_ristretto255_from_hash(
        hashlib.sha512(tag + bytes([c])).digest()) for c in range(52)]
    d = v["deal"]
    deck = pts
    for s, seat in enumerate(d["seats"]):
        x = bytes.fromhex(seat["scalar"])
        deck = [rbcl.crypto_scalarmult_ristretto255(x, deck[i]) for i in seat["permutation"]]
        assert [e.hex() for e in deck] == d["passes"][s]
    for s, seat in enumerate(d["seats"]):
        inv = rbcl.crypto_core_ristretto255_scalar_invert(bytes.fromhex(seat["scalar"]))
        mine = [p for p in range(52) if (d["dealer"] + 1 + p) % 4 == s]
        finals = [bytes.fromhex(d["partials"][p][-1]["element"]) for p in mine]
        assert [pts.index(rbcl.crypto_scalarmult_ristretto255(inv, e))
                for e in finals] == seat["hand"]


def test_blind_dealing_needs_no_system_libsodium(tmp_path: Path):
    """Blind dealing runs on the libsodium its Python package carries: no system library
    (Debian's libsodium23) is loaded, and the loaded copy leaves no file behind in the
    temporary directory, however many processes deal blind."""
    import os
    import subprocess
    import sys

    code = (
        "from tarneeb.audit.blind import BlindSeat, deal_blind, fixed_rng, verify_deal\n"
        "seats = [BlindSeat.new(s, b'm', 0, rng=fixed_rng(b'sys', s)) for s in range(4)]\n"
        "assert verify_deal(deal_blind(seats, b'm', 0, dealer=1)) == []\n"
        "maps = open('/proc/self/maps', encoding='utf-8').read().splitlines()\n"
        "print('\\n'.join(sorted({m.split(None, 5)[-1] for m in maps if 'sodium' in m})))\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env={**os.environ, "TMPDIR": str(temp)}).stdout
        assert "libsodium" not in out, out  # the system's libsodium.so.23 is not loaded
    assert list(temp.iterdir()) == []
