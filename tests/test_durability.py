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
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.server.recorder import record_json
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.trust import Trust

SEED = b"durability"
RULES = preset("eram41").with_options(name="eram41-short", target=21)  # a short match: its own name


@pytest.fixture(scope="module")
def match() -> tuple[bytes, dict, MatchSecrets]:
    log = play_logged_match(RULES, seed=SEED)
    return log, logjson.to_json(log), MatchSecrets(SEED)


WINDOW = 16  # values the server may write ahead of the acknowledgements read


def serve(path: Path, doc: dict, s: MatchSecrets, durability: str, ack: int, go: int) -> None:
    """The server: records the match move by move and, after each value is written,
    acknowledges it on the pipe ``ack`` with the log's size then (8 bytes). Every
    ``WINDOW`` values it waits for the client to catch up (a byte on ``go``), so a kill
    lands near the acknowledgement it follows, anywhere in the next few writes."""
    count = 0

    def acked(rec: tarneeb.MatchRecorder) -> None:
        nonlocal count
        os.write(ack, struct.pack("<Q", rec.writer.size))
        count += 1
        if count % WINDOW == 0:
            os.read(go, 1)

    record_json(doc, path, key=s.key, durability=durability, each=acked)


def kill_at(path: Path, doc: dict, s: MatchSecrets, durability: str,
            after: int) -> tuple[int, int]:
    """Fork a server, SIGKILL it once it has acknowledged ``after`` values: how many it
    acknowledged, and the log size it acknowledged last."""
    r, w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server
        code = 1
        try:
            os.close(r)
            os.close(go_w)
            serve(path, doc, s, durability, w, go_r)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    os.close(go_r)
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
            if acks % WINDOW == 0 and acks < after:
                os.write(go_w, b"g")
        os.kill(pid, signal.SIGKILL)
    os.close(go_w)
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
        v = tarneeb.verify_bytes(data, trust=Trust(server_seed=s.server_seed))
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
            v = tarneeb.verify_bytes(data, trust=Trust(server_seed=s.server_seed))
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
    log, doc, s = match
    p = parse_log(log)
    path = tmp_path / "crashed.tlog"
    acks, size = kill_at(path, doc, s, "flush", 300)
    assert acks == 300 and path.read_bytes()[:size] == log[:size]
    at = p.offsets[6] + 6 + 4 + 17  # the image of a crash in hand 6's play: 17 cards down,
    path.write_bytes(log[:at] + b"\x95\x04\xc0" + bytes(700))  # a torn claims record, zeros
    rec = tarneeb.MatchRecorder.resume(path)
    assert rec.writer.size == at == os.path.getsize(path) and rec.moves == 4 + 17
    rec.abandon("server-fault", None, "restarted after a crash", s.server_seed)
    rec.sign(s.key)
    rec.close()
    v = tarneeb.verify_file(str(path), trust=Trust(public_key=p.header.public_key))
    assert v.clean, [str(f) for f in v.findings]
    assert v.ending == "abandoned at hand 6, trick 5: the server failed: restarted after a " \
        "crash"
    with pytest.raises(tarneeb.RecorderError, match="the log is signed"):
        tarneeb.MatchRecorder.resume(path)
    go_on = tmp_path / "go-on.tlog"
    go_on.write_bytes(log[:p.offsets[1] - 7])  # in the first hand's claims record
    rec = tarneeb.MatchRecorder.resume(go_on)  # the hand stays open: it goes on
    assert rec.moves == len(p.hands[0].calls) + 52
    with pytest.raises(tarneeb.RecorderError, match="a deal while hand 1 is open"):
        rec.deal(1)
    rec.close()
