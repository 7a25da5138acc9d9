"""``tarneeb deal``: the match id as the other commands print it, and ``deal LOG --hand N``."""

from __future__ import annotations

import doctest
import importlib
import json
import shlex
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.cards import card_name, cards_of
from tarneeb.replay.verify.replayer import verify_log
from tarneeb.report.checkit import check_it

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOG = FIXTURES / "matches" / "eram41-01.tlog"
MANIFEST = json.loads((FIXTURES / "altered" / "manifest.json").read_text())


def _seed_args(log: Path) -> list[str]:
    parsed = parse_log(log.read_bytes())
    assert parsed.end is not None and parsed.end.server_seed is not None
    args = ["deal", "-s", parsed.end.server_seed.hex()]
    for c in parsed.header.client_seeds or []:
        args += ["-c", c.hex()]
    return args


def _hands_of(log: Path, n: int) -> list[list[str]]:
    """The hands of dealing attempt ``n`` as the Python replayer deals them."""
    history = verify_log(parse_log(log.read_bytes()), log.name).history
    return [[card_name(c, symbols=False) for c in reversed(cards_of(m))]
            for m in history[n].hands]


def test_the_match_id_as_show_prints_it_derives_the_logs_hands(capsys):
    """A log from tarneeb play has a binary match id; show prints it as hex, and -m with
    that hex derives the very hands the log was played with (it used to be taken as
    text: other hands, silently)."""
    code, shown, _ = run(capsys, "show", str(LOG))
    printed = shown.split(" match ", 1)[1].split(",", 1)[0]
    parsed = parse_log(LOG.read_bytes())
    assert printed == parsed.header.match_id.hex()
    rec = parsed.hands[1]
    code, out, err = run(capsys, *_seed_args(LOG), "-m", printed, "-d", "1", "--dealer",
                         str(rec.dealer), "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["hands"] == _hands_of(LOG, 1)
    code, out, _ = run(capsys, *_seed_args(LOG), "--match-id-hex", printed, "-d", "1",
                       "--dealer", str(rec.dealer), "--json")
    assert json.loads(out)["hands"] == _hands_of(LOG, 1)


def test_a_binary_match_id_is_printed_as_hex_not_garbled(capsys):
    printed = parse_log(LOG.read_bytes()).header.match_id.hex()
    code, out, _ = run(capsys, *_seed_args(LOG), "--match-id-hex", printed)
    assert code == 0
    assert out.splitlines()[0].startswith(f"match {printed}, deal 0")
    assert "\ufffd" not in out
    code, out, _ = run(capsys, *_seed_args(LOG), "--match-id-hex", printed, "--json")
    data = json.loads(out)
    assert data["match_id_hex"] == printed and data["match_id"] is None


def test_a_text_match_id_still_works_and_says_its_text(capsys):
    code, out, err = run(capsys, *_seed_args(LOG), "-m", "match-1")
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith(f"match {b'match-1'.hex()} (text 'match-1')")


def test_an_id_that_looks_like_hex_but_is_taken_as_text_gets_a_warning(capsys):
    code, _, err = run(capsys, *_seed_args(LOG), "-m", "12d92bef79b70ff")  # a digit lost
    assert code == 0
    assert err.startswith("tarneeb: warning: match id '12d92bef79b70ff' looks like hex")
    assert "odd number of digits" in err and "taken as text" in err
    code, _, err = run(capsys, *_seed_args(LOG), "--match-id-text", "12d92bef79b70ff9")
    assert code == 0 and "looks like hex" in err and "--match-id-text" in err
    code, _, err = run(capsys, *_seed_args(LOG), "-m", "12d92bef79b70ff9")
    assert code == 0 and err == ""  # hex, as printed: nothing to warn of
    code, _, err = run(capsys, *_seed_args(LOG), "-m", "a", "--match-id-hex", "ab")
    assert code == 2 and "give the match id once" in err


def test_deal_log_hand_rederives_the_hand_and_says_it_was_played(capsys):
    parsed = parse_log(LOG.read_bytes())
    for hand in (1, len(parsed.hands)):
        code, out, err = run(capsys, "deal", str(LOG), "--hand", str(hand), "--json")
        assert code == 0, err
        data = json.loads(out)
        assert data["as_played"] is True and data["hand"] == hand
        assert data["hands"] == _hands_of(LOG, hand - 1)
        assert data["match_id"] == parsed.header.match_id.hex()
    code, out, _ = run(capsys, "deal", str(LOG), "--hand", "2")
    assert code == 0 and "as recorded: the log plays hand 2 with exactly these hands" in out
    # the command it prints re-derives the same hand from the seeds alone
    again = out.splitlines()[-1].split("the same from the seeds alone: ", 1)[1]
    assert again == check_it(parsed, str(LOG), 2).seeds_command
    code, out2, _ = run(capsys, *shlex.split(again)[1:], "--json")
    assert code == 0 and json.loads(out2)["hands"] == _hands_of(LOG, 1)


def test_deal_log_hand_of_an_altered_log_is_not_as_recorded(capsys):
    entry = next(e for e in MANIFEST if e["kind"] == "card-not-held")
    log = FIXTURES / "altered" / entry["file"]
    code, out, _ = run(capsys, "deal", str(log), "--hand", str(entry["hand"] + 1))
    assert code == 1
    assert f"NOT AS RECORDED: the log's hand {entry['hand'] + 1} is not this deal" in out
    assert "card-not-held" in out


def test_deal_log_hand_n_is_the_nth_attempt_whatever_the_record_numbers_it(capsys):
    """A log that numbers its 25th attempt 24: hand 25 is the 25th attempt, dealt by the
    dealer the rules give, as ``show --hand 25``, the verifier and the page count it, and
    the seeds-only command it prints derives those same hands."""
    log = FIXTURES / "altered" / "wrong-deal-number-sahrat400.tlog"
    code, out, _ = run(capsys, "deal", str(log), "--hand", "25", "--json")
    data = json.loads(out)
    assert code == 1 and data["deal_number"] == 24 and data["as_played"] is False
    assert data["hands"] == _hands_of(log, 24) != _hands_of(log, 23)
    assert [f["kind"] for f in data["findings"]] == ["wrong-deal-number"]
    code, out, _ = run(capsys, "deal", str(log), "--hand", "25")
    again = out.splitlines()[-1].split("the same from the seeds alone: ", 1)[1]
    code, out2, _ = run(capsys, *shlex.split(again)[1:], "--json")
    assert code == 0 and json.loads(out2)["hands"] == _hands_of(log, 24)


def test_deal_log_hand_the_verifier_did_not_replay_is_not_proven(capsys):
    """A hand after the one that won the match is not replayed, so it has no findings of
    its own: it was "as recorded", exit 0, derived under the record's own dealer."""
    log = FIXTURES / "altered" / "played-after-win-qahwa41.tlog"
    last = len(parse_log(log.read_bytes()).hands)
    code, out, _ = run(capsys, "deal", str(log), "--hand", str(last))
    assert code == 1 and "as recorded" not in out
    assert f"NOT PROVEN: the verifier did not replay hand {last}" in out
    code, out, _ = run(capsys, "deal", str(log), "--hand", str(last), "--json")
    data = json.loads(out)
    assert code == 1 and data["replayed"] is False and data["as_played"] is False


def test_deal_log_hand_with_another_trump_than_the_deal_gives_is_not_as_recorded(capsys):
    """Under rules whose trump comes from the deal, a log that gives another trump did not
    play that deal as dealt (it was "as recorded")."""
    entry = next(e for e in MANIFEST if e["file"] == "wrong-trump-eram41.tlog")
    log = FIXTURES / "altered" / entry["file"]
    code, out, _ = run(capsys, "deal", str(log), "--hand", str(entry["hand"] + 1))
    assert code == 1 and "NOT AS RECORDED" in out and "wrong-trump" in out


def test_deal_log_of_a_log_whose_signature_fails_says_so(capsys, tmp_path):
    data = bytearray(LOG.read_bytes())
    data[-10] ^= 1  # inside the signature
    broken = tmp_path / "broken.tlog"
    broken.write_bytes(bytes(data))
    code, out, _ = run(capsys, "deal", str(broken), "--hand", "1")
    assert code == 0 and "as recorded" in out
    assert "note: the log's signature: broken-signature: this file may not be the " \
        "platform's log" in out
    code, out, _ = run(capsys, "deal", str(broken), "--hand", "1", "--json")
    assert json.loads(out)["signature_findings"] == ["broken-signature"]


def test_deal_log_bad_input_is_one_line(capsys, tmp_path):
    code, out, err = run(capsys, "deal", str(LOG), "--hand", "999")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no hand 999" in err
    junk = tmp_path / "junk.tlog"
    junk.write_bytes(b"not a log")
    code, out, err = run(capsys, "deal", str(junk))
    assert code == 2 and err.count("\n") == 1 and "junk.tlog" in err
    code, out, err = run(capsys, "deal", str(FIXTURES / "matches" / "eram41-recorded-deals.tlog"))
    assert code == 2 and "recorded its deals" in err


@pytest.mark.parametrize("module", ["tarneeb.cli.deal_log", "tarneeb.cli.page_cmd",
                                    "tarneeb.report.checkit"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_a_hand_whose_cards_the_replay_did_not_hold_to_the_deal_is_not_proven(capsys):
    """A hand the rules cancelled (all four passed) that the log plays all the same, with
    another hand's cards: the verifier finds it played when cancelled and never holds
    its cards to the deal; ``deal`` said "as recorded" (exit 0) of it."""
    log = FIXTURES / "altered" / "played-when-cancelled-classic.tlog"
    code, out, _ = run(capsys, "deal", str(log), "--hand", "15")
    assert code == 1 and "NOT PROVEN: the verifier did not replay hand 15" in out, out
    assert "as recorded" not in out
    code, out, _ = run(capsys, "deal", str(log), "--hand", "15", "--json")
    assert code == 1 and json.loads(out)["as_played"] is False


@pytest.mark.parametrize("name", ["cancelled-wrongly-qahwa41.tlog",
                                  "cancelled-wrongly-classic.tlog"])
def test_a_hand_the_log_cancels_wrongly_was_never_played(capsys, name):
    """A hand whose calls do not cancel it, cancelled by the log: "as recorded: the log
    plays hand N with exactly these hands" (exit 0), of a hand never played."""
    entry = next(e for e in MANIFEST if e["file"] == name)
    log, hand = FIXTURES / "altered" / name, str(entry["hand"] + 1)
    code, out, _ = run(capsys, "deal", str(log), "--hand", hand)
    assert code == 1 and "as recorded" not in out
    assert f"NOT PLAYED: the log cancels hand {hand}, which its calls do not cancel" in out \
        or "NOT AS RECORDED" in out  # (qahwa41's: its trump, from the deal, not given)
    code, out, _ = run(capsys, "deal", str(log), "--hand", hand, "--json")
    data = json.loads(out)
    assert code == 1 and data["as_played"] is False
    assert "cancelled-wrongly" in [f["kind"] for f in data["findings"]]


def test_a_log_with_neither_seeds_nor_recorded_deals_is_said_so(capsys, tmp_path):
    """It was said to have recorded its deals."""
    from tarneeb.testing.alterations import iter_tampers
    from tarneeb.testing.alterations.base import NotApplicable

    data = LOG.read_bytes()
    stripped = None
    for t in iter_tampers(parse_log(data).header.rules):
        if t.name == "strip-seeds":
            try:
                stripped = t(data, choice=0)[0]
            except NotApplicable:
                continue
            break
    assert stripped is not None
    log = tmp_path / "bare.tlog"
    log.write_bytes(stripped)
    code, _, err = run(capsys, "deal", str(log), "--hand", "1")
    assert code == 2 and "neither seeds to derive its deals nor a recorded deal" in err


def test_show_marks_a_hand_not_replayed_and_its_claims(capsys):
    """``show`` drew the hands of a log whose replay stopped (its seed not revealed, the
    log cut short) as replayed: empty auctions, no tricks, the claimed scores and a match
    won in green, and none of the match's findings."""
    log = FIXTURES / "altered" / "seed-not-revealed-classic.tlog"
    _, out, _ = run(capsys, "show", str(log))
    assert "NOT REPLAYED to its end" in out and "hand score (the log's claim)" in out
    verdict = verify_log(parse_log(log.read_bytes()), str(log))
    first = next(f for f in verdict.findings if f.hand is None)
    assert first.message.split(":")[0] in out  # the match's own findings are said
    assert "win the match by the log's claimed totals (not replayed)" in out
    _, out, _ = run(capsys, "show", str(log), "--json")
    doc = json.loads(out)
    assert doc["hands"] and not any(h["replayed"] for h in doc["hands"])
    clean = FIXTURES / "matches" / "classic-01.tlog"
    code, out, _ = run(capsys, "show", str(clean), "--json")
    assert code == 0 and all(h["replayed"] for h in json.loads(out)["hands"])
    assert json.loads(out)["signature"]["pinned"] is False
