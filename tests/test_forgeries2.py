"""More forgeries against "clean means proven": mixed dealing modes, the fast paths against
the careful ones, the live format's cut logs, the JSON form, keys files and the summaries
that count clean logs. None may verify clean (exit 0).

Each log here is signed again after the change with a key the header then names, as the
platform that wrote it would, so only the verifier's own checks stand between the forgery
and a clean verdict.
"""

from __future__ import annotations

import functools
import os
import random
from dataclasses import replace
from pathlib import Path

import pytest

from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.simulate import MatchSecrets
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing.alterations import EditableLog, rewrite

KEY = MatchSecrets(b"test-forgeries2").key
FIXTURES = Path(__file__).parent.parent / "fixtures" / "matches"


@functools.cache
def blind(rules: str) -> bytes:
    return play_blind_match(rules, seed=b"forgeries2 " + rules.encode(), target=5, key=KEY)


# ---------------------------------------------------------------- blind dealing
@pytest.mark.parametrize("rules", ["eram41", "classic"])
def test_a_blind_log_without_seeds_is_not_clean(rules: str) -> None:
    """The seeds draw the first dealer of a match dealt blind (PROTOCOL.md §13): a blind log
    that commits to none has its first dealer on the platform's word alone, and its
    verdict said "deals not proven" with exit 0."""
    def drop_seeds(log: EditableLog) -> None:
        log.header = replace(log.header, server_commitment=None, batch=None,
                                         client_commitments=None, client_seeds=None)
        assert log.end is not None
        log.end = replace(log.end, server_seed=None)

    assert verify_bytes(blind(rules)).clean
    v = verify_bytes(rewrite(blind(rules), drop_seeds, KEY))
    assert not v.clean and "wrong-first-dealer" in [f.kind for f in v.findings]
    assert "seeds" in v.findings[0].message


@pytest.mark.parametrize("rules", ["qahwa41", "classic"])
def test_a_blind_deal_cannot_claim_a_card_shown_where_the_rules_show_none(rules: str) -> None:
    """A log dealt from seeds that reveals a card where the rules show none is a finding;
    dealt blind, the deal record's claim went unchecked (no proof opens it) and the log
    verified clean."""
    def show_ace(log: EditableLog) -> None:
        log.hands[0] = replace(log.hands[0], revealed=51)

    v = verify_bytes(rewrite(blind(rules), show_ace, KEY))
    assert [(f.kind, f.hand) for f in v.findings] == [("wrong-revealed-card", 0)]
    assert "A♠" in v.findings[0].message


def test_the_recorder_refuses_a_blind_match_without_seeds(tmp_path) -> None:
    from tarneeb.replay.server.recorder import MatchRecorder, RecorderError

    with pytest.raises(RecorderError, match="first dealer"):
        MatchRecorder(tmp_path / "m.tlog", rules="eram41", seats=["A", "B", "C", "D"],
                      match_id=b"m", first_dealer=0, dealing="blind")
    assert not (tmp_path / "m.tlog").exists()


# ---------------------------------------------------------------- the JSON form
def _hand(records: list[dict], which: int = 0, **has: object) -> dict:
    hands = [r for r in records if r["type"] == "hand"
             and all(bool(r.get(k)) == v for k, v in has.items())]
    return hands[which]


def _deal_twice(r: list[dict]) -> None:
    hands = _hand(r)["deal"]["hands"]
    hands[0] = [*hands[0], hands[0][0]]


