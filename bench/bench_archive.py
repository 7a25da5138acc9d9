"""How fast ``tarneeb audit`` goes through an archive: 1 job, 2 jobs, a local Dask cluster.

The archive (default 2,000 logs) is made here, fast: a few hundred distinct
generated matches (half with proven deals, half recorded), each written under
several names. Every run does the whole audit: verify every log, tally its deals,
fold the results into the summary (where every copy's deals are taken out again: the
worst case of counting each match once), then the fairness statistics. Hands are the
dealing attempts verified, copies included. The 1-job audit is run again without the
compiled core (``pure_python()``), for logs per second with and without it. The Dask
run uses a local cluster of two worker processes, the one ``--scheduler local:2`` starts
(with the quieter worker settings of ``QUIET_DASK``), started before the clock starts (a
platform's cluster is already up). Targets, on 2 idle cores: 2 jobs at least 1.7× the
logs per second of 1 job, the Dask cluster at least 1.5×. :func:`bench_cost` measures
what the audit costs beside ``tarneeb verify`` of the same logs (CPU, whole processes, one
job): targets 1.5× at 2,000 logs, 3× at 300 recorded matches, 1.2× with ``--no-stats``.
:func:`bench_memory_growth` measures the audit's peak memory at 2,000 and 10,000 distinct
logs, and what it grows by a log (target: 20,000 logs within 15 % of 2,000, here
extrapolated in a straight line from the two sizes measured). Run it as a script (``python
bench/bench_archive.py [LOGS]``, ``--cost`` for the cost alone, ``--memory`` for the
memory alone) or call :func:`bench_archive`.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tarneeb.replay.archive.audit import ArchiveSummary, expand_paths, run_chunks
from tarneeb.testing.archive import write_archive


def make_archive(directory: Path, logs: int, distinct: int = 200) -> None:
    """``logs`` log files in ``directory``: ``distinct`` matches, copied under new names."""
    src = directory / "src"
    half = distinct // 2
    made = write_archive(src / "proven", half, seed=b"bench proven") + \
        write_archive(src / "recorded", distinct - half, seed=b"bench recorded", recorded=True)
    out = directory / "archive"
    for i in range(logs):
        day = out / f"day{i // 100:03d}"
        day.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(made[i % len(made)], day / f"{i:06d}.tlog")
    shutil.rmtree(src)


def _workers_cpu(client: Any) -> float:
    """The CPU seconds the Dask workers' processes have used so far, all together."""
    return sum(client.run(time.process_time).values()) if client is not None else 0.0


def _audit(paths: list[str], client: Any = None, **how: Any) -> dict[str, Any]:
    cpu = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = _workers_cpu(client)
    start = time.perf_counter()
    summary = ArchiveSummary()
    hands = 0
    for chunk in run_chunks(expand_paths(paths), **how):
        summary.add(chunk)
        hands += sum(m.hands for m in chunk.matches)
    verified = time.perf_counter()
    # the pool's processes are reaped when the run ends: their CPU is the children's
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = (after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
                  + _workers_cpu(client) - workers)
    fairness = summary.fairness()
    end = time.perf_counter()
    if summary.clean != summary.logs:
        raise SystemExit(f"bench: {summary.logs - summary.clean} generated logs not clean")
    return {"logs": summary.logs, "copies": summary.copies, "hands": hands,
            "seconds": round(end - start, 3),
            # this process's CPU: the whole audit with 1 job, the client's share otherwise
            "client_cpu_seconds": round(time.process_time() - cpu, 3),
            "workers_cpu_seconds": round(worker_cpu, 3),
            # all the CPU the audit took, client and workers, per log
            "cpu_ms_per_log": round(1000 * (time.process_time() - cpu + worker_cpu)
                                    / max(1, summary.logs), 2),
            "statistics_seconds": round(end - verified, 3),
            "logs_per_second": round(summary.logs / (end - start), 1),
            "hands_per_second": round(hands / (end - start)),
            "tests": sum(len(r) for r in fairness.values())}


