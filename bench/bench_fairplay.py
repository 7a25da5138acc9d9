"""The fair-play analysis (``tarneeb audit --play``): its speed, its calibration on honest
players and its power against each kind of peeking, on simulated matches.

Tables of :mod:`tarneeb.testing.fairplay` are played in process (eram41, the bot's
bidding) and every played hand analysed as the audit does:

* speed: CPU milliseconds per played hand on one core (limit 100), decisions per hand;
* calibration: at tables of four honest players of every skill (random cards, the
  package's bot, a card counter, a Monte Carlo player that solves layouts drawn from the
  bids), each group's excess and z over the whole pool, and the share of archives of
  ``SMALL`` matches (disjoint parts of the pool) in which any group is flagged at 5 %,
  with its Clopper–Pearson 95 % interval; the bound the pool puts on any honest group's
  bias (95 %), beside the bias an archive of 100, 300 and 1,000 matches would flag half
  the time;
* power against each kind of cheat (a seat that sees every hand; one that peeks on 30 %
  of hands; both computer seats peeking on 30 % of hands; two partners who see each
  other's hands): the target group's z over the pool, and the chance it is flagged in an
  archive of 100, 300 and 1,000 such matches, projected (normal approximation) from the
  per-match mean and variance of its score at the Holm threshold of the first step.

Printed: what was run (matches per kind, seconds). Run as a script
(``python bench/bench_fairplay.py [HONEST_MATCHES [CHEAT_MATCHES]]``) or call
:func:`bench_fairplay`.
"""

from __future__ import annotations

import math
import random
import sys
import time
from statistics import NormalDist
from typing import Any

from scipy import stats

from tarneeb.replay.fairplay.analyse import analyse_hand
from tarneeb.replay.fairplay.summary import MIN_DECISIONS, MatchPlay, PlaySummary
from tarneeb.testing.fairplay import simulate

TARGETS = {"peeker": ("player", "Suspect"), "peek30": ("player", "Suspect"),
           "computer30": ("label", "computer"), "partners": ("partnership", "Pair A & Pair B")}
SIZES = (100, 300, 1000)
SMALL = 10  # matches in each of the calibration's small archives
ALPHA = 0.05
GROUPS = 8  # groups tested at one simulated table: 4 players, 2 labels, 2 partnerships


def _analyse(kind: str, matches: int, seed: int) -> tuple[list[MatchPlay], float, int]:
    rng = random.Random(seed)
    games = simulate(kind, matches, rng)
    start = time.process_time()
    out = [MatchPlay(f"{kind}-{i}", names, computer, [analyse_hand(h, True, rng) for h in hs])
           for i, (names, computer, hs) in enumerate(games)]
    hands = sum(len(m.hands) for m in out)
    return out, (time.process_time() - start) / max(hands, 1), hands


def _per_match(plays: list[MatchPlay], group: tuple[str, str]) -> tuple[float, float, float]:
    """Per match: the mean of the group's summed excess, its variance across matches, and
    the mean of the summed estimated variance."""
    es, vs = [], []
    for m in plays:
        s = PlaySummary()
        s.add(m)
        t = s.tallies.get(group)
        es.append(t.excess if t else 0.0)
        vs.append(t.variance if t else 0.0)
    n = len(es)
    mean = sum(es) / n
    var = sum((e - mean) ** 2 for e in es) / max(n - 1, 1)
    return mean, var, sum(vs) / n


def _power(mean: float, var: float, est: float, size: int, groups: int = GROUPS) -> float:
    """P(z > the first Holm step's threshold) in an archive of ``size`` matches."""
    crit = NormalDist().inv_cdf(1 - ALPHA / groups)
    if var <= 0 or est <= 0:
        return 0.0
    return NormalDist().cdf((size * mean - crit * math.sqrt(size * est)) / math.sqrt(size * var))


def _results(plays: list[MatchPlay]) -> list[Any]:
    s = PlaySummary()
    for m in plays:
        s.add(m)
    return s.results(ALPHA)


