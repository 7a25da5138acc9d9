"""The CPU time of a one-log ``tarneeb verify``, beside that of ``python -c pass``.

An archive is often checked one ``tarneeb verify`` per log, so the command's start-up
counts as much as the replay (target: under 0.12 s). Each command runs ``runs`` times
as a child process; the figure is the least user + system CPU time of a run (the
median is given too). Bytecode is cached, as it is in an installed package: the
children run without ``PYTHONDONTWRITEBYTECODE`` and a first, unmeasured run writes
the cache. Run it as a script (``python bench/bench_startup.py [LOG]``) or call
:func:`bench_startup` from another benchmark.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LOG = HERE.parent / "fixtures" / "matches" / "classic-01.tlog"


def cpu_seconds(argv: list[str], runs: int, env: dict[str, str]) -> tuple[float, float]:
    """The least and the median CPU time (user + system) of ``runs`` runs of ``argv``."""
    times = []
    subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)  # warm the caches
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times), statistics.median(times)


def tarneeb_command() -> list[str]:
    """The installed ``tarneeb`` script beside this interpreter, else ``python -m tarneeb``."""
    script = Path(sys.executable).parent / "tarneeb"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tarneeb"]


def bench_startup(log: Path = DEFAULT_LOG, runs: int = 20) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python, python_median = cpu_seconds([sys.executable, "-c", "pass"], runs, env)
    verify, verify_median = cpu_seconds([*tarneeb_command(), "verify", str(log)], runs, env)
    return {"python_pass_cpu": python, "python_pass_cpu_median": python_median,
            "verify_one_log_cpu": verify, "verify_one_log_cpu_median": verify_median,
            "runs": runs}


def line(figures: dict[str, float]) -> str:
    """
    >>> line({"verify_one_log_cpu": 0.08, "python_pass_cpu": 0.025, "runs": 20,
    ...       "verify_one_log_cpu_median": 0.09, "python_pass_cpu_median": 0.03})
    'start-up: a one-log verify 0.080 s CPU, python -c pass 0.025 s (least of 20 runs; medians 0.090 and 0.030 s; target under 0.12 s)'
    """  # noqa: E501
    return (f"start-up: a one-log verify {figures['verify_one_log_cpu']:.3f} s CPU, "
            f"python -c pass {figures['python_pass_cpu']:.3f} s (least of "
            f"{figures['runs']} runs; medians {figures['verify_one_log_cpu_median']:.3f} and "
            f"{figures['python_pass_cpu_median']:.3f} s; target under 0.12 s)")


if __name__ == "__main__":
    print(line(bench_startup(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_LOG)))
