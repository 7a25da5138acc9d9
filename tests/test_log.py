"""The msgpack log: records, streaming reads, bad input, the JSON form."""

from __future__ import annotations

import json
import struct
from dataclasses import replace

import msgpack
import pytest

from tarneeb.replay.log import (
    MAGIC,
    Abandonment,
    EndRecord,
    HandRecord,
    LogError,
    RecordedDeal,
    SignatureRecord,
    decode_hand,
    decode_record,
    encode_hand,
    encode_record,
    parse_log,
)
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log.stream import LogUnreadable
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes


@pytest.fixture(scope="module")
def logs() -> dict[str, bytes]:
    return {name: play_logged_match(name, seed=f"test-log/{name}".encode()) for name in PRESETS}


def test_records_round_trip() -> None:
    hand = HandRecord(deal_number=3, dealer=2, calls=[(3, 7), (0, 15), (1, 8), (2, 15)],
                      trump=1, plays=bytes(range(52)), timer=(1 << 50) | 5,
                      tricks=[1, 2, 3, 7], scores=[-8, 0, -8, 0], totals=[-100, 41, 5, 0],
                      deal=RecordedDeal((1, 2, 4, 8), 3))
    for named in (False, True):
        assert decode_hand(encode_hand(hand, named), named) == hand
    open_hand = replace(hand, plays=bytes(range(7)), tricks=None, scores=None,
                                    totals=None, closed=False, trump=None, timer=2)
    assert decode_hand(encode_hand(open_hand, False), False) == open_hand
    recs = [
        EndRecord(winner=1, server_seed=bytes(32)),
        EndRecord(winner=None, server_seed=None),
        EndRecord(None, bytes(32), Abandonment("disconnect", 2, "no answer for 120 s")),
        EndRecord(None, None, Abandonment("server-fault", None, "")),
        SignatureRecord(bytes(range(64))),
    ]
    for rec in recs:
        assert decode_record(msgpack.unpackb(encode_record(rec), raw=False), 0) == rec


def test_moves_are_one_byte_and_two_for_the_timer() -> None:
    """docs/FORMAT.md's move table: calls, the trump named, cards, the timer bit."""
    rec = HandRecord(deal_number=0, dealer=3, calls=[(0, 7), (1, 15), (2, 15), (3, 15)],
                     trump=2, plays=bytes([0, 51]), timer=0b100010, closed=False, totals=None)
    raw = encode_hand(rec, named_trump=True)
    assert raw[6:].hex(" ") == "47 cc df 6f 7f 3a cc 81 34"
    assert decode_hand(raw, named_trump=True) == rec


def test_a_played_hand_is_compact(logs: dict[str, bytes]) -> None:
    for log in logs.values():
        p = parse_log(log)
        played = [h for h in p.hands if h.plays]
        assert played
        for h in played:
            assert len(encode_hand(h, p.header.rules.trump == "named")) <= 100


def test_parse_gives_offsets_and_signed_bytes(logs: dict[str, bytes]) -> None:
    log = logs["eram41"]
    p = parse_log(log)
    for rec, off in zip(p.hands, p.offsets, strict=True):
        assert log[off:off + len(encode_hand(rec, False))] == encode_hand(rec, False)
    assert p.signature_offset is not None
    assert p.signed_bytes == log[:p.signature_offset]
    assert p.cut_short is None and p.end is not None and p.end.server_seed is not None


def test_cut_off_log_reads_up_to_its_last_whole_value(logs: dict[str, bytes]) -> None:
    log = logs["classic"]
    p = parse_log(log)
    cut_at = p.offsets[3] + 30  # 30 bytes into the fourth hand: its deal and some moves
    cut = parse_log(log[:cut_at], "cut.tlog")
    assert len(cut.hands) == 4 and cut.end is None and cut.cut_short is None
    last = cut.hands[3]
    assert not last.closed and last.totals is None
    moves = len(last.calls) + (last.trump is not None) + len(last.plays)
    assert moves == 30 - 6  # every byte after the deal record is a whole move
    assert last.calls == p.hands[3].calls[:len(last.calls)]
    assert last.plays == p.hands[3].plays[:len(last.plays)]
    claims = p.offsets[4] - 10  # inside the claims record of the fourth hand
    cut = parse_log(log[:claims], "cut.tlog")
    assert cut.cut_short is not None and "cut at byte" in str(cut.cut_short)
    assert not cut.hands[3].closed and len(cut.hands[3].plays) == 52


