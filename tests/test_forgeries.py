"""Forgeries a dishonest platform could sign with its own key, each tried against the
verifier: none may verify clean (exit 0).

Every log here is signed again after the change, as a platform that wrote it would,
so only the verifier's own checks stand between the forgery and a clean verdict.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tarneeb.replay.log import Abandonment, EndRecord, LogError, parse_log
from tarneeb.replay.rules.ruleset import PRESETS, RulesError, RuleSet, load_rules_file, preset
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing.alterations.base import EditableLog, rewrite

SEED = b"test-forgeries"
KEY = MatchSecrets(SEED).key
FIXTURES = Path(__file__).parent.parent / "fixtures" / "matches"


@pytest.fixture(scope="module")
def eram() -> bytes:
    return play_logged_match("eram41", seed=SEED)


def kinds(data: bytes) -> list[str]:
    v = verify_bytes(data)
    assert v.error is None, v.error
    return [f.kind for f in v.findings]


def unreadable(v: Verdict) -> str:
    """The verdict on a log the reader could not read to its end: the log is checked up to
    the bytes it cannot take as a value (exit 1, never clean), and says so."""
    assert v.error is None and v.exit_code == 1 and not v.clean, v.error
    return next(f.message for f in v.findings if f.message.startswith("unreadable from byte"))


def abandon(log: EditableLog, hands: int, cause: str = "disconnect", seat: int | None = 1,
            reason: str = "connection lost") -> None:
    """Keep the first ``hands`` hands and end the match as abandoned."""
    assert log.end is not None
    log.hands = log.hands[:hands]
    log.end = EndRecord(None, log.end.server_seed, Abandonment(cause, seat, reason))


# ---------------------------------------------------------------- text from the log
@pytest.mark.parametrize("text", ["North\nfake.tlog: clean", "\x1b[1A\x1b[2Kclean", "a\x00b",
                                  "E\u202eabc", "x\u2028y", "del\x7f", "c1\x9b"])
@pytest.mark.parametrize("where", ["seat", "reason"])
def test_text_that_would_rewrite_the_verdict_is_refused(eram: bytes, text: str,
                                                        where: str) -> None:
    """A seat's name or an abandonment reason is printed in verdicts: a newline, a
    terminal escape or a bidi override in it could forge or hide a line of the verdict."""
    def change(log: EditableLog) -> None:
        if where == "seat":
            seats = list(log.header.seats)
            seats[1] = replace(seats[1], name=text)
            log.header = replace(log.header, seats=seats)
        else:
            abandon(log, 3, reason=text)

    v = verify_bytes(rewrite(eram, change, KEY))
    if where == "seat":  # in the header: nothing of the log can be read
        assert v.exit_code == 2 and v.error is not None
        said = v.error
    else:  # in the end record: the log is checked up to it, and unreadable from there
        said = unreadable(v)
        assert all(text not in f.message for f in v.findings) and v.ending is None
    assert ("seat name" if where == "seat" else "reason") in said and "character" in said


def test_names_in_other_scripts_and_emoji_are_kept(eram: bytes) -> None:
    names = ["لاعب الشمال", "Ελένη", "玩家", "Zoë 🂡"]

    def change(log: EditableLog) -> None:
        seats = [replace(s, name=n) for s, n in zip(log.header.seats, names,
                                                                  strict=True)]
        log.header = replace(log.header, seats=seats)

    data = rewrite(eram, change, KEY)
    assert verify_bytes(data).clean
    assert [s.name for s in parse_log(data).header.seats] == names


# ---------------------------------------------------------------- how the match ended
def test_a_won_match_cannot_also_be_abandoned(eram: bytes) -> None:
    """FORMAT.md: an abandoned match has no winner. One end record saying both would let
    a page show either story."""
    def change(log: EditableLog) -> None:
        assert log.end is not None
        log.end = EndRecord(log.end.winner, log.end.server_seed,
                            Abandonment("disconnect", 1, "left after the last trick"))

    v = verify_bytes(rewrite(eram, change, KEY))
    assert "abandoned" in unreadable(v) and v.ending is None


def test_cards_played_in_a_cancelled_hand_of_an_abandoned_match_are_a_finding() -> None:
    """The hand a match is abandoned in is replayed as far as it goes: cards after a
    bidding that cancelled the hand are a finding, as in a hand with claims."""
    data = (FIXTURES / "sahrat400-cancelled-in-a-row.tlog").read_bytes()
    log = parse_log(data)
    cancelled = next(i for i, h in enumerate(log.hands) if h.tricks is None)
    played = next(h for h in log.hands if h.tricks is not None)

    def change(log: EditableLog) -> None:
        abandon(log, cancelled + 1)
        log.hands[cancelled] = replace(
            log.hands[cancelled], closed=False, plays=played.plays[:3], tricks=None,
            scores=None, totals=None, trump=None)

    assert kinds(rewrite(data, change, KEY)) == ["played-when-cancelled"]


# ---------------------------------------------------------------- the rules named
def _match(rules: RuleSet, seed: bytes) -> bytes:
    return play_logged_match(rules, seed=seed, key=KEY)


@pytest.mark.parametrize(("name", "change"), [
    ("eram41", {"target": 1}),  # a match won in one hand, as "eram41"
    ("eram41", {"made_13_wins": True}),
    ("sahrat41", {"partner_min": -10000}),
    ("qahwa41", {"target": 62}),  # qahwa41 offers 31, 41 or 61
    ("classic", {"kaboot_made_value": 27}),
    ("eram41", {"kaboot_made_value": 27}),  # not used by personal scoring: still not eram41
])
def test_a_preset_name_on_other_rules_is_a_finding(name: str, change: dict[str, object]) -> None:
    """A log that says ``eram41`` must be a game ERAM CARDS offers: its verdict names it so.
    Other rules go under their own name (a rules file), and the verdict says so."""
    rules = replace(PRESETS[name], **change)
    v = verify_bytes(_match(rules, b"forgeries " + name.encode()))
    assert [f.kind for f in v.findings] == ["wrong-rules"], [str(f) for f in v.findings]
    (key,) = change
    assert key in v.findings[0].message and name in v.findings[0].message
    renamed = replace(rules, name=f"{name}-club")
    assert verify_bytes(_match(renamed, b"forgeries " + name.encode())).clean


def test_the_house_options_a_platform_offers_stay_clean() -> None:
    rules = preset("qahwa41", target=61, min_total=13)
    v = verify_bytes(_match(rules, b"forgeries offered"))
    assert v.clean, [str(f) for f in v.findings]
    assert any("house options" in n for n in v.notes)


def test_a_rules_file_cannot_take_a_preset_name(tmp_path) -> None:
    path = tmp_path / "club.toml"
    path.write_text('name = "sahrat400"\nbase = "sahrat400"\npartner_min = 0\n')
    with pytest.raises(RulesError, match="sahrat400"):
        load_rules_file(path)
    path.write_text('name = "qahwa41"\nbase = "qahwa41"\ntarget = 61\n')
    assert load_rules_file(path) == preset("qahwa41", target=61)


@pytest.mark.parametrize("low", [0, 1])
def test_personal_bids_start_at_two(low: int) -> None:
    """Bid values are listed for bids 2 to 13: a lowest bid of 0 or 1 would be scored with
    the values of 12 and 13 (a list read from its end)."""
    with pytest.raises(RulesError, match="min_bid"):
        replace(PRESETS["eram41"], name="club", min_bid=low)
    with pytest.raises(LogError):
        parse_log(rewrite(play_logged_match("eram41", seed=SEED), lambda log: None, KEY)
                  .replace(b"\xa7min_bid\x02", b"\xa7min_bid" + bytes([low])))


def test_a_keys_file_name_that_would_rewrite_the_verdict_is_refused() -> None:
    """``signed by <platform>`` prints the keys file's name: the same rule as a seat's."""
    from tarneeb.audit.errors import KeyFileError
    from tarneeb.audit.signing import parse_keys, public_key_raw

    raw = public_key_raw(KEY.public_key()).hex()
    assert parse_keys(f'"نادي الورق" = "{raw}"') == {"نادي الورق": bytes.fromhex(raw)}
    with pytest.raises(KeyFileError, match="U\\+000A"):
        parse_keys(f'"cardroom\\nother.tlog: clean" = "{raw}"')


# ---------------------------------------------------------------- the JSON form
@pytest.mark.parametrize(("what", "change"), [
    ("a seat given as false", lambda r: r[1]["calls"][0].update(seat=False)),
    ("a bid given as true", lambda r: r[1]["calls"][0].update(call=True)),
    ("a timer move given as true", lambda r: r[1].update(timer=[True])),
    ("closed given as 0", lambda r: r[-3].update(closed=0)),
    ("a field the log does not carry", lambda r: r[1].update(note="seat 2 conceded")),
    ("a field of a call the log does not carry", lambda r: r[1]["calls"][0].update(timer=True)),
    ("an open hand with claims", lambda r: r[-3].update(closed=False)),
])
def test_json_import_refuses_what_the_log_would_not_say(eram: bytes, what: str,
                                                        change: object) -> None:
    """Import makes the log a JSON document says, or none: a bool read as a number, or a
    field the log has no place for, would make the two say different things."""
    import json

    from tarneeb.replay.log import jsonform as logjson

    doc = json.loads(logjson.dumps(eram))
    assert logjson.from_json(doc) == eram
    change(doc["records"])  # type: ignore[operator]
    with pytest.raises(LogError):
        logjson.from_json(doc)


def test_json_import_refuses_a_key_given_twice(eram: bytes) -> None:
    """``{"winner": 0, "winner": 1}``: JSON readers differ on which one counts, so a key
    given twice is refused whatever its values."""
    from tarneeb.replay.log import jsonform as logjson

    text = logjson.dumps(eram)
    assert logjson.loads(text) == eram
    twice = text.replace('{"type": "end", ', '{"type": "end", "type": "end", ')
    assert twice != text
    with pytest.raises(LogError, match="twice"):
        logjson.loads(twice)


def test_a_match_abandoned_after_a_hand_s_last_card_says_where(eram: bytes) -> None:
    def change(log: EditableLog) -> None:
        abandon(log, 3)
        log.hands[2] = replace(log.hands[2], closed=False, tricks=None,
                                           scores=None, totals=None, trump=None)

    v = verify_bytes(rewrite(eram, change, KEY))
    assert v.clean and v.ending is not None
    assert "hand 2, after its 13th trick" in v.ending and "trick 14" not in v.ending


def test_a_receipt_says_only_what_is_signed() -> None:
    """A receipt whose text could read as another match than the one its signature covers
    is refused: a key given twice, a field not signed, a key id not its key's."""
    import json

    from tarneeb.replay.verify.receipt import ReceiptError, read_receipt, receipt_json

    text = receipt_json(parse_log(play_logged_match("eram41", seed=SEED)).header, KEY)
    read_receipt(text.encode())
    doc = json.loads(text)
    twice = text.replace('"match_id": ', '"match_id": "00", "match_id": ', 1)
    for bad in (twice, json.dumps({**doc, "winner": 0}),
                json.dumps({**doc, "key_id": "0000000000000000"})):
        with pytest.raises(ReceiptError):
            read_receipt(bad.encode())