def seen_bytes(matches: int = 100_000) -> dict[str, float]:
    """What counting each match once and finding what two matches share keep per match (two
    digests, five bytes of state and the first log's path, here 36 characters like
    ``/srv/logs/2026-03/day000/000000.tlog``; an entry for its match id, with its outcome,
    and one for its season leaf), in bytes: in memory (Python's allocations, the dicts of
    the recent matches; SQLite's pages in memory are bounded, 256 KB a table) and on disk
    (the tables of SQLite's temporary database)."""
    import hashlib
    import tracemalloc

    from tarneeb.replay.archive.claims import Claim, Claims
    from tarneeb.replay.archive.seen import Seen

    seen, claims = Seen(), Claims()
    tracemalloc.start()
    try:
        for i in range(matches):
            identity = hashlib.sha256(b"match %d" % i).digest()
            claim = Claim(*(hashlib.sha256(b"%s %d" % (what, i)).digest()[:16]
                            for what in (b"leaf", b"id", b"outcome")))
            seen.check(identity, hashlib.sha256(b"log %d" % i).digest(),
                       f"/srv/logs/2026-03/day{i // 100:03d}/{i:06d}.tlog")
            claims.check(identity, claim)
        memory = tracemalloc.get_traced_memory()[0] / matches
    finally:
        tracemalloc.stop()
    disk = seen.disk_bytes() + claims.disk_bytes()
    seen.close()
    claims.close()
    return {"memory": memory, "disk": disk / matches}


# runs a command and prints its CPU seconds, peak resident kilobytes and exit code:
# started from this small process, the command's peak is its own (one started from the
# bench itself shares the bench's pages until it runs the command, and counts them)
_MEASURE = ("import json, os, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL)\n"
            "_, status, use = os.wait4(p.pid, 0)\n"
            "print(json.dumps([use.ru_utime + use.ru_stime, use.ru_maxrss, "
            "os.waitstatus_to_exitcode(status)]))")


def measured(command: list[str], env: dict[str, str] | None = None
             ) -> tuple[float, float, int]:
    """CPU seconds (user + system), peak resident megabytes and exit code of ``command``
    run to its end, alone."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True,
                         text=True, check=True, env=env).stdout
    cpu, kilobytes, code = json.loads(out)
    return float(cpu), kilobytes / 1024, int(code)


def _child(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """:func:`measured` of ``tarneeb ARGV``."""
    script = Path(sys.executable).with_name("tarneeb")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "tarneeb"]
    return measured([*cmd, *argv], env)


def bench_cost(rounds: int = 3) -> dict[str, Any]:
    """The whole ``tarneeb audit`` (one job) and ``audit --no-stats`` against ``tarneeb
    verify`` of the same logs, CPU seconds of each process (start-up, imports of numpy
    and scipy included), run in turn ``rounds`` times (medians): 2,000 distinct fair logs
    (1,000 with proven deals, 1,000 recorded, two signing keys, the five rule sets) and
    300 recorded matches. Targets: the audit at most 1.5x verify at 2,000 logs and 3x at
    300 matches, --no-stats at most 1.2x. Also each audit's peak resident memory.

    The modules' bytecode is cached, as an installed package's is (pip compiles it): in a
    cache of the run's own (``PYTHONPYCACHEPREFIX``), filled by a first audit not
    measured, even where the environment says not to write bytecode (a source tree,
    ``PYTHONDONTWRITEBYTECODE``), which would otherwise charge every run the compiling
    of the modules it imports."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
        mixed, recorded = Path(tmp) / "mixed", Path(tmp) / "recorded"
        write_archive(mixed / "proven", 1000, seed=b"bench cost proven", keys=2)
        write_archive(mixed / "recorded", 1000, seed=b"bench cost recorded", recorded=True,
                      keys=2)
        write_archive(recorded, 300, seed=b"bench cost 300", recorded=True)
        _child(["audit", "-j", "1", str(recorded)], env)  # the bytecode cached, not measured
        for name, path in (("2,000 logs", mixed), ("300 recorded", recorded)):
            cases = {"verify": ["verify", str(path)],
                     "audit": ["audit", "-j", "1", str(path)],
                     "no-stats": ["audit", "-j", "1", "--no-stats", str(path)]}
            cpu: dict[str, list[float]] = {k: [] for k in cases}
            rss: dict[str, float] = {}
            for _ in range(rounds):
                for k, argv in cases.items():
                    t, mb, code = _child(argv, env)
                    if code not in (0, 3):  # 3: a fair archive flagged, at rate alpha
                        raise SystemExit(f"bench: {' '.join(argv)} exited {code}")
                    cpu[k].append(t)
                    rss[k] = max(rss.get(k, 0.0), mb)
            med = {k: statistics.median(v) for k, v in cpu.items()}
            out[name] = {"cpu_seconds": {k: round(v, 3) for k, v in med.items()},
                         "audit_ratio": round(med["audit"] / med["verify"], 2),
                         "no_stats_ratio": round(med["no-stats"] / med["verify"], 2),
                         "peak_mb": {k: round(v, 1) for k, v in rss.items()}}
    return out


