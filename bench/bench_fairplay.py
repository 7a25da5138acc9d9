"""The fair-play analysis (``tarneeb audit --play``): its speed, its calibration on honest
players and its power against each kind of peeking, on simulated matches.

Tables of :mod:`tarneeb.testing.fairplay` are played in process (eram41, the bot's
bidding) and every hand of every match analysed as the audit does (one summary a match):

* speed: CPU milliseconds per analysed hand on one core (limit 100), decisions a hand;
* calibration: tables of four honest players of every skill (random cards, the package's
  bot, a card counter, a Monte Carlo player that solves layouts drawn from the bids).
  Each group's excess and z over the whole pool (z should be near 0, either sign), and
  the share of disjoint archives of ``SMALL`` matches with a significant group (exit 3)
  and with a player named, each with its Clopper–Pearson 95 % interval;
* power against each kind of cheat (a seat that sees every hand; one that peeks on 30 %
  of hands; both computer seats peeking on 30 % of hands; two partners who see each
  other's hands): ``matches`` matches of each are simulated and analysed whole, and
  archives of each size N of ``sizes`` are drawn with replacement from them (``DRAWS``
  each; N above ``matches`` repeats matches: the pool stands for the population, an
  approximation the output states). Per size: how often the target group is flagged
  (a player: *named*, its own figure flagged), the partnership holding the cheat, the
  archive as a whole (exit 3), and how often an honest player is named beside it, or
  significant on its whole figure (what named it before names rested on own figures).

Run as a script (``python bench/bench_fairplay.py --help``; ``--save``/``--load`` keep
the per-match records, so kinds can run one at a time) or call :func:`bench_fairplay`;
``make bench`` runs it through ``bench/bench.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from scipy import stats

from tarneeb.replay.fairplay.analyse import analyse_hand
from tarneeb.replay.fairplay.summary import GroupResult, MatchPlay, PlaySummary
from tarneeb.testing.fairplay import simulate

CHEATS = {"peeker": ("Suspect",), "peek30": ("Suspect",),
          "computer30": ("House 1", "House 2"), "partners": ("Pair A", "Pair B"),
          "peekers": ("Peek A", "Peek B")}  # the last: on demand (--kinds), not by default
DEFAULT_KINDS = ("honest", "peeker", "peek30", "computer30", "partners")
TARGETS = {"peeker": [("player", "Suspect"), ("partnership", "Counter & Suspect")],
           "peek30": [("player", "Suspect"), ("partnership", "Counter & Suspect")],
           "computer30": [("label", "computer"), ("player", "House 1"), ("player", "House 2")],
           "partners": [("partnership", "Pair A & Pair B"), ("partner-cards", "Pair A & Pair B")],
           "peekers": [("player", "Peek A"), ("player", "Peek B"),
                       ("partnership", "Peek A & Peek B")]}
PARTNER = {"peeker": "Counter", "peek30": "Counter"}  # the cheat's honest partner
SIZES = (100, 300, 1000)
MATCHES = 100  # simulated and analysed per cheat
SMALL = 10  # matches in each of the calibration's disjoint archives
DRAWS = 200  # archives drawn per kind and size for the power
ALPHA = 0.05


def _analyse(kind: str, games: list[Any], rng: random.Random,
             ) -> tuple[list[PlaySummary], float, int]:
    """One summary per match, CPU seconds per analysed hand, hands analysed."""
    out = []
    hands = 0
    cpu = 0.0
    for i, (names, computer, hs) in enumerate(games):
        start = time.process_time()
        analysed = [analyse_hand(h, True, rng) for h in hs]
        cpu += time.process_time() - start
        hands += len(hs)
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


def _honest(kind: str, r: GroupResult) -> bool:
    """Whether player group ``r`` of a table of ``kind`` is an honest player."""
    return r.kind == "player" and r.name not in CHEATS.get(kind, ())


def simulate_kind(kind: str, matches: int, rng: random.Random) -> dict[str, Any]:
    """``matches`` matches of ``kind`` simulated and analysed: their per-match records."""
    start = time.process_time()
    games = simulate(kind, matches, rng)
    sim = time.process_time() - start
    summaries, ms, hands = _analyse(kind, games, rng)
    return {"kind": kind, "matches": matches, "simulation_s": sim, "ms_per_hand": 1000 * ms,
            "hands": hands, "records": [s.to_record() for s in summaries]}


def honest_leads(matches: int, rng: random.Random) -> dict[str, Any]:
    """The honest players' own figures beside a seat that sees every hand, on every one of
    their opening leads (not 30 % of them, and no other decision): ``matches`` matches of
    the ``peeker`` table; per player its leads, excess per lead with its standard error,
    and z. The cheat's plays cannot move them (docs/FAIRPLAY.md, "Whose figure")."""
    from tarneeb.replay.fairplay.layouts import leaders_of

    games = simulate("peeker", matches, rng)
    sums: dict[str, list[float]] = {}
    start = time.process_time()
    leads = 0
    for names, _, hands in games:
        for h in hands:
            if names[leaders_of(h)[0]] in CHEATS["peeker"]:
                continue
            leads += 1
            for d in analyse_hand(h, True, rng, first_trick=6, last_trick=5,
                                  own_share=1.0).decisions:
                acc = sums.setdefault(names[d.seat], [0, 0.0, 0.0])
                acc[0] += 1
                acc[1] += d.excess
                acc[2] += d.variance
    cpu = time.process_time() - start
    return {"matches": matches, "ms_per_lead": 1000 * cpu / max(leads, 1),
            "players": {n: {"leads": int(k), "excess": e / k, "se": v ** 0.5 / k,
                            "z": e / v ** 0.5 if v else 0.0}
                        for n, (k, e, v) in sums.items()}}


