"""Protocol tarneeb-fair-v2: every deal is bound to what the platform promised before play.

The attacks of docs/PROTOCOL.md's threats table, played against the verifier: a server
that picks the season leaf after the seats revealed their seeds (leaf grinding), a
season size claimed larger than the one signed, seeds too short to hide, a receipt
changed after signing.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import replace
from pathlib import Path

from test_cli import own_config_dir, run  # noqa: F401  (own_config_dir: an autouse fixture)

from tarneeb.audit import DealDeriver, Season, client_commitments, match_binding
from tarneeb.audit.signing import private_key_from_raw, public_key_raw
from tarneeb.replay.log import BatchProof, parse_log
from tarneeb.replay.rules.dealing import hands_of
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import read_receipt, receipt_json
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing.alterations.base import EditableLog, rewrite

# fixed, public values: a test, not play
KEY = private_key_from_raw(hashlib.sha256(b"v2 test platform key").digest())
SEASON = Season.from_seeds([hashlib.sha256(b"v2 test season seed %d" % i).digest()
                            for i in range(16)])
HEAD_SIGNATURE = SEASON.head.sign(KEY)
MATCH = b"v2 test match"  # the reproducible seed of the match: its client seeds and match id
PROMISED = 5  # the leaf the platform names before the seats commit


def batch(index: int, season: Season = SEASON, head_signature: bytes = HEAD_SIGNATURE
          ) -> BatchProof:
    return BatchProof(index, season.size, season.proof(index), season.root, head_signature)


@functools.cache
def season_log(index: int) -> bytes:
    """The match played as leaf ``index`` of the season, its commitments bound to that leaf."""
    return play_logged_match("eram41", seed=MATCH, key=KEY, server_seed=SEASON.seeds[index],
                             batch=batch(index))


@functools.cache
def promised_receipt() -> bytes:
    """The receipt the platform signed when play started, naming leaf PROMISED."""
    return receipt_json(parse_log(season_log(PROMISED)).header, KEY).encode()


def high_card_points(hand: int) -> int:
    """A 4, K 3, Q 2, J 1."""
    return sum(max(0, rank - 8) for c in range(52) if hand >> c & 1 for rank in [c % 13])


def points_for_seats_0_and_2(index: int) -> int:
    """What the first deal gives seats 0 and 2 if the match is played as leaf ``index``."""
    s = MatchSecrets(MATCH)
    deriver = DealDeriver(SEASON.seeds[index], s.match_id, s.client_seeds, SEASON.leaf(index))
    hands = hands_of(deriver.deal(0))
    return high_card_points(hands[0]) + high_card_points(hands[2])


def kinds(v) -> set[str]:
    return {f.kind for f in v.findings}


def test_the_promised_match_verifies_clean_against_its_receipt():
    log = season_log(PROMISED)
    signed = read_receipt(promised_receipt())
    v = verify_bytes(log, trust=Trust(receipts=(signed,),
                                      public_key=public_key_raw(KEY.public_key())))
    assert v.clean and v.deals_proven and v.exit_code == 0, v.findings
    assert not any("receipt" in n for n in v.notes)
    plain = verify_bytes(log)  # without the receipt the verdict says what it rests on
    assert plain.clean and any("pre-play receipt" in n for n in plain.notes)


def test_leaf_grinding_is_refused():
    """A server with a 16-leaf season looks, once the client seeds are revealed, at the
    deals every leaf would give and plays the match as the leaf that suits seats 0 and 2.
    In v1 the players' commitments did not name the leaf, so the log of the chosen leaf
    carried them unchanged and verified clean. In v2 it cannot: kept, they no longer match
    the seeds; re-made, they are not the ones on the seats' receipt."""
    points = {i: points_for_seats_0_and_2(i) for i in range(SEASON.size)}
    chosen = max(points, key=lambda i: (points[i], i != PROMISED))
    assert len(set(points.values())) > 1 and points[chosen] > points[PROMISED]
    assert chosen != PROMISED
    signed = read_receipt(promised_receipt())

    # 1. the server re-makes the commitments for the chosen leaf (it knows the seeds now)
    ground = season_log(chosen)
    v = verify_bytes(ground, trust=Trust(receipts=(signed,)))
    assert v.exit_code == 1 and not v.deals_proven
    messages = [f.message for f in v.findings if f.kind == "receipt-mismatch"]
    assert any(f"the receipt promised leaf {PROMISED} of the season of 16" in m
               and f"the log has leaf {chosen} of the season of 16" in m for m in messages)
    assert any("client commitments of seat 0, seat 1, seat 2, seat 3 are not the ones "
               "promised" in m for m in messages)

    # 2. the server keeps the seats' own commitments (as a v1 log could): they do not match
    promised_commitments = parse_log(season_log(PROMISED)).header.client_commitments

    def keep(p: EditableLog) -> None:
        p.header = replace(p.header, client_commitments=promised_commitments)
    kept = rewrite(ground, keep, KEY)
    v = verify_bytes(kept)  # no receipt needed
    assert v.exit_code == 1 and not v.deals_proven
    assert {f.seat for f in v.findings if f.kind == "client-seed"} == {0, 1, 2, 3}
    assert "receipt-mismatch" in kinds(verify_bytes(kept, trust=Trust(receipts=(signed,))))