@pytest.mark.parametrize(("cause", "seat"), [("server-fault", 2), ("disconnect", None),
                                             ("resignation", None)])
def test_an_abandonment_names_who_left_or_the_server(eram: bytes, cause: str,
                                                     seat: int | None) -> None:
    """The verdict says "seat 2 (Cat) failed" or "a player disconnected" from these two
    fields: a server fault blamed on a seat, or a player who left unnamed, is refused."""
    v = verify_bytes(rewrite(eram, lambda log: abandon(log, 3, cause, seat), KEY))
    assert "server fault" in unreadable(v) and v.ending is None


def test_the_recorder_writes_no_log_the_reader_refuses(tmp_path) -> None:
    import tarneeb
    from tarneeb.replay.server.recorder import RecorderError

    def recorder(name: str, **kw: object) -> tarneeb.MatchRecorder:
        return tarneeb.MatchRecorder(tmp_path / name, seats=["Ann", "Ben", "Cat", "Dan"],
                                     match_id=b"m", first_dealer=0, **kw)

    with pytest.raises(RecorderError, match="eram41"):
        recorder("a.tlog", rules=replace(PRESETS["eram41"], target=21))
    with pytest.raises(RecorderError, match="U\\+001B"):
        tarneeb.MatchRecorder(tmp_path / "b.tlog", rules="eram41", match_id=b"m",
                              seats=["Ann", "B\x1b[2Jen", "Cat", "Dan"], first_dealer=0)
    rec = recorder("c.tlog", rules="eram41")
    with pytest.raises(RecorderError, match="server fault"):
        rec.abandon("server-fault", 2, "crash", None)
    with pytest.raises(RecorderError, match="U\\+000A"):
        rec.abandon("disconnect", 2, "gone\nclean", None)