def _rate(k: int, n: int) -> dict[str, Any]:
    return {"share": k / max(n, 1), "k": k, "n": n, "ci95": _interval(k, n)}


def figures(kind: str, run: dict[str, Any], sizes: tuple[int, ...], rng: random.Random,
            ) -> dict[str, Any]:
    """The figures of one kind's analysed matches (:func:`simulate_kind`)."""
    summaries = [PlaySummary.from_record(r) for r in run["records"]]
    pool = _pooled(summaries)
    whole = pool.results(ALPHA)
    out: dict[str, Any] = {
        "matches": run["matches"], "hands": run["hands"], "ms_per_hand": run["ms_per_hand"],
        "decisions_per_hand": pool.decisions / max(run["hands"], 1),
        "simulation_s": run["simulation_s"],
        "pool": [(f"{r.kind} {r.name}", r.decisions, r.excess, r.z) for r in whole]}
    if kind == "honest":
        archives = [_pooled(summaries[i:i + SMALL])
                    for i in range(0, len(summaries) - SMALL + 1, SMALL)]
        res = [a.results(ALPHA) for a in archives]
        out["calibration"] = {
            "matches": SMALL,
            "significant": _rate(sum(any(r.significant for r in rs) for rs in res), len(res)),
            "named": _rate(sum(any(r.flagged and r.kind == "player" for r in rs)
                               for rs in res), len(res))}
        return out
    rows: dict[int, Any] = {}
    for size in sizes:
        hits = dict.fromkeys(TARGETS[kind], 0)
        archive = named = significant = p_named = p_significant = 0
        partner = ("player", PARTNER.get(kind, ""))
        for _ in range(DRAWS):
            res = {(r.kind, r.name): r for r in _pooled(
                [rng.choice(summaries) for _ in range(size)]).results(ALPHA)}
            for t in hits:
                hits[t] += bool(t in res and res[t].flagged)
            archive += any(r.significant for r in res.values())
            named += any(r.flagged for r in res.values() if _honest(kind, r))
            significant += any(r.significant for r in res.values() if _honest(kind, r))
            p_named += partner in res and res[partner].flagged
            p_significant += partner in res and res[partner].significant
        rows[size] = {"power": {f"{t[0]} {t[1]}": _rate(v, DRAWS) for t, v in hits.items()},
                      "archive_flagged": _rate(archive, DRAWS),
                      "honest_named": _rate(named, DRAWS),
                      "honest_significant": _rate(significant, DRAWS),
                      "partner_named": _rate(p_named, DRAWS),
                      "partner_significant": _rate(p_significant, DRAWS)}
    out["sizes"] = rows
    return out


