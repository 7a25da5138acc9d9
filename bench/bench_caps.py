"""The slowest logs the default caps admit, and how fast the reader refuses the rest.

* the longest legal match within ``max_hands``: an eram41 match played to a target of
  1,400 (about 900 dealing attempts, every one replayed), verified in full;
* a legal-looking 16 MiB log of cancelled hands (about 626,000 of them, which took 36 s
  and 1 GB before the caps): refused at the ``max_hands`` cap, with its time and the
  peak memory the reader used;
* a 2 GiB file (sparse): refused at the ``max_bytes`` cap before it is read.
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

from tarneeb.replay.log import HandRecord, encode_record, parse_log
from tarneeb.replay.log.stream import DEFAULT_LIMITS
from tarneeb.replay.rules.players import MatchTooLong
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes, verify_file


def _timed(fn: object, rounds: int = 3) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, result


def _longest_match() -> bytes:
    """An eram41 match to the highest target (1,400 down) that ends within max_hands."""
    for target in range(1400, 0, -100):
        try:
            return play_logged_match(replace(preset("eram41"), name="long", target=target),
                                     seed=b"bench/slowest", max_hands=DEFAULT_LIMITS.max_hands)
        except MatchTooLong:
            continue
    raise SystemExit("bench: no long match fits the max_hands cap")


def bench_caps() -> dict[str, float]:
    long_match = _longest_match()
    hands = len(parse_log(long_match).hands)
    seconds, verdict = _timed(lambda: verify_bytes(long_match))
    assert verdict.clean  # type: ignore[attr-defined]

    header = long_match[:parse_log(long_match).offsets[0]]
    filler = bytearray(header)
    n = 0
    while len(filler) < 16 * 1024 * 1024 - 32:
        filler += encode_record(HandRecord(deal_number=n % 1_000_000, dealer=n % 4))
        n += 1
    flood = bytes(filler)
    tracemalloc.start()
    refuse_seconds, v = _timed(lambda: verify_bytes(flood), rounds=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert v.error and "max_hands" in v.error  # type: ignore[attr-defined]

    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.tlog"
        with open(big, "wb") as f:
            f.truncate(2 << 30)
        huge_seconds, v = _timed(lambda: verify_file(str(big)))
        assert v.error and "max_bytes" in v.error  # type: ignore[attr-defined]
    return {"longest_match_hands": hands, "longest_match_bytes": len(long_match),
            "longest_match_seconds": seconds, "flood_records": n,
            "flood_refused_seconds": refuse_seconds, "flood_peak_bytes": peak,
            "huge_file_refused_seconds": huge_seconds}


def line(f: dict[str, float]) -> str:
    return (f"caps: the longest match the defaults admit ({f['longest_match_hands']:.0f} dealing "
            f"attempts, {f['longest_match_bytes']:,.0f} bytes) verifies in "
            f"{f['longest_match_seconds']:.2f} s; a 16 MiB log of {f['flood_records']:,.0f} "
            f"cancelled hands is refused at max_hands in {f['flood_refused_seconds']:.3f} s "
            f"(peak {f['flood_peak_bytes'] / 2**20:.1f} MiB traced); a 2 GiB file at max_bytes "
            f"in {f['huge_file_refused_seconds'] * 1000:.2f} ms")


if __name__ == "__main__":
    print(line(bench_caps()))
