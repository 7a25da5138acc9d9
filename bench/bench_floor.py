"""Full verification beside the work no verifier can skip (the floor), in one run.

For each log file the floor is: reading its bytes, msgpack-decoding every record and move,
one Ed25519 verification of the signed bytes, and the HMAC-SHA256 blocks of each
dealing attempt (two blocks, with the key's pads hashed once per log). Full
verification is :func:`~tarneeb.replay.verify.replayer.verify_file` on the same file.
The two are timed interleaved, log by log, in CPU time of this process
(``time.process_time``: other processes on a loaded machine do not count), and
each log keeps the least of ``rounds`` timings of each. The figure is the ratio
full / floor, which holds on any machine; the target is at most 3.

Per-log fixed cost and per-attempt cost come from a least-squares line through
the logs' (attempts, time) points. A long match (the 400 rule set's longest) and
a short one (a 41 game's shortest) are shown on their own.

Run it as a script (``python bench/bench_floor.py``) or call :func:`bench_floor`.

>>> import tempfile, pathlib
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> (d / "a.tlog").write_bytes(play_logged_match("eram41", seed=b"floor doc")) > 0
True
>>> r = bench_floor([d / "a.tlog"], rounds=1)
>>> r["attempts"] > 0 and r["ratio"] > 0  # one timing of one log: the ratio's size is noise
True
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import sys
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from tarneeb.audit.encoding import DEAL_TAG
from tarneeb.replay.log import read_log
from tarneeb.replay.log.stream import MOVE_RUN
from tarneeb.replay.verify.replayer import verify_file, verify_log

_IPAD = bytes(b ^ 0x36 for b in range(256))
_OPAD = bytes(b ^ 0x5C for b in range(256))
_DEAL = 1  # the record that opens a dealing attempt


def floor(path: Path | str) -> int:
    """The work no verifier can skip for one log; returns its dealing attempts."""
    with open(path, "rb") as f:
        data = f.read()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    header = end = signature = None
    signature_at = 0
    attempts = 0
    pos = 0
    size = len(data)
    run = MOVE_RUN.match
    while pos < size:
        m = run(data, pos)
        if m is not None:  # a run of moves, each its one byte (two for a timer move)
            unpacker.read_bytes(m.end() - pos)
            pos = m.end()
            continue
        record = unpacker.unpack()
        kind = record[0]
        if kind == _DEAL:
            attempts += 1
        elif kind == 0:
            header = record
        elif kind == 2:
            end = record
        elif kind == 3:
            signature, signature_at = record[1], pos
        pos = unpacker.tell()
    assert header is not None and end is not None and signature is not None
    Ed25519PublicKey.from_public_bytes(header[11]).verify(signature, data[:signature_at])
    key = end[2].ljust(64, b"\x00")
    # the deal message's constant part, as long as the real one (tag, 32-byte binding,
    # length-prefixed match id and client seeds), so each block is as much hashing
    prefix = DEAL_TAG + bytes(32) + b"".join(len(x).to_bytes(2, "big") + x
                                             for x in (header[5], *header[9]))
    inner = hashlib.sha256(key.translate(_IPAD) + prefix)
    outer = hashlib.sha256(key.translate(_OPAD))
    for n in range(attempts):
        for block in (0, 1):
            i = inner.copy()
            i.update(n.to_bytes(4, "big") + block.to_bytes(4, "big"))
            o = outer.copy()
            o.update(i.digest())
            o.digest()
    return attempts


def full(path: Path | str) -> None:
    """Full verification, as ``tarneeb verify`` does it."""
    v = verify_file(str(path))
    if not v.clean:
        raise SystemExit(f"bench: {path} did not verify clean: {v.findings} {v.error}")


def move_by_move(path: Path | str) -> None:
    """Full verification with every hand replayed move by move (``fast=False``)."""
    v = verify_log(read_log(str(path)), str(path), fast=False)
    if not v.clean:
        raise SystemExit(f"bench: {path} did not verify clean: {v.findings} {v.error}")


def _fit(points: Sequence[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares ``time = fixed + per_attempt * attempts``."""
    n = len(points)
    mx = sum(a for a, _ in points) / n
    my = sum(t for _, t in points) / n
    sxx = sum((a - mx) ** 2 for a, _ in points)
    slope = sum((a - mx) * (t - my) for a, t in points) / sxx if sxx else 0.0
    return my - slope * mx, slope