@pytest.mark.parametrize(("log", "what", "change"), [
    ("eram41-01", "a seat with a field the log does not carry",
     lambda r: r[0]["seats"][0].update(rating=1500)),
    ("eram41-01", "a trick count given as false", lambda r: _hand(r).update(
        tricks=[False if x == 0 else x for x in _hand(r)["tricks"]])),
    ("classic-01", "a named trump given as true", lambda r: _hand(r, trump=True).update(
        trump=True)),
    ("eram41-01", "a timer mark on a move the hand does not have",
     lambda r: _hand(r)["timer"].append(63)),
    ("eram41-01", "an open hand's trump, which has no claims record to go in",
     lambda r: _hand(r, -1).update(closed=False, tricks=None, scores=None, totals=None)),
    ("eram41-recorded-deals", "a recorded deal holding a card twice", _deal_twice),
    ("qahwa5-blind", "a play proof past the hand's last card",
     lambda r: _hand(r)["blind"]["proofs"].append(_hand(r)["blind"]["proofs"][0])),
])
def test_json_import_refuses_a_document_that_says_more_than_its_log(log: str, what: str,
                                                                    change: object) -> None:
    """Import makes a log only when the log says all the document says: a document whose
    log, exported again, reads otherwise (a field, a value or a card dropped on the way,
    ``true`` taken for 1) is refused, or the document a person reads is not the log that
    verifies."""
    import json

    from tarneeb.replay.log import LogError
    from tarneeb.replay.log import jsonform as logjson

    data = (FIXTURES / f"{log}.tlog").read_bytes()
    doc = json.loads(logjson.dumps(data))
    assert logjson.from_json(doc) == data
    change(doc["records"])  # type: ignore[operator]
    with pytest.raises(LogError, match="record"):
        logjson.from_json(doc)


@pytest.mark.parametrize("extra", [{"version": 2}, {"version": True}, {"note": "verified"}])
def test_json_import_refuses_another_version_or_a_field_of_its_own(extra: dict) -> None:
    import json

    from tarneeb.replay.log import LogError
    from tarneeb.replay.log import jsonform as logjson

    data = (FIXTURES / "eram41-01.tlog").read_bytes()
    doc = json.loads(logjson.dumps(data))
    with pytest.raises(LogError):
        logjson.from_json({**doc, **extra})


def test_json_import_still_takes_other_spellings_of_the_same_log() -> None:
    """Cards as ``TH``, ``th`` or ``10h``, hex in upper case, suits as numbers, a recorded
    hand in any order, timer marks in any order, ``closed`` left out of a closed hand: the
    same log, byte for byte."""
    import json

    from tarneeb.replay.log import jsonform as logjson

    for log in ("eram41-recorded-deals", "classic-timer"):
        data = (FIXTURES / f"{log}.tlog").read_bytes()
        doc = json.loads(logjson.dumps(data))
        for r in doc["records"]:
            if r["type"] == "header":
                r["match_id"] = r["match_id"].upper()
            if r["type"] != "hand":
                continue
            r["plays"] = [p.replace("10", "T").replace("♥", "h") for p in r["plays"]]
            r["timer"].reverse()
            if r["deal"] is not None:
                r["deal"]["hands"] = [h[::-1] for h in r["deal"]["hands"]]
            if isinstance(r["trump"], str):
                r["trump"] = "♣♦♥♠".index(r["trump"])
            if r["closed"]:
                del r["closed"]
        assert logjson.from_json(doc) == data


# ---------------------------------------------------------------- the keys file, a key file
def _pem(seed: int) -> str:
    from tarneeb.audit.signing import private_key_from_raw, public_key_pem

    return public_key_pem(private_key_from_raw(bytes([seed]) * 32).public_key()).decode()


@pytest.mark.parametrize("value", [
    "{one}{two}",  # two keys under one name: the verdict would pin the first alone
    "{one}-----BEGIN PUBLIC KEY-----\n",
    "{one}\nthe platform's second key follows\n{two}",
])
def test_a_key_is_one_pem_block_and_nothing_else(value: str, tmp_path) -> None:
    """A PEM reader takes the first block and skips the rest: a keys file entry (or a
    --key file) holding two keys would pin the first only, whatever its reader thinks."""
    from tarneeb.audit.errors import KeyFileError
    from tarneeb.audit.signing import load_public_key_file, parse_keys

    text = value.format(one=_pem(1), two=_pem(2))
    assert parse_keys(f'cardroom = """\n{_pem(1)}"""')
    with pytest.raises(KeyFileError, match="one PEM"):
        parse_keys(f'cardroom = """\n{text}"""')
    (tmp_path / "k.pem").write_text(text)
    with pytest.raises(KeyFileError, match="one PEM"):
        load_public_key_file(tmp_path / "k.pem")


