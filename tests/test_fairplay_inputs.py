"""The fair-play analysis on awkward inputs: seats without names, names that look alike, an
archive too small to test, paths that need quoting, the same log twice under
``--play-sample``."""

from __future__ import annotations

import random
import shlex

import pytest

from tarneeb.replay.fairplay.analyse import Decision, HandPlay
from tarneeb.replay.fairplay.summary import (
    MatchPlay,
    PlaySummary,
    WeighingHand,
    play_lines,
    replay_hint,
)


def _table(names: tuple[str, str, str, str], matches: int = 120) -> PlaySummary:
    """``matches`` one-hand matches: seat 0 leads every hand with a card best on the real
    layout that its information gave one chance in ten (an opening lead, before its partner
    played), and beats its information on a later decision too; the others are honest."""
    ps = PlaySummary()
    for i in range(matches):
        ds = (Decision(0, 0, 1, 1, 1, 2, 10, 1, 10, 1, 10),
              Decision(0, 20, 5, 1, 1, 2, 10, 3, 13, 3, 17),
              Decision(1, 21, 6, i % 2, 1, 2, 10, 5, 10, 5, 10),
              Decision(2, 22, 7, (i + 1) % 2, 1, 2, 10, 5, 10, 5, 10),
              Decision(3, 23, 8, i % 2, 1, 2, 10, 5, 10, 5, 10))
        ps.add(MatchPlay(f"m{i}.tlog", names, (False, True, False, True), [HandPlay(i, ds)]))
    return ps


def test_seats_without_names_are_no_player_and_no_partnership() -> None:
    """Nameless seats (of many matches, or all four of one) are nobody: their decisions
    count for their label only, and no sentence names a player ""."""
    ps = _table(("", "", " ", ""))
    rs = ps.results(0.05)
    assert {r.kind for r in rs} == {"label"}
    assert any(r.flagged for r in rs)  # the label still carries the evidence
    text = play_lines(ps, rs, 0.05)
    assert not any("player" in x.split(":")[0] and "FLAGGED player" in x for x in text)
    # a named partner of a nameless seat: a player, but no partnership
    rs = _table(("Ann", "", "", "Di")).results(0.05)
    kinds = {(r.kind, r.name) for r in rs}
    assert ("player", "Ann") in kinds and ("own", "Ann") in kinds
    assert not any(k in ("partnership", "partner-cards") and "Ann" in n for k, n in kinds)


def test_a_cap_counts_nameless_seats_together() -> None:
    ps = PlaySummary(cap=3)
    for i in range(5):
        ds = (Decision(1, 21, 6, 1, 1, 2, 10, 5, 10, 5, 10),)
        ps.add(MatchPlay(f"m{i}.tlog", ("", "", "", ""), (False,) * 4, [HandPlay(i, ds)]))
    assert ps.hands == 3


def test_names_that_look_alike_are_written_out_where_one_is_named() -> None:
    """A Cyrillic ``Вob`` who is named beside an honest ``Bob``: every sentence writes the
    names out, so the accusation cannot be read as Bob's; so with an invisible character."""
    ps = _table(("\u0412ob", "Di", "Cy", "Eve"))
    for i in range(120):
        ps.add(MatchPlay(f"h{i}.tlog", ("Bob", "Di", "Cy", "Eve"), (False, True, False, True),
                         [HandPlay(i, (Decision(0, 20, 5, i % 2, 1, 2, 10, 5, 10, 5, 10),))]))
    rs = ps.results(0.05)
    assert {r.name for r in rs if r.kind == "player" and r.flagged} == {"\u0412ob"}
    text = play_lines(ps, rs, 0.05)
    flagged = [x for x in text if "FLAGGED player" in x]
    assert flagged and all("\\u0412ob" in x for x in flagged)
    assert not any("FLAGGED player Bob" in x for x in text)
    assert any(x.startswith("  player “Bob”:") for x in text)
    ps = _table(("Omar\u200b", "Di", "Cy", "Eve"), 60)
    rs = ps.results(0.05)
    assert any("Omar\\u200b" in x for x in play_lines(ps, rs, 0.05))


def test_an_archive_too_small_to_test_is_said_untested_not_clean() -> None:
    ps = _table(("Ann", "Bo", "Cy", "Di"), 3)
    rs = ps.results(0.05)
    assert not any(r.tested for r in rs)
    text = play_lines(ps, rs, 0.05)
    assert not any("no evidence" in x for x in text)
    assert any("NOT TESTED" in x for x in text)
    assert f"{len(rs)} with fewer than 50 decisions not tested" in text[0]


def test_the_command_that_replays_a_hand_is_quoted() -> None:
    hint = replay_hint(WeighingHand(1.0, "logs/a match;rm x.tlog", 3, 4))
    assert shlex.split(hint) == ["tarneeb", "show", "logs/a match;rm x.tlog", "--hand", "3"]


def test_a_copy_of_a_log_does_not_use_up_its_players_sample() -> None:
    """With ``--play-sample 2``: a match of one played hand read twice (the same bytes,
    which the summary counts once) leaves its players one hand short, so their next match
    is analysed, as when the copy is not there."""
    pytest.importorskip("endplay")
    from tarneeb.replay.fairplay import PlayOptions, analyse_match
    from tarneeb.replay.rules.players import BotPlayer, MatchTooLong, play_match, shuffled_deals
    from tarneeb.replay.rules.ruleset import preset

    rng = random.Random(5)
    players = [BotPlayer(random.Random(i)) for i in range(4)]
    try:
        state, _ = play_match(preset("eram41"), 0, shuffled_deals(rng), players, max_hands=2)
    except MatchTooLong as e:
        state = e.state
    hands = [h for h in state.history if not h.cancelled and len(h.plays) == 52][:2]
    assert len(hands) == 2
    names = ("Ann", "Bo", "Cy", "Di")
    options = PlayOptions(b"seed", per_match=2, run="a copy of a log")
    one = analyse_match("a.tlog", b"a", hands[:1], names, (False,) * 4, False, options)
    copy = analyse_match("copy.tlog", b"a", hands[:1], names, (False,) * 4, False, options)
    other = analyse_match("b.tlog", b"b", hands[1:], names, (False,) * 4, False, options)
    assert len(one.hands) == 1 and not copy.hands and len(other.hands) == 1


def test_the_archive_report_writes_look_alike_names_out_as_the_text_does() -> None:
    """The report's fair-play rows named a Cyrillic ``Вob`` as ``Вob``, beside an honest
    ``Bob``: they write the names out as the printed lines do."""
    from tarneeb.report.archive import _play_rows

    ps = _table(("\u0412ob", "Di", "Cy", "Eve"))
    for i in range(120):
        ps.add(MatchPlay(f"h{i}.tlog", ("Bob", "Di", "Cy", "Eve"), (False, True, False, True),
                         [HandPlay(i, (Decision(0, 20, 5, i % 2, 1, 2, 10, 5, 10, 5, 10),))]))
    rows = _play_rows(ps.results(0.05))
    assert rows is not None
    groups = {r["group"] for r in rows}
    assert "player “\u0412ob” (\\u0412ob)" in groups and "player “Bob”" in groups
    assert "player Bob" not in groups and "player \u0412ob" not in groups
