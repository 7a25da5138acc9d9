"""The fast path gives the very verdict of the move-by-move replay.

A hand whose every move is legal is replayed in one piece
(:meth:`MatchState.play_hand`, :mod:`tarneeb.replay.rules.fastplay`); anything else goes
move by move. ``verify_log(fast=False)`` replays every hand move by move: on the
corpus, the altered logs, generated, edited and altered matches the two verdicts
(as JSON, and the engine's hands) must be the same. The slow side also reads the log
the careful way (not :mod:`tarneeb.replay.log.fastread`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb.replay.log import DEFAULT_LIMITS, LogError, _parse_carefully, parse_log
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.engine import BID_BASE, PASS, MatchState, Phase
from tarneeb.replay.rules.ruleset import PRESETS, preset
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_log
from tarneeb.testing.alterations import REGISTRY, alter
from tarneeb.testing.alterations.base import NotApplicable
from tarneeb.testing.strategies import edited_logs, logs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CORPUS = [*sorted((FIXTURES / "matches").glob("*.tlog")),
          *sorted((FIXTURES / "altered").glob("*.tlog"))]


def same_verdict(data: bytes) -> None:
    try:
        fast_log, slow_log = parse_log(data), _parse_carefully(data, DEFAULT_LIMITS)
    except LogError:
        return  # unreadable: no replay at all
    fast, slow = verify_log(fast_log), verify_log(slow_log, fast=False)
    assert fast.to_json() == slow.to_json()
    assert fast.history == slow.history


def test_corpus_and_altered_fixtures() -> None:
    assert len(CORPUS) > 50
    for path in CORPUS:
        same_verdict(path.read_bytes())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_generated_matches(data: bytes) -> None:
    same_verdict(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_logs())
def test_edited_matches(data: bytes) -> None:
    same_verdict(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**16), st.sampled_from(sorted(REGISTRY)),
       st.integers(0, 10**6))
def test_altered_matches(rules: str, seed: int, name: str, choice: int) -> None:
    log = play_logged_match(rules, seed=b"fastplay %d" % seed)  # reproducible: not secret
    assume(REGISTRY[name].applies(preset(rules)))
    try:
        out, _ = alter(name, log, choice=choice)
    except NotApplicable:
        assume(False)
    same_verdict(out)


def test_play_hand_leaves_the_state_alone_when_it_cannot() -> None:
    m = MatchState(preset("classic"), first_dealer=0)
    hands = deal_hands(list(range(52)), dealer=0)
    # a bid out of turn: seat 1 is first to call
    assert m.play_hand(hands, 51, [(2, 7), (3, 15), (0, 15), (1, 15)], 0, b"") is None
    assert m.phase == Phase.DEAL and m.deal_number == 0 and not m.history
    # all four pass: the hand is cancelled, as move by move
    hand = m.play_hand(hands, 51, [(1, 15), (2, 15), (3, 15), (0, 15)], None, b"")
    assert hand is not None and hand.cancelled and m.deal_number == 1 and m.dealer == 1


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_play_hand_is_move_by_move_play(rules: str) -> None:
    log = parse_log(play_logged_match(rules, seed=b"fastplay hands"))  # reproducible
    slow = verify_log(log, fast=False)
    state = MatchState(log.header.rules, slow.history[0].dealer)
    for want in slow.history:
        calls = [(s, 15 if a == PASS else a - BID_BASE) for s, a in want.calls]
        trump = want.trump if not want.cancelled else None
        got = state.play_hand(want.hands, want.thirteenth, calls, trump, bytes(want.plays))
        assert got == want


def _legal_plays(hands: list[int], leader: int, trump: int | None, rnd) -> bytes:
    """A whole hand played with random legal cards (following suit when able)."""
    from tarneeb.replay.rules.cards import SUIT_MASKS

    held = list(hands)
    out = []
    seat = leader
    for _ in range(13):
        trick: list[int] = []
        for k in range(4):
            s = (seat + k) & 3
            cards = [c for c in range(52) if held[s] >> c & 1]
            if trick and held[s] & SUIT_MASKS[trick[0] // 13]:
                cards = [c for c in cards if c // 13 == trick[0] // 13]
            card = rnd.choice(cards)
            held[s] &= ~(1 << card)
            trick.append(card)
        out += trick
        seat = (seat + _best_place(trick, trump)) & 3
    return bytes(out)


def _best_place(trick: Sequence[int], trump: int | None) -> int:
    """Where a trick's winning card lies, worked out here on its own (not by the engine)."""
    best = trick[0]
    for c in trick[1:]:
        if (c // 13 == best // 13 and c > best) or (c // 13 == trump != best // 13):
            best = c
    return list(trick).index(best)


def _winner_places(plays: bytes, trump: int | None) -> list[int]:
    return [_best_place(plays[t:t + 4], trump) for t in range(0, 52, 4)]


def _renege(plays: bytearray, leader: int, trump: int | None, rnd) -> bytearray:
    """The same seat's cards of two tricks swapped so that it plays off the led suit while
    it holds that suit (it plays it later), every trick won from the same place."""
    places = _winner_places(bytes(plays), trump)
    leaders = [leader]
    for place in places[:-1]:
        leaders.append((leaders[-1] + place) & 3)
    seat = [(leaders[p // 4] + p) & 3 for p in range(52)]
    pairs = [(i, j) for i in range(52) for j in range(i + 4 - i % 4, 52)
             if seat[i] == seat[j] and i % 4 and plays[i] // 13 == plays[i - i % 4] // 13
             and plays[j] // 13 != plays[i] // 13]
    rnd.shuffle(pairs)
    for i, j in pairs:  # the same winners: the same leaders, so the same seats
        edited = bytearray(plays)
        edited[i], edited[j] = edited[j], edited[i]
        if _winner_places(bytes(edited), trump) == places:
            return edited
    return plays


@settings(max_examples=100, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([None, 0, 1, 2, 3]),
       st.integers(0, 3), st.integers(0, 5))
def test_whole_hand_check_is_the_card_by_card_one(rnd, trump, leader, edit) -> None:
    """``all_tricks`` (bytes methods, a whole hand at once) against ``whole_tricks`` (card
    by card) on legal hands and on hands edited to break them: a renege (a card off the
    led suit while one of it is held), two cards swapped, a card played twice, a card
    of another seat's."""
    from tarneeb.replay.rules.fastplay import all_tricks, owners_of, whole_tricks

    deck = list(range(52))
    rnd.shuffle(deck)
    hands = deal_hands(deck, dealer=rnd.randrange(4))
    plays = bytearray(_legal_plays(list(hands), leader, trump, rnd))
    if edit == 1:  # swap two cards of the hand
        i, j = rnd.randrange(52), rnd.randrange(52)
        plays[i], plays[j] = plays[j], plays[i]
    elif edit == 2:  # one card played twice, another never
        plays[rnd.randrange(52)] = plays[rnd.randrange(52)]
    elif edit == 3:  # swap two cards within a trick: the seats' turns change
        t = 4 * rnd.randrange(13)
        k = rnd.randrange(3)
        plays[t + k], plays[t + k + 1] = plays[t + k + 1], plays[t + k]
    elif edit == 4:  # any card of the deck in some place
        plays[rnd.randrange(52)] = rnd.randrange(52)
    elif edit == 5:  # a renege that changes nothing else: who wins each trick stays
        plays = _renege(plays, leader, trump, rnd)
    winners: list[int] = []
    n = whole_tricks(hands, bytes(plays), leader, trump, winners, [0, 0, 0, 0])[0]
    got = all_tricks(owners_of(hands), bytes(plays), leader, trump)
    assert (None if got is None else list(got)) == (winners if n == 52 else None)
    if edit == 0:
        assert got is not None
