"""Logs both verifiers once called clean although their moves
break the rules (docs/RULES.md), each signed again with the log's own key so that only the
rule is tested.

The hand an abandoned match stops in is replayed "as far as it goes" (RULES.md, "Even the
hand a log stops in"). Both verifiers stopped judging it as soon as its bidding (or the
auction winner's trump) was still awaited, without looking at what followed: cards played
before the bidding was over, or before the trump was named, and a trump named before the
auction ended, were never judged, and the log was clean.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from js_build import JS, built

from tarneeb.replay.log import PASS_CODE, Abandonment, EndRecord, HandRecord
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations.base import EditableLog, rewrite

CLI = JS / "dist" / "src" / "cli.js"


def _stopped(rules: str, seed: bytes, calls: int, trump: bool, plays: int) -> bytes:
    """A clean log of ``rules`` whose first played hand is left open after its first
    ``calls`` calls, its trump move (``trump``, classic) and its first ``plays`` cards, and
    the match abandoned there by a resignation."""
    data = play_logged_match(rules, seed=seed)

    def change(log: EditableLog) -> None:
        n = next(i for i, r in enumerate(log.hands) if len(r.plays) == 52)
        rec = log.hands[n]
        log.hands[n:] = [HandRecord(rec.deal_number, rec.dealer, rec.calls[:calls],
                                    rec.revealed, rec.trump if trump else None,
                                    rec.plays[:plays], 0, None, None, None, rec.deal,
                                    closed=False)]
        assert log.end is not None
        log.end = EndRecord(None, log.end.server_seed, Abandonment("resignation", 0, "left"))

    return rewrite(data, change, resign=MatchSecrets(seed).key)


def _classic_calls(seed: bytes) -> int:
    """How many calls the first played hand of the classic match of ``seed`` has."""
    from tarneeb.replay.log import parse_log

    log = parse_log(play_logged_match("classic", seed=seed))
    return len(next(r for r in log.hands if len(r.plays) == 52).calls)


CASES = [
    # personal bidding: the dealer has not bid, yet cards are played
    ("eram41", 3, False, 4, "bidding-incomplete"),
    ("sahrat400", 2, False, 1, "bidding-incomplete"),
    # classic: the auction is over, nobody named the trump, yet cards are played
    ("classic", -1, False, 5, "wrong-trump"),
    # classic: the auction is not over (its last call missing), yet the trump is named
    ("classic", -2, True, 0, "bidding-incomplete"),
    ("classic", -2, True, 3, "bidding-incomplete"),
]


def _logs(tmp: Path) -> list[tuple[Path, str]]:
    out = []
    for i, (rules, calls, trump, plays, kind) in enumerate(CASES):
        seed = f"open hand {i}".encode()
        if calls < 0:
            calls = _classic_calls(seed) + calls + 1
        p = tmp / f"{i}-{rules}.tlog"
        p.write_bytes(_stopped(rules, seed, calls, trump, plays))
        out.append((p, kind))
    return out


def test_moves_after_an_unfinished_bidding_are_judged_python(tmp_path: Path) -> None:
    for path, kind in _logs(tmp_path):
        v = verify_bytes(path.read_bytes())
        assert not v.clean, path.name
        assert kind in [f.kind for f in v.findings], (path.name, v.findings)


def test_moves_after_an_unfinished_bidding_agree_js(tmp_path: Path) -> None:
    node = built("cli.js")
    logs = _logs(tmp_path)
    args = ["verify", "--json", *(str(p) for p, _ in logs)]
    js = subprocess.run([node, str(CLI), *args], capture_output=True, text=True)
    py = subprocess.run([sys.executable, "-m", "tarneeb", *args], capture_output=True,
                        text=True)
    assert js.returncode == 1, js.stderr
    js_v, py_v = json.loads(js.stdout), json.loads(py.stdout)
    assert js_v == py_v
    for v, (_, kind) in zip(js_v, logs, strict=True):
        assert v["verdict"] == "findings"
        assert kind in [f["kind"] for f in v["findings"]]


@pytest.mark.parametrize("plays", [0])
def test_an_open_bidding_alone_stays_clean(tmp_path: Path, plays: int) -> None:
    """The honest case is unchanged: a match abandoned in the bidding, nothing after it."""
    seed = b"open hand honest"
    data = _stopped("eram41", seed, 2, False, plays)
    assert verify_bytes(data).clean


@pytest.mark.parametrize("value", [b"\xca" + bytes.fromhex("41a00000"),  # 20.0, float 32
                                   b"\xca" + bytes.fromhex("cc920819")])  # a whole float 32
def test_a_whole_float_where_a_move_may_stand_is_named_alike(tmp_path: Path,
                                                            value: bytes) -> None:
    """A float of a whole value between two records is a record not in canonical form, in
    Python's words (msgpack reads it as a float, not an int: no move); the JS verifier once
    called it a move, as its decoder gives both as one JavaScript number."""
    from tarneeb.audit.signing import sign
    from tarneeb.replay.log import parse_log

    seed = b"whole float"
    log = parse_log(play_logged_match("eram41", seed=seed))
    assert log.end_offset is not None
    body = log.signed_bytes
    body = body[:log.end_offset] + value + body[log.end_offset:]
    path = tmp_path / "float.tlog"
    path.write_bytes(body + b"\x92\x03\xc4\x40" + sign(MatchSecrets(seed).key, body))
    node = built("cli.js")
    args = ["verify", "--json", str(path)]
    js = subprocess.run([node, str(CLI), *args], capture_output=True, text=True)
    py = subprocess.run([sys.executable, "-m", "tarneeb", *args], capture_output=True,
                        text=True)
    assert py.returncode == js.returncode == 1, (py.stderr, js.stderr)
    js_v, py_v = json.loads(js.stdout), json.loads(py.stdout)
    assert "record is not in canonical msgpack form" in json.dumps(py_v)
    assert js_v == py_v


def _cancelled_then_trump(seed: bytes) -> bytes:
    """A classic log whose first hand is left open after four passes (the hand cancelled)
    and a trump named, the match abandoned there."""
    data = play_logged_match("classic", seed=seed)

    def change(log: EditableLog) -> None:
        rec = log.hands[0]
        passes = [((rec.dealer + 1 + i) % 4, PASS_CODE) for i in range(4)]
        log.hands[0:] = [HandRecord(rec.deal_number, rec.dealer, passes, rec.revealed, 2, [],
                                    0, None, None, None, rec.deal, closed=False)]
        assert log.end is not None
        log.end = EndRecord(None, log.end.server_seed, Abandonment("resignation", 0, "left"))

    return rewrite(data, change, resign=MatchSecrets(seed).key)


def test_a_trump_named_after_a_cancelled_bidding_is_judged(tmp_path: Path) -> None:
    """All four passed (the hand cancelled), then a trump was named, and the log stops: the
    trump is a move the rules never allowed, as in a closed hand (it was clean)."""
    path = tmp_path / "cancelled.tlog"
    path.write_bytes(_cancelled_then_trump(b"open hand cancelled"))
    v = verify_bytes(path.read_bytes())
    assert "not-canonical" in [f.kind for f in v.findings] and not v.clean
    node = built("cli.js")
    args = ["verify", "--json", str(path)]
    js = subprocess.run([node, str(CLI), *args], capture_output=True, text=True)
    py = subprocess.run([sys.executable, "-m", "tarneeb", *args], capture_output=True,
                        text=True)
    assert py.returncode == js.returncode == 1 and json.loads(js.stdout) == json.loads(py.stdout)
