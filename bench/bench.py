"""``make bench``: the speed and size figures the project promises, measured here.

* deals derived per second on one core (target: 50,000);
* full verification of generated matches — signature, seed commitments, deal
  derivation, replay, every claim compared — in hands per second on one core
  (target: 20,000);
* log size per played hand, header and signature excluded (target: at most 100 bytes),
  and how much larger the JSON form is;
* ``regress`` over the fixture corpus: matches, hands and seconds;
* start-up: the CPU time of a one-log ``tarneeb verify`` beside ``python -c pass``
  (target: under 0.12 s).

Matches are generated reproducibly (``--seed``-style secrets, not secret) so two runs
measure the same work. Everything runs in this one process, on one core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tarneeb.replay import logjson
from tarneeb.replay.logformat import encode_record, parse_log
from tarneeb.replay.replayer import verify_bytes
from tarneeb.replay.rules import PRESETS
from tarneeb.replay.simulate import play_logged_match

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def generate(matches_per_rules: int) -> list[bytes]:
    return [play_logged_match(name, seed=f"bench/{name}/{i}".encode())
            for i in range(matches_per_rules) for name in PRESETS]


def bench_verify(logs: list[bytes], rounds: int) -> dict[str, float]:
    hands = sum(len(parse_log(log).hands) for log in logs)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for log in logs:
            v = verify_bytes(log)
            if not v.clean:
                raise SystemExit(f"bench: a generated match did not verify clean: {v.findings}")
        best = min(best, time.perf_counter() - start)
    return {"logs": len(logs), "hands": hands, "seconds": best, "hands_per_second": hands / best}


def bench_size(logs: list[bytes]) -> dict[str, float]:
    body = played = total = json_total = 0
    for log in logs:
        p = parse_log(log)
        header = len(encode_record(p.header))
        signature = len(encode_record(p.signature)) if p.signature else 0
        body += len(log) - header - signature
        played += sum(1 for h in p.hands if h.plays)
        total += len(log)
        json_total += len(logjson.dumps(log).encode())
    return {"bytes_per_played_hand": body / played, "played_hands": played,
            "msgpack_bytes": total, "json_bytes": json_total, "json_ratio": json_total / total}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=40, help="matches per rule set")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many rounds")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    from bench_audit import bench_deals

    figures: dict[str, object] = {}
    figures["deals"] = bench_deals(2.0)
    logs = generate(args.matches)
    figures["verify"] = bench_verify(logs, args.rounds)
    figures["size"] = bench_size(logs)
    corpus = sorted((HERE.parent / "fixtures" / "matches").glob("*.tlog"))
    if corpus:
        from bench_regress import bench_regress

        figures["regress"] = bench_regress(corpus)
    from bench_caps import bench_caps
    from bench_caps import line as caps_line

    figures["caps"] = bench_caps()
    from bench_startup import bench_startup
    from bench_startup import line as startup_line

    figures["startup"] = bench_startup()
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    d, v, s = figures["deals"], figures["verify"], figures["size"]
    print(f"deal derivation: {d['deals_per_second']:,.0f} deals/s on one core (target 50,000)")
    print(f"full verification: {v['hands_per_second']:,.0f} hands/s on one core "
          f"({v['hands']} hands in {v['logs']} matches, best of {args.rounds}; target 20,000)")
    print(f"log size: {s['bytes_per_played_hand']:.1f} bytes per played hand, header and "
          f"signature excluded (target at most 100)")
    print(f"JSON form: {s['json_ratio']:.1f}x the msgpack size "
          f"({s['json_bytes']:,} vs {s['msgpack_bytes']:,} bytes)")
    if "regress" in figures:
        r = figures["regress"]
        print(f"regress over the corpus: {r}")
    print(caps_line(figures["caps"]))  # type: ignore[arg-type]
    print(startup_line(figures["startup"]))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
