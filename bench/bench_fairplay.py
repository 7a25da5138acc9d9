"""The fair-play analysis (``tarneeb audit --play``): its speed, its calibration on honest
players and its power against each kind of peeking, on simulated matches.

Tables of :mod:`tarneeb.testing.fairplay` are played in process (eram41, the bot's
bidding) and their hands analysed as the audit does:

* speed: CPU milliseconds per analysed hand on one core (limit 100), decisions a hand;
* calibration: tables of four honest players of every skill (random cards, the package's
  bot, a card counter, a Monte Carlo player that solves layouts drawn from the bids).
  Each group's excess and z over the whole pool (z should be near 0, either sign), and
  the share of disjoint archives of ``SMALL`` matches in which any group is flagged at
  5 %, with its Clopper–Pearson 95 % interval;
* power against each kind of cheat (a seat that sees every hand; one that peeks on 30 %
  of hands; both computer seats peeking on 30 % of hands; two partners who see each
  other's hands), at each archive size N of ``SIZES``: N matches are simulated and
  analysed, at most ``budget`` hands in all (more matches than that: the same few hands
  of each match, spread evenly, as ``--play-sample`` chooses them; the output says so),
  and the power is the share of ``DRAWS`` archives of N matches drawn with replacement
  from them in which the target group is flagged (Holm, every group of the archive).

Run as a script (``python bench/bench_fairplay.py --help``) or call
:func:`bench_fairplay`; ``make bench`` runs it through ``bench/bench.py``.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from scipy import stats

from tarneeb.replay.fairplay.analyse import analyse_hand
from tarneeb.replay.fairplay.summary import MatchPlay, PlaySummary
from tarneeb.testing.fairplay import simulate

TARGETS = {"peeker": ("player", "Suspect"), "peek30": ("player", "Suspect"),
           "computer30": ("label", "computer"), "partners": ("partnership", "Pair A & Pair B"),
           }
PARTNER_CARDS = ("partner-cards", "Pair A & Pair B")  # the partners' second statistic
SIZES = (100, 300, 1000)
BUDGET = 1800  # hands analysed per kind and size at most (about 100 matches' worth)
SMALL = 10  # matches in each of the calibration's archives
DRAWS = 200  # archives drawn per kind and size for the power
ALPHA = 0.05


def _spread(hands: list[Any], n: int) -> list[Any]:
    """At most ``n`` of ``hands``, spread evenly (as the audit's ``--play-sample``)."""
    if len(hands) <= n:
        return hands
    step = len(hands) / n
    return [hands[int(i * step)] for i in range(n)]


def _analyse(kind: str, games: list[Any], per_match: int | None, rng: random.Random,
             ) -> tuple[list[PlaySummary], float, int]:
    """One summary per match, CPU seconds per analysed hand, hands analysed."""
    out = []
    hands = 0
    cpu = 0.0
    for i, (names, computer, hs) in enumerate(games):
        chosen = hs if per_match is None else _spread(hs, per_match)
        start = time.process_time()
        analysed = [analyse_hand(h, True, rng) for h in chosen]
        cpu += time.process_time() - start
        hands += len(chosen)
        s = PlaySummary()
        s.add(MatchPlay(f"{kind}-{i}", names, computer, analysed))
        out.append(s)
    return out, cpu / max(hands, 1), hands


def _pooled(parts: list[PlaySummary]) -> PlaySummary:
    out = PlaySummary()
    for p in parts:
        out.merge(p)
    return out


def _interval(k: int, n: int) -> tuple[float, float]:
    """Clopper–Pearson 95 %."""
    lo = float(stats.beta.ppf(0.025, k, n - k + 1)) if k else 0.0
    hi = float(stats.beta.ppf(0.975, k + 1, n - k)) if k < n else 1.0
    return lo, hi


def bench_fairplay(honest: int = 60, sizes: tuple[int, ...] = SIZES, budget: int = BUDGET,
                   seed: int | None = None) -> dict[str, Any]:
    seed = random.SystemRandom().getrandbits(32) if seed is None else seed
    rng = random.Random(seed)
    start = time.perf_counter()
    out: dict[str, Any] = {"honest_matches": honest, "seed": seed, "budget": budget}
    games = simulate("honest", honest, rng)
    per_match, ms, hands = _analyse("honest", games, None, rng)
    out["ms_per_hand"] = 1000 * ms
    pool = _pooled(per_match)
    out["decisions_per_hand"] = pool.decisions / max(hands, 1)
    out["hands"] = {"honest": hands}
    out["honest"] = [(f"{r.kind} {r.name}", r.decisions, r.excess, r.z)
                     for r in pool.results(ALPHA)]
    archives = [_pooled(per_match[i:i + SMALL])
                for i in range(0, len(per_match) - SMALL + 1, SMALL)]
    flagged = sum(any(r.flagged for r in a.results(ALPHA)) for a in archives)
    out["calibration"] = {"archives": len(archives), "matches": SMALL, "flagged": flagged,
                          "ci95": _interval(flagged, len(archives))}
    power: dict[str, Any] = {}
    for kind, group in TARGETS.items():
        if not sizes:
            break
        sim_start = time.process_time()
        games = simulate(kind, max(sizes), rng)
        sim = time.process_time() - sim_start
        rows: dict[int, Any] = {}
        for size in sizes:
            cap = None if size * 18 <= budget else max(1, budget // size)
            summaries, ms, h = _analyse(kind, games[:size], cap, rng)
            targets = [group, PARTNER_CARDS] if kind == "partners" else [group]
            hits = dict.fromkeys(targets, 0)
            others = 0
            for _ in range(DRAWS):
                archive = _pooled([rng.choice(summaries) for _ in range(size)])
                res = {(r.kind, r.name): r for r in archive.results(ALPHA)}
                for t in targets:
                    hits[t] += bool(res.get(t) and res[t].flagged)
                others += any(r.flagged for g, r in res.items()
                              if not _contains_cheat(kind, g))
            whole = {(r.kind, r.name): r for r in _pooled(summaries).results(ALPHA)}
            rows[size] = {
                "hands_per_match": cap, "hands": h, "ms_per_hand": 1000 * ms,
                "power": {f"{t[0]} {t[1]}": hits[t] / DRAWS for t in targets},
                "z": {f"{t[0]} {t[1]}": whole[t].z if t in whole else 0.0 for t in targets},
                "excess": {f"{t[0]} {t[1]}": whole[t].excess if t in whole else 0.0
                           for t in targets},
                "honest_groups_flagged": others / DRAWS,
                "honest_flagged_in_pool": sorted(
                    f"{g[0]} {g[1]}" for g, r in whole.items()
                    if r.flagged and not _contains_cheat(kind, g))}
        power[kind] = {"group": f"{group[0]} {group[1]}", "simulation_s": sim, "sizes": rows}
    out["power"] = power
    out["seconds"] = time.perf_counter() - start
    return out


def _contains_cheat(kind: str, g: tuple[str, str]) -> bool:
    """Whether group ``g`` of a table of ``kind`` holds a cheating seat (then its flag is
    no false alarm)."""
    cheats = {"peeker": ("Suspect",), "peek30": ("Suspect",),
              "computer30": ("House 1", "House 2"), "partners": ("Pair A", "Pair B")}[kind]
    if g[0] == "label":
        return g[1] == "computer" if kind == "computer30" else g[1] == "human"
    return any(c in g[1].split(" & ") for c in cheats)


def lines(f: dict[str, Any]) -> list[str]:
    c = f["calibration"]
    lo, hi = c["ci95"]
    out = [f"fair play: {f['ms_per_hand']:.0f} ms CPU per played hand on one core "
           f"({f['decisions_per_hand']:.1f} decisions analysed a hand; limit 100 ms)",
           f"fair play, what was run: {f['honest_matches']} honest matches "
           f"({f['hands']['honest']:,} hands), power at "
           + ", ".join(f"{s:,}" for s in next(iter(f["power"].values()), {}).get("sizes", {}))
           + f" matches of each cheat, {f['seconds']:.0f} s (eram41; seed {f['seed']})",
           f"fair play calibration: {c['flagged']} of {c['archives']} honest archives of "
           f"{c['matches']} matches flagged at 5 %: {c['flagged'] / max(c['archives'], 1):.1%} "
           f"(95 % CI {lo:.1%}-{hi:.1%}, Clopper-Pearson); every honest group over the pool "
           "(z should be near 0, either sign):"]
    for name, n, excess, z in f["honest"]:
        out.append(f"    {name:<40} {n:>7,} decisions, excess {100 * excess:+.2f} points, "
                   f"z {z:+.2f}")
    for kind, p in f["power"].items():
        out.append(f"fair play power, {kind} (target {p['group']}; simulated in "
                   f"{p['simulation_s']:.0f} s CPU):")
        for size, r in p["sizes"].items():
            how = ("every hand analysed" if r["hands_per_match"] is None else
                   f"--play-sample: {r['hands_per_match']} hands of each match analysed")
            for t, v in r["power"].items():
                out.append(f"    {size:>5,} matches: {t}: flagged in {v:.0%} of {DRAWS} "
                           f"archives (pool z {r['z'][t]:+.1f}, excess "
                           f"{100 * r['excess'][t]:+.1f} points)")
            out.append(f"           {how}, {r['hands']:,} hands at {r['ms_per_hand']:.0f} ms; "
                       f"an honest group flagged beside it in {r['honest_groups_flagged']:.0%}"
                       " of the drawn archives; in the whole pool: "
                       + (", ".join(r["honest_flagged_in_pool"]) or "none"))
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--honest", type=int, default=60, help="honest matches (calibration)")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES),
                    help="archive sizes of the power (matches); none: skip")
    ap.add_argument("--budget", type=int, default=BUDGET,
                    help="hands analysed per kind and size at most")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    for text in lines(bench_fairplay(a.honest, tuple(a.sizes), a.budget, a.seed)):
        print(text)