@pytest.mark.parametrize("twin", ["card\u200broom", "cardroom\u200f", "\ufeffcardroom",
                                  "card\u00adroom", "cardroom\u2060"])
def test_a_keys_file_cannot_hold_two_names_that_show_the_same(twin: str) -> None:
    """"signed by cardroom" must name one platform: a name with an invisible character (a
    zero-width space, a direction mark, a soft hyphen) shows as the other, so it is refused,
    beside the other name or alone."""
    from tarneeb.audit.errors import KeyFileError
    from tarneeb.audit.signing import parse_keys, private_key_from_raw, public_key_raw

    a, b = (public_key_raw(private_key_from_raw(bytes([i]) * 32).public_key()).hex()
            for i in (1, 2))
    for text in (f'cardroom = "{a}"\n"{twin}" = "{b}"', f'"{twin}" = "{b}"'):
        with pytest.raises(KeyFileError, match="shows as nothing"):
            parse_keys(text)
    with pytest.raises(KeyFileError, match="shows as nothing"):
        parse_keys(f'" \u200b" = "{a}"')
    assert parse_keys('"کارت‌روم" = "' + a + '"')  # a zero-width non-joiner of Persian


# ---------------------------------------------------------------- regress
def test_regress_skips_a_blind_log_whose_cancelled_hands_were_never_shown() -> None:
    """A clean blind log can hold hands cancelled in the bidding whose cards nobody ever
    saw: no deal to give an engine. ``tarneeb regress`` dealt it the empty hands and blamed
    the engine under test ("ENGINE FAILED ... the engine's process died")."""
    from tarneeb.testing.regress.run import regress_log

    data = play_blind_match("classic", seed=b"xclassic", target=5, reveal_keys=False, key=KEY)
    v = verify_bytes(data)
    assert v.clean and any("never shown" in n for n in v.notes)
    report = regress_log("tarneeb.testing.adapters:reference", data, time_limit=None)
    assert report.status == "skipped" and report.reason is not None
    assert "never shown" in report.reason and "0, 1" in report.reason


# ---------------------------------------------------------------- fast against careful
FUZZ = int(os.environ.get("TARNEEB_FUZZ", "120"))  # mutants; raise it for a long run
FUZZ_BASES = ["eram41-01", "classic-timer", "eram41-recorded-deals", "sahrat400-cancelled-in-a-row",
              "house400-timer", "qahwa41-01", "sahrat41-big-bids", "qahwa5-blind"]


def _mutant(rng: random.Random, body: bytes) -> bytes:
    b = bytearray(body)
    for _ in range(rng.choice((1, 1, 2, 3))):
        i, kind = rng.randrange(len(b)), rng.randrange(6)
        if kind == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif kind == 1:  # a byte that starts or ends something in a log
            b[i] = rng.choice((0x00, 0x01, 0x04, 0x34, 0x35, 0x3b, 0x4f, 0x7f, 0x80, 0x94,
                               0x95, 0xc0, 0xcc, 0xcd, 0xe0))
        elif kind == 2:
            b.insert(i, rng.randrange(256))
        elif kind == 3:
            del b[i:i + rng.randrange(1, 40)]
        elif kind == 4:  # a run of the log copied elsewhere: a record or move twice
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randrange(1, 24)]
        else:
            b[i] = (b[i] + rng.choice((-1, 1))) & 0xFF
    return bytes(b)


