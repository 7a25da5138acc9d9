"""Deal derivation: determinism, permutations, sensitivity to every input byte, no bias."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.audit import (
    AuditInputError,
    Deal,
    DealDeriver,
    DealMismatchError,
    HmacStream,
    accept_limit,
    deal_message,
    derive_deal,
    derive_deck,
    derive_first_dealer,
    first_dealer_message,
    hmac_block,
    permutation,
    shuffle,
)
from tarneeb.audit.derive import Draw, uniform_index
from tarneeb.audit.seeds import SeasonLeaf, match_binding, server_commitment
from tarneeb.replay.rules.cards import deal_hands, mask_of
from tarneeb.replay.rules.dealing import hands_of

SEED = hashlib.sha256(b"test server seed").digest()
CLIENTS = [b"north seat: seed", b"east seat: seed!", b"south seat: seed", b"west seat: seed!"]

server_seeds = st.binary(min_size=32, max_size=32)
match_ids = st.binary(min_size=1, max_size=64)
client_seed = st.binary(min_size=16, max_size=64)
client_seed_lists = st.lists(client_seed, min_size=4, max_size=4)
deal_numbers = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=150, deadline=None)
@given(server_seeds, match_ids, client_seed_lists, deal_numbers)
def test_derivation_is_deterministic_and_a_permutation(server_seed, match_id, seeds, k):
    a = DealDeriver(server_seed, match_id, seeds).deck(k)
    b = DealDeriver(server_seed, match_id, list(seeds)).deck(k)
    assert a == b == derive_deck(server_seed, match_id, seeds, k)
    assert sorted(a) == list(range(52))
    # the fast path is the reference sampler over the reference stream
    binding = match_binding(server_commitment(server_seed))
    assert a == shuffle(52, HmacStream(server_seed, deal_message(match_id, seeds, k, binding)))


def _sets_of(deck: list[int], dealer: int) -> tuple[int, int, int, int, int]:
    """The reference: each seat's cards from the deck order, as Deal.cards deals them."""
    deal = Deal.from_deck(deck, dealer)
    return (*(sum(1 << c for c in deal.cards(s)) for s in range(4)), deal.thirteenth)


@settings(max_examples=150, deadline=None)
@given(server_seeds, match_ids, client_seed_lists, deal_numbers, st.integers(0, 3))
def test_dealt_sets_are_the_deck_dealt_round(server_seed, match_id, seeds, k, dealer):
    d = DealDeriver(server_seed, match_id, seeds)
    assert d.dealt(k, dealer) == _sets_of(d.deck(k), dealer)


def test_dealt_over_many_deals_and_every_dealer():
    d = DealDeriver(SEED, "m", CLIENTS)
    for k in range(2000):
        assert d.dealt(k, k % 4) == _sets_of(d.deck(k), k % 4), k
    with pytest.raises(AuditInputError, match="seat"):
        d.dealt(0, 4)
    with pytest.raises(AuditInputError, match="deal number"):
        d.dealt(-1, 0)


@st.composite
def one_byte_changed(draw):
    """Inputs, and the same inputs with one byte of one field changed."""
    server_seed = draw(server_seeds)
    match_id = draw(match_ids)
    seeds = draw(client_seed_lists)
    k = draw(deal_numbers)
    which = draw(st.sampled_from(["server", "match", "seed0", "seed1", "seed2", "seed3", "deal",
                                  "leaf"]))
    delta = draw(st.integers(min_value=1, max_value=255))
    if which == "leaf":  # the same match moved to another leaf, size or root of a season
        leaf = SeasonLeaf(3, 5, bytes(32))
        other = draw(st.sampled_from([SeasonLeaf(2, 5, bytes(32)), SeasonLeaf(3, 6, bytes(32)),
                                      SeasonLeaf(3, 5, bytes([delta]) * 32), None]))
        return (server_seed, match_id, seeds, k, leaf), (server_seed, match_id, seeds, k, other)
    if which == "deal":
        pos = draw(st.integers(min_value=0, max_value=3))
        k2 = k ^ (delta << (8 * pos))
        return (server_seed, match_id, seeds, k), (server_seed, match_id, seeds, k2)
    if which == "server":
        field = server_seed
    elif which == "match":
        field = match_id
    else:
        field = seeds[int(which[-1])]
    pos = draw(st.integers(min_value=0, max_value=len(field) - 1))
    changed = bytearray(field)
    changed[pos] ^= delta
    changed_b = bytes(changed)
    if which == "server":
        return (server_seed, match_id, seeds, k), (changed_b, match_id, seeds, k)
    if which == "match":
        return (server_seed, match_id, seeds, k), (server_seed, changed_b, seeds, k)
    seeds2 = list(seeds)
    seeds2[int(which[-1])] = changed_b
    return (server_seed, match_id, seeds, k), (server_seed, match_id, seeds2, k)


