"""``make bench``: the speed and size figures the project promises, measured here.

* deals derived per second on one core (target: 50,000);
* full verification of generated matches — signature, seed commitments, deal
  derivation, replay, every claim compared — beside the work no verifier can skip
  (reading, msgpack-decoding, one Ed25519 check a log, the HMAC blocks of each deal),
  timed interleaved in the same run: the ratio full/floor (target: at most 3), hands
  per second, per-log and per-attempt costs, a long and a short match
  (``bench/bench_floor.py``), and where the time goes, stage by stage
  (``bench/bench_stages.py``); full/floor for a short 41 match, a long 400 match and
  eram41 played to 400, with the compiled core and in pure Python, interleaved
  (``bench/bench_lengths.py``; target at most 2 with the core);
* memory over an archive: flat whatever the number of logs;
* log size per played hand, header and signature excluded (target: at most 100 bytes),
  and how much larger the JSON form is;
* ``regress`` over the fixture corpus: matches, hands and seconds; matches per second
  in process against over the line protocol (one engine process, a process per match),
  and the TypeScript reference engine (js/, in Node) over the protocol;
* start-up: the CPU time of a one-log ``tarneeb verify`` beside a process that only
  imports msgpack and cryptography's Ed25519 (target: at most 0.05 s, 1.67x that
  baseline; ``bench/bench_startup.py``);
* the cost of writing one move to a log under each durability setting (flush, fsync,
  group commit every 5 ms), in microseconds, and how long group commit takes to make a
  move durable (median and worst);
* ``audit`` of a 2,000-log archive: logs and hands per second with 1 job, 2 jobs and a
  local Dask cluster of two worker processes, as ratios to 1 job;
* the calibration of the archive audit's verdict: the share of 1,000 fair archives of
  mixed origins flagged (Clopper-Pearson 95 % interval), each test's p-values, the
  detectable biases at 100 and 1,000 matches (``bench/bench_calibration.py``);
* ``audit --state`` (``bench/bench_monitor.py``): the share of fair archives its evidence
  ever flags, looked at after every match (Clopper-Pearson 95 % interval; the promise:
  at most 5 %), beside a fixed-sample audit looked at 10 times; the matches until it
  flags each of six cheats; the fair-play figures' anytime bar looked at after every
  match, beside Holm's correction at each look (``bench/bench_play_looks.py``); an
  incremental run over 200 new logs of 2,000 as a share of a full audit's CPU (target: at
  most 0.25), and the state's bytes a log (about 1 KB);
* the audit's power against rigging a platform would do (``bench/bench_threats.py``);
* blind dealing: CPU time per deal (passes, dealing, proofs) and per check of a
  transcript, bytes per hand, beside the seed protocol's figures (``bench/bench_blind.py``);
  the group layer's operations (scalar multiplications, additions, multi-scalar
  multiplications of 13, 52 and 64 points, a fold of 32 pairs) in microseconds, with the
  C extension and with libsodium (``bench/bench_group.py``).
* the fair-play analysis (``audit --play``): CPU per played hand, its calibration on
  honest players of every skill and its power against four kinds of peeking at 100, 300
  and 1,000 matches (``bench/bench_fairplay.py``; ``TARNEEB_FAIRPLAY_ROUNDS`` sets its size);
* the TypeScript verifier in Node beside the Python one on the same generated matches:
  hands per second and milliseconds per log, and the ratio (``bench/bench_js.py``).

Matches are generated reproducibly (``--seed``-style secrets, not secret) so two runs
measure the same work. Everything runs in this one process, on one core, except the archive
audit, which also runs on two local processes and on a local Dask cluster.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tarneeb.replay.log import encode_record, parse_log
from tarneeb.replay.log import jsonform as logjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


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
    ap.add_argument("--rounds", type=int, default=5, help="least of this many rounds")
    ap.add_argument("--archive", type=int, default=2000,
                    help="logs verified for the memory figure")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--calibration", type=int, default=1000,
                    help="fair archives of the audit's calibration (0: skip)")
    ap.add_argument("--monitor", type=int, default=200,
                    help="fair archives looked at after every match, for audit --state's "
                         "evidence (0: skip the monitor's figures)")
    ap.add_argument("--threats", type=int, default=5,
                    help="archives per rigging of the audit's power (0: skip)")
    ap.add_argument("--archive-logs", type=int, default=2000,
                    help="logs in the archive the audit goes through (0: skip)")
    ap.add_argument("--play", type=int,
                    default=int(os.environ.get("TARNEEB_FAIRPLAY_ROUNDS", "20")),
                    help="rounds of the fair-play analysis's simulation, each one match of "
                         "each cheat and six honest ones (default 20, about 10 CPU-minutes, "
                         "or TARNEEB_FAIRPLAY_ROUNDS; docs/FAIRPLAY.md's figures: 0 skips)")
    ap.add_argument("--write-docs", action="store_true",
                    help="write the figures into docs/PERFORMANCE.md (make bench does)")
    args = ap.parse_args()

    from bench_audit import bench_deals
    from bench_floor import bench_floor, bench_memory

    figures: dict[str, object] = {}
    figures["deals"] = bench_deals(2.0)
    from bench_logs import generate, write

    logs = generate(args.matches)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write(logs, Path(tmp))
        figures["verify"] = bench_floor(paths, args.rounds)
        from bench_stages import bench_stages

        figures["stages"] = bench_stages(paths, args.rounds)
        figures["memory"] = bench_memory(paths, args.archive)
        from bench_lengths import bench_lengths, three_matches

        figures["lengths"] = bench_lengths(three_matches(Path(tmp)), args.rounds)
        from bench_js import bench_js

        figures["js"] = bench_js(paths, max(args.rounds, 10))  # V8 warms up over rounds
    figures["size"] = bench_size(logs)
    corpus = sorted((HERE.parent / "fixtures" / "matches").glob("*.tlog"))
    if corpus:
        from bench_regress import bench_protocol

        figures["regress_protocol"] = bench_protocol(corpus)
        figures["regress"] = figures["regress_protocol"]["in-process"]
    from bench_caps import bench_caps

    figures["caps"] = bench_caps()
    from bench_durability import bench_durability
    from bench_startup import bench_startup

    figures["durability"] = bench_durability()

    figures["startup"] = bench_startup()
    if args.archive_logs:
        from bench_archive import bench_archive

        figures["archive"] = bench_archive(args.archive_logs)
    from bench_blind import bench_blind
    from bench_calibration import bench_calibration

    if args.calibration:
        figures["calibration"] = bench_calibration(args.calibration)
    if args.threats:
        from bench_threats import bench_threats

        figures["threats"] = bench_threats(args.threats)

    if args.monitor:
        from bench_monitor import bench_monitor

        figures["monitor"] = bench_monitor(args.monitor)

    if args.play:
        from bench_fairplay import bench_fairplay

        figures["fairplay"] = bench_fairplay(args.play)
    figures["blind"] = bench_blind()
    from bench_group import bench_group

    figures["group"] = bench_group()
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        print_figures(figures)
    print(text.getvalue(), end="")
    if args.write_docs:
        write_performance_page(text.getvalue(), HERE.parent / "docs" / "PERFORMANCE.md")


BEGIN, END = "<!-- make bench: begin -->", "<!-- make bench: end -->"


def write_performance_page(lines: str, page: Path) -> None:
    """The figures of this run written into ``page`` between its two markers (the rest
    of the page is kept as it is), with when, where and under what load they ran.

    >>> import pathlib, tempfile
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "P.md"
    >>> _ = page.write_text(f"# Figures\\n{BEGIN}\\nold\\n{END}\\nhistory\\n")
    >>> write_performance_page("deals: 190,000/s\\n", page)
    >>> text = page.read_text()
    >>> "deals: 190,000/s" in text, "old" in text, text.endswith(f"{END}\\nhistory\\n")
    (True, False, True)
    """
    doc = page.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"bench: {page} has no {BEGIN} … {END} section to write")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d", time.gmtime())
    body = (f"{BEGIN}\nThe last `make bench`, {when}, on {os.cpu_count()} cores (load average "
            f"{load} when it ended):\n\n```\n{lines.rstrip()}\n```\n{END}")
    head, _, rest = doc.partition(BEGIN)
    page.write_text(head + body + rest.partition(END)[2], encoding="utf-8")


def print_figures(figures: dict[str, object]) -> None:
    """Each figure beside its target, a line each (or a few)."""
    from bench_blind import lines as blind_lines
    from bench_calibration import lines as calibration_lines
    from bench_caps import line as caps_line
    from bench_durability import line as durability_line
    from bench_floor import lines as floor_lines
    from bench_floor import memory_line
    from bench_group import lines as group_lines
    from bench_startup import line as startup_line

    d, v, s = figures["deals"], figures["verify"], figures["size"]
    print(f"deal derivation: {d['deals_per_second']:,.0f} deals/s on one core (target 50,000)")
    for text in floor_lines(v):  # type: ignore[arg-type]
        print(text)
    from bench_stages import line as stages_line

    print(stages_line(figures["stages"]))  # type: ignore[arg-type]
    from bench_lengths import lines as length_lines

    for text in length_lines(figures["lengths"]):  # type: ignore[arg-type]
        print(text)
    print(memory_line(figures["memory"]))  # type: ignore[arg-type]
    from bench_js import line as js_line

    print(js_line(figures["js"]))  # type: ignore[arg-type]
    print(f"log size: {s['bytes_per_played_hand']:.1f} bytes per played hand, header and "
          f"signature excluded (target at most 100)")
    print(f"JSON form: {s['json_ratio']:.1f}x the msgpack size "
          f"({s['json_bytes']:,} vs {s['msgpack_bytes']:,} bytes)")
    if "regress" in figures:
        r = figures["regress"]
        print(f"regress over the corpus: {r}")
        print("regress over the corpus, matches/s: " + ", ".join(
            f"{how} {f['matches_per_second']}"
            for how, f in figures["regress_protocol"].items()))  # type: ignore[union-attr]
    print(caps_line(figures["caps"]))  # type: ignore[arg-type]
    print(startup_line(figures["startup"]))  # type: ignore[arg-type]
    print(durability_line(figures["durability"]))  # type: ignore[arg-type]
    if "archive" in figures:
        from bench_archive import report

        for line in report(figures["archive"]):  # type: ignore[arg-type]
            print(line)
    for text in blind_lines(figures["blind"], d["microseconds_per_deal"],  # type: ignore[arg-type]
                            s["bytes_per_played_hand"]):
        print(text)
    for text in group_lines(figures["group"]):  # type: ignore[arg-type]
        print(text)
    if "threats" in figures:
        from bench_threats import lines as threat_lines

        for text in threat_lines(figures["threats"]):  # type: ignore[arg-type]
            print(text)
    if "calibration" in figures:
        for text in calibration_lines(figures["calibration"]):  # type: ignore[arg-type]
            print(text)
    if "monitor" in figures:
        from bench_monitor import print_monitor

        print_monitor(figures["monitor"])  # type: ignore[arg-type]
    if "fairplay" in figures:
        from bench_fairplay import lines as fairplay_lines

        for text in fairplay_lines(figures["fairplay"]):  # type: ignore[arg-type]
            print(text)


if __name__ == "__main__":
    main()
