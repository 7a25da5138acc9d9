"""How many deals per second the audit derives on one core.

Run it as a script (``python bench/bench_audit.py [SECONDS]``) or call
:func:`bench_deals` from another benchmark.

>>> r = bench_deals(0.05)
>>> r["deals"] > 0 and r["deals_per_second"] > 0
True
"""

from __future__ import annotations

import hashlib
import sys
import time
from typing import Any

from tarneeb.audit import DealDeriver, derive_deck


def bench_deals(seconds: float = 2.0) -> dict[str, Any]:
    """Derive deals of one match for about ``seconds`` of CPU time on the calling thread
    (one core; CPU time, so that other work on the machine does not count).

    The deriver is keyed once, as a verifier does for a match; each deal is the full
    work of the hot path: two (rarely three) HMAC blocks and the 51-draw shuffle.
    Also reports deals with their four hands (:meth:`DealDeriver.deal`) and the
    plain function, which keys a new deriver for every call.
    """
    server_seed = hashlib.sha256(b"bench server seed").digest()
    seeds = [hashlib.sha256(b"bench client seed %d" % s).digest() for s in range(4)]
    deriver = DealDeriver(server_seed, "bench-match", seeds)
    deck = deriver.deck
    batch = 2000
    k = 0
    start = time.process_time()
    deadline = start + seconds
    now = start
    while True:
        for n in range(k, k + batch):
            deck(n)
        k += batch
        now = time.process_time()
        if now >= deadline:
            break
    elapsed = now - start
    deal = deriver.deal
    deal_n = max(1, k // 4)
    t0 = time.process_time()
    for n in range(deal_n):
        deal(n)
    deal_elapsed = time.process_time() - t0
    plain_n = max(1, k // 20)
    t0 = time.process_time()
    for n in range(plain_n):
        derive_deck(server_seed, "bench-match", seeds, n)
    plain_elapsed = time.process_time() - t0
    return {
        "name": "audit.deals",
        "deals": k,
        "seconds": elapsed,
        "deals_per_second": k / elapsed,
        "microseconds_per_deal": 1e6 * elapsed / k,
        "deals_with_hands_per_second": deal_n / deal_elapsed,
        "plain_function_deals_per_second": plain_n / plain_elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    seconds = float(args[0]) if args else 2.0
    r = bench_deals(seconds)
    print(f"audit: {r['deals_per_second']:,.0f} deals/s on one core "
          f"({r['microseconds_per_deal']:.2f} µs per deal, {r['deals']:,} deals in "
          f"{r['seconds']:.2f} s)")
    print(f"audit: with the four hands (Deal objects): "
          f"{r['deals_with_hands_per_second']:,.0f} deals/s; derive_deck() keying a new "
          f"deriver per call: {r['plain_function_deals_per_second']:,.0f} deals/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
