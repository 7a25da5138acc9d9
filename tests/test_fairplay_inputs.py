"""The fair-play analysis on awkward inputs: seats without names, names that look alike, an
archive too small to test, paths that need quoting, the same log twice under
``--play-sample``."""

from __future__ import annotations

import random
import shlex
from pathlib import Path

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
    # past U+FFFF, eight digits: "𝐁ob" and "ᵀ1ob" were both written \u1d401ob
    from tarneeb.replay.fairplay.summary import _written_out

    assert _written_out("\U0001d401ob") != _written_out("\u1d401ob")
    assert "\\U0001d401ob" in _written_out("\U0001d401ob")


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


def _report(ps: PlaySummary, logs: int = 3) -> str:
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.report.archive import archive_page

    summary = ArchiveSummary()
    summary.logs = summary.clean = logs
    return archive_page(summary, {}, 0.05, play=ps.results(0.05))


def test_the_archive_report_says_untested_play_is_untested() -> None:
    """With no group of enough decisions, the report's fair-play verdict said "No evidence
    of play with cards not seen" in the colour of a pass, where the text says NOT TESTED."""
    page = _report(_table(("Ann", "Bo", "Cy", "Di"), 3))
    verdict = page.split('id="fairplay-verdict">', 1)[1].split("</p>", 1)[0]
    assert "NOT TESTED" in verdict and "no evidence" not in verdict.lower()
    # tested and quiet: it says what was examined, as the text does
    quiet = _table(("Ann", "Bo", "Cy", "Di"), 0)
    for i in range(120):
        quiet.add(MatchPlay(f"h{i}.tlog", ("Ann", "Bo", "Cy", "Di"), (False,) * 4, [
            HandPlay(i, tuple(Decision(s, 20 + s, 5, (i + s) % 2, 1, 2, 10, 5, 10, 5, 10)
                              for s in range(4)))]))
    page = _report(quiet)
    verdict = page.split('id="fairplay-verdict">', 1)[1].split("</p>", 1)[0]
    assert verdict.startswith("No evidence of play with cards not seen, in the play examined")


def test_the_archive_reports_headline_names_the_play_flagged() -> None:
    """The banner, "what a reader must know if they read nothing else", said the logs
    clean and the deals fair while the play was flagged (exit code 3)."""
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.report.archive import headline

    ps = _table(("Ann", "Bo", "Cy", "Di"))
    results = ps.results(0.05)
    assert any(r.flagged for r in results)
    summary = ArchiveSummary()
    summary.logs = summary.clean = 120
    banner = headline(summary, {}, results)
    assert banner.tone == "findings", banner
    assert "the play shows evidence of cards not seen" in banner.headline
    assert "Ann" in banner.headline
    assert headline(summary, {}, None).tone != "findings"


def test_logs_the_archive_finds_fault_with_are_not_in_the_play_figures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """"Clean logs only": two matches dealt from one server seed (a leaf both use, found
    when the second is read) and a log whose bytes changed since the state judged it were
    analysed all the same; they are not."""
    pytest.importorskip("endplay")
    import json

    from cli_runner import run

    from tarneeb.replay.server.simulate import play_logged_match
    from tarneeb.testing.archive import archive_log, platform_key

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    key = platform_key(b"reuse")
    for i in range(2):
        (tmp_path / f"m{i}.tlog").write_bytes(play_logged_match(
            "eram41", seed=b"m%d" % i, key=key, server_seed=b"S" * 32))
    code, out, _ = run(capsys, "audit", str(tmp_path / "m0.tlog"), str(tmp_path / "m1.tlog"),
                       "--play-sample", "1", "--json", "--no-stats", "-j", "1")
    doc = json.loads(out)
    assert code == 1 and doc["findings_by_kind"] == {"reused-leaf": 2}
    assert doc["fairplay"]["matches"] == 0

    archive = tmp_path / "a"
    archive.mkdir()
    for i in range(2):
        name, data = archive_log(i, rules=("eram41",))
        (archive / name).write_bytes(data)
    state = str(tmp_path / "audit.state")
    audit = ("audit", str(archive), "--play-sample", "1", "--state", state, "--no-stats", "-j",
             "1", "--json")
    assert json.loads(run(capsys, *audit)[1])["fairplay"]["matches"] == 2
    first = sorted(archive.iterdir())[0]
    first.write_bytes(archive_log(7, rules=("eram41",))[1])
    for _ in range(2):  # as it is found changed, and in the run after (from the state)
        doc = json.loads(run(capsys, *audit)[1])
        assert doc["findings_by_kind"] == {"changed-log": 1}
        assert doc["fairplay"]["matches"] == 1


def test_no_stats_with_play_does_not_promise_exit_code_3_is_never_given(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cli_runner import run

    from tarneeb.testing.archive import archive_log

    name, data = archive_log(3, rules=("eram41",))
    (tmp_path / name).write_bytes(data)
    _, out, _ = run(capsys, "audit", str(tmp_path), "--no-stats", "-j", "1")
    assert "exit code 3 is never given" in out
    pytest.importorskip("endplay")
    _, out, _ = run(capsys, "audit", str(tmp_path), "--no-stats", "--play-sample", "1", "-j",
                    "1")
    assert "never given" not in out and "fair-play analysis alone" in out


def test_two_partnerships_whose_names_join_alike_are_two_groups() -> None:
    """"A & B" with "C" and "A" with "B & C" made one group, "A & B & C": a cheating pair's
    decisions pooled with an honest one's."""
    ps = _table(("A & B", "x", "C", "y"), 60)
    for i in range(60):
        ps.add(MatchPlay(f"o{i}.tlog", ("A", "x", "B & C", "y"), (False, True, False, True),
                         [HandPlay(i, (Decision(0, 20, 5, i % 2, 1, 2, 10, 5, 10, 5, 10),))]))
    groups = {r.name for r in ps.results(0.05) if r.kind == "partnership"}
    assert {'"A & B" & C', 'A & "B & C"'} <= groups
