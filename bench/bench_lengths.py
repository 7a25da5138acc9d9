"""Full verification against the floor for a short, a long and a very long match, with
the compiled core and without it, in one run.

The floor is :func:`bench_floor.floor`'s, unchanged: reading the file, msgpack-decoding
every record and move, one Ed25519 verification of the signed bytes and two HMAC-SHA256
blocks a dealing attempt. Full verification is ``verify_file``, once with the compiled
core (when it is built) and once in pure Python (``pure_python()``, as
``TARNEEB_PURE=1``). The three matches are a 41 game's shortest of ``per_rules`` eram41
matches, a sahrat400 match's longest, and eram41 played to 400 (``bench/eram400.toml``).
Everything is timed interleaved, log by log, in CPU time (``time.process_time``), the
least of ``rounds``; the figure is full/floor (target: at most 2 with the core).

Run it as a script (``python bench/bench_lengths.py``) or call :func:`bench_lengths`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from bench_floor import floor

from tarneeb.replay.rules.compiled import path_in_use, pure_python
from tarneeb.replay.rules.ruleset import load_rules_file
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_file

HERE = Path(__file__).resolve().parent


def three_matches(directory: Path, per_rules: int = 10) -> dict[str, tuple[Path, int]]:
    """The short, long and very long matches written to ``directory``, with their
    dealing attempts."""
    from tarneeb.replay.log import parse_log

    def best(name: str, rules: Any, pick: Any, **kw: Any) -> tuple[Path, int]:
        logs = [play_logged_match(rules, seed=f"lengths/{name}/{i}".encode(), **kw)
                for i in range(per_rules)]
        data = pick(logs, key=lambda d: len(parse_log(d).hands))
        p = directory / f"{name}.tlog"
        p.write_bytes(data)
        return p, len(parse_log(data).hands)

    return {"short eram41": best("eram41", "eram41", min),
            "long sahrat400": best("sahrat400", "sahrat400", max),
            "very long eram41 to 400": best("eram400", load_rules_file(HERE / "eram400.toml"),
                                            max, max_hands=2000)}


def _pure_verify(path: str) -> None:
    with pure_python():
        verify_file(path)


def bench_lengths(matches: dict[str, tuple[Path, int]], rounds: int = 7) -> dict[str, Any]:
    clock = time.process_time
    names = list(matches)
    best = {n: [float("inf")] * 3 for n in names}  # floor, core, pure
    for n in names:
        p = str(matches[n][0])
        if not verify_file(p).clean:
            raise SystemExit(f"bench: {p} did not verify clean")
    for _ in range(rounds):
        for n in names:
            p = str(matches[n][0])
            t0 = clock()
            floor(p)
            t1 = clock()
            verify_file(p)
            t2 = clock()
            _pure_verify(p)
            t3 = clock()
            b = best[n]
            b[0], b[1], b[2] = min(b[0], t1 - t0), min(b[1], t2 - t1), min(b[2], t3 - t2)
    return {n: {"attempts": matches[n][1], "floor_us": 1e6 * best[n][0],
                "core_us": 1e6 * best[n][1], "pure_us": 1e6 * best[n][2],
                "core_ratio": best[n][1] / best[n][0], "pure_ratio": best[n][2] / best[n][0]}
            for n in names}


def lines(r: dict[str, Any]) -> list[str]:
    out = [f"full/floor by match length (floor: read, msgpack-decode, one Ed25519 check, two "
           f"HMAC blocks a deal, as bench_floor; CPU time, interleaved; path in use: "
           f"{path_in_use()}; target at most 2.0 with the core)"]
    for n, x in r.items():
        out.append(f"  {n} ({x['attempts']} attempts): floor {x['floor_us']:,.0f} µs, "
                   f"compiled core {x['core_us']:,.0f} µs ({x['core_ratio']:.2f}×), pure "
                   f"Python {x['pure_us']:,.0f} µs ({x['pure_ratio']:.2f}×)")
    return out


def main(argv: list[str] | None = None) -> int:
    import tempfile

    args = sys.argv[1:] if argv is None else argv
    rounds = int(args[0]) if args else 7
    with tempfile.TemporaryDirectory() as tmp:
        print("\n".join(lines(bench_lengths(three_matches(Path(tmp)), rounds))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
