"""Logs are read as a stream within caps: size, records, dealing attempts, record size, depth.

Every cap, when hit, ends in one error naming the cap (and the option that raises it);
memory does not grow with the size of the file.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import msgpack
import pytest
from cli_runner import run

from tarneeb.replay.log import HandRecord, encode_record, parse_log, read_log
from tarneeb.replay.log.stream import (
    DEFAULT_LIMITS,
    CapExceeded,
    Limits,
    LogError,
    RecordReader,
    depth_ok,
)
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes, verify_file
from tarneeb.replay.verify.trust import Trust

LOG = play_logged_match("eram41", seed=b"limits")
HEADER = LOG[:parse_log(LOG).offsets[0]]


def cancelled(n: int) -> bytes:
    """A legal-looking hand record of a cancelled deal."""
    return encode_record(HandRecord(deal_number=n, dealer=n % 4, calls=[]))


class EndlessLog(io.RawIOBase):
    """A header, then cancelled hands for ever: a stream no reader may take whole."""

    def __init__(self) -> None:
        self.sent = 0
        self.pending = bytearray(HEADER)
        self.n = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        while len(self.pending) < len(b):
            self.pending += cancelled(self.n % 1_000_000)
            self.n += 1
        k = len(b)
        b[:k] = self.pending[:k]
        del self.pending[:k]
        self.sent += k
        return k


def run_cli(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command as a user runs it, in its own process: real exit code, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "tarneeb.cli.app", *argv], input=stdin,
                          capture_output=True, timeout=60, check=False)


def test_a_whole_log_reads_as_a_stream() -> None:
    p = parse_log(io.BytesIO(LOG))
    q = parse_log(LOG)
    assert p.hands == q.hands and p.signed_bytes == q.signed_bytes and p.size == len(LOG)
    assert verify_bytes(LOG).clean


def test_endless_stream_stops_at_the_dealing_attempts_cap() -> None:
    stream = EndlessLog()
    with pytest.raises(CapExceeded) as e:
        parse_log(stream, "live.tlog")
    assert e.value.cap == "max_hands" and e.value.limit == DEFAULT_LIMITS.max_hands
    assert "max_hands cap of 1,000; raise it with --max-hands" in str(e.value)
    assert str(e.value).startswith("live.tlog: byte ")
    assert stream.sent < 100_000  # it stopped reading at the cap, in chunks


def test_endless_stream_stops_at_the_records_and_bytes_caps() -> None:
    with pytest.raises(CapExceeded) as e:
        parse_log(EndlessLog(), limits=Limits(max_hands=10**9, max_records=500))
    assert e.value.cap == "max_records" and "--max-records" in str(e.value)
    with pytest.raises(CapExceeded) as e:
        parse_log(EndlessLog(), limits=Limits(max_hands=10**9, max_bytes=100_000))
    assert e.value.cap == "max_bytes" and e.value.offset == 100_000


def test_caps_can_be_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = len(parse_log(LOG).hands)
    with pytest.raises(CapExceeded, match="max_hands cap of 3"):
        parse_log(LOG, limits=Limits(max_hands=3))
    assert len(parse_log(LOG, limits=Limits(max_hands=n)).hands) == n
    with pytest.raises(CapExceeded, match="max_bytes"):
        parse_log(LOG, limits=Limits(max_bytes=len(LOG) - 1))
    assert parse_log(LOG, limits=Limits(max_bytes=len(LOG))).signature is not None
    path = tmp_path / "m.tlog"
    path.write_bytes(LOG)
    code, out, err = run(capsys, "verify", "--max-hands", "2", str(path))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"tarneeb: error: {path}: byte {parse_log(LOG).offsets[2]}: the match has more dealing "
        "attempts: over the max_hands cap of 2; raise it with --max-hands"]
    code, out, err = run(capsys, "verify", "--max-hands", str(n), "--max-bytes", str(len(LOG)),
                         str(path))
    assert code == 0, err
    for command in ("show", "export", "dump"):
        code, out, err = run(capsys, command, "--max-hands", "2", str(path))
        assert code == 2 and "max_hands cap of 2; raise it with --max-hands" in err, command


def test_a_huge_file_is_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.tlog"
    with open(big, "wb") as f:  # sparse: 2 GiB on the books, nothing on disk
        f.write(LOG)
        f.truncate(2 << 30)
    r = run_cli("verify", str(big))
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.decode() == (f"tarneeb: error: {big}: byte 0: the log is 2,147,483,648 "
                                 "bytes: over the max_bytes cap of 16,777,216; raise it with "
                                 "--max-bytes\n")


def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    big = tmp_path / "big.tlog"
    with open(big, "wb") as f:
        f.write(LOG)
        f.truncate(1 << 30)  # 1 GiB of zeros after the signature
    tracemalloc.start()
    try:
        v = verify_file(str(big), trust=Trust(limits=Limits(max_bytes=4 << 30)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # zeros after a whole log: what a power loss leaves; counted a chunk at a time, not kept
    assert v.exit_code == 1 and v.error is None
    assert [f.kind for f in v.findings] == ["cut-short"]
    assert f"cut at byte {len(LOG)}: the rest of the file ({(1 << 30) - len(LOG):,} bytes) " \
        "is zeros" in v.findings[0].message
    assert peak < 4 << 20, peak
    endless = EndlessLog()  # a stream that never ends, read up to a raised cap
    tracemalloc.start()
    try:
        with pytest.raises(CapExceeded, match="max_hands"):
            parse_log(endless, limits=Limits(max_hands=5_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak


def test_a_pipe_is_read_as_a_stream_too() -> None:
    data = HEADER + b"".join(cancelled(i) for i in range(1500))
    with pytest.raises(CapExceeded, match="max_hands"):
        parse_log(io.BufferedReader(io.BytesIO(data)))


def test_a_record_larger_than_any_is_refused() -> None:
    # a str32 length prefix claiming 4 GiB mid-stream: refused once the prefix is read
    bad = HEADER + b"\x92\x01\xdb\xff\xff\xff\xff" + bytes(200_000)
    with pytest.raises(LogError, match="a length prefix claims 4,294,967,295 bytes"):
        parse_log(bad, strict=True)
    cut = parse_log(bad).cut_short  # read as a log: no allocation, unreadable from there
    assert cut is not None and cut.offset == len(HEADER) and "4,294,967,295" in cut.message
    # a record longer than the record cap, whatever its shape
    big = msgpack.packb([1, *([b"x" * 4000] * 40)])
    with pytest.raises(CapExceeded, match="max_record_bytes") as e:
        list(RecordReader(HEADER + big))
    assert e.value.offset == len(HEADER)


def test_depth_is_bounded() -> None:
    deep = b"\x91" * 1000 + b"\x00"
    with pytest.raises(LogError):
        parse_log(deep)
    with pytest.raises(CapExceeded, match="max_depth"):
        list(RecordReader(b"\x91" * 20 + b"\x00"))
    assert depth_ok([[1]], 2) and not depth_ok([[[1]]], 2) and depth_ok(7, 1)
    v = verify_bytes(HEADER + b"\x91" * 1000 + b"\x00")  # after a header: unreadable from it
    assert v.exit_code == 1 and any(f.message.startswith(f"unreadable from byte {len(HEADER)}: ")
                                    and "max_depth" in f.message for f in v.findings)


def test_read_log_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="cannot read: No such file"):
        read_log(str(tmp_path / "none.tlog"))
    with pytest.raises(ValueError, match="max_hands must be a whole number"):
        Limits(max_hands=0)


def test_regress_reads_logs_within_the_caps(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    good, big = tmp_path / "a.tlog", tmp_path / "b.tlog"
    good.write_bytes(LOG)
    with open(big, "wb") as f:
        f.truncate(2 << 30)
    engine = "tarneeb.testing.adapters:reference"
    code, _, err = run(capsys, "regress", "--engine", engine, str(good), str(big))
    assert code == 2
    assert f"{big}: byte 0: the log is 2,147,483,648 bytes: over the max_bytes cap" in err
    code, _, err = run(capsys, "regress", "--engine", engine, "--max-hands", "2", str(good))
    assert code == 2 and "over the max_hands cap of 2; raise it with --max-hands" in err
    code, _, _ = run(capsys, "regress", "--engine", engine, str(good))
    assert code == 0


@pytest.mark.parametrize("stream", [False, True])
def test_a_timer_move_across_a_chunk_boundary_is_one_move(stream: bool) -> None:
    """A timer move is two bytes (``cc 85``); where the first falls on the last byte of a
    chunk read, the run of moves goes on in the next chunk (it ended in a traceback)."""
    from tarneeb.replay.log.stream import CHUNK, Moves

    filler = msgpack.packb(b"x" * 4000) * 16  # records before the run
    moves = b"\x01" * (CHUNK - 1 - len(filler)) + b"\xcc\x85" + b"\x02" * 9
    data = filler + moves
    assert data[CHUNK - 1] == 0xcc
    values = list(RecordReader(io.BytesIO(data) if stream else data))
    assert [type(r.value) for r in values] == [bytes] * 16 + [Moves]
    assert values[-1].raw == moves


@pytest.mark.parametrize("after_header", [False, True])
def test_a_long_run_of_move_bytes_is_one_line_and_the_archive_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], after_header: bool) -> None:
    """A run of bytes that each read as a move, longer than a record may be (200 KB of
    ``A``: unreadable, exit 2; a log's header followed by 300 KB of 0x01: a log cut at
    the record cap, a finding) is said in words, no traceback: it overflowed the reader's
    buffer, and an archive audit stopped at it, the other logs unread."""
    good = play_logged_match("classic", seed=b"run of moves")
    other = play_logged_match("classic", seed=b"another match")  # (not good's: a conflict)
    bad = (encode_record(parse_log(other).header) + b"\x01" * 300_000 if after_header
           else b"A" * 200_000)
    (tmp_path / "a-bad.tlog").write_bytes(bad)
    (tmp_path / "b-good.tlog").write_bytes(good)
    code, out, err = run(capsys, "verify", str(tmp_path / "a-bad.tlog"))
    assert code == (1 if after_header else 2) and "Traceback" not in err
    # (what begins with moves is no log at all, however long the run)
    assert ("max_record_bytes" if after_header else "not a tarneeb log") in out + err
    code, out, err = run(capsys, "audit", "--no-stats", "--json", str(tmp_path))
    doc = json.loads(out)
    assert doc["logs"] == 2 and doc["clean"] == 1 and code == (1 if after_header else 2)
    assert doc["unreadable"] == (0 if after_header else 1)
