"""How long ``tarneeb regress`` takes to replay a corpus on the reference engine.

The run is the real one: each match in the worker process, with the time limit,
the log verified first. Run it as a script (``python bench/bench_regress.py
[PATH ...]``, default ``fixtures/matches``) or call :func:`bench_regress` from
another benchmark.

>>> import tempfile, pathlib
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.tlog").write_bytes(play_logged_match("classic", seed=b"bench doc"))
>>> r = bench_regress([d], time_limit=None)
>>> r["matches"], r["agree"], r["hands"] > 0
(1, 1, True)
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tarneeb.testing.regress.command import EngineCommand
from tarneeb.testing.regress.run import collect_logs
from tarneeb.testing.regress.runner import Runner

REFERENCE = "tarneeb.testing.adapters:reference"
SERVER = [sys.executable, "-m", "tarneeb.testing.engine_server"]
# the TypeScript reference engine of the js package (npm run build in js/ makes it)
TS_SERVER = Path(__file__).resolve().parent.parent / "js" / "dist" / "src" / "engine-server.js"


def bench_regress(paths: Sequence[str | Path], engine: str | EngineCommand = REFERENCE,
                  time_limit: float | None = 10.0) -> dict[str, Any]:
    """Regress ``engine`` (default: this project's own) over the logs under ``paths``.

    Returns the matches compared, their hands (dealing attempts), the whole run's
    seconds (worker start included), the worker's start-up alone, hands per
    second over the matches, and the count of each outcome.
    """
    files = collect_logs(paths)
    start = time.perf_counter()
    counts = {"agree": 0, "disagree": 0, "engine-failure": 0, "skipped": 0, "unreadable": 0}
    hands = matches = 0
    with Runner(engine, time_limit) as runner:
        started = time.perf_counter()
        for path in files:
            report = runner.run_log(path.read_bytes(), str(path))
            counts[report.status] += 1
            if report.compared:
                matches += 1
                hands += report.hands
    end = time.perf_counter()
    match_seconds = end - started
    return {"matches": matches, "hands": hands, "seconds": round(end - start, 3),
            "startup_seconds": round(started - start, 3),
            "matches_per_second": round(matches / match_seconds, 1) if match_seconds > 0 else None,
            "hands_per_second": round(hands / match_seconds) if match_seconds > 0 else None,
            **counts}


def bench_protocol(paths: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Matches per second over ``paths``: the reference engine in process (in the worker,
    as ``--engine``) against the same engine over the line protocol (``--engine-cmd``),
    one process reused across matches and one process per match; and the TypeScript
    reference engine (``tarneeb-engine`` of js/, in Node) over the protocol, when Node and
    the built package are there."""
    figures = {"in-process": bench_regress(paths),
               "protocol, one process": bench_regress(paths, EngineCommand(SERVER)),
               "protocol, a process per match": bench_regress(paths, EngineCommand(
                   SERVER, reuse=False))}
    node = shutil.which("node")
    if node is not None and TS_SERVER.exists():
        figures["TypeScript engine (Node), protocol, one process"] = bench_regress(
            paths, EngineCommand([node, str(TS_SERVER)]))
    return figures


def main(argv: list[str]) -> None:
    here = Path(__file__).resolve().parent
    paths = argv or [str(here.parent / "fixtures" / "matches")]
    r = bench_regress(paths)
    print(f"regress (reference engine, one worker process): {r['matches']} matches, "
          f"{r['hands']} hands in {r['seconds']:.2f} s (worker start {r['startup_seconds']:.2f} s, "
          f"{r['hands_per_second']:,} hands/s); {r['agree']} agree, {r['disagree']} disagree, "
          f"{r['engine-failure']} engine failure{'' if r['engine-failure'] == 1 else 's'}, "
          f"{r['skipped']} skipped")
    for how, f in bench_protocol(paths).items():
        print(f"  {how}: {f['matches_per_second']} matches/s ({f['hands_per_second']:,} hands/s, "
              f"start {f['startup_seconds']:.2f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
