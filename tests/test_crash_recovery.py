"""After a crash or a power loss: the server resumes its log and goes on, what it
acknowledged as durable is, and the bytes a power loss leaves are never judged as play.

A power loss keeps every byte an ``fsync`` covered; after them a disk may hold zeros or
whatever it held before. The disk images here keep a real log up to a value boundary
(what an ``fsync`` covers) and then random bytes. ``TARNEEB_LONG_DURABILITY=1`` runs the
kill and disk-image tests over many more cases.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import tarneeb
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.log import writer as logwriter
from tarneeb.replay.log.writer import Durability, LogWriter
from tarneeb.replay.rules.players import BotPlayer
from tarneeb.replay.rules.ruleset import RuleSet, preset
from tarneeb.replay.server.recorder import MatchRecorder, match_calls, record_json
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.tail import value_ends
from tarneeb.replay.verify.trust import Trust

LONG = os.environ.get("TARNEEB_LONG_DURABILITY") == "1"
SEED = b"crash recovery"
RULES = preset("eram41").with_options(name="eram41-short", target=21)  # a short match


class Match:
    """A whole match: its log, its JSON form, its secrets and the log size after each
    recorder call (the header first, the signature last)."""

    def __init__(self, rules: RuleSet, seed: bytes, timer_rate: float = 0.0) -> None:
        bots = [BotPlayer(random.Random(seed + bytes([s])), timer_rate=timer_rate)
                for s in range(4)]
        self.log = play_logged_match(rules, seed=seed, players=bots)
        self.doc = logjson.to_json(self.log)
        self.secrets = MatchSecrets(seed)
        self.parsed = parse_log(self.log)
        self.calls = list(match_calls(self.doc))
        sizes: list[int] = []
        record_json(self.doc, io.BytesIO(), key=self.secrets.key,
                    each=lambda rec: sizes.append(rec.writer.size))
        self.sizes = sizes  # sizes[i]: after the header and the first i calls
        assert sizes[-1] == len(self.log)

    def go_on(self, rec: MatchRecorder) -> None:
        """Write the rest of the match with a resumed recorder, from where its log stops
        (a size the uninterrupted run had), and sign it."""
        done = self.sizes.index(rec.writer.size)
        for call in self.calls[done:]:
            call(rec)
        rec.sign(self.secrets.key)
        rec.close()

    def verdict(self, data: bytes) -> tarneeb.Verdict:
        return tarneeb.verify_bytes(data, trust=Trust(public_key=self.parsed.header.public_key))


@pytest.fixture(scope="module")
def eram() -> Match:
    return Match(RULES, SEED)


@pytest.fixture(scope="module")
def classic() -> Match:
    """A match of named trumps, with timer moves (two-byte moves) in it."""
    m = Match(preset("classic").with_options(name="classic-short", target=16),
              b"crash recovery classic", timer_rate=0.1)
    assert any(h.timer for h in m.parsed.hands) and any(h.trump for h in m.parsed.hands)
    return m


# ------------------------------------------------------------------ resume, then go on
def kill_at(path: Path, m: Match, durability: str, after: int) -> None:
    """Fork a server recording ``m`` and SIGKILL it once it has written ``after`` values
    (the header counted): the kill lands between two of its writes."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server: waits for a go after each value it writes
        code = 1
        try:
            os.close(r)
            count = 0

            def written(rec: MatchRecorder) -> None:
                nonlocal count
                count += 1
                if count == after:
                    os.write(w, b"k")
                    signal.pause()  # killed here, the values written so far on the file

            record_json(m.doc, path, key=m.secrets.key, durability=durability, each=written)
            os.write(w, b"d")
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb", buffering=0) as pipe:
        pipe.read(1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.mark.parametrize("which", ["eram", "classic"])
def test_a_server_killed_anywhere_resumes_and_goes_on_to_the_same_log(
        tmp_path: Path, which: str, request: pytest.FixtureRequest) -> None:
    """PLATFORM.md: a restarted server resumes its log and goes on. Killed (SIGKILL) after
    any value, resumed, the match played to its end: the log verifies clean and is, byte
    for byte, the log the uninterrupted run writes."""
    m: Match = request.getfixturevalue(which)
    rng = random.Random(f"kill {which}")
    kills = 60 if LONG else 10
    for i in range(kills):
        durability = "fsync" if i == 1 else ("flush", "group:3")[i % 2]  # fsync: the slowest
        after = rng.randrange(1, len(m.sizes))  # never after the signature
        path = tmp_path / f"kill-{i}.tlog"
        kill_at(path, m, durability, after)
        assert path.read_bytes() == m.log[:m.sizes[after - 1]]
        rec = MatchRecorder.resume(path, durability=durability)
        assert rec.cut is None  # a process killed between two writes leaves whole values
        m.go_on(rec)
        data = path.read_bytes()
        assert data == m.log, (i, after, durability)
        assert m.verdict(data).clean


def test_a_resumed_recorder_takes_each_kind_of_call(tmp_path: Path, classic: Match) -> None:
    """The first call after resume may be any of them: a deal, a call, the trump named, a
    card, a claim, the end (each once failed on a resumed recorder)."""
    kinds: dict[str, int] = {}
    for i, call in enumerate(classic.calls):
        kinds.setdefault(call.func.__name__, i)  # type: ignore[attr-defined]
    assert set(kinds) == {"deal", "call", "name_trump", "play", "claim", "finish"}
    for name, i in kinds.items():
        path = tmp_path / f"{name}.tlog"
        path.write_bytes(classic.log[:classic.sizes[i]])
        rec = MatchRecorder.resume(path, durability="fsync")
        classic.calls[i](rec)
        assert rec.writer.size == classic.sizes[i + 1], name
        rec.close()
        assert path.read_bytes() == classic.log[:classic.sizes[i + 1]]


# ------------------------------------------------------------------ what "durable" means
class _Timers:
    """threading.Timer as the writer's group commit uses it, fired only when the test says:
    the background sync runs at the moment chosen."""

    def __init__(self) -> None:
        self.made: list[_Timers.Timer] = []

    def __call__(self, interval: float, function: Callable[[], None]) -> _Timers.Timer:
        timer = _Timers.Timer(interval, function)
        self.made.append(timer)
        return timer

    class Timer:
        def __init__(self, interval: float, function: Callable[[], None]) -> None:
            self.interval, self.function = interval, function
            self.daemon = self.cancelled = False

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            self.cancelled = True


class _HeldFile(io.FileIO):
    """A file whose writes go straight to the system, the next one held on request until
    released: an append caught on its way to the file."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "wb")
        self.hold, self.entered, self.release = (threading.Event() for _ in range(3))

    def write(self, data: object) -> int:  # type: ignore[override]
        if self.hold.is_set():
            self.hold.clear()
            self.entered.set()
            assert self.release.wait(10)
        return super().write(data)  # type: ignore[arg-type]


def test_close_waits_for_the_group_commits_fsync_in_flight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``close()`` returns after the background ``fsync`` in flight has returned: until then
    its system call holds the file open, and with it a recorder's lock (a recorder closed and
    resumed at once was refused as "being written by another recorder")."""
    in_flight, returned = threading.Event(), threading.Event()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if threading.current_thread() is threading.main_thread():
            real_fsync(fd)
            return
        in_flight.set()
        threading.Event().wait(0.3)  # a slow disk
        real_fsync(fd)
        returned.set()

    monkeypatch.setattr(logwriter.os, "fsync", fsync)
    with open(tmp_path / "m.tlog", "wb") as f:
        w = LogWriter(f, Durability.group(1))
        w.move(0x41)  # synced at once (nothing synced before)
        w.move(0x42)  # the background sync's, a millisecond later
        assert in_flight.wait(10)
        w.close(close_stream=False)
        assert returned.is_set()


def test_wait_durable_says_yes_only_once_an_fsync_covered_the_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group commit's background fsync runs while an append is on its way to the file:
    that fsync does not cover the append's byte, so ``wait_durable`` says no until one that
    does has returned, and ``close()`` makes it durable."""
    covered: list[int] = []  # for each fsync that returned: the bytes the file held at its start
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        size = os.fstat(fd).st_size
        real_fsync(fd)
        covered.append(size)

    timers = _Timers()
    monkeypatch.setattr(logwriter.os, "fsync", fsync)
    monkeypatch.setattr(logwriter.threading, "Timer", timers)
    f = _HeldFile(tmp_path / "race.tlog")
    w = LogWriter(f, Durability.group(60_000))
    w.move(0x41)  # nothing synced for a minute: synced at once
    assert covered == [1] and w.wait_durable(0)
    w.move(0x42)  # within the minute: the background sync will cover it
    assert len(timers.made) == 1 and not w.wait_durable(0)
    f.hold.set()
    third = threading.Thread(target=w.move, args=(0x43,))
    third.start()
    assert f.entered.wait(10)  # the third append is on its way to the file ...
    timers.made[0].function()  # ... when the background sync runs: it covers two bytes
    assert covered[-1] == 2
    f.release.set()
    third.join(10)
    assert not w.wait_durable(0), "no fsync that returned covers the third byte"
    assert w.durable_size == 2
    w.close(close_stream=False)  # syncs what is pending
    assert covered[-1] == 3 and w.wait_durable(0) and w.durable_size == 3
    f.close()


def test_the_group_commit_times_its_sync_to_return_on_the_interval(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``group:5``: the background fsync is started early by as long as the last one took,
    so that it returns about 5 ms after the one before, not 5 ms plus a sync. Slower disks
    than half the interval start it half an interval early at most."""
    clock, took = [100.0], [0.0]
    timers = _Timers()

    def fsync(fd: int) -> None:
        clock[0] += took[0]  # the disk takes this long

    monkeypatch.setattr(logwriter.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(logwriter.os, "fsync", fsync)
    monkeypatch.setattr(logwriter.threading, "Timer", timers)
    with (tmp_path / "g.tlog").open("wb") as f:
        for took[0], early in ((0.002, 0.002), (0.004, 0.0025)):
            w = LogWriter(f, Durability.group(5))
            w.move(0x41)  # synced at once, the sync taking took[0]
            clock[0] += 0.001
            w.move(0x42)  # 1 ms later: the timer
            assert timers.made[-1].interval == pytest.approx(0.005 - 0.001 - early)


def _synced_things(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int | None]]:
    """Records every fsync that returned: the inode it synced, and its size (a file's) or
    ``None`` (a directory's)."""
    seen: list[tuple[int, int | None]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        real_fsync(fd)
        seen.append((st.st_ino, None if stat.S_ISDIR(st.st_mode) else st.st_size))

    monkeypatch.setattr(logwriter.os, "fsync", fsync)
    return seen


@pytest.mark.parametrize("durability", ["fsync", "group:5"])
def test_a_new_log_s_directory_entry_is_synced(tmp_path: Path, eram: Match,
                                               monkeypatch: pytest.MonkeyPatch,
                                               durability: str) -> None:
    """A file's data synced is not the file: its directory entry must be synced too, or a
    power loss can lose a new log whole."""
    seen = _synced_things(monkeypatch)
    MatchRecorder(tmp_path / "m.tlog", rules="eram41", seats=["A", "B", "C", "D"],
                  match_id=b"m", first_dealer=0, durability=durability).close()
    folder = os.stat(tmp_path).st_ino
    assert (folder, None) in seen
    resumed = tmp_path / "resumed.tlog"
    resumed.write_bytes(eram.log[:eram.sizes[40]])
    del seen[:]
    MatchRecorder.resume(resumed, durability=durability).close()
    assert (folder, None) in seen
    assert (os.stat(resumed).st_ino, eram.sizes[40]) in seen  # the cut, on disk


def test_sign_syncs_the_log_and_its_directory_in_flush_mode(
        tmp_path: Path, eram: Match, monkeypatch: pytest.MonkeyPatch) -> None:
    """PLATFORM.md's table: after ``sign(key)`` the log is synced, in every durability.
    Flush mode syncs nothing before it (that is its cost), then the log and its entry."""
    seen = _synced_things(monkeypatch)
    path = tmp_path / "m.tlog"
    record_json(eram.doc, path, key=eram.secrets.key, durability="flush")
    assert seen == [(os.stat(path).st_ino, len(eram.log)), (os.stat(tmp_path).st_ino, None)]


def test_a_flush_writer_is_durable_only_once_synced(tmp_path: Path) -> None:
    with (tmp_path / "f.tlog").open("wb") as f:
        w = LogWriter(f)
        w.move(0x41)
        assert not w.wait_durable(0)
        w.sync()
        assert w.wait_durable(0) and w.durable_size == 1
    assert LogWriter(io.BytesIO()).wait_durable(0)  # nothing written: nothing to wait for


# ------------------------------------------------------------------ power loss: garbage
def _value_cuts(m: Match) -> list[int]:
    """Every point an fsync may have covered: the end of a value after the header, before
    the end record (a log cut there is a crash in the match)."""
    return [at for at in value_ends(m.log, m.parsed.offsets[0])
            if at < (m.parsed.end_offset or 0)]


def _image(rng: random.Random, m: Match) -> tuple[int, bytes]:
    cut = rng.choice(_value_cuts(m))
    garbage = rng.randbytes(rng.choice((1, 2, 3, 8, 64, 512, 4096)))
    return cut, m.log[:cut] + garbage


def _said(v: tarneeb.Verdict) -> tuple[int, str]:
    """Where the verdict says the readable log stops, and how it says it."""
    cut = [f for f in v.findings if f.kind == "cut-short"]
    assert len(cut) == 1, [str(f) for f in v.findings]
    head = cut[0].message.partition(": ")[0]
    assert head.startswith(("unreadable from byte ", "cut at byte ")), cut[0].message
    return int(head.rsplit(" ", 1)[1]), cut[0].message


@pytest.mark.parametrize("which", ["eram", "classic"])
def test_a_power_loss_leaving_random_bytes_is_judged_up_to_the_last_good_value(
        which: str, request: pytest.FixtureRequest) -> None:
    """Every fsynced byte kept, then random bytes: exit 1 (never clean, never a refusal),
    every hand of the good prefix replayed, the random bytes reported as unreadable from
    the cut, and no rule finding made of them. Bytes that happen to read as legal moves
    cannot be told from moves: then the readable part ends a little after the cut."""
    m: Match = request.getfixturevalue(which)
    rng = random.Random(f"garbage {which}")
    at_the_cut = 0
    cases = 1500 if LONG else 150
    for _ in range(cases):
        cut, data = _image(rng, m)
        v = tarneeb.verify_bytes(data, trust=Trust(server_seed=m.secrets.server_seed))
        assert v.error is None and v.exit_code == 1, (cut, v.error)
        assert {f.kind for f in v.findings} == {"cut-short"}, (cut, [str(f) for f in v.findings])
        n, message = _said(v)
        assert n >= cut, (cut, message)
        at_the_cut += n == cut
        assert v.hands >= len(parse_log(m.log[:cut]).hands)  # the good prefix, replayed
        if n == cut and len(data) - cut > 8:
            assert message.startswith(f"unreadable from byte {cut}: ")
    assert at_the_cut >= cases * 0.9, at_the_cut


def test_garbage_read_as_moves_is_not_judged_as_play(eram: Match) -> None:
    """Random bytes that read as a card played again, a call out of turn, or the end of a
    claims record the power loss cut (scores and totals made up): unreadable from where
    that value starts, saying what it would have made, and no rule finding."""
    p = eram.parsed
    hand, deal = p.hands[2], p.offsets[2]
    first_card = deal + 6 + len(hand.calls)  # a deal record of 6 bytes, a byte a call
    assert eram.log[deal:deal + 2] == b"\x95\x01" and eram.log[first_card] == 1 + hand.plays[0]
    seat = hand.calls[0][0]
    claims = eram.log.rfind(b"\x95\x04", deal, p.offsets[3])  # hand 2's claims record
    cases = [  # where the good bytes stop, the bytes after, where the value starts, what it says
        (first_card + 1, bytes([1 + hand.plays[0]]), first_card + 1, "was already played"),
        (deal + 6, bytes([0x40 | (seat + 1) % 4 << 4 | 5]), deal + 6, "made a call"),
        (claims + 9, b"\x01\x02\x03\x04\x94\x7f\x7f\x7f\x7f", claims, "claims a hand score"),
    ]
    for cut, looks_like, start, says in cases:
        data = eram.log[:cut] + looks_like + b"\xc1" * 8  # then bytes that are no msgpack
        v = tarneeb.verify_bytes(data, trust=Trust(server_seed=eram.secrets.server_seed))
        assert {f.kind for f in v.findings} == {"cut-short"}, [str(f) for f in v.findings]
        n, message = _said(v)
        assert n == start and message.startswith(f"unreadable from byte {start}: read as "
                                                 "play, the value there would make a "), message
        assert says in message, message
        assert v.hands == len(parse_log(eram.log[:start]).hands)


@pytest.mark.parametrize("garbage", [b"\x91" * 20 + b"\x00",  # deeper than max_depth
                                     b"\xdc\x00\x20" + (b"\xc5\x0f\xff" + bytes(4095)) * 20])
def test_garbage_past_a_cap_on_one_value_is_unreadable_too(eram: Match, garbage: bytes) -> None:
    """Nested deeper than any record, or a record longer than any: past the header, no
    writer wrote it; the log is checked up to it (exit 1), not refused whole."""
    cut = eram.parsed.offsets[3]
    v = tarneeb.verify_bytes(eram.log[:cut] + garbage,
                             trust=Trust(server_seed=eram.secrets.server_seed))
    assert v.error is None and v.exit_code == 1 and v.hands == 3
    n, message = _said(v)
    assert n == cut and ("max_depth" in message or "max_record_bytes" in message), message


def test_a_signed_log_is_judged_whole(eram: Match) -> None:
    """A signed log is what the platform signed: its last hand's faults are findings, and
    bytes after the signature are unreadable (exit 1), the log checked before them."""
    data = eram.log + b"\x41\xc1"
    v = eram.verdict(data)
    assert v.exit_code == 1 and v.signature_verified
    assert _said(v)[0] == len(eram.log) and v.hands == len(eram.parsed.hands)


def test_resume_cuts_the_garbage_says_so_and_goes_on(tmp_path: Path, eram: Match) -> None:
    """``resume`` continues a power-loss image after cutting its unreadable tail, and says
    what it cut; the match goes on to a log that verifies clean (the uninterrupted run's
    bytes, when the garbage read as nothing); so does one it abandons."""
    rng = random.Random("resume garbage")
    at_the_cut = 0
    cases = 300 if LONG else 40
    for i in range(cases):
        cut, data = _image(rng, eram)
        path = tmp_path / f"image-{i}.tlog"
        path.write_bytes(data)
        rec = MatchRecorder.resume(path, server_seed=eram.secrets.server_seed)
        keep = rec.writer.size
        assert keep >= cut and os.path.getsize(path) == keep
        assert rec.cut is not None and rec.cut.startswith(f"cut {len(data) - keep:,} bytes "
                                                          f"from byte {keep:,}: ")
        if keep in eram.sizes and data[:keep] == eram.log[:keep]:  # the good prefix: go on
            at_the_cut += 1
            eram.go_on(rec)
            assert path.read_bytes() == eram.log
        else:  # bytes that read as legal moves were kept: the server abandons the match
            rec.abandon("server-fault", None, "restarted after a power loss",
                        eram.secrets.server_seed)
            rec.sign(eram.secrets.key)
            rec.close()
        assert eram.verdict(path.read_bytes()).clean, i
    assert at_the_cut >= cases * 0.85, at_the_cut


def test_the_command_line_reads_a_power_loss_image(tmp_path: Path, eram: Match) -> None:
    from tarneeb.cli.entry import main

    cut = _value_cuts(eram)[100]
    path = tmp_path / "image.tlog"
    path.write_bytes(eram.log[:cut] + random.Random(3).randbytes(700))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as e:
        main(["verify", "--server-seed", eram.secrets.server_seed.hex(), str(path)])
    assert e.value.code == 1 and "Traceback" not in err.getvalue()
    assert f"unreadable from byte {cut}" in out.getvalue()


# ------------------------------------------------------------------ a torn header
def test_a_header_cut_or_cut_and_zero_filled_says_so_where_it_stops(eram: Match) -> None:
    header_end = eram.parsed.offsets[0]
    for at in range(1, header_end):
        for data in (eram.log[:at], eram.log[:at] + bytes(len(eram.log) - at)):
            v = tarneeb.verify_bytes(data, "m.tlog")
            stop = len(eram.log[:at].rstrip(b"\0")) if len(data) > at else at
            assert v.exit_code == 2 and v.error == \
                f"m.tlog: byte {stop}: log cut short inside its header: not readable", (at, v.error)


# ------------------------------------------------------------------ blind dealing
def test_resume_of_a_blind_log_writes_a_card_again_with_its_proof(tmp_path: Path) -> None:
    from tarneeb.replay.server.blind import play_blind_match

    data = play_blind_match("qahwa41", seed=b"crash recovery blind", target=3)
    p = parse_log(data)
    hand = p.hands[0]
    assert hand.blind is not None and len(hand.plays) > 5
    ends = value_ends(data, p.offsets[0])  # a card and its proof are one value here
    card = ends[len(hand.calls) + 4]  # after the deal (with its blind record), calls, 4 cards
    assert data[card] == 1 + hand.plays[4] and data[card + 1:card + 3] == b"\x93\x06"
    path = tmp_path / "b.tlog"
    path.write_bytes(data[:card + 1])  # the fifth card written, its proof lost
    rec = MatchRecorder.resume(path)
    assert rec.cut == f"cut 1 bytes from byte {card:,}: unreadable from byte {card}: hand 1's " \
        "last card without its proof record"
    assert rec.writer.size == card and rec.moves == len(hand.calls) + 4
    rec.play(hand.plays[4], proof=hand.blind.play_proofs[4])
    rec.close()
    assert path.read_bytes() == data[:ends[len(hand.calls) + 5]]
    path.write_bytes(data[:p.offsets[0] + 6])  # the deal record, its blind record lost
    rec = MatchRecorder.resume(path)
    assert rec.cut is not None and "without its blind record" in rec.cut
    assert rec.writer.size == p.offsets[0]
    rec.deal(hand.dealer, revealed=hand.revealed, blind=hand.blind)
    rec.close()
    assert path.read_bytes() == data[:ends[0]]
