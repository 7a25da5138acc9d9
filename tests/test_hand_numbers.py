"""Text for people counts hands from 1 everywhere: the verdict, the reader's line on the
bytes it cannot read, the recorder's errors, the archive report; ``--json`` keeps deal
numbers from 0."""

from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest

import tarneeb
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(scope="module")
def log() -> bytes:
    return play_logged_match("eram41", seed=b"test hand numbers")  # reproducible


def claims_end(data: bytes, n: int) -> tuple[int, int]:
    """Where hand ``n``'s claims record starts and ends (the next deal record, or the end)."""
    p = parse_log(data)
    stop = p.offsets[n + 1]
    for start in range(p.offsets[n], stop):
        if data[start] == 0x95:  # the claims record: an array of 5
            try:
                if msgpack.unpackb(data[start:stop])[0] == 4:
                    return start, stop
            except (ValueError, msgpack.exceptions.ExtraData):
                continue
    raise AssertionError("no claims record")


def unreadable_of(data: bytes) -> str:
    """What the verdict tells people of the first bytes the reader cannot take as a value:
    the log is checked up to them (exit 1)."""
    from tarneeb.replay.verify.people import Table

    v = verify_bytes(data, "m.tlog")
    assert v.error is None and v.exit_code == 1
    said = next(f.message for f in v.findings if f.message.startswith("unreadable from"))
    return Table.of(v).say(said)


def test_a_move_after_a_claims_record_names_the_hand_from_1(log: bytes) -> None:
    _, stop = claims_end(log, 2)  # deal number 2: the third hand
    said = unreadable_of(log[:stop] + b"\x41" + log[stop:])
    assert said.startswith(f"unreadable from byte {stop}: a move after hand 3's claims record,")


def test_a_deal_while_a_hand_is_open_names_the_hand_from_1(log: bytes) -> None:
    start, stop = claims_end(log, 0)
    said = unreadable_of(log[:start] + log[stop:])
    assert f"unreadable from byte {start}: a deal record while hand 1 is still open: its " \
        "claims record is missing" in said


@pytest.mark.parametrize(("move", "says"), [(b"\x41", "hand 2, move 56: a call after the play "
                                                      "began"),
                                           (b"\x01", "hand 2 has more than 52 cards")])
def test_a_bad_move_names_its_hand_from_1(log: bytes, move: bytes, says: str) -> None:
    p = parse_log(log)
    assert len(p.hands[1].plays) == 52 and len(p.hands[1].calls) == 4
    start, _ = claims_end(log, 1)
    assert f"unreadable from byte {start}: {says}" in unreadable_of(log[:start] + move
                                                                     + log[start:])