@settings(max_examples=300, deadline=None)
@given(one_byte_changed())
def test_changing_any_byte_changes_the_deal(pair):
    assert derive_deck(*pair[0]) != derive_deck(*pair[1])


@settings(max_examples=100, deadline=None)
@given(server_seeds, client_seed_lists, st.binary(min_size=1, max_size=63))
def test_moving_bytes_between_fields_changes_the_deal(server_seed, seeds, extra):
    # length prefixes: the same bytes split differently must give another message
    moved = [seeds[0] + extra[:1], seeds[1], seeds[2], seeds[3]]
    if len(moved[0]) > 64:
        return
    b = bytes(32)
    assert deal_message(b"m" + extra[:1], seeds, 0, b) != deal_message(b"m", moved, 0, b)
    assert derive_deck(server_seed, b"m" + extra[:1], seeds, 0) != \
        derive_deck(server_seed, b"m", moved, 0)


def test_deal_messages_and_blocks():
    d = DealDeriver(SEED, b"m-1", CLIENTS)
    binding = match_binding(server_commitment(SEED))
    assert d.binding == binding
    msg = deal_message(b"m-1", CLIENTS, 258, binding)
    assert msg.startswith(b"tarneeb-fair-v2/deal\x00" + binding
                          + b"\x00\x03m-1\x00\x10north seat: seed\x00\x10east")
    assert msg.endswith(b"\x00\x10west seat: seed!\x00\x00\x01\x02")
    assert first_dealer_message(b"m-1", CLIENTS, binding) == \
        b"tarneeb-fair-v2/first-dealer\x00" + msg[len(b"tarneeb-fair-v2/deal\x00"):-4]
    blocks = d.blocks(258, 3)
    assert blocks == [hmac.digest(SEED, msg + i.to_bytes(4, "big"), "sha256") for i in range(3)]
    assert blocks[1] == hmac_block(SEED, msg, 1)
    stream = d.stream(258)
    assert stream.read(70) == b"".join(blocks)[:70]
    assert len(stream.blocks) == 3


def test_text_match_id_is_utf8():
    assert derive_deck(SEED, "طاولة", CLIENTS, 0) == \
        derive_deck(SEED, "طاولة".encode(), CLIENTS, 0)


def test_deal_from_the_deck():
    d = DealDeriver(SEED, "m", CLIENTS)
    first = d.first_dealer()
    assert first == derive_first_dealer(SEED, "m", CLIENTS)
    for k in range(6):
        deal = d.deal(k)
        assert deal.dealer == (first + k) % 4 == d.dealer_for(k)
        assert deal.thirteenth == deal.deck[51] == deal.cards(deal.dealer)[-1]
        assert sorted(c for s in range(4) for c in deal.cards(s)) == list(range(52))
        assert [deal.seat_of(p) for p in deal.positions(2)] == [2] * 13
        assert deal == derive_deal(SEED, "m", CLIENTS, k)
        # the rules layer turns the positions into hands
        assert hands_of(deal) == deal_hands(d.deck(k), deal.dealer)
        assert [mask_of(deal.cards(s)) for s in range(4)] == list(hands_of(deal))
    other = d.deal(0, dealer=(first + 1) % 4)
    assert other.deck == d.deal(0).deck and other.cards(0) != d.deal(0).cards(0)
    assert Deal.from_deck(list(range(52)), 3).cards(0)[0] == 0  # card 0 to seat (3+1)%4
    with pytest.raises(AuditInputError, match="seat: 4"):
        d.deal(0, dealer=4)
    assert d.deal(0).to_dict()["deck"] == d.deck(0)


def test_first_dealer_takes_all_values():
    seen = Counter(derive_first_dealer(SEED, f"match-{i}", CLIENTS) for i in range(200))
    assert set(seen) == {0, 1, 2, 3}


def test_verify_deck():
    d = DealDeriver(SEED, "m", CLIENTS)
    deck = d.deck(4)
    d.verify_deck(4, deck)
    swapped = deck[:]
    swapped[10], swapped[11] = swapped[11], swapped[10]
    with pytest.raises(DealMismatchError, match=r"deal 4: .*first difference at position 10"):
        d.verify_deck(4, swapped)
    with pytest.raises(DealMismatchError, match="position 52"):
        d.verify_deck(4, [*deck, 0])


def test_third_block_fallback_matches_reference():
    # this deal of the match reads a third block (it is the 'third-block' test vector)
    from tarneeb.audit.vectors import THIRD_BLOCK_DEAL, fixed_bytes

    seeds = [fixed_bytes(f"client seed {s}") for s in range(4)]
    server_seed = fixed_bytes("server seed 0")
    d = DealDeriver(server_seed, b"test-vector-match-0", seeds)
    stream = HmacStream(server_seed, deal_message(b"test-vector-match-0", seeds, THIRD_BLOCK_DEAL,
                                                  d.binding))
    ref = shuffle(52, stream)
    assert stream.offset > 64 and len(stream.blocks) == 3
    assert d.deck(THIRD_BLOCK_DEAL) == ref
    # the four sets and the last card take the same fallback
    assert d.dealt(THIRD_BLOCK_DEAL, 1) == _sets_of(ref, 1)


