"""An abandoned match's end record against the replayed state: a timeout blames the seat to
move where the log stops, and only then; a match already won is not abandoned."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tarneeb.replay.log import Abandonment, EndRecord, parse_log
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.people import Table
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations import EditableLog, alter, rewrite
from tarneeb.testing.alterations.end import abandon_in_hand

SEED = b"test-abandonment"
KEY = MatchSecrets(SEED).key


@pytest.fixture(scope="module", params=["classic", "eram41"])
def log(request: pytest.FixtureRequest) -> bytes:
    return play_logged_match(request.param, seed=SEED)


def played(log: bytes, skip: int = 1) -> tuple[int, int]:
    """A played hand after the first ``skip`` hands, and how many moves come before its
    first card (the calls, and the named trump)."""
    parsed = parse_log(log)
    n = next(i for i, r in enumerate(parsed.hands) if i >= skip and len(r.plays) == 52)
    rec = parsed.hands[n]
    return n, len(rec.calls) + (parsed.header.rules.trump == "named")


def where(v: Verdict) -> list[tuple[str, int | None, int | None, int | None]]:
    return [(f.kind, f.hand, f.trick, f.seat) for f in v.findings]


def test_a_timeout_of_the_seat_to_move_is_clean_at_every_move_of_a_hand(log: bytes) -> None:
    """In the bidding, the trump naming (classic's auction) and the play: the seat whose
    turn it is may time out; any other seat blamed is a finding on that seat, there."""
    n, before = played(log, 2)
    for k in (0, 3, before - 1, before, before + 1, before + 17, before + 51):
        honest, seat = abandon_in_hand(log, hand=n, moves=k, resign=KEY)
        v = verify_bytes(honest)
        assert v.clean, (k, [str(f) for f in v.findings])
        assert v.ending is not None and "timed out" in v.ending
        for other in {0, 1, 2, 3} - {seat}:
            v = verify_bytes(abandon_in_hand(log, hand=n, moves=k, seat=other, resign=KEY)[0])
            assert [f.kind for f in v.findings] == ["timeout-out-of-turn"], (k, other)
            f = v.findings[0]
            assert (f.hand, f.seat) == (n, other)
            assert f"seat {seat}'s turn" in f.message


def test_the_wrong_seat_blamed_is_named_with_hand_trick_and_player(log: bytes) -> None:
    n, before = played(log)
    _, seat = abandon_in_hand(log, hand=n, moves=before + 10, resign=KEY)  # in trick 3
    blamed = (seat + 2) % 4
    v = verify_bytes(abandon_in_hand(log, hand=n, moves=before + 10, seat=blamed,
                                     resign=KEY)[0])
    (f,) = v.findings
    assert (f.kind, f.hand, f.trick) == ("timeout-out-of-turn", n, 3)
    table = Table.of(v)
    text = table.say(str(f))
    assert text.startswith(f"hand {n + 1}, trick 3, {table.names[blamed]}: ")
    assert f"{table.names[seat]}’s turn to play" in text


def test_a_timeout_between_two_hands_is_nobody_s_turn(log: bytes) -> None:
    def stop(ed: EditableLog) -> None:
        assert ed.end is not None
        del ed.hands[3:]
        ed.end = EndRecord(None, ed.end.server_seed, Abandonment("timeout", 1, "no answer"))

    v = verify_bytes(rewrite(log, stop, KEY))
    assert where(v) == [("timeout-no-turn", 2, None, 1)]
    assert "after hand 2, before the next deal" in v.findings[0].message


def test_a_timeout_after_a_hand_s_last_card_is_nobody_s_turn(log: bytes) -> None:
    out, alt = alter("timeout-no-turn", log, choice=1, resign=KEY)
    v = verify_bytes(out)
    assert where(v) == [("timeout-no-turn", alt.hand, None, alt.seat)]
    assert "13 tricks were played" in v.findings[0].message


@pytest.mark.parametrize("cause", ["disconnect", "resignation", "timeout"])
def test_a_match_already_won_is_not_abandoned(log: bytes, cause: str) -> None:
    """The platform keeps the winning hand but says a player left: the scores say who won."""
    def stop(ed: EditableLog) -> None:
        assert ed.end is not None
        ed.end = EndRecord(None, ed.end.server_seed, Abandonment(cause, 0, "left"))

    v = verify_bytes(rewrite(log, stop, KEY))
    last = len(parse_log(log).hands) - 1
    kinds = [f.kind for f in v.findings]
    assert "no-winner" in kinds
    no_winner = next(f for f in v.findings if f.kind == "no-winner")
    assert f"in hand {last}" in no_winner.message and "abandoned" in no_winner.message
    if cause == "timeout":
        assert ("timeout-no-turn", last, None, 0) in where(v)
    else:
        assert kinds == ["no-winner"]


def test_a_disconnect_or_resignation_may_come_from_any_seat(log: bytes) -> None:
    """Only a timeout is bound to the turn; who disconnects is the platform's word."""
    n, _ = played(log)
    for cause in ("disconnect", "resignation"):
        for seat in range(4):
            def stop(ed: EditableLog, cause: str = cause, seat: int = seat) -> None:
                assert ed.end is not None
                ed.hands[n] = replace(ed.hands[n], plays=ed.hands[n].plays[:9],
                                                  closed=False, tricks=None, scores=None,
                                                  totals=None, timer=0)
                del ed.hands[n + 1:]
                if ed.header.rules.trump != "named":
                    ed.hands[n].trump = None
                ed.end = EndRecord(None, ed.end.server_seed, Abandonment(cause, seat, "gone"))

            v = verify_bytes(rewrite(log, stop, KEY))
            assert v.clean, [str(f) for f in v.findings]


def test_a_timeout_in_a_hand_the_replay_could_not_finish_is_noted_not_guessed(
        log: bytes) -> None:
    """A finding stops the replay inside the hand: whose turn it was is not known, so the
    timeout is not judged (the hand's own finding already keeps the verdict from clean)."""
    n, before = played(log)
    honest, _ = abandon_in_hand(log, hand=n, moves=before + 8, resign=KEY)

    def swap(ed: EditableLog) -> None:
        rec = ed.hands[n]
        plays = bytearray(rec.plays)
        plays[1], plays[2] = plays[2], plays[1]  # the second card played out of turn
        ed.hands[n] = replace(rec, plays=bytes(plays))

    v = verify_bytes(rewrite(honest, swap, KEY))
    kinds = [f.kind for f in v.findings]
    assert kinds and not {"timeout-out-of-turn", "timeout-no-turn"} & set(kinds)
    assert any("timeout's seat is not checked" in n for n in v.notes)