def test_zero_filled_tail_is_a_cut(logs: dict[str, bytes]) -> None:
    log = logs["eram41"]
    p = parse_log(log)
    at = p.offsets[5] + 20
    for tail in (bytes(len(log) - at), bytes(1)):
        cut = parse_log(log[:at] + tail)
        assert cut.cut_short is not None and cut.cut_short.offset == at
        assert "is zeros" in cut.cut_short.message
    torn = p.offsets[6] - 3  # three bytes short of the fifth hand's claims record's end
    cut = parse_log(log[:torn] + bytes(len(log) - torn))
    assert cut.cut_short is not None and cut.cut_short.offset == p.offsets[6] - 18
    assert not cut.hands[5].closed
    damaged = log[:at] + bytes(3) + log[at + 3:]  # zeros inside: damage, not a tail
    with pytest.raises(LogError, match="byte 0x00 is neither a record nor a move"):
        parse_log(damaged, strict=True)
    cut = parse_log(damaged)  # read up to the damage, unreadable from there
    assert isinstance(cut.cut_short, LogUnreadable) and cut.cut_short.offset == at
    assert "byte 0x00 is neither a record nor a move" in cut.cut_short.message


@pytest.mark.parametrize("data, message, offset", [
    (b"", "empty file", 0),
    (b"\xc1\xc1\xc1", "not a tarneeb log", 0),
    (b"hello world", "not a tarneeb log", 0),
    (msgpack.packb([1, 2, 3]), "not a tarneeb log", 0),
    (msgpack.packb({"a": 1}), "not a tarneeb log", 0),
])
def test_not_a_log(data: bytes, message: str, offset: int) -> None:
    with pytest.raises(LogError) as e:
        parse_log(data, "x.tlog")
    assert message in str(e.value) and e.value.offset == offset
    assert str(e.value).startswith("x.tlog: byte 0: ")


def _header_list(log: bytes) -> list:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(log)
    return next(iter(unpacker))


def test_future_version_is_refused(logs: dict[str, bytes]) -> None:
    h = _header_list(logs["eram41"])
    h[2] = 7
    with pytest.raises(LogError, match="format version 7 is newer than this tool reads"):
        parse_log(msgpack.packb(h))


def test_unknown_rules_are_refused(logs: dict[str, bytes]) -> None:
    h = _header_list(logs["eram41"])
    h[3]["trump"] = "wizard"
    with pytest.raises(LogError, match=r"rules: .*trump must be one of"):
        parse_log(msgpack.packb(h))
    h = _header_list(logs["eram41"])
    del h[3]["target"]
    with pytest.raises(LogError, match=r"rules lack field.*target"):
        parse_log(msgpack.packb(h))


def test_record_of_the_wrong_shape_names_its_offset(logs: dict[str, bytes]) -> None:
    log = logs["sahrat41"]
    p = parse_log(log)
    off = p.offsets[2]
    end = p.offsets[3]
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(log[off:end])
    rec = unpacker.unpack()
    size = unpacker.tell()
    rec[4] = "not a deal"
    bad = log[:off] + msgpack.packb(rec) + log[off + size:]
    with pytest.raises(LogError) as e:
        parse_log(bad, "bad.tlog", strict=True)
    assert e.value.offset == off
    assert "deal record: deal must be four hands" in str(e.value)
    rec.pop()
    with pytest.raises(LogError, match="has 4 fields, not 5"):
        parse_log(log[:off] + msgpack.packb(rec) + log[off + size:], strict=True)


def test_huge_length_prefix_is_refused_without_allocating(logs: dict[str, bytes]) -> None:
    header_end = parse_log(logs["eram41"]).offsets[0]
    # a bin 32 claiming 2 GB, then nothing
    bad = logs["eram41"][:header_end] + b"\x92\x02\xc6" + struct.pack(">I", 2**31)
    with pytest.raises(LogError) as e:
        parse_log(bad, strict=True)
    assert e.value.offset == header_end + 2
    assert "claims 2,147,483,648 bytes, more than any field" in str(e.value)
    bad = logs["eram41"][:header_end] + b"\xdd" + struct.pack(">I", 2**31 - 1)  # array 32
    with pytest.raises(LogError) as e:
        parse_log(bad, strict=True)
    assert e.value.offset == header_end
    assert "2147483647 exceeds max_array_len" in str(e.value)


def test_non_canonical_encoding_is_refused(logs: dict[str, bytes]) -> None:
    log = logs["eram41"]
    off = parse_log(log).offsets[1]
    assert log[off:off + 2] == b"\x95\x01"
    # the same deal record with the deal number as a 4-byte integer
    raw = b"\x95\x01\xce" + struct.pack(">I", log[off + 2]) + log[off + 3:]
    with pytest.raises(LogError, match="record is not in canonical msgpack form"):
        parse_log(log[:off] + raw, strict=True)
    moves = off + 6
    assert log[moves] < 0x80
    # a move as a 1-byte unsigned int (cc) instead of a fixint
    with pytest.raises(LogError, match="move is not in canonical msgpack form"):
        parse_log(log[:moves] + b"\xcc" + log[moves:], strict=True)


def test_records_after_the_signature_are_refused(logs: dict[str, bytes]) -> None:
    with pytest.raises(LogError, match="follows the signature"):
        parse_log(logs["eram41"] + encode_record(EndRecord(0, None)), strict=True)


