"""``make bench``: the cost of writing one move to a log under each durability setting.

A move is one byte appended by :class:`~tarneeb.replay.logwriter.LogWriter` to a real
file on this machine's disk (in the working directory, not a RAM-backed /tmp), as a
server writes it: ``flush`` hands it to the operating system, ``fsync`` syncs it to
disk before returning, ``group:5`` hands it over and lets a background thread sync at
most every 5 ms. The figure is the time one append takes, in microseconds.
"""

from __future__ import annotations

import os
import tempfile
import time

from tarneeb.replay.logformat import CALL_MOVE
from tarneeb.replay.logwriter import Durability, LogWriter

SETTINGS = {"flush": 20_000, "fsync": 200, "group:5": 20_000}  # moves written for each


def bench_durability(where: str = ".") -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, moves in SETTINGS.items():
        fd, path = tempfile.mkstemp(dir=where, prefix=".bench-durability-", suffix=".tlog")
        try:
            with os.fdopen(fd, "wb") as f:
                w = LogWriter(f, Durability.parse(name))
                start = time.perf_counter()
                for i in range(moves):
                    w.move(CALL_MOVE | (i & 0x3f) if i & 0x30 != 0x30 else 1)
                elapsed = time.perf_counter() - start
                synced = w.wait_durable(1.0)
                w.close(close_stream=False)
        finally:
            os.unlink(path)
        out[name] = {"moves": moves, "us_per_move": elapsed / moves * 1e6,
                     "durable_at_end": float(synced)}
    return out


def line(figures: dict[str, dict[str, float]]) -> str:
    return "cost per move written: " + ", ".join(
        f"{name} {f['us_per_move']:,.1f} µs" for name, f in figures.items())


if __name__ == "__main__":
    print(line(bench_durability()))
