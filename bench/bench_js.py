"""The TypeScript verifier (``js/``, in Node) beside the Python one, on the same logs:
hands per second and milliseconds per log, each the best of a few rounds in one process
(start-up excluded: Node's and Python's are timed by ``bench_startup`` and the CLI), and
the ratio JS/Python. Both give every log the same verdict (the conformance test proves it
field for field); the figures here count the dealing attempts each replayed.

Run alone: ``python bench/bench_js.py [--matches N] [--rounds R]``; ``make bench`` runs it
from ``bench/bench.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JS = HERE.parent / "js"
SCRIPT = JS / "bench" / "verify.mjs"


def _python(paths: list[Path], rounds: int) -> dict[str, float]:
    from tarneeb.replay.verify.replayer import verify_bytes

    data = [p.read_bytes() for p in paths]
    best, hands = float("inf"), 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        hands = sum(verify_bytes(d, str(p), count_paths=True).hands
                    for d, p in zip(data, paths, strict=True))
        best = min(best, time.perf_counter() - t0)
    return {"seconds": best, "hands": hands, "logs": len(paths)}


def _node(paths: list[Path], rounds: int) -> dict[str, float] | None:
    node = shutil.which("node")
    if node is None:
        return None
    if not (JS / "dist" / "src" / "index.js").exists():
        subprocess.run(["npm", "run", "build"], cwd=JS, check=True, capture_output=True)
    out = subprocess.run([node, str(SCRIPT), str(rounds), *map(str, paths)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def bench_js(paths: list[Path], rounds: int = 10) -> dict[str, object]:
    """Both verifiers over ``paths``: hands/s and ms/log each, and JS/Python, the Python one
    as it runs (with the compiled core when it is built) and in pure Python."""
    from tarneeb.replay.rules.compiled import pure_python

    py = _python(paths, rounds)
    with pure_python():
        pure = _python(paths, rounds)
    js = _node(paths, rounds)
    out: dict[str, object] = {"logs": len(paths), "hands": py["hands"]}
    for name, f in (("python", py), ("python_pure", pure), ("js", js)):
        if f is None:
            continue
        out[name] = {"hands_per_second": f["hands"] / f["seconds"],
                     "ms_per_log": 1000 * f["seconds"] / f["logs"], "hands": f["hands"]}
    if js is not None:
        out["ratio"] = (js["hands"] / js["seconds"]) / (py["hands"] / py["seconds"])
        out["ratio_pure"] = (js["hands"] / js["seconds"]) / (pure["hands"] / pure["seconds"])
    return out


def line(f: dict[str, object]) -> str:
    if "js" not in f:
        return "JS verifier: node is not installed, not measured"
    py, pure, js = f["python"], f["python_pure"], f["js"]
    return (f"JS verifier (Node) beside Python on the same {f['logs']} logs: "
            f"{js['hands_per_second']:,.0f} vs {py['hands_per_second']:,.0f} hands/s, "  # type: ignore[index]
            f"{js['ms_per_log']:.2f} vs {py['ms_per_log']:.2f} ms per log: "  # type: ignore[index]
            f"{f['ratio']:.2f}x the Python rate with its compiled core; "
            f"{f['ratio_pure']:.2f}x the pure-Python rate "
            f"({pure['hands_per_second']:,.0f} hands/s)")  # type: ignore[index]


def main() -> None:
    sys.path.insert(0, str(HERE))
    from bench_logs import generate, write

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20, help="matches per rule set")
    ap.add_argument("--rounds", type=int, default=10, help="best of this many rounds")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        f = bench_js(write(generate(args.matches), Path(tmp)), args.rounds)
    print(json.dumps(f, indent=1) if args.json else line(f))


if __name__ == "__main__":
    main()