def bench_floor(paths: Sequence[Path], rounds: int = 5) -> dict[str, Any]:
    """Floor, full verification and full verification move by move of every file,
    interleaved, the least of ``rounds`` timings of each."""
    clock = time.process_time
    attempts = [floor(p) for p in paths]  # also warms the caches
    for p in paths:
        full(p)
        move_by_move(p)
    best_floor = [float("inf")] * len(paths)
    best_full = [float("inf")] * len(paths)
    best_slow = [float("inf")] * len(paths)
    for _ in range(rounds):
        for k, p in enumerate(paths):
            t0 = clock()
            floor(p)
            t1 = clock()
            full(p)
            t2 = clock()
            move_by_move(p)
            t3 = clock()
            best_floor[k] = min(best_floor[k], t1 - t0)
            best_full[k] = min(best_full[k], t2 - t1)
            best_slow[k] = min(best_slow[k], t3 - t2)
    total_attempts = sum(attempts)
    floor_s, full_s, slow_s = sum(best_floor), sum(best_full), sum(best_slow)
    floor_fixed, floor_each = _fit(list(zip(attempts, best_floor, strict=True)))
    full_fixed, full_each = _fit(list(zip(attempts, best_full, strict=True)))

    def one(k: int) -> dict[str, Any]:
        return {"log": Path(paths[k]).name, "attempts": attempts[k],
                "floor_us": 1e6 * best_floor[k], "full_us": 1e6 * best_full[k],
                "ratio": best_full[k] / best_floor[k]}

    named = [Path(p).name for p in paths]
    long_ = [k for k, n in enumerate(named) if "400" in n] or list(range(len(paths)))
    short = [k for k, n in enumerate(named) if "41" in n] or list(range(len(paths)))
    return {
        "logs": len(paths), "attempts": total_attempts, "rounds": rounds,
        "floor_seconds": floor_s, "full_seconds": full_s, "ratio": full_s / floor_s,
        "move_by_move_seconds": slow_s, "move_by_move_ratio": slow_s / floor_s,
        "full_hands_per_second": total_attempts / full_s,
        "floor_us_per_attempt": 1e6 * floor_s / total_attempts,
        "full_us_per_attempt": 1e6 * full_s / total_attempts,
        "floor_fixed_us": 1e6 * floor_fixed, "floor_each_us": 1e6 * floor_each,
        "full_fixed_us": 1e6 * full_fixed, "full_each_us": 1e6 * full_each,
        "long": one(max(long_, key=attempts.__getitem__)),
        "short": one(min(short, key=attempts.__getitem__)),
    }


def bench_memory(paths: Sequence[Path], logs: int = 2000) -> dict[str, Any]:
    """Python memory while ``tarneeb verify`` (its code, output to /dev/null) checks an
    archive of ``logs`` files (the given ones over and over): the traced peak over the
    first tenth of the archive and over all of it, and the process's peak resident
    size. Flat means the two peaks are the same."""
    from tarneeb.cli.verify_cmd import run

    archive = [str(paths[k % len(paths)]) for k in range(logs)]
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        tracemalloc.start()
        try:
            run(archive[:max(1, logs // 10)], False, None, None)
            early = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            run(archive, False, None, None)
            late = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return {"logs": logs, "peak_bytes_first_tenth": early, "peak_bytes_end": late,
            "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def lines(r: dict[str, Any]) -> list[str]:
    """The report of :func:`bench_floor`, a line a figure."""
    out = [
        f"floor (read, msgpack-decode, one Ed25519 check, two HMAC blocks a deal): "
        f"{r['floor_us_per_attempt']:.1f} µs CPU per dealing attempt",
        f"full verification: {r['full_us_per_attempt']:.1f} µs CPU per dealing attempt, "
        f"{r['full_hands_per_second']:,.0f} hands/s; ratio full/floor "
        f"{r['ratio']:.2f} (target at most 3; {r['attempts']:,} attempts in {r['logs']} "
        f"logs, interleaved, least of {r['rounds']})",
        f"the same, every hand replayed move by move (verify_log(fast=False)): "
        f"{1e6 * r['move_by_move_seconds'] / r['attempts']:.1f} µs per attempt, ratio "
        f"{r['move_by_move_ratio']:.2f}",
        f"per log: floor {r['floor_fixed_us']:.0f} µs + {r['floor_each_us']:.1f} µs an "
        f"attempt; full {r['full_fixed_us']:.0f} µs + {r['full_each_us']:.1f} µs an attempt",
    ]
    for what in ("long", "short"):
        x = r[what]
        out.append(f"{what} match {x['log']} ({x['attempts']} attempts): floor "
                   f"{x['floor_us']:,.0f} µs, full {x['full_us']:,.0f} µs, ratio "
                   f"{x['ratio']:.2f}")
    return out


def memory_line(m: dict[str, Any]) -> str:
    return (f"memory of tarneeb verify over an archive of {m['logs']:,} logs: traced peak "
            f"{m['peak_bytes_first_tenth'] / 1024:,.0f} KiB over the first tenth, "
            f"{m['peak_bytes_end'] / 1024:,.0f} KiB over all of it, "
            f"{(m['peak_bytes_end'] - m['peak_bytes_first_tenth']) / (0.9 * m['logs']):,.0f} "
            f"bytes a log more (the names of the logs); peak RSS "
            f"{m['max_rss_kb'] / 1024:,.0f} MiB")


def write_matches(directory: Path, per_rules: int) -> list[Path]:
    """``per_rules`` generated matches of each rule set written to ``directory`` (the
    same matches on every run: ``bench/<rules>/<i>`` seeds them)."""
    from tarneeb.replay.rules.ruleset import PRESETS
    from tarneeb.replay.server.simulate import play_logged_match

    paths = []
    for i in range(per_rules):
        for name in PRESETS:
            p = directory / f"{name}-{i:03d}.tlog"
            p.write_bytes(play_logged_match(name, seed=f"bench/{name}/{i}".encode()))
            paths.append(p)
    return paths


def main(argv: list[str] | None = None) -> int:
    import tempfile

    args = sys.argv[1:] if argv is None else argv
    per_rules = int(args[0]) if args else 10
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_matches(Path(tmp), per_rules)
        print("\n".join(lines(bench_floor(paths))))
        print(memory_line(bench_memory(paths, 500)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