def test_the_leaf_changes_every_deal():
    s = MatchSecrets(MATCH)
    decks = {tuple(DealDeriver(SEASON.seeds[0], s.match_id, s.client_seeds, leaf).deck(0))
             for leaf in (None, SEASON.leaf(0), replace(SEASON.leaf(0), size=17))}
    assert len(decks) == 3


def test_a_larger_season_size_is_refused():
    """RFC 9162 lets the proof of leaf 3 of a 5-leaf tree fit 6, 7 and 8 leaves too. A log
    claiming 8 leaves carries a head signature for 5, and its commitments (bound to 5)
    no longer match: the size cannot be changed after the seats committed."""
    five = Season.from_seeds(SEASON.seeds[:5])
    log = play_logged_match("eram41", seed=MATCH, key=KEY, server_seed=five.seeds[3],
                            batch=batch(3, five, five.head.sign(KEY)))
    assert verify_bytes(log).clean

    def grow(p: EditableLog) -> None:
        assert p.header.batch is not None
        p.header = replace(p.header, batch=replace(p.header.batch,
                                                                           size=8))
    v = verify_bytes(rewrite(log, grow, KEY))
    assert "client-seed" in kinds(v) and not v.deals_proven
    assert any(f.kind == "batch-proof" and "size 8" in f.message
               and "not signed by the platform's key" in f.message for f in v.findings)

    def grow_and_remake(p: EditableLog) -> None:  # even re-signed and re-committed ...
        grow(p)
        leaf = replace(five.leaf(3), size=8)
        assert p.header.batch is not None and p.header.client_seeds is not None
        p.header.batch.head_signature = leaf.head.sign(KEY)
        p.header.client_commitments = list(client_commitments(
            p.header.match_id, p.header.client_seeds,
            match_binding(p.header.server_commitment or b"", leaf)))
    remade = rewrite(log, grow_and_remake, KEY)
    receipt = read_receipt(receipt_json(parse_log(log).header, KEY).encode())
    # ... the receipt names the size promised
    v = verify_bytes(remade, trust=Trust(receipts=(receipt,)))
    assert any(f.kind == "receipt-mismatch" and "season of 5" in f.message for f in v.findings)


def test_short_client_seeds_are_refused():
    def shorten(p: EditableLog) -> None:
        assert p.header.client_seeds is not None
        p.header.client_seeds[1] = p.header.client_seeds[1][:15]
    v = verify_bytes(rewrite(season_log(PROMISED), shorten, KEY))
    assert v.exit_code == 2 and "client_seeds must be 16-64 bytes" in (v.error or "")


