"""``make bench``: the cost of writing one move to a log under each durability setting.

A move is one byte appended by :class:`~tarneeb.replay.log.writer.LogWriter` to a real
file on this machine's disk (in the working directory, not a RAM-backed /tmp), as a
server writes it: ``flush`` hands it to the operating system, ``fsync`` syncs it to
disk before returning, ``group:5`` hands it over and lets a background thread sync at
most every 5 ms. The figure is the time one append takes, in microseconds.

It also measures what ``group:5`` promises (``docs/PLATFORM.md``): how long after an
append returns the ``fsync`` that covers it has returned, the median and the worst of
many appends, each the last before a pause, made at a random moment of the interval
(so each waits for the background thread). The worst is the interval, one fsync, and
however late the thread was woken: a loaded machine shows it.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time

from tarneeb.replay.log import CALL_MOVE
from tarneeb.replay.log.writer import Durability, LogWriter

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
    out["group:5 lag"] = group_lag(where)
    return out


def group_lag(where: str = ".", interval_ms: float = 5.0, samples: int = 200
              ) -> dict[str, float]:
    """How long after an append returns, under ``group:interval_ms``, it is durable (the
    fsync that covers it has returned), in ms: the median and the worst of ``samples``
    appends."""
    rng = random.Random(5)
    fd, path = tempfile.mkstemp(dir=where, prefix=".bench-durability-", suffix=".tlog")
    lags = []
    try:
        with os.fdopen(fd, "wb") as f:
            w = LogWriter(f, Durability.group(interval_ms))
            w.move(CALL_MOVE)
            for _ in range(samples):
                time.sleep(rng.random() * interval_ms / 1000)  # somewhere in the interval
                w.move(CALL_MOVE | 1)
                returned = time.monotonic()
                w.wait_durable(1.0)
                # when the fsync returned (the writer notes it), not when this thread woke
                lags.append(max(0.0, w._last_sync - returned) * 1000)
            w.close(close_stream=False)
    finally:
        os.unlink(path)
    return {"interval_ms": interval_ms, "median_ms": statistics.median(lags),
            "worst_ms": max(lags)}


def line(figures: dict[str, dict[str, float]]) -> str:
    text = "cost per move written: " + ", ".join(
        f"{name} {f['us_per_move']:,.1f} µs" for name, f in figures.items() if "moves" in f)
    lag = figures.get("group:5 lag")
    if lag is not None:
        text += (f"; group:5 makes an append durable {lag['median_ms']:.1f} ms after it "
                 f"returns (median), {lag['worst_ms']:.1f} ms at worst")
    return text


if __name__ == "__main__":
    print(line(bench_durability()))
