"""The fair-play figures looked at again and again (``tarneeb audit --play --state``): how
often an honest archive is *ever* flagged when looked at after every match, under the
anytime bar an audit with a state uses and under Holm's correction at each look (right
for one look only), and how many matches a seat that beats its information takes to be
flagged under each.

* **Scored decisions** (:mod:`tarneeb.testing.playscores`: scored as the analysis scores
  them, without playing): ``archives`` honest archives of ``matches`` matches, twelve
  groups coming over time, looked at after every match; the share ever flagged, with its
  Clopper–Pearson 95 % interval (the promise: at most alpha = 5 %). Then one group's card
  best 5 or 8 points more often than its information allows: the match by which the
  anytime bar has flagged half the archives, and the size at which one look with Holm's
  correction flags half of them (a single look planned at that size).
* **Analysed matches** (a pool of matches played by the simulated players and analysed by
  the audit's own analysis, ``bench/fairplay_pool.py``; given as ``--pool`` or the
  environment's ``TARNEEB_FAIRPLAY_POOL``): honest matches drawn at random, their seats
  given names from twelve players at random, looked at after every match; and matches
  of the peeker's table (the peeker keeps its name), the match at which each bar flags.

Run as a script (``python bench/bench_play_looks.py [ARCHIVES] [--pool FILE]``) or call
:func:`bench_play_looks`.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from tarneeb.audit.fairness.scores import ScoreTally, anytime_flags, holm_flags
from tarneeb.testing.playscores import group_scores

ALPHA = 0.05
GROUPS = 12
NAMES = tuple(f"Player {i}" for i in range(1, 13))


def _ci(k: int, n: int) -> tuple[float, float]:
    """Clopper–Pearson 95 % interval of ``k`` in ``n`` (scipy's exact binomial one)."""
    ci = stats.binomtest(k, n).proportion_ci(0.95, "exact")
    return float(ci.low), float(ci.high)


def _flags(n: Any, s: Any, v: Any) -> tuple[bool, bool]:
    """Whether the groups' running sums at one look are flagged: under the anytime bar,
    and by Holm's correction of that look's p-values."""
    tested = [ScoreTally(int(a), float(b), float(c)) for a, b, c in zip(n, s, v, strict=True)
              if a >= 50]
    if not tested:
        return False, False
    return (any(f for _, _, f in anytime_flags(tested, ALPHA)),
            any(f for _, f in holm_flags([t.result().p_value for t in tested], ALPHA)))


def scored_looks(archives: int = 1000, matches: int = 100, seed: int = 2026) -> dict[str, Any]:
    """The scored decisions' part (see the module)."""
    rng = np.random.default_rng(seed)
    anytime = holm = 0
    for start in range(0, archives, 50):
        n, s, v = (x.cumsum(axis=1) for x in group_scores(min(50, archives - start), matches,
                                                           GROUPS, rng))
        for a in range(n.shape[0]):
            ever = [False, False]
            for m in range(matches):
                got = _flags(n[a, m], s[a, m], v[a, m])
                ever = [ever[0] or got[0], ever[1] or got[1]]
                if all(ever):
                    break
            anytime += ever[0]
            holm += ever[1]
    power = {}
    for shift in (0.05, 0.08):
        # per look, the share of archives the anytime bar has flagged by then, and the share
        # one look with Holm's correction flags at that look (a look planned at that size)
        looks = 400
        ever, at = np.zeros(looks), np.zeros(looks)
        for _ in range(40):
            n, s, v = (x.cumsum(axis=1)[0] for x in group_scores(
                1, looks, GROUPS, rng, shift=[shift] + [0.0] * (GROUPS - 1)))
            flagged = False
            for m in range(looks):
                got = _flags(n[m], s[m], v[m])
                flagged |= got[0]
                ever[m] += flagged
                at[m] += got[1]
        power[f"{shift:.0%}"] = {
            "anytime": next((m + 1 for m in range(looks) if ever[m] >= 20), None),
            "single look": next((m + 1 for m in range(looks) if at[m] >= 20), None)}
    return {"archives": archives, "matches": matches, "groups": GROUPS,
            "anytime": anytime, "anytime_ci95": _ci(anytime, archives),
            "holm": holm, "holm_ci95": _ci(holm, archives), "power": power}


def pool_looks(pool: str | Path, archives: int = 200, matches: int = 60,
               seed: int = 7) -> dict[str, Any]:
    """The analysed matches' part (see the module)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parent))
    from fairplay_pool import load

    from tarneeb.replay.fairplay.analyse import HandPlay
    from tarneeb.replay.fairplay.summary import MatchPlay, PlaySummary

    rows = load(pool)
    by_kind: dict[str, list[tuple[tuple[str, ...], tuple[bool, ...], list[HandPlay]]]] = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append((tuple(r["names"]), tuple(r["computer"]),
                                                  [HandPlay.from_json(h) for h in r["hands"]]))
    rng = random.Random(seed)

    def first_flags(kind: str, length: int, keep: str | None) -> tuple[int, int]:
        """The first match each bar flags (``length + 1``: never)."""
        summary, at = PlaySummary(), [length + 1, length + 1]
        for m in range(length):
            names, computer, hands = rng.choice(by_kind[kind])
            names = tuple(n if n == keep else rng.choice(NAMES) for n in names)
            summary.add(MatchPlay(f"m{m}", names, computer, hands))
            for i, anytime in enumerate((True, False)):
                if at[i] > length and any(r.significant for r in
                                          summary.results(ALPHA, anytime=anytime)):
                    at[i] = m + 1
            if max(at) <= length:
                break
        return at[0], at[1]

    out: dict[str, Any] = {"pool": {k: len(v) for k, v in by_kind.items()}}
    if "honest" in by_kind:
        ever = [first_flags("honest", matches, None) for _ in range(archives)]
        a = sum(x <= matches for x, _ in ever)
        h = sum(y <= matches for _, y in ever)
        out["honest"] = {"archives": archives, "matches": matches, "anytime": a,
                         "anytime_ci95": _ci(a, archives), "holm": h,
                         "holm_ci95": _ci(h, archives)}
    if "peeker" in by_kind:
        firsts = [first_flags("peeker", 200, "Suspect") for _ in range(20)]
        out["peeker"] = {"archives": 20, "anytime": statistics.median(x for x, _ in firsts),
                         "single look": statistics.median(y for _, y in firsts)}
    return out


def bench_play_looks(archives: int = 1000, pool: str | None = None) -> dict[str, Any]:
    out = {"scored": scored_looks(archives)}
    pool = pool or os.environ.get("TARNEEB_FAIRPLAY_POOL")
    if pool and Path(pool).exists():
        out["analysed"] = pool_looks(pool)
    return out


def print_play_looks(f: dict[str, Any]) -> None:
    s = f["scored"]
    lo, hi = s["anytime_ci95"]
    hlo, hhi = s["holm_ci95"]
    print(f"fair play looked at after every match ({s['archives']:,} honest archives of "
          f"{s['matches']} matches, {s['groups']} groups, scored decisions): ever flagged "
          f"under the anytime bar {s['anytime']} = {s['anytime'] / s['archives']:.1%} (95 % CI "
          f"{lo:.1%}-{hi:.1%}; promise <= {ALPHA:.0%}); by Holm at each look {s['holm']} = "
          f"{s['holm'] / s['archives']:.1%} ({hlo:.1%}-{hhi:.1%})")
    for shift, p in s["power"].items():
        print(f"  a group best {shift} more often (in half the matches, from a match in the "
              f"first 200): half the archives flagged by match {p['anytime']} under the "
              f"anytime bar; one look with Holm's correction flags half at {p['single look']}")
    a = f.get("analysed")
    if a:
        print(f"  analysed matches (pool: {a['pool']}):")
        if "honest" in a:
            h = a["honest"]
            lo, hi = h["anytime_ci95"]
            hlo, hhi = h["holm_ci95"]
            print(f"    honest, {h['archives']} archives of {h['matches']} matches: ever "
                  f"flagged anytime {h['anytime']} ({lo:.1%}-{hi:.1%}), Holm at each look "
                  f"{h['holm']} ({hlo:.1%}-{hhi:.1%})")
        if "peeker" in a:
            p = a["peeker"]
            print(f"    the peeker's table: median match flagged, anytime {p['anytime']:.0f}, "
                  f"one look with Holm {p['single look']:.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("archives", nargs="?", type=int, default=1000)
    parser.add_argument("--pool")
    args = parser.parse_args()
    print_play_looks(bench_play_looks(args.archives, args.pool))
