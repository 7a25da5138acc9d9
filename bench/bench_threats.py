"""The power of the archive audit against the rigging a platform would really do.

For each rigging of :data:`tarneeb.testing.dealsim.RIGGING` (and the three earlier
cheats that one family of every test missed: one rule set's games, luck carried from
one match to the next, one named player, and the matches under one signing key of
two), ``archives`` archives of recorded deals are made in process at the size given,
audited with every test and the correction by families, and counted flagged or not;
printed with the share flagged, the tests that flagged them and the family. The
rigging:

* ``seed space``: every deal from one of 2^20 seeds (300 matches, 3,000 deals);
* ``riffle``: new-deck order, three riffle shuffles and a cut, dealt one card a seat
  (100 matches);
* ``first deal``: the computer seats get the better of two deals on the first deal of
  each match, in 60 % of matches (1,000 matches);
* ``behind late``: a named player's side gets the worse of two deals when behind in the
  second half of a match, 60 % of the time (1,000 matches);
* ``near repeat``: 2 % of deals a deck dealt before with two pairs of cards swapped,
  each between two hands (100 matches);
* ``partners fit``: seats 1 and 3 get the deal of two whose suits fit better, 30 % of
  the time (300 matches);
* ``drift``: the human seats get the better of two deals early and the computer seats
  late, up to 60 % of the deals at either end and none halfway (1,000 matches);
* ``player balance``: the side whose players had the worse luck in their match before
  gets the better of two deals, 60 % of the time (1,000 matches).

Run as a script (``python bench/bench_threats.py [ARCHIVES [RIGGING,...]]``) or call
:func:`bench_threats`.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from typing import Any

from scipy import stats

from tarneeb.replay.archive.audit import fairness_results
from tarneeb.testing.dealsim import RIGGING

# the test aimed at each rigging (its own family's): how often it flags, apart
AIMED = {"seed space": ("repeated deals", "all", "every deal"),
         "riffle": ("deck order", "all", "card c+1 to the seat after card c's"),
         "first deal": ("high-card points", "first deal", "computer vs human"),
         "behind late": ("high-card points", "match state", "players, seat labels and teams"),
         "near repeat": ("near-repeated hands", "all", "12 or 13 of 13 cards"),
         "partners fit": ("suit fit", "partners", "suit lengths"),
         "drift": ("high-card points", "archive order", "computer seats"),
         "player balance": ("high-card points", "successive matches", "each player's side"),
         "trump ace": ("trump honours", "computer vs human", "per hand"),
         "consecutive matches": ("high-card points", "serial", "consecutive matches"),
         "rule set": ("high-card points", "rule set", "classic"),
         "signing key": ("high-card points", "key", "platform B"),
         "player": ("high-card points", "player", "by name")}
# rigging: (matches, strength)
SIZES = {"seed space": (300, 1.0), "riffle": (100, 1.0), "first deal": (1000, 0.6),
         "behind late": (1000, 0.6), "near repeat": (100, 0.02), "partners fit": (300, 0.3),
         "drift": (1000, 0.6), "player balance": (1000, 0.6), "rule set": (1000, 0.6),
         "consecutive matches": (1000, 0.6), "player": (300, 0.6),
         "signing key": (1000, 0.6), "trump ace": (300, 0.5)}


def bench_threats(archives: int = 5, alpha: float = 0.05,
                  only: tuple[str, ...] = ()) -> dict[str, Any]:
    """``only``: the rigging to run (all when empty)."""
    from tarneeb.testing.dealsim import synthetic_archive

    assert set(RIGGING) <= set(SIZES)
    start = time.perf_counter()
    out: dict[str, Any] = {}
    for rigging, (matches, strength) in SIZES.items():
        if only and rigging not in only:
            continue
        flagged = aimed = 0
        by: Counter[str] = Counter()
        for seed in range(archives):
            results = fairness_results(synthetic_archive(
                random.Random(1000 + seed), matches, 10, rigging, strength,
                recorded_share=1.0), alpha, detectable=False)["recorded"]
            hits = [r for r in results if r.flagged]
            flagged += bool(hits)
            aimed += any(r.test == AIMED.get(rigging) for r in hits)
            by.update(f"{r.family}: {', '.join(r.test)}" for r in hits)
        ci = stats.binomtest(flagged, archives).proportion_ci(0.95, method="exact")
        out[rigging] = {"matches": matches, "strength": strength, "archives": archives,
                        "flagged": flagged, "ci95": (ci.low, ci.high),
                        "aimed": " ".join(AIMED.get(rigging, ("-",))), "by_aimed": aimed,
                        "by": dict(by.most_common(3))}
    return {"alpha": alpha, "rigging": out, "seconds": time.perf_counter() - start}


def lines(f: dict[str, Any]) -> list[str]:
    out = [f"power against rigging (recorded deals, 10 a match, alpha {f['alpha']:.0%}, "
           f"{f['seconds']:.0f} s):"]
    for name, r in f["rigging"].items():
        lo, hi = r["ci95"]
        out.append(f"  {name:<20} {r['matches']:>5,} matches, strength {r['strength']:.2f}: "
                   f"{r['flagged']} of {r['archives']} flagged (95 % CI {lo:.0%}-{hi:.0%}), "
                   f"{r['by_aimed']} by the test aimed at it ({r['aimed']})"
                   f"; most often by {'; '.join(r['by']) or '-'}")
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    chosen = tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else ()  # comma-separated
    for text in lines(bench_threats(n, only=chosen)):
        print(text)