@pytest.mark.parametrize("args, message", [
    ((bytes(31), "m", CLIENTS, 0), "server seed: 31 bytes; it must be 32 bytes"),
    ((bytes(33), "m", CLIENTS, 0), "server seed: 33 bytes"),
    ((SEED, "", CLIENTS, 0), "match id: 0 bytes; it must be 1-64 bytes"),
    ((SEED, "x" * 65, CLIENTS, 0), "match id: 65 bytes"),
    ((SEED, "m", CLIENTS[:3], 0), "client seeds: 3 given; there must be 4"),
    ((SEED, "m", [b"", *CLIENTS[1:]], 0), "client seed of seat 0: 0 bytes"),
    ((SEED, "m", [bytes(15), *CLIENTS[1:]], 0), "client seed of seat 0: 15 bytes; it must be "
                                                "16-64 bytes (a shorter seed can be found"),
    ((SEED, "m", [*CLIENTS[:3], bytes(65)], 0), "client seed of seat 3: 65 bytes"),
    ((SEED, "m", b"abcd", 0), "client seeds: give a sequence of four seeds"),
    ((SEED, "m", CLIENTS, -1), "deal number: -1"),
    ((SEED, "m", CLIENTS, 2**32), "deal number: 4294967296"),
    ((SEED, "m", CLIENTS, "3"), "deal number: '3'"),
    (("ab" * 32, "m", CLIENTS, 0), "server seed must be bytes, not str"),
])
def test_bad_inputs(args, message):
    with pytest.raises(AuditInputError, match=message.replace("(", r"\(")):
        derive_deck(*args)


def test_shuffle_sizes():
    with pytest.raises(AuditInputError, match="shuffle size 0"):
        shuffle(0, HmacStream(SEED, b"x"))
    assert shuffle(1, HmacStream(SEED, b"x")) == [0]
    big = permutation(SEED, b"big", 300)  # two-byte draws
    assert sorted(big) == list(range(300))


# ---------------------------------------------------------------- no bias --

@pytest.mark.parametrize("width", [1, 2])
def test_acceptance_is_exactly_uniform(width):
    """For every bound, each index has the same number of accepted draws."""
    space = 1 << (8 * width)
    bounds = range(1, 257) if width == 1 else [3, 5, 52, 300, 1000, 40000, 65535]
    for m in bounds:
        limit = accept_limit(m, width)
        assert limit % m == 0 and space - m < limit <= space
        if width == 1:
            counts = Counter(v % m for v in range(limit))
            assert set(counts.values()) == {limit // m}


def test_rejected_draws_are_skipped():
    # a stream whose first byte (255) must be rejected for m = 52 (limit 208)
    class Fixed(HmacStream):
        def __init__(self, data: bytes) -> None:
            self._buf = bytearray(data)
            self.offset = 0
            self.blocks = []

    trace: list[Draw] = []
    assert uniform_index(52, Fixed(bytes([255, 208, 207])), 1, trace) == 207 % 52
    assert [(d.value, d.accepted) for d in trace] == [(255, False), (208, False), (207, True)]


def test_five_card_sampler_is_unbiased():
    """12,000 permutations of 5 cards from fixed derived seeds hit all 120 orders evenly.

    Pearson's chi-square with 119 degrees of freedom must stay below 173.6
    (p = 0.001). The seeds are fixed, so the test is deterministic.
    """
    n_samples = 12_000
    counts: Counter[tuple[int, ...]] = Counter()
    for i in range(n_samples):
        server_seed = hashlib.sha256(b"chi-square seed %d" % i).digest()
        counts[tuple(permutation(server_seed, deal_message(b"chi", CLIENTS, i, bytes(32)), 5))] += 1
    orders = list(itertools.permutations(range(5)))
    assert set(counts) == set(orders)
    expected = n_samples / len(orders)
    chi2 = sum((counts[o] - expected) ** 2 / expected for o in orders)
    assert chi2 < 173.6, chi2


def test_thirteenth_card_is_unbiased():
    """The dealer's 13th card over 10,400 deals: chi-square, 51 df, below 86.7 (p = 0.001)."""
    d = DealDeriver(SEED, "chi-square", CLIENTS)
    n = 10_400
    counts = Counter(d.deck(k)[51] for k in range(n))
    expected = n / 52
    chi2 = sum((counts[c] - expected) ** 2 / expected for c in range(52))
    assert chi2 < 86.7, chi2