def test_dump_shows_a_refused_name_escaped(eram: bytes) -> None:
    """``tarneeb dump`` reads damaged logs too: a name the reader refuses is shown escaped,
    never written to the terminal as it is."""
    import msgpack

    from tarneeb.audit.signing import sign
    from tarneeb.replay.log.annotate import annotate

    log = parse_log(eram)
    header = msgpack.unpackb(eram[:log.offsets[0]])
    header[4][0][0] = "North\x1b[2J\x1b[Hclean"
    body = msgpack.packb(header) + eram[log.offsets[0]:log.signature_offset]
    damaged = body + msgpack.packb([3, sign(KEY, body)])
    assert verify_bytes(damaged).exit_code == 2
    text = "\n".join(annotate(damaged))
    assert "\x1b" not in text and "'North\\x1b[2J\\x1b[Hclean'" in text


def test_zeros_after_a_changed_log_do_not_pass_it_off_as_a_torn_write(eram: bytes) -> None:
    """A signature torn by a crash ends in zeros written over its own bytes; zeros appended
    after a whole signature record leave it what it is: broken, when the log was changed
    after signing (here the seats' names, which no replay can check). A torn signature is
    broken too: it does not cover the log, whatever tore it."""
    def change(log: EditableLog) -> None:
        seats = list(log.header.seats)
        seats[0], seats[1] = seats[1], seats[0]
        log.header = replace(log.header, seats=seats)

    changed = rewrite(eram, change)  # the platform's signature kept
    for tail in (b"", bytes(4), bytes(5000)):
        v = verify_bytes(changed + tail)
        assert "broken-signature" in [f.kind for f in v.findings], (len(tail), v.findings)
    torn = verify_bytes(eram[:-8] + bytes(8))  # the signature's last 8 bytes zero-filled
    assert [f.kind for f in torn.findings] == ["broken-signature"]
    assert "torn write" in torn.findings[0].message
    assert "does not cover the log" in torn.findings[0].message


