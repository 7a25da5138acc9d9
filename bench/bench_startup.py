"""The CPU time of a one-log ``tarneeb verify``, against the imports no verifier can skip.

An archive is often checked one ``tarneeb verify`` per log, so the command's start-up
counts as much as the replay. The baseline is a process that only imports what any
verifier of these logs needs, msgpack and cryptography's Ed25519
(``python -c 'import msgpack, cryptography.hazmat.primitives.asymmetric.ed25519'``);
the target is a one-log verify within 3.5× of it (about 0.1 s of CPU where that
baseline takes about 0.03 s; the ratio is the figure to read on a busy machine, where
both grow together).

Each command runs ``runs`` times as a child process, the commands interleaved (one run
of each in turn, so a change of the machine's load falls on all of them alike); the
figure of a command is the median of its runs' user + system CPU time. Bytecode is
cached, as it is in an installed package: the children run without
``PYTHONDONTWRITEBYTECODE`` and a first, unmeasured run of each writes the cache.

Besides the plain verify of a clean log it times one with a finding, ``--json``, a
pinned ``--key``, and ``tarneeb audit -j 1`` of a small archive (three logs: the
archive audit loads its statistics, so its start-up is given for the record, not held
to the target). Run it as a script (``python bench/bench_startup.py [RUNS]``) or call
:func:`bench_startup` from another benchmark.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
DEFAULT_LOG = FIXTURES / "matches" / "classic-01.tlog"
FINDING_LOG = FIXTURES / "altered" / "renege-eram41.tlog"
ARCHIVE_LOGS = ("classic-01.tlog", "eram41-01.tlog", "qahwa41-01.tlog")
BASELINE = "import msgpack, cryptography.hazmat.primitives.asymmetric.ed25519"
TARGET_RATIO = 3.5


def cpu_of(argv: list[str], env: dict[str, str]) -> float:
    """The user + system CPU time of one run of ``argv`` (and of the processes it waits
    for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def interleaved(commands: dict[str, list[str]], runs: int,
                env: dict[str, str]) -> dict[str, list[float]]:
    """The CPU time of each of ``runs`` runs of every command, one run of each in turn."""
    for argv in commands.values():  # warm the caches, write the bytecode
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       check=False)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(cpu_of(argv, env))
    return times


def tarneeb_command() -> list[str]:
    """The installed ``tarneeb`` script beside this interpreter, else ``python -m tarneeb``."""
    script = Path(sys.executable).parent / "tarneeb"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tarneeb"]


def _public_key_file(log: Path, folder: Path) -> Path:
    """The key the log names, as a PEM file to pin with ``--key``."""
    from tarneeb.audit.signing import public_key_from_raw, public_key_pem
    from tarneeb.replay.log import read_log

    raw = read_log(str(log)).header.public_key
    assert raw is not None, log
    path = folder / "platform.pub.pem"
    path.write_bytes(public_key_pem(public_key_from_raw(raw)))
    return path


def bench_startup(log: Path = DEFAULT_LOG, runs: int = 20,
                  audit_runs: int = 5) -> dict[str, object]:
    """The median CPU time of each command (seconds), its ratio to the baseline's, the
    runs (``audit_runs`` for the archive audit), and the machine's load average when
    they ended."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    tarneeb = tarneeb_command()
    folder = Path(tempfile.mkdtemp(prefix="tarneeb-startup-"))
    try:
        archive = folder / "archive"
        archive.mkdir()
        for name in ARCHIVE_LOGS:
            shutil.copy(FIXTURES / "matches" / name, archive / name)
        key = _public_key_file(log, folder)
        baseline = [sys.executable, "-c", BASELINE]
        commands = {
            "baseline": baseline,
            "python -c pass": [sys.executable, "-c", "pass"],
            "verify LOG": [*tarneeb, "verify", str(log)],
            "verify LOG (a finding)": [*tarneeb, "verify", str(FINDING_LOG)],
            "verify --json LOG": [*tarneeb, "verify", "--json", str(log)],
            "verify --key KEY LOG": [*tarneeb, "verify", "--key", str(key), str(log)],
        }
        times = interleaved(commands, runs, env)
        # the archive audit takes seconds: fewer runs, beside the baseline's own
        audit = f"audit -j 1 ({len(ARCHIVE_LOGS)} logs)"
        audit_times = interleaved({"baseline": baseline,
                                   audit: [*tarneeb, "audit", "-j", "1", str(archive)]},
                                  audit_runs, env)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    medians = {name: statistics.median(t) for name, t in times.items()}
    ratios = {name: m / medians["baseline"] for name, m in medians.items()}
    medians[audit] = statistics.median(audit_times[audit])
    ratios[audit] = medians[audit] / statistics.median(audit_times["baseline"])
    return {"median_cpu": medians, "ratio": ratios, "runs": runs, "audit_runs": audit_runs,
            "loadavg": _loadavg()}


def _loadavg() -> str:
    """The load averages over 1, 5 and 15 minutes (other jobs share the cores)."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def line(figures: dict[str, object]) -> str:
    """The start-up figures, the plain verify's first.

    >>> print(line({"median_cpu": {"baseline": 0.03, "verify LOG": 0.045},
    ...             "ratio": {"baseline": 1.0, "verify LOG": 1.5}, "runs": 20,
    ...             "loadavg": "0.50 0.40 0.30"}))  # doctest: +NORMALIZE_WHITESPACE
    start-up: a one-log verify 0.045 s CPU, 1.50x the baseline's 0.030 s (import msgpack
    and cryptography's Ed25519; target at most 3.50x; medians of 20 interleaved
    runs, load average 0.50 0.40 0.30)
    """
    medians: dict[str, float] = figures["median_cpu"]  # type: ignore[assignment]
    ratios: dict[str, float] = figures["ratio"]  # type: ignore[assignment]
    text = (f"start-up: a one-log verify {medians['verify LOG']:.3f} s CPU, "
            f"{ratios['verify LOG']:.2f}x the baseline's {medians['baseline']:.3f} s (import "
            f"msgpack and cryptography's Ed25519; target at most "
            f"{TARGET_RATIO:.2f}x; medians of {figures['runs']} interleaved runs, load "
            f"average {figures['loadavg']})")
    others = [name for name in medians if name not in ("baseline", "verify LOG")]
    for name in others:
        runs = f" ({figures['audit_runs']} runs)" if name.startswith("audit") else ""
        text += (f"\n  {name}: {medians[name]:.3f} s CPU, {ratios[name]:.2f}x the "
                 f"baseline{runs}")
    return text


if __name__ == "__main__":
    print(line(bench_startup(runs=int(sys.argv[1]) if len(sys.argv) > 1 else 20)))
