"""What the group layer costs (``tarneeb.audit.blind.group``), for each backend it has.

Microseconds of CPU time per call, the least over ``rounds`` rounds (the backends
interleaved in each round, so both see the same load): a constant-time scalar
multiplication (``mul``) and by the base point (``mul_base``), an addition (``add``),
the multi-scalar multiplications of 13, 52 and 64 points in variable time (``msm``) and
in constant time (``msm_secret``), and a ``fold`` of 32 pairs. The libsodium backend
makes a sum with one call per term; the C backend with Straus (or Pippenger's buckets
for many points).

Run it as a script (``python bench/bench_group.py``) or call :func:`bench_group`.

>>> r = bench_group(rounds=1, number=1)
>>> sorted(r["libsodium"]) == sorted(OPERATIONS) and r["libsodium"]["mul"] > 0
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from tarneeb.audit.blind import group

SIZES = (13, 52, 64)
FOLD_PAIRS = 32
OPERATIONS = ("mul", "mul_base", "add", *(f"{kind}_{n}" for kind in ("msm", "msm_secret")
                                           for n in SIZES), f"fold_{FOLD_PAIRS}")


def _calls(g: group.Backend, rng: random.Random) -> dict[str, Callable[[], Any]]:
    pts = [g.from_hash(rng.randbytes(64)) for _ in range(max(*SIZES, 2 * FOLD_PAIRS))]
    scalars = [rng.randrange(group.L) for _ in pts]
    s, p, q = scalars[0], pts[0], pts[1]
    out: dict[str, Callable[[], Any]] = {
        "mul": lambda: g.mul(s, p),
        "mul_base": lambda: g.mul_base(s),
        "add": lambda: g.add(p, q),
    }
    for n in SIZES:
        out[f"msm_{n}"] = lambda n=n: g.msm(scalars[:n], pts[:n])
        out[f"msm_secret_{n}"] = lambda n=n: g.msm_secret(scalars[:n], pts[:n])
    left, right = pts[:FOLD_PAIRS], pts[FOLD_PAIRS:2 * FOLD_PAIRS]
    out[f"fold_{FOLD_PAIRS}"] = lambda: g.fold(s, left, right)
    return out


def bench_group(rounds: int = 7, number: int = 20) -> dict[str, dict[str, float]]:
    """``{backend: {operation: µs per call}}``, the least of ``rounds`` rounds of
    ``number`` calls (a tenth of them, at least one, for the sums)."""
    rng = random.Random(9)
    calls = {name: _calls(g, rng) for name, g in sorted(group.available().items())}
    best: dict[str, dict[str, float]] = {name: {} for name in calls}
    for _ in range(rounds):
        for op in OPERATIONS:
            k = number if op in ("mul", "mul_base", "add") else max(1, number // 10)
            if op == "add":
                k *= 20
            for name, fns in calls.items():
                fn = fns[op]
                t0 = time.process_time()
                for _ in range(k):
                    fn()
                us = (time.process_time() - t0) / k * 1e6
                best[name][op] = min(best[name].get(op, us), us)
    return best


def lines(r: dict[str, dict[str, float]]) -> list[str]:
    out = []
    for name, f in r.items():
        sums = "; ".join(
            f"{n} points {f[f'msm_{n}']:,.0f} (secret {f[f'msm_secret_{n}']:,.0f})"
            for n in SIZES)
        out.append(
            f"group layer, {name}: µs per mul {f['mul']:.1f}, mul_base {f['mul_base']:.1f}, "
            f"add {f['add']:.2f}; msm of {sums}; fold of {FOLD_PAIRS} pairs "
            f"{f[f'fold_{FOLD_PAIRS}']:,.0f}")
    if "c" in r and "libsodium" in r:
        c, s = r["c"], r["libsodium"]
        out.append("group layer, libsodium / c: " + ", ".join(
            f"{op} {s[op] / c[op]:.1f}x" for op in ("mul", "mul_base", "add", "msm_52",
                                                     "msm_secret_52")))
    return out


def main() -> int:
    print(f"backend in use: {group.backend()}")
    for text in lines(bench_group()):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