def cost_lines(r: dict[str, Any]) -> list[str]:
    """The audit's cost against verify, one line per archive."""
    lines = []
    for name, target in (("2,000 logs", 1.5), ("300 recorded", 3.0)):
        x = r[name]
        c = x["cpu_seconds"]
        lines.append(
            f"audit cost, {name}: the whole audit {x['audit_ratio']:.2f}x verify (target "
            f"{target}x), --no-stats {x['no_stats_ratio']:.2f}x (target 1.2x); CPU "
            f"{c['audit']:.2f} / {c['no-stats']:.2f} / {c['verify']:.2f} s, medians of runs "
            f"in turn, start-up included; peak memory {x['peak_mb']['audit']:.0f} MB (verify "
            f"{x['peak_mb']['verify']:.0f} MB)")
    return lines


MEMORY_SIZES = (2000, 10_000)  # distinct logs, half proven and half recorded, two keys
MEMORY_TARGET = 1.15  # peak memory at 20,000 logs at most this times that at 2,000
MEMORY_AT = 20_000  # the size the target speaks of (extrapolated from MEMORY_SIZES)


def bench_memory_growth(sizes: tuple[int, ...] = MEMORY_SIZES) -> dict[str, Any]:
    """Peak resident memory of ``tarneeb audit -j 1`` (a whole process) over archives of
    ``sizes`` distinct fair logs, each the one before and more logs (2,000-log parts, half
    proven and half recorded, two signing keys): what grows with the archive. The
    logs are written once, about a minute for 10,000."""
    out: dict[str, Any] = {"sizes": list(sizes)}
    part = 2000
    with tempfile.TemporaryDirectory() as tmp:
        parts: list[str] = []
        for size in sizes:
            while len(parts) * part < size:
                d = Path(tmp) / f"part{len(parts)}"
                k = len(parts)
                write_archive(d / "proven", part // 2, seed=b"bench memory proven %d" % k, keys=2)
                write_archive(d / "recorded", part - part // 2, recorded=True, keys=2,
                              seed=b"bench memory recorded %d" % k)
                parts.append(str(d))
            _, mb, code = _child(["audit", "-j", "1", *parts[:-(-size // part)]])
            if code not in (0, 3):
                raise SystemExit(f"bench: audit of {size:,} logs exited {code}")
            out[str(size)] = round(mb, 1)
    small, large = out[str(sizes[0])], out[str(sizes[-1])]
    out["ratio"] = round(large / small, 3)
    per_log = (large - small) / (sizes[-1] - sizes[0])
    out["bytes_per_log"] = round(per_log * 2**20)
    out["extrapolated_mb"] = round(small + per_log * (MEMORY_AT - sizes[0]), 1)
    out["extrapolated_ratio"] = round(out["extrapolated_mb"] / small, 3)
    return out


def memory_line(m: dict[str, Any]) -> str:
    """The audit's peak memory against the archive's size."""
    a, b = m["sizes"][0], m["sizes"][-1]
    return (f"audit memory against archive size (one job, whole process, peak resident): "
            f"{m[str(a)]:.0f} MB at {a:,} distinct logs, {m[str(b)]:.0f} MB at {b:,} "
            f"({m['ratio']:.2f}x; {m['bytes_per_log']:,} bytes more a log); at {MEMORY_AT:,} "
            f"logs, extrapolated, {m['extrapolated_mb']:.0f} MB, {m['extrapolated_ratio']:.2f}x "
            f"{a:,} logs' (target at most {MEMORY_TARGET}x)")


def bench_archive(logs: int = 2000) -> dict[str, Any]:
    """The audit of a ``logs``-log archive with 1 job, 2 jobs and a local Dask cluster."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        make_archive(Path(tmp), logs)
        made = time.perf_counter() - t0
        paths = [str(Path(tmp) / "archive")]
        runs: dict[str, Any] = {"archive_seconds": round(made, 2)}
        runs["1 job"] = _audit(paths, jobs=1)
        from tarneeb.replay.rules.compiled import path_in_use, pure_python

        runs["path"] = path_in_use()
        with pure_python():  # the same audit without the compiled core
            runs["1 job, pure Python"] = _audit(paths, jobs=1)
        runs["2 jobs"] = _audit(paths, jobs=2)
        try:
            import distributed  # noqa: F401
        except ImportError:
            runs["dask"] = None
        else:
            from tarneeb.replay.archive.run import local_cluster

            t0 = time.perf_counter()
            with local_cluster(2) as client:  # what --scheduler local:2 runs on
                runs["dask_startup_seconds"] = round(time.perf_counter() - t0, 2)
                runs["dask"] = _audit(paths, client, scheduler=client)
        runs["seen_bytes_per_match"] = {k: round(v) for k, v in seen_bytes().items()}
        runs["cost"] = bench_cost()
        runs["memory"] = bench_memory_growth()
        base = runs["1 job"]["seconds"]
        for name in ("2 jobs", "dask"):
            if runs.get(name):
                runs[name]["speedup"] = round(base / runs[name]["seconds"], 2)
        return runs


def report(r: dict[str, Any]) -> list[str]:
    one = r["1 job"]
    lines = [f"archive audit, 1 job: {one['logs'] / one['client_cpu_seconds']:,.0f} logs and "
             f"{one['hands'] / one['client_cpu_seconds']:,.0f} hands per CPU second (the "
             f"figures below are wall-clock: they depend on what else the machine runs; "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"]
    pure = r.get("1 job, pure Python")
    if pure:
        lines.append(f"archive audit, 1 job, with the compiled core ({r['path']}) / pure "
                     f"Python: {one['logs'] / one['client_cpu_seconds']:,.0f} / "
                     f"{pure['logs'] / pure['client_cpu_seconds']:,.0f} logs per CPU second "
                     "(half the archive's logs record their deals: those take the Python path)")
    lines.append(f"archive audit, each match once: {one['copies']:,} of the {one['logs']:,} "
                 f"logs are copies, their deals taken out; kept per match (two digests, five "
                 "bytes and a 36-character path; its match id, outcome and season leaf), at "
                 f"100,000 matches: {r['seen_bytes_per_match']['memory']} bytes in memory, "
                 f"{r['seen_bytes_per_match']['disk']} on disk")
    if r.get("cost"):
        lines.extend(cost_lines(r["cost"]))
    if r.get("memory"):
        lines.append(memory_line(r["memory"]))
    for name in ("1 job", "2 jobs", "dask"):
        x = r.get(name)
        if not x:
            lines.append(f"archive audit, {name}: not run (pip install 'tarneeb[cluster]')")
            continue
        ratio = "" if name == "1 job" else f", {x['speedup']:.2f}x one job"
        where = ("local Dask cluster, 2 worker processes (--scheduler local:2)"
                 if name == "dask" else name)
        lines.append(f"archive audit ({where}): {x['logs']:,} logs, {x['hands']:,} hands in "
                     f"{x['seconds']:.2f} s: {x['logs_per_second']:,.0f} logs/s, "
                     f"{x['hands_per_second']:,} hands/s{ratio} (statistics "
                     f"{x['statistics_seconds']:.2f} s of it); CPU {x['cpu_ms_per_log']:.2f} "
                     f"ms a log, client and workers (workers "
                     f"{x['workers_cpu_seconds']:.1f} s)")
    return lines


def main(argv: list[str]) -> None:
    if argv[:1] == ["--cost"]:  # the cost figures alone
        for line in cost_lines(bench_cost()):
            print(line)
        return
    if argv[:1] == ["--memory"]:  # the memory figure alone
        print(memory_line(bench_memory_growth()))
        return
    logs = int(argv[0]) if argv else 2000
    for line in report(bench_archive(logs)):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
