"""The calibration of the archive audit's verdict: how often a fair archive is flagged.

At least 1,000 fair archives (default 1,000 of 30 matches of 10 deals) are made in
process (:mod:`tarneeb.testing.dealsim`: each match proven or recorded at random, rule
sets at random, the same measures and results as an audit's), every test of each
corrected together at 5 % (in families by threat, Holm's weighted procedure).
Printed: the family-wise flag rate with its Clopper–Pearson 95 % interval, the share
of each kind of test's p-values in ten bins (a valid test's p-values are uniform, or
pile up at 1 when discrete), and the smallest bias each main test would detect (80 %
power) in archives of 100 and 1,000 matches. Run as a script (``python
bench/bench_calibration.py [ARCHIVES [MATCHES]]``) or call :func:`bench_calibration`.
Archives of 100 matches or more test named players' states too (a player needs 20
matches of the archive's 12).
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter, defaultdict
from typing import Any

from scipy import stats

from tarneeb.replay.archive.audit import bias_flagged, fairness_results
from tarneeb.testing.dealsim import synthetic_archive

MAIN_TESTS = {
    "points by seat relative to the dealer (joint)":
        ("high-card points", "seat", "dealer|dealer+1|dealer+2|dealer+3"),
    "points by table seat (joint)": ("high-card points", "table seat",
                                     "seat 1|seat 2|seat 3|seat 4"),
    "points by team": ("high-card points", "team", "seats 1+3|seats 2+4"),
    "points, computer against human hands": ("high-card points", "computer vs human",
                                              "per hand"),
    "aces by table seat (joint)": ("aces", "table seat", "seat 1|seat 2|seat 3|seat 4"),
    "trumps by team": ("trumps", "team", "seats 1+3|seats 2+4"),
    "points of the side behind (slope per hand)": ("high-card points", "match state",
                                                   "side behind"),
    "one player's points (max over players)": ("high-card points", "player", "by name"),
    "one player's points in one rule set (max over both)": ("high-card points", "player",
                                                              "by name and rule set"),
    "first dealer a computer seat": ("first dealer", "label", "computer"),
    "card positions (one card at one position)": ("card position", "seat",
                                                  "dealer|dealer+1|dealer+2|dealer+3"),
    "long suits by table seat (joint)": ("long suits", "table seat",
                                         "seat 1|seat 2|seat 3|seat 4"),
    "voids by team": ("voids", "team", "seats 1+3|seats 2+4"),
    "points against closeness to the target (slope)": ("high-card points", "match state",
                                                       "close to the target"),
    "points of the side behind by hand number (slope)": ("high-card points", "match state",
                                                         "side behind by hand number"),
    "consecutive matches (correlation)": ("high-card points", "serial",
                                          "consecutive matches"),
    "points, computer against human, first deal": ("high-card points", "first deal",
                                                    "computer vs human"),
    "repeated deals (seed space)": ("repeated deals", "all", "every deal"),
    "deck order (pairs per deal)": ("deck order", "all", "card c+1 to the seat after card c's"),
    "state-adaptive dealing (max z over states)": ("high-card points", "match state",
                                                   "players, seat labels and teams"),
    "drift of seats 1+3's points (CUSUM)": ("high-card points", "archive order", "seats 1+3"),
    "drift of the computer seats' points (CUSUM)": ("high-card points", "archive order",
                                                    "computer seats"),
    "a player's successive matches (correlation)": ("high-card points", "successive matches",
                                                    "each player's side"),
    "near-repeated hands (pairs)": ("near-repeated hands", "all", "12 or 13 of 13 cards"),
    "partners' suit fit (per deal)": ("suit fit", "partners", "suit lengths"),
    "partners' honour fit (per deal)": ("honour fit", "partners",
                                        "honours in the partner's suits"),
}


def _kind(test: tuple[str, ...], method: str) -> str:
    return f"{test[0]}, {test[1]} ({method})"


def bench_calibration(archives: int = 1000, matches: int = 30, deals: int = 10,
                      alpha: float = 0.05) -> dict[str, Any]:
    start = time.perf_counter()
    flagged = 0
    which: Counter[str] = Counter()
    hist: dict[str, list[int]] = defaultdict(lambda: [0] * 10)
    for seed in range(archives):
        results = fairness_results(synthetic_archive(random.Random(seed), matches, deals),
                                   alpha, detectable=False)
        flags = bias_flagged(results)
        flagged += bool(flags)
        which.update(f.split(": ", 1)[1] for f in flags)
        for rs in results.values():
            for r in rs:
                if r.p_value is not None:
                    hist[_kind(r.test, r.method)][min(int(r.p_value * 10), 9)] += 1
    ci = stats.binomtest(flagged, archives).proportion_ci(0.95, method="exact")
    detectable = {}
    for size in (100, 1000):
        results = fairness_results(synthetic_archive(random.Random(size), size, deals,
                                                     recorded_share=1.0), alpha)
        by_test = {r.test: r for r in results["recorded"]}
        detectable[size] = {name: (by_test[t].detectable, by_test[t].detectable_unit)
                            for name, t in MAIN_TESTS.items() if t in by_test}
    return {"archives": archives, "matches": matches, "deals": deals, "alpha": alpha,
            "flagged": flagged, "rate": flagged / archives, "ci95": (ci.low, ci.high),
            "flagged_tests": dict(which.most_common()),
            "p_histograms": {k: v for k, v in sorted(hist.items())},
            "detectable": detectable, "seconds": time.perf_counter() - start}


def lines(f: dict[str, Any]) -> list[str]:
    lo, hi = f["ci95"]
    out = [f"calibration: {f['flagged']} of {f['archives']:,} fair archives of "
           f"{f['matches']} matches ({f['deals']} deals each, proven and recorded mixed) "
           f"flagged at alpha {f['alpha']:.0%}: {f['rate']:.1%} (95 % CI {lo:.1%}-{hi:.1%}, "
           f"Clopper-Pearson), {f['seconds']:.0f} s"]
    out.append("  p-values of each kind of test, share in tenths 0-0.1 ... 0.9-1:")
    for kind, counts in f["p_histograms"].items():
        n = sum(counts)
        out.append(f"    {kind:<62} n {n:>6,}: " + " ".join(f"{c / n:4.2f}" for c in counts))
    for size, tests in f["detectable"].items():
        out.append(f"  detectable (80 % power, after the correction) at {size:,} matches:")
        for name, (value, unit) in tests.items():
            shown = "-" if value is None else f"{value:.3f}"
            out.append(f"    {name:<50} {shown} {unit}")
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for text in lines(bench_calibration(n, size)):
        print(text)