def test_the_cli_line_counts_hands_from_1(log: bytes, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.entry import main

    _, stop = claims_end(log, 0)
    path = tmp_path / "bad.tlog"
    path.write_bytes(log[:stop] + b"\x41" + log[stop:])
    with pytest.raises(SystemExit) as e:
        main(["verify", str(path)])
    assert e.value.code == 1
    out = capsys.readouterr().out
    assert f"  match: unreadable from byte {stop}: a move after hand 1's claims record," in out


def test_the_recorder_counts_hands_from_1(tmp_path: Path) -> None:
    s = MatchSecrets(b"test hand numbers")
    rec = tarneeb.MatchRecorder(tmp_path / "m.tlog", rules="eram41", seats=["A", "B", "C", "D"],
                                match_id=b"m", first_dealer=0)
    rec.deal(0, revealed=0)
    with pytest.raises(tarneeb.RecorderError, match="a deal while hand 1 is open"):
        rec.deal(1, revealed=1)
    with pytest.raises(tarneeb.RecorderError, match=r"^hand 1 is open"):
        rec.finish(0, s.server_seed)


def test_a_keys_record_of_a_hand_twice_is_said_from_1() -> None:
    from tarneeb.replay.server.blind import play_blind_match
    from tarneeb.replay.verify.people import Table
    from tarneeb.testing.alterations import base as tamper

    seed = b"test hand numbers blind"
    ed = tamper._open(play_blind_match("qahwa41", seed=seed, target=3))
    ed.keys.append(ed.keys[0])
    v = verify_bytes(tamper._close(ed, MatchSecrets(seed).key))
    f = next(f for f in v.findings if "keys record" in f.message)
    assert "a keys record for hand 0, which has one already" in f.message  # as --json says
    assert "a keys record for hand 1, which has one already" in Table.of(v).say(str(f))


def test_a_seat_that_cannot_read_its_cards_is_named_with_its_hand_from_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tarneeb.replay.server import blind as blindplay

    real = blindplay.deal_blind_v2

    def unreadable(seats, *args, **kw):  # type: ignore[no-untyped-def]
        deal = real(seats, *args, **kw)
        seats[1].unreadable.append(7)
        return deal

    monkeypatch.setattr(blindplay, "deal_blind_v2", unreadable)
    with pytest.raises(blindplay.BlindTableError, match=r"^hand 1: seat 1 could not read "):
        blindplay.play_blind_match("qahwa41", seed=b"test unreadable", target=3)


def test_the_archive_report_counts_hands_from_1(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.entry import main

    entry = next(e for e in json.loads((FIXTURES / "altered" / "manifest.json").read_text())
                 if e["file"] == "renege-eram41.tlog")
    page = tmp_path / "audit.html"
    with pytest.raises(SystemExit):
        main(["audit", "--json", "-j", "1", "--report", str(page),
              str(FIXTURES / "altered" / entry["file"])])
    capsys.readouterr()
    html = page.read_text(encoding="utf-8")
    n, trick = entry["hand"], entry["trick"]
    assert f"renege-eram41.tlog: hand {n + 1}, trick {trick}, seat {entry['seat']}" in html
    assert f"hand {n}, trick" not in html


def test_lists_of_hands_count_from_1_in_every_number() -> None:
    """A sentence naming several hands (runs and single ones, as the not-replayed finding and
    the note on blind hands never shown write them) has each number counted from 1."""
    from tarneeb.replay.verify.findings import Verdict
    from tarneeb.replay.verify.people import Table, hands_from_1
    from tarneeb.replay.verify.provenance import note_secret_hands, report_not_replayed

    v = Verdict("m.tlog")
    report_not_replayed(v, [(n, 10 * n, "no deal") for n in (0, 1, 2, 3, 7, 9, 10)])
    note_secret_hands(v, [4, 5, 8])
    said = Table(["N", "E", "S", "W"])
    assert "hands 1-4, 8, 10-11 (7 dealing attempts)" in said.say(v.findings[0].message)
    assert hands_from_1(v.notes[0]).startswith("hand(s) 5-6, 9 dealt blind and never played")


def test_a_name_that_reads_as_another_seat_is_shown_with_its_own() -> None:
    """A player named like a seat, or two players of one name, would make the verdict's
    text blame the wrong player: such names are quoted, with the seat they sit at."""
    from tarneeb.replay.verify.people import Table

    t = Table(["seat 3", "Bo", "bo", "Seat 4"])
    said = t.say("seat 0 played 10♥, which it does not hold; seat 3 followed")
    assert said == "“seat 3” (Seat 1) played 10♥, which it does not hold; Seat 4 followed"
    assert t.say("seat 1 and seat 2") == "“Bo” (Seat 2) and “bo” (Seat 3)"


@pytest.mark.parametrize("names, quoted", [
    (["Ana", "Seat\u200b 4", "Cy", "Dee"], [1]),  # an invisible character in "Seat 4"
    (["Omar\u200b", "Ben", "Omar", "Dee"], [0, 2]),
    (["\u041emar", "Ben", "Omar", "Dee"], [0, 2]),  # a Cyrillic capital O
    (["Bill", "BiII", "Cy", "Dee"], [0, 1]),  # capital I's for small l's
    (["\u0405\u0435\u0430t 3", "Ben", "Cy", "Dee"], [0]),  # Cyrillic letters, another seat
    (["\u0405\u0435\u0430t 1", "Ben", "Cy", "Dee"], []),  # ... its own seat's: says it
    (["Ana", "Ben", "Cy", "Dee"], []),
])
def test_a_name_that_only_looks_like_a_seat_or_another_is_shown_with_its_own(
        names: list[str], quoted: list[int]) -> None:
    """A name that only looks like another seat's label or another player's name (an
    invisible character in it, a letter of another script, a digit or capital for a
    letter: UTS #39's confusables) would make the verdict blame the wrong seat: it is
    quoted with its seat, as an exact one is."""
    from tarneeb.replay.verify.people import Table

    shown = Table(names).names
    assert [s for s in range(4) if shown[s] != names[s]] == quoted
    assert all(shown[s] == f"“{names[s]}” (Seat {s + 1})" for s in quoted)


def test_show_counts_hands_from_1_and_says_so_for_hand_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.entry import main

    path = tmp_path / "m.tlog"
    path.write_bytes(play_logged_match("eram41", seed=b"test hand numbers"))
    hands = len(parse_log(path.read_bytes()).hands)

    def show(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as e:
            main(["show", str(path), *args])
        out, err = capsys.readouterr()
        return int(e.value.code or 0), out, err

    code, out, _ = show("--hand", "1")
    assert code == 0 and "\nHand 1 — dealer: " in out and "\nHand 2 " not in out
    code, out, err = show("--hand", "0")
    assert code == 2 and out == ""
    assert err == f"tarneeb: error: --hand 0: hands count from 1 ({path} has hands 1-{hands})\n"
    code, out, _ = show("--json", "--hand", "1")  # the same hand: its deal number is 0
    assert code == 0 and [h["deal_number"] for h in json.loads(out)["hands"]] == [0]
    code, out, err = show("--json", "--hand", "0")
    assert code == 2 and out == "" and "hands count from 1" in err


def test_the_demo_says_where_it_altered_a_log_as_the_verdict_does(tmp_path: Path) -> None:
    """The demo's comment above an altered log names the hand from 1 and the seat by its
    player, as the verdict printed under it does."""
    from tarneeb.cli.demo import what_changed
    from tarneeb.replay.verify.people import Table
    from tarneeb.testing.alterations import alter

    original = play_logged_match("sahrat41", seed=b"test hand numbers demo")
    altered, what = alter("replace-played-card", original, choice=4)
    said = what_changed(original, altered, what)
    assert what.hand is not None and what.seat is not None and what.trick is not None
    names = [s.name for s in parse_log(original).header.seats]
    assert said.startswith(f"hand {what.hand + 1}, trick {what.trick}, {names[what.seat]}: "
                           "its ")
    v = verify_bytes(altered)
    first = next(f for f in v.findings if f.hand is not None)
    assert Table.of(v).say(str(first)).startswith(said.split(": ")[0])


def test_every_command_of_the_demo_succeeds(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``make demo`` up to its archive (which tests/test_archive.py covers): no command of
    it prints an error, and its text counts hands from 1."""
    from tarneeb.cli import demo

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(demo, "archive_audit", lambda: None)
    monkeypatch.setattr(demo, "screenshot", lambda page, png: None)
    demo.main()
    out, err = capfd.readouterr()
    assert "error" not in out + err
    assert "$ tarneeb show out/demo/sahrat41.tlog --hand 1\n" in out and "\nHand 1 — " in out
    assert "8 of 8 altered copies caught" in out
    # the seats whose commitments differ from the receipt's are named by their players
    assert "the client commitments of North bot, East bot, South bot, West bot are not the " \
        "ones promised" in out
    for line in out.splitlines():
        if line.startswith("# out/demo/") and "-altered.tlog: hand " in line:
            hand = line.split(": hand ", 1)[1].split(",")[0]
            verdict = out.split(line, 1)[1]
            assert f"\n  hand {hand}, trick " in verdict.split("(exit code", 1)[0], line