def test_a_keys_file_cannot_hold_two_names_a_reader_would_take_for_one() -> None:
    from tarneeb.audit.errors import KeyFileError
    from tarneeb.audit.signing import parse_keys, private_key_from_raw, public_key_raw

    a, b = (public_key_raw(private_key_from_raw(bytes([i]) * 32).public_key()).hex()
            for i in (1, 2))
    for twin in ("Cardroom", "CARDROOM", "cardr00m"):
        with pytest.raises(KeyFileError, match="tell the two platforms apart"):
            parse_keys(f'cardroom = "{a}"\n"{twin}" = "{b}"')
    with pytest.raises(KeyFileError, match="NFKC form, which is 'CARDROOM'"):
        parse_keys(f'cardroom = "{a}"\n"ＣＡＲＤＲＯＯＭ" = "{b}"')
    assert len(parse_keys(f'cardroom = "{a}"\n"card room" = "{b}"')) == 2


def test_an_archive_of_self_signed_logs_is_not_called_clean_without_saying_so(
        eram: bytes, tmp_path) -> None:
    """An archive audit says what verify's first line says of one log: a log signed by the
    key it names itself proves the rules were kept, not who kept them."""
    from tarneeb.audit.signing import public_key_raw
    from tarneeb.replay.archive.audit import ArchiveSummary, audit_chunk
    from tarneeb.replay.archive.words import verdict_lines

    paths = []
    for i in range(2):  # two matches, each signed by a key of its own
        path = tmp_path / f"m{i}.tlog"
        path.write_bytes(play_logged_match("eram41", seed=SEED + bytes([i])))
        paths.append(str(path))
    summary = ArchiveSummary()
    summary.add(audit_chunk(paths))
    assert summary.clean == 2 and summary.unpinned == 2 and summary.exit_code == 0
    assert "NOT PINNED" in verdict_lines(summary)[0]
    assert summary.to_json()["unpinned"] == 2
    own = tmp_path / "own.tlog"
    own.write_bytes(eram)
    pinned = ArchiveSummary()
    pinned.add(audit_chunk([str(own)], trust=Trust(public_key=public_key_raw(KEY.public_key()))))
    assert pinned.clean == 1 and pinned.unpinned == 0
    assert "NOT PINNED" not in " ".join(verdict_lines(pinned))
