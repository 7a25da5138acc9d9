"""The fast path gives the very verdict of the move-by-move replay.

A hand whose every move is legal is replayed in one piece
(:meth:`MatchState.play_hand`, :mod:`tarneeb.replay.fastplay`); anything else goes
move by move. ``verify_log(fast=False)`` replays every hand move by move: on the
corpus, the altered logs, generated, edited and altered matches the two verdicts
(as JSON, and the engine's hands) must be the same. The slow side also reads the log
the careful way (not :mod:`tarneeb.replay.fastread`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb.replay.cards import deal_hands
from tarneeb.replay.engine import BID_BASE, PASS, MatchState, Phase
from tarneeb.replay.logformat import DEFAULT_LIMITS, LogError, _parse_carefully, parse_log
from tarneeb.replay.replayer import verify_log
from tarneeb.replay.rules import PRESETS, preset
from tarneeb.replay.simulate import play_logged_match
from tarneeb.testing.alteration_base import NotApplicable
from tarneeb.testing.alterations import REGISTRY, alter
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