def bench_fairplay(honest: int = 60, cheats: int = 30, seed: int = 1) -> dict[str, Any]:
    start = time.perf_counter()
    out: dict[str, Any] = {"honest_matches": honest, "cheat_matches": cheats}
    plays, ms, hands = _analyse("honest", honest, seed)
    out["ms_per_hand"] = 1000 * ms
    out["decisions_per_hand"] = sum(len(h.decisions) for m in plays for h in m.hands) / hands
    out["hands"] = {"honest": hands}
    out["honest"] = [(f"{r.kind} {r.name}", r.decisions, r.excess, r.z)
                     for r in _results(plays)]
    parts = [plays[i:i + SMALL] for i in range(0, len(plays) - SMALL + 1, SMALL)]
    flagged = sum(any(r.flagged for r in _results(p)) for p in parts)
    lo = stats.beta.ppf(0.025, flagged, len(parts) - flagged + 1) if flagged else 0.0
    hi = stats.beta.ppf(0.975, flagged + 1, len(parts) - flagged) if flagged < len(parts) \
        else 1.0
    out["calibration"] = {"archives": len(parts), "matches": SMALL, "flagged": flagged,
                          "ci95": (float(lo), float(hi))}
    bounds: dict[str, float] = {}
    detectable: dict[int, float] = {}
    crit = NormalDist().inv_cdf(1 - ALPHA / GROUPS)
    for name, n, *_ in out["honest"]:
        kind, _, who = name.partition(" ")
        mean, var, est = _per_match(plays, (kind, who))
        per_match = n / len(plays)  # decisions a match
        bounds[name] = 1.96 * math.sqrt(var / len(plays)) / per_match
        for size in SIZES:
            # the bias per decision flagged half the time at this size
            detectable[size] = max(detectable.get(size, 0.0),
                                   crit * math.sqrt(est / size) / per_match)
    out["bias_bound"] = max(bounds.values())
    out["bias_flagged_half_the_time"] = detectable
    power: dict[str, Any] = {}
    for i, (kind, group) in enumerate(TARGETS.items() if cheats else ()):
        cplays, _, h = _analyse(kind, cheats, seed + 1 + i)
        out["hands"][kind] = h
        mean, var, est = _per_match(cplays, group)
        res = {f"{r.kind} {r.name}": r for r in _results(cplays)}
        r = res.get(f"{group[0]} {group[1]}")
        power[kind] = {"group": f"{group[0]} {group[1]}",
                       "z": r.z if r else 0.0, "excess": r.excess if r else 0.0,
                       "decisions": r.decisions if r else 0,
                       "flagged_in_pool": bool(r and r.flagged),
                       "others_flagged": sorted(k for k, x in res.items()
                                                if x.flagged and x is not r),
                       "power": {size: _power(mean, var, est, size) for size in SIZES}}
    out["power"] = power
    out["seconds"] = time.perf_counter() - start
    return out


def lines(f: dict[str, Any]) -> list[str]:
    c = f["calibration"]
    lo, hi = c["ci95"]
    out = [f"fair play: {f['ms_per_hand']:.0f} ms CPU per played hand on one core "
           f"({f['decisions_per_hand']:.1f} decisions analysed a hand; limit 100 ms)",
           f"fair play, what was run: {f['honest_matches']} honest matches, "
           f"{f['cheat_matches']} matches of each cheat (eram41; hands "
           + ", ".join(f"{k} {v:,}" for k, v in f["hands"].items())
           + f"), {f['seconds']:.0f} s",
           f"fair play calibration: {c['flagged']} of {c['archives']} honest archives of "
           f"{c['matches']} matches flagged at 5 %: {c['flagged'] / max(c['archives'], 1):.0%} "
           f"(95 % CI {lo:.0%}-{hi:.0%}, Clopper-Pearson); every honest group over the pool:"]
    for name, n, excess, z in f["honest"]:
        out.append(f"    {name:<36} {n:>6,} decisions, excess {100 * excess:+.2f} points, "
                   f"z {z:+.2f}")
    out.append(f"  the pool bounds each honest group's bias within "
               f"±{100 * f['bias_bound']:.2f} points a decision (95 %); a bias flagged half "
               "the time: " + ", ".join(f"{s:,} matches {100 * b:.2f} points" for s, b in
                                        f["bias_flagged_half_the_time"].items()))
    for kind, p in f["power"].items():
        out.append(f"fair play power, {kind} ({p['group']}): excess {100 * p['excess']:+.1f} "
                   f"points, z {p['z']:+.1f} over {p['decisions']:,} decisions "
                   f"({'flagged' if p['flagged_in_pool'] else 'not flagged'} in the pool; "
                   f"others flagged: {', '.join(p['others_flagged']) or 'none'}); "
                   "projected power " + ", ".join(f"{s:,} matches {v:.0%}"
                                                  for s, v in p["power"].items()))
    return out


assert MIN_DECISIONS > 0

if __name__ == "__main__":
    honest = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    cheats = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for text in lines(bench_fairplay(honest, cheats)):
        print(text)