def test_a_changed_receipt_is_a_finding():
    doc = json.loads(promised_receipt())
    doc["client_commitments"][2] = "00" * 32
    signed = read_receipt(json.dumps(doc).encode())
    v = verify_bytes(season_log(PROMISED), trust=Trust(receipts=(signed,)))
    messages = [f.message for f in v.findings if f.kind == "receipt-mismatch"]
    assert any("signature does not verify" in m for m in messages)
    assert any("the client commitment of seat 2 is not the one promised" in m
               for m in messages)
    other = private_key_from_raw(bytes(32))
    doc = json.loads(receipt_json(parse_log(season_log(PROMISED)).header, other))
    signed = read_receipt(json.dumps(doc).encode())
    v = verify_bytes(season_log(PROMISED), trust=Trust(receipts=(signed,)))
    assert [f.kind for f in v.findings] == ["receipt-mismatch"]
    assert "signed by key" in v.findings[0].message


# ---------------------------------------------------------------- the command line

def test_play_writes_a_receipt_and_verify_checks_it(tmp_path: Path, capsys) -> None:
    log, receipt = tmp_path / "m.tlog", tmp_path / "seat0.receipt.json"
    code, _, err = run(capsys, "play", "--rules", "qahwa41", "-o", str(log),
                       "--receipt-out", str(receipt))
    assert code == 0, err
    doc = json.loads(receipt.read_text())
    assert doc["format"] == "tarneeb-receipt" and doc["protocol"] == "tarneeb-fair-v2"
    assert doc["match_id"] == parse_log(log.read_bytes()).header.match_id.hex()
    code, out, err = run(capsys, "verify", "--receipt", str(receipt), str(log))
    assert code == 0, out + err
    other = tmp_path / "other.tlog"
    assert run(capsys, "play", "--rules", "qahwa41", "-o", str(other))[0] == 0
    code, out, _ = run(capsys, "verify", "--receipt", str(receipt), str(other))
    assert code == 1 and "not the match promised before play" in out
    code, out, _ = run(capsys, "verify", "--json", "--receipt", str(receipt), str(other))
    assert code == 1 and "receipt-mismatch" in {f["kind"] for f in json.loads(out)[0]["findings"]}


def test_verify_receipt_bad_input(tmp_path: Path, capsys) -> None:
    log = tmp_path / "m.tlog"
    log.write_bytes(season_log(PROMISED))
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2")
    code, _, err = run(capsys, "verify", "--receipt", str(junk), str(log))
    assert code == 2 and "junk.json: not a receipt: not JSON" in err and "Traceback" not in err
    good = tmp_path / "r.json"
    good.write_bytes(promised_receipt())
    code, _, err = run(capsys, "verify", "--receipt", str(good), str(log), str(log))
    assert code == 2 and "give one LOG, not 2" in err
    doc = json.loads(promised_receipt())
    doc["protocol"] = "tarneeb-fair-v1"
    good.write_text(json.dumps(doc))
    code, _, err = run(capsys, "verify", "--receipt", str(good), str(log))
    assert code == 2 and "protocol 'tarneeb-fair-v1'; this tool checks tarneeb-fair-v2" in err


def test_play_a_season_match_with_a_signed_head(tmp_path: Path, capsys) -> None:
    key = tmp_path / "platform.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    code, out, _ = run(capsys, "commit", "--matches", "4", "--json", "--key", str(key))
    season = tmp_path / "season.json"
    season.write_text(out)
    log, receipt = tmp_path / "m2.tlog", tmp_path / "r.json"
    code, _, err = run(capsys, "play", "--rules", "classic", "--season", str(season),
                       "--season-match", "2", "--key", str(key), "-o", str(log),
                       "--receipt-out", str(receipt))
    assert code == 0, err
    head = parse_log(log.read_bytes()).header.batch
    assert head is not None and head.head_signature.hex() == json.loads(out)["head"]["signature"]
    assert run(capsys, "verify", "--receipt", str(receipt), str(log))[0] == 0
    stranger = tmp_path / "stranger.pem"
    assert run(capsys, "keygen", str(stranger))[0] == 0
    code, _, err = run(capsys, "play", "--rules", "classic", "--season", str(season),
                       "--key", str(stranger), "-o", str(tmp_path / "x.tlog"))
    assert code == 2 and "signed by this platform key" in err