def test_mutated_logs_read_and_verify_the_same_fast_and_careful() -> None:
    """Logs mutated byte by byte and signed again: the fast reader takes only what the
    careful reader reads the same, the fast replay gives the careful replay's verdict, and
    a clean verdict always says where every deal came from. ``TARNEEB_FUZZ=5000`` runs
    longer (the default is a short run)."""
    import msgpack

    from tarneeb.audit.signing import sign
    from tarneeb.replay.log import DEFAULT_LIMITS, LogError, _parse_carefully, parse_log
    from tarneeb.replay.log.fastread import fast_parse
    from tarneeb.replay.verify.replayer import verify_log

    def said(v: Verdict) -> tuple[object, ...]:
        return (v.exit_code, sorted((f.kind, f.hand, f.seat) for f in v.findings), v.hands,
                v.played, v.recorded, v.deals_proven, v.not_replayed)

    rng = random.Random(20261130)
    bodies = []
    for name in FUZZ_BASES:
        data = rewrite((FIXTURES / f"{name}.tlog").read_bytes(), lambda log: None, KEY)
        bodies.append(data[:parse_log(data).signature_offset])
    read = 0
    for _ in range(FUZZ):
        body = _mutant(rng, rng.choice(bodies))
        data = body + msgpack.packb([3, sign(KEY, body)], use_bin_type=True)
        fast = fast_parse(data, DEFAULT_LIMITS)
        try:
            log = _parse_carefully(data, DEFAULT_LIMITS)
        except LogError:
            assert fast is None, data.hex()
            continue
        assert fast is None or fast == log, data.hex()
        read += 1
        v = verify_log(log)
        assert said(v) == said(verify_log(log, fast=False)), data.hex()
        if v.clean:
            assert v.deals_proven or v.recorded == v.hands, data.hex()
    assert read >= FUZZ // 10  # the mutants reach the replay, not only the reader


# ---------------------------------------------------------------- the archive audit
def test_an_archive_does_not_count_deals_under_a_torn_signature_as_proven(tmp_path) -> None:
    """A log whose signature does not verify is no platform's word, however its last bytes
    were lost: a torn signature (zeros over its end) is a cut-short finding, and its deals
    were tallied with those proven by seeds under the pinned key."""
    from tarneeb.audit.signing import public_key_raw
    from tarneeb.replay.archive.audit import ArchiveSummary, audit_chunk

    data = rewrite((FIXTURES / "eram41-01.tlog").read_bytes(), lambda log: None, KEY)
    (tmp_path / "whole.tlog").write_bytes(data)
    (tmp_path / "torn.tlog").write_bytes(data[:-8] + bytes(8))
    pinned = public_key_raw(KEY.public_key())
    rows = {}
    for name in ("whole", "torn"):
        chunk = audit_chunk([str(tmp_path / f"{name}.tlog")], trust=Trust(public_key=pinned))
        summary = ArchiveSummary()
        summary.add(chunk)
        rows[name] = chunk.matches[0]
    assert rows["whole"].verdict == "clean" and rows["whole"].deals == "proven"
    assert rows["torn"].verdict == "findings" and rows["torn"].deals == "recorded"


# ---------------------------------------------------------------- receipts
def test_a_receipt_s_season_says_only_what_is_signed() -> None:
    """The season of a receipt is its leaf's index, size and root, all signed: a field
    beside them (a proof, another leaf) was read past, so the text a seat keeps could say
    more than its signature covers."""
    import hashlib
    import json

    from tarneeb.audit.seeds import Season
    from tarneeb.replay.log import BatchProof, parse_log
    from tarneeb.replay.server.simulate import play_logged_match
    from tarneeb.replay.verify.receipt import ReceiptError, read_receipt, receipt_json

    season = Season.from_seeds([hashlib.sha256(b"forgeries2 season %d" % i).digest()
                                for i in range(4)])
    batch = BatchProof(2, season.size, season.proof(2), season.root, season.head.sign(KEY))
    log = play_logged_match("eram41", seed=b"forgeries2 season", key=KEY,
                            server_seed=season.seeds[2], batch=batch)
    doc = json.loads(receipt_json(parse_log(log).header, KEY))
    assert read_receipt(json.dumps(doc).encode()).receipt.season.index == 2
    for extra in ({"leaf": 3}, {"proof": [p.hex() for p in season.proof(3)]}):
        bad = {**doc, "season": {**doc["season"], **extra}}
        with pytest.raises(ReceiptError, match="season"):
            read_receipt(json.dumps(bad).encode())