def bench_fairplay(honest: int = 100, sizes: tuple[int, ...] = SIZES, matches: int = MATCHES,
                   seed: int | None = None, kinds: tuple[str, ...] = DEFAULT_KINDS,
                   runs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every kind simulated (or taken from ``runs``, :func:`simulate_kind`'s records) and
    its figures."""
    seed = random.SystemRandom().getrandbits(32) if seed is None else seed
    rng = random.Random(seed)
    start = time.perf_counter()
    runs = dict(runs or {})
    for kind in kinds:
        if kind not in runs:
            runs[kind] = simulate_kind(kind, honest if kind == "honest" else matches, rng)
    out: dict[str, Any] = {"seed": seed, "sizes": sizes,
                           "kinds": {k: figures(k, runs[k], sizes, rng) for k in runs}}
    out["seconds"] = time.perf_counter() - start
    return out


def _pct(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{r['share']:.0%} ({r['k']}/{r['n']}; 95 % CI {lo:.0%}-{hi:.0%})"


def lines(f: dict[str, Any]) -> list[str]:
    out = []
    for kind, k in f["kinds"].items():
        out.append(f"fair play, {kind}: {k['matches']} matches simulated "
                   f"({k['simulation_s']:.0f} s CPU), {k['hands']:,} hands analysed at "
                   f"{k['ms_per_hand']:.0f} ms CPU a hand "
                   f"({k['decisions_per_hand']:.1f} decisions a hand; limit 100 ms); every "
                   "group over the pool:")
        for name, n, excess, z in k["pool"]:
            out.append(f"    {name:<40} {n:>7,} decisions, excess {100 * excess:+.2f} points, "
                       f"z {z:+.2f}")
        if "calibration" in k:
            c = k["calibration"]
            out.append(f"  calibration, disjoint honest archives of {c['matches']} matches at 5 %: "
                       f"a significant group (exit 3) in {_pct(c['significant'])}; a player "
                       f"named in {_pct(c['named'])}")
        for size, r in k.get("sizes", {}).items():
            drawn = (f"drawn with replacement from {k['matches']} matches"
                     + (" (matches repeat: an approximation)" if size > k["matches"] else ""))
            out.append(f"  {size:>5,} matches, {DRAWS} archives {drawn}:")
            for t, v in r["power"].items():
                out.append(f"    {t} flagged{' (named)' if t.startswith('player') else ''} "
                           f"in {_pct(v)}")
            out.append(f"    archive flagged (exit 3) in {_pct(r['archive_flagged'])}; an honest "
                       f"player named in {_pct(r['honest_named'])}, significant on its whole "
                       f"figure in {_pct(r['honest_significant'])} (resampled: a pool's chance "
                       "deviation recurs in every draw and grows with the size, so these "
                       "overstate the rates; the pool's z above is the calibration)")
            if kind in PARTNER:
                out.append(f"    the cheat's honest partner named in {_pct(r['partner_named'])}, "
                           f"significant on its whole figure in "
                           f"{_pct(r['partner_significant'])} (resampled, as above)")
    out.append(f"fair play: {f['seconds']:.0f} s in all (eram41; seed {f['seed']})")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--honest", type=int, default=100, help="honest matches (calibration)")
    ap.add_argument("--matches", type=int, default=MATCHES, help="matches of each cheat")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES),
                    help="archive sizes of the power (matches)")
    ap.add_argument("--kinds", nargs="*", default=list(DEFAULT_KINDS),
                    help="tables to simulate (also: peekers, two partners who both see "
                         "every hand)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--leads", type=int, default=0, metavar="N",
                    help="also: every honest opening lead of N matches beside a seat that "
                         "sees every hand (the honest partner's own figure)")
    ap.add_argument("--save", help="write the analysed matches' records to this JSON file")
    ap.add_argument("--load", nargs="*", default=[],
                    help="records written by --save (their kinds are not simulated again)")
    a = ap.parse_args()
    kept: dict[str, Any] = {}
    for path in a.load:
        with open(path) as fh:
            kept.update(json.load(fh))
    seed = random.SystemRandom().getrandbits(32) if a.seed is None else a.seed
    sim_rng = random.Random(seed)
    new = {k: simulate_kind(k, a.honest if k == "honest" else a.matches, sim_rng)
           for k in a.kinds if k not in kept}
    if a.save:
        with open(a.save, "w") as fh:
            json.dump(new, fh)
    got = bench_fairplay(a.honest, tuple(a.sizes), a.matches, seed + 1, (), kept | new)
    for text in lines(got):
        print(text)
    if a.leads:
        lead_figures = honest_leads(a.leads, random.Random(seed + 2))
        for name, p in lead_figures["players"].items():
            print(f"fair play, every honest opening lead of {a.leads} peeker matches: {name}: "
                  f"{p['leads']} leads, excess {100 * p['excess']:+.2f} ± {100 * p['se']:.2f} "
                  f"points, z {p['z']:+.2f} ({lead_figures['ms_per_lead']:.0f} ms a lead)")
