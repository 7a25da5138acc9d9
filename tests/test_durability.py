"""Logs a crash leaves: a server killed with SIGKILL at random points, tails cut and
zero-filled at every byte. Every move acknowledged is in the log and verifies."""

from __future__ import annotations

import os
import random
import signal
import struct
from pathlib import Path

import pytest

import tarneeb
from tarneeb.replay import logjson
from tarneeb.replay.logformat import parse_log
from tarneeb.replay.recorder import record_json
from tarneeb.replay.rules import preset
from tarneeb.replay.simulate import MatchSecrets, play_logged_match

SEED = b"durability"
RULES = preset("eram41").with_options(name="eram41-short", target=21)  # a short match: its own name


@pytest.fixture(scope="module")
def match() -> tuple[bytes, dict, MatchSecrets]:
    log = play_logged_match(RULES, seed=SEED)
    return log, logjson.to_json(log), MatchSecrets(SEED)


def serve(path: Path, doc: dict, s: MatchSecrets, durability: str, ack: int) -> None:
    """The server: records the match move by move and, after each value is written,
    acknowledges it on the pipe ``ack`` with the log's size then (8 bytes)."""
    record_json(doc, path, key=s.key, durability=durability,
                each=lambda rec: os.write(ack, struct.pack("<Q", rec.writer.size)))


def kill_at(path: Path, doc: dict, s: MatchSecrets, durability: str,
            after: int) -> tuple[int, int]:
    """Fork a server, SIGKILL it once it has acknowledged ``after`` values: how many it
    acknowledged, and the log size it acknowledged last."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server
        code = 1
        try:
            os.close(r)
            serve(path, doc, s, durability, w)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    acks, size = 0, 0
    with os.fdopen(r, "rb", buffering=0) as pipe:
        while acks < after:
            data = b""
            while len(data) < 8:
                chunk = pipe.read(8 - len(data))
                if not chunk:
                    break
                data += chunk
            if len(data) < 8:
                break  # the server finished first
            acks, size = acks + 1, struct.unpack("<Q", data)[0]
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return acks, size


def test_a_server_killed_at_100_random_points_loses_no_acknowledged_move(
        tmp_path: Path, match: tuple[bytes, dict, MatchSecrets]) -> None:
    log, doc, s = match
    p = parse_log(log)
    values = 1 + sum(1 + len(h.calls) + len(h.plays) + 1 for h in p.hands) + 1
    rng = random.Random(20261130)
    counts = {"kills": 0, "mid-match": 0, "acknowledged": 0}
    for i in range(100):
        durability = "fsync" if i % 20 == 0 else ("group:3" if i % 2 else "flush")
        after = rng.randrange(1, 40 if durability == "fsync" else values + 2)
        path = tmp_path / f"kill-{i}.tlog"
        acks, size = kill_at(path, doc, s, durability, after)
        counts["kills"] += 1
        counts["acknowledged"] += acks
        data = path.read_bytes()
        # every byte acknowledged is on disk, exactly as the whole log has it
        assert len(data) >= size and data[:size] == log[:size], (i, durability, acks)
        if data == log:
            assert tarneeb.verify_bytes(data).clean
            continue
        counts["mid-match"] += 1
        cut = parse_log(data)
        moves = sum(len(h.calls) + len(h.plays) for h in cut.hands)
        acked = parse_log(log[:size]) if size > p.offsets[0] else None
        if acked is not None:
            assert moves >= sum(len(h.calls) + len(h.plays) for h in acked.hands)
        v = tarneeb.verify_bytes(data, server_seed=s.server_seed)
        kinds = {f.kind for f in v.findings}
        assert v.exit_code == 1 and kinds <= {"cut-short", "unsigned"}, (i, v.findings)
        assert v.hands == len(cut.hands)  # every hand on disk replayed, to its last move
    assert counts["mid-match"] >= 80 and counts["acknowledged"] > 1000, counts
    print(f"\nSIGKILL test: {counts}")


def test_tails_cut_or_zero_filled_at_every_byte(
        match: tuple[bytes, dict, MatchSecrets]) -> None:
    log, _, s = match
    p = parse_log(log)
    header_end = p.offsets[0]
    assert p.end_offset is not None and p.signature_offset is not None
    for at in range(1, len(log)):
        for data in (log[:at], log[:at] + bytes(len(log) - at)):
            v = tarneeb.verify_bytes(data, server_seed=s.server_seed)
            if at < header_end:  # nothing to check before it: unreadable, one line
                assert v.exit_code == 2 and v.error and "\n" not in v.error
                if len(data) == at:
                    assert "cut short inside its header" in v.error
                continue
            kinds = {f.kind for f in v.findings}
            assert v.exit_code == 1 and v.error is None, (at, v.error)
            if at < p.end_offset:  # cut before the end record: a cut, and nothing else
                assert kinds == {"cut-short"}, (at, [str(f) for f in v.findings])
                cut = next(f for f in v.findings if f.kind == "cut-short")
                assert cut.message.startswith("cut at byte ") and cut.offset <= at
                whole = sum(1 for o in p.offsets if o < at)
                assert v.hands in (whole, whole - 1)  # a deal record cut in half is not one
            else:  # inside the end record or the signature
                assert kinds and kinds <= {"cut-short", "unsigned", "broken-signature"}, at


def test_a_restarted_server_ends_the_match_it_crashed_in(
        tmp_path: Path, match: tuple[bytes, dict, MatchSecrets]) -> None:
    """After a crash (and the zero-filled tail of a power loss) the restarted server takes
    the log up again, ends the match as abandoned, reveals the seed and signs: every move
    that reached the disk is checked, and the verdict says where and why it stopped."""
    _, doc, s = match
    path = tmp_path / "crashed.tlog"
    acks, size = kill_at(path, doc, s, "flush", 300)
    assert acks == 300
    with open(path, "ab") as f:
        f.write(bytes(700))
    rec = tarneeb.MatchRecorder.resume(path)
    assert rec.writer.size <= os.path.getsize(path) and rec.writer.size >= size
    rec.abandon("server-fault", None, "restarted after a crash", s.server_seed)
    rec.sign(s.key)
    rec.close()
    v = tarneeb.verify_file(str(path), public_key=parse_log(path.read_bytes()).header.public_key)
    assert v.clean, [str(f) for f in v.findings]
    assert v.ending is not None and v.ending.startswith("abandoned at hand ")
    assert v.ending.endswith(": the server failed: restarted after a crash")
    with pytest.raises(tarneeb.RecorderError, match="the log is signed"):
        tarneeb.MatchRecorder.resume(path)
    resumed = tmp_path / "go-on.tlog"
    kill_at(resumed, doc, s, "flush", 40)
    rec = tarneeb.MatchRecorder.resume(resumed)  # in the first hand: it goes on playing
    assert rec.moves > 0
    with pytest.raises(tarneeb.RecorderError, match="a deal while hand 0 is open"):
        rec.deal(1)
    rec.close()