def test_magic_is_first(logs: dict[str, bytes]) -> None:
    assert _header_list(logs["classic"])[:3] == [0, MAGIC, 3]


def test_version_1_logs_are_refused_naming_the_version(logs: dict[str, bytes]) -> None:
    """A log of protocol tarneeb-fair-v1 never verifies clean: its deals were not bound to
    the promised season leaf, so the reader refuses it with one line naming the version."""
    header = _header_list(logs["eram41"])
    old = msgpack.packb([*header[:2], 1, *header[3:]], use_bin_type=True)
    at = len(msgpack.packb(header, use_bin_type=True))
    with pytest.raises(LogError) as e:
        parse_log(old + logs["eram41"][at:])
    assert "format version 1 (protocol tarneeb-fair-v1) is not read" in str(e.value)
    v = verify_bytes(old + logs["eram41"][at:])
    assert v.exit_code == 2 and not v.clean and "tarneeb-fair-v1" in (v.error or "")


def test_version_2_logs_one_record_a_hand_are_refused(logs: dict[str, bytes]) -> None:
    h = _header_list(logs["eram41"])
    h[2] = 2
    with pytest.raises(LogError, match=r"format version 2 .* its hands are one record each"):
        parse_log(msgpack.packb(h))


@pytest.mark.parametrize("name", list(PRESETS))
def test_json_round_trip_is_byte_identical(logs: dict[str, bytes], name: str) -> None:
    log = logs[name]
    text = logjson.dumps(log)
    doc = json.loads(text)
    assert doc["format"] == "tarneeb-log-json"
    assert [r["type"] for r in doc["records"]][:2] == ["header", "hand"]
    assert doc["records"][-1]["type"] == "signature"
    assert logjson.loads(text) == log


def test_json_accepts_other_card_spellings(logs: dict[str, bytes]) -> None:
    doc = logjson.to_json(logs["eram41"])
    hand = doc["records"][1]
    from tarneeb.replay.rules.cards import card_name, parse_card
    hand["plays"] = [card_name(parse_card(c), symbols=False).lower() for c in hand["plays"]]
    assert logjson.from_json(doc) == logs["eram41"]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="other"), "not a JSON tarneeb log"),
    (lambda d: d["records"][1].update(plays=["ZZ"]), "record 1 (hand): plays: not a card"),
    (lambda d: d["records"][1].update(dealer=9), "record 1 (hand): deal record: dealer must be"),
    (lambda d: d["records"][1].pop("totals"), "record 1 (hand): missing field 'totals'"),
    (lambda d: d["records"][0].update(match_id="zz"), "record 0 (header): match_id is not hex"),
    (lambda d: d["records"][-1].update(signature="00"), "record "),
])
def test_json_errors_name_the_record(logs: dict[str, bytes], mutate, message: str) -> None:
    doc = logjson.to_json(logs["eram41"])
    mutate(doc)
    with pytest.raises(LogError) as e:
        logjson.from_json(doc)
    assert message in str(e.value)


def test_json_syntax_error_names_line() -> None:
    with pytest.raises(LogError, match="line 1 column"):
        logjson.loads("{not json")


def test_format_doc_dump_is_the_real_log() -> None:
    """docs/FORMAT.md shows a dump of `tarneeb play --rules classic --seed format-doc`."""
    from pathlib import Path

    from tarneeb.replay.log.annotate import annotate
    from tarneeb.replay.server.simulate import seed_bytes

    log = play_logged_match("classic", seed=seed_bytes("format-doc"))
    doc = (Path(__file__).parent.parent / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    assert "\n".join(annotate(log, show_hands=2)) in doc


@pytest.mark.parametrize("record, message", [
    (5, "move"),
    (0xcc35, "expected a record (a msgpack array) or a move, found 52277"),
    ([4, None, None, None, [0, 0, 0, 1]], "a claims record with no hand open"),
    ([], "expected a record (a msgpack array)"),
    ({"a": 1}, "found a map"),
    ([True, 1], "unknown record type True"),
    ([9, 1, 2], "unknown record type 9"),
    ("text", "expected a record"),
    ([0, "tarneeb-log", 3], "header record: has 3 fields"),
])
def test_wrong_records_after_the_header(logs: dict[str, bytes], record: object,
                                        message: str) -> None:
    at = parse_log(logs["eram41"]).offsets[0]
    with pytest.raises(LogError) as e:
        parse_log(logs["eram41"][:at] + msgpack.packb(record), strict=True)
    assert message in str(e.value) and e.value.offset == at
    # read as a log: its header, then bytes no writer writes there
    cut = parse_log(logs["eram41"][:at] + msgpack.packb(record)).cut_short
    assert isinstance(cut, LogUnreadable) and cut.offset == at and message in cut.message
