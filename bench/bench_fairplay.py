"""The fair-play analysis (``tarneeb audit --play``): its speed, its calibration on honest
players and its power against each kind of peeking, on simulated matches.

Matches of :mod:`tarneeb.testing.fairplay`'s tables are played in process (eram41, the
bot's bidding) and every hand of every match is analysed by the audit's own analysis,
with every opening lead analysed (:mod:`fairplay_pool`: one pool of per-match records,
kept in a JSON lines file with ``--pool``). Archives are then built from the pool's
records as the audit would have analysed them: each analysed opening lead kept with
chance ``OWN_SHARE`` by a fresh coin — the audit's own selection, which its hand's stream
draws whatever the cards — or, where said, with every lead kept.

* speed: CPU milliseconds per hand as the audit analyses it (tricks 6 to 11 on every
  hand, the opening lead on ``OWN_SHARE`` of them; limit 100), from the two parts timed
  apart on every hand;
* calibration, on the honest table (random cards, the package's bot, a card counter, a
  Monte Carlo player that solves layouts drawn from the bids): disjoint archives of the
  honest matches, the audit's selection of leads, each tested as the audit tests (every
  group Holm-corrected at 5 %): how many have a significant group (exit 3) and how many
  name a player, with Clopper–Pearson 95 % intervals; and, since a player's own figure
  (its opening leads, on which it is named) is tested only from about 40 matches, every
  honest player's opening leads (at every table, the cheats' too) cut into disjoint runs
  of ``LEAD_RUN`` leads, each tested alone at 5 % one-sided; the drift of a lead's
  excess over all of them, and Σ excess² against Σ estimated variance;
* power against each kind of cheat (a seat that sees every hand; one that peeks on 30 %
  of hands; both computer seats peeking on 30 % of hands; two partners who see each
  other's hands): archives of each size N of ``SIZES`` drawn with replacement from the
  pool's matches of that kind (``DRAWS`` each), each drawn match's leads kept by a fresh
  coin; N above the pool's size repeats matches (the pool stands for the population: an
  approximation the output states). Per size: how often the target group is flagged (a
  player: *named*, its own figure flagged), the archive (exit 3), an honest player named
  or significant on its whole figure beside the cheat.

Run as a script (``python bench/bench_fairplay.py --help``; ``--pool FILE`` keeps the
analysed matches and resumes) or call :func:`bench_fairplay`; ``make bench`` runs it
through ``bench/bench.py`` at ``ROUNDS`` rounds (``TARNEEB_FAIRPLAY_ROUNDS`` for more).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from fairplay_pool import load, make_pool
from scipy import stats

from tarneeb.audit.fairness.scores import ScoreTally
from tarneeb.replay.fairplay.analyse import OWN_SHARE, HandPlay
from tarneeb.replay.fairplay.summary import Group, MatchPlay, PlaySummary

CHEATS = {"peeker": ("Suspect",), "peek30": ("Suspect",),
          "computer30": ("House 1", "House 2"), "partners": ("Pair A", "Pair B"),
          "peekers": ("Peek A", "Peek B")}
TARGETS = {"peeker": [("own", "Suspect"), ("partnership", "Counter & Suspect")],
           "peek30": [("own", "Suspect"), ("partnership", "Counter & Suspect")],
           "computer30": [("label", "computer"), ("own", "House 1"), ("own", "House 2")],
           "partners": [("partnership", "Pair A & Pair B"), ("partner-cards", "Pair A & Pair B")],
           "peekers": [("own", "Peek A"), ("own", "Peek B"), ("partnership", "Peek A & Peek B")]}
PARTNER = {"peeker": "Counter", "peek30": "Counter"}  # the cheat's honest partner
SIZES = (100, 300, 1000)
ROUNDS = 20  # make bench: 20 rounds (120 honest matches, 20 of each cheat): ~10 CPU-minutes
HONEST = 6  # honest matches a round (one of each cheat)
ARCHIVES = 150  # the calibration's disjoint archives at its smallest size
DRAWS = 200  # archives drawn per kind and size for the power
LEAD_RUN = 60  # leads in each of the own figure's disjoint runs
ALPHA = 0.05


@dataclass
class KindPool:
    """One kind's analysed matches, folded for fast archives: per match its sums per group
    without the opening leads (``base``: decisions, Σ excess, Σ variance), and every
    analysed opening lead (its match, seat, excess, variance)."""

    kind: str
    groups: list[Group]
    base: Any  # (matches, groups, 3)
    lead_match: Any
    lead_seat: Any
    lead_e: Any
    lead_v: Any
    lead_every: Any  # the lead's match had every lead analysed (else the audit's selection)
    seat_groups: list[list[int]]  # the groups an opening lead of each seat counts in
    names: tuple[str, ...]
    hands: int
    sim_s: float
    lead_s: float  # CPU of the opening leads the audit would have analysed
    rest_s: float
    every_lead_s: float  # CPU of the leads of the matches with every lead analysed
    every_hands: int  # their hands

    @property
    def matches(self) -> int:
        return int(self.base.shape[0])

    def summary(self, counts: Any, keep: Any) -> PlaySummary:
        """The summary of an archive holding match ``i`` ``counts[i]`` times, lead ``j``
        kept ``keep[j]`` times."""
        tot = np.tensordot(counts.astype(float), self.base, axes=1)
        w = keep.astype(float)
        for seat in range(4):
            m = w * (self.lead_seat == seat)
            add = np.array([m.sum(), (m * self.lead_e).sum(), (m * self.lead_v).sum()])
            for g in self.seat_groups[seat]:
                tot[g] += add
        out = PlaySummary()
        for g, (n, e, v) in zip(self.groups, tot, strict=True):
            if n > 0:
                out.tallies[g] = ScoreTally(int(n + 0.5), float(e), float(v))
        return out

    def coins(self, counts: Any, rng: Any) -> Any:
        """Each copy of each lead kept with chance ``OWN_SHARE``, the audit's selection (a
        match analysed with that selection already: every copy kept)."""
        c = counts[self.lead_match]
        return np.where(self.lead_every, rng.binomial(c, OWN_SHARE), c)

    def every_lead(self, counts: Any) -> Any:
        return counts[self.lead_match]


def fold(kind: str, records: list[dict[str, Any]]) -> KindPool:
    """A kind's pool records (:func:`fairplay_pool.pool_match`) folded."""
    groups: dict[Group, int] = {}
    bases: list[dict[int, tuple[int, float, float]]] = []
    leads: list[tuple[int, int, float, float, bool]] = []
    seat_groups: dict[int, list[int]] = {}
    names: tuple[str, ...] = ()
    hands = every_hands = 0
    sim = lead_s = rest_s = every_lead_s = 0.0
    for i, rec in enumerate(records):
        names, computer = tuple(rec["names"]), tuple(rec["computer"])
        hps = [HandPlay.from_json(h) for h in rec["hands"]]
        hands += len(hps)
        sim += rec["sim_s"]
        every = rec.get("every_lead", True)
        lead_s += rec["lead_s"] * (OWN_SHARE if every else 1.0)
        if every:
            every_lead_s += rec["lead_s"]
            every_hands += len(hps)
        rest_s += rec["rest_s"]
        s = PlaySummary()
        s.add(MatchPlay(f"{kind}-{i}", names, computer,
                        [HandPlay(h.deal_number, tuple(d for d in h.decisions if d.index))
                         for h in hps]))
        bases.append({groups.setdefault(g, len(groups)): (t.n, t.excess, t.variance)
                      for g, t in s.tallies.items()})
        for h in hps:
            for d in h.decisions:
                if d.index:
                    continue
                if d.seat not in seat_groups:
                    one = PlaySummary()
                    one.add(MatchPlay("", names, computer, [HandPlay(0, (d,))]))
                    seat_groups[d.seat] = [groups.setdefault(g, len(groups))
                                           for g in one.tallies]
                leads.append((i, d.seat, d.excess, d.variance, rec.get("every_lead", True)))
    base = np.zeros((len(records), len(groups), 3))
    for i, b in enumerate(bases):
        for g, row in b.items():
            base[i, g] = row
    lm, ls, le, lv, ly = (np.array(c) for c in zip(*leads, strict=True)) if leads else (
        np.zeros(0, int), np.zeros(0, int), np.zeros(0), np.zeros(0), np.zeros(0, bool))
    return KindPool(kind, list(groups), base, lm, ls, le, lv, ly,
                    [seat_groups.get(s, []) for s in range(4)], names, hands, sim,
                    lead_s, rest_s, every_lead_s, every_hands)


def _interval(k: int, n: int) -> tuple[float, float]:
    """Clopper–Pearson 95 %."""
    lo = float(stats.beta.ppf(0.025, k, n - k + 1)) if k else 0.0
    hi = float(stats.beta.ppf(0.975, k + 1, n - k)) if k < n else 1.0
    return lo, hi


def _rate(k: int, n: int) -> dict[str, Any]:
    k, n = int(k), int(n)  # numpy's integers are not JSON
    return {"share": k / max(n, 1), "k": k, "n": n, "ci95": _interval(k, n)}


def _honest(kind: str, name: str) -> bool:
    return name not in CHEATS.get(kind, ())


def speed(pools: dict[str, KindPool]) -> dict[str, Any]:
    """CPU per hand as the audit analyses it (tricks 6 to 11, the lead on OWN_SHARE)."""
    hands = sum(p.hands for p in pools.values())
    lead = sum(p.lead_s for p in pools.values())
    rest = sum(p.rest_s for p in pools.values())
    one_lead = (sum(p.every_lead_s for p in pools.values())
                / max(sum(p.every_hands for p in pools.values()), 1))
    per = {k: 1000 * (p.rest_s + p.lead_s) / max(p.hands, 1) for k, p in pools.items()}
    return {"hands": hands, "ms_per_hand": 1000 * (rest + lead) / max(hands, 1),
            "ms_rest": 1000 * rest / max(hands, 1), "ms_lead": 1000 * one_lead,
            "per_kind": per}


def _disjoint(pool: KindPool, size: int, rng: Any) -> dict[str, Any]:
    """Disjoint archives of ``size`` consecutive matches of ``pool``, the audit's leads."""
    n = pool.matches // size
    significant = named = own_tested = 0
    for a in range(n):
        counts = np.zeros(pool.matches, int)
        counts[a * size:(a + 1) * size] = 1
        keep = pool.coins(counts, rng)
        res = pool.summary(counts, keep).results(ALPHA)
        significant += any(r.significant for r in res)
        named += any(r.flagged and r.kind == "player" for r in res)
        own_tested += sum(r.kind == "own" and r.tested for r in res) == 4
    return {"matches": size,
            "significant": _rate(significant, n), "named": _rate(named, n),
            "own_tested": own_tested}


def calibration(pools: dict[str, KindPool], rng: Any) -> dict[str, Any]:
    honest = pools["honest"]
    smallest = max(1, honest.matches // ARCHIVES)
    archives = [_disjoint(honest, s, rng)
                for s in sorted({smallest, 10, 25, 50}) if honest.matches // s >= 2]
    every = honest.summary(np.ones(honest.matches, int), honest.every_lead(
        np.ones(honest.matches, int))).results(ALPHA)
    # every honest player's opening leads, at every table, in disjoint runs
    runs = above = 0
    run_z: list[float] = []
    n_all = 0
    e_all = v_all = ee_all = 0.0
    crit = float(stats.norm.ppf(1 - ALPHA))
    per_player: dict[str, Any] = {}
    for kind, p in pools.items():
        for seat in range(4):
            name = p.names[seat]
            if not _honest(kind, name):
                continue
            sel = p.lead_seat == seat
            e, v = p.lead_e[sel], p.lead_v[sel]
            for i in range(0, len(e) - LEAD_RUN + 1, LEAD_RUN):
                runs += 1
                run_z.append(float(e[i:i + LEAD_RUN].sum() / math.sqrt(v[i:i + LEAD_RUN].sum())))
                above += run_z[-1] > crit
            n_all += len(e)
            e_all += float(e.sum())
            v_all += float(v.sum())
            ee_all += float((e * e).sum())
            if len(e):
                per_player[f"{kind} {name}"] = (len(e), float(e.sum() / math.sqrt(v.sum())))
    return {"archives": archives,
            "pool": [(f"{r.kind} {r.name}", r.decisions, r.excess, r.z) for r in every],
            "lead_runs": {"leads": LEAD_RUN, "above": _rate(above, runs),
                          "z_mean": float(np.mean(run_z)) if run_z else 0.0,
                          "z_sd": float(np.std(run_z, ddof=1)) if len(run_z) > 1 else 0.0},
            "leads": {"n": n_all, "drift": e_all / max(n_all, 1),
                      "se": math.sqrt(v_all) / max(n_all, 1),
                      "z": e_all / math.sqrt(v_all) if v_all else 0.0,
                      "variance_ratio": ee_all / v_all if v_all else 0.0,
                      "per_player": per_player}}


def power(pool: KindPool, sizes: tuple[int, ...], draws: int, rng: Any) -> dict[str, Any]:
    kind = pool.kind
    ones = np.ones(pool.matches, int)
    whole = pool.summary(ones, pool.every_lead(ones)).results(ALPHA)
    out: dict[str, Any] = {
        "matches": pool.matches,
        "pool": [(f"{r.kind} {r.name}", r.decisions, r.excess, r.z) for r in whole]}
    rows: dict[int, Any] = {}
    for size in sizes:
        hits = dict.fromkeys(TARGETS[kind], 0)
        archive = named = significant = p_named = p_significant = 0
        partner = ("player", PARTNER.get(kind, ""))
        for _ in range(draws):
            counts = np.bincount(rng.integers(pool.matches, size=size),
                                 minlength=pool.matches)
            res = {(r.kind, r.name): r for r in pool.summary(
                counts, pool.coins(counts, rng)).results(ALPHA)}
            for t in hits:
                hits[t] += bool(t in res and res[t].flagged)
            archive += any(r.significant for r in res.values())
            honest = [r for r in res.values() if r.kind == "player" and _honest(kind, r.name)]
            named += any(r.flagged for r in honest)
            significant += any(r.significant for r in honest)
            p_named += partner in res and res[partner].flagged
            p_significant += partner in res and res[partner].significant
        rows[size] = {"power": {f"{t[0]} {t[1]}": _rate(v, draws) for t, v in hits.items()},
                      "archive_flagged": _rate(archive, draws),
                      "honest_named": _rate(named, draws),
                      "honest_significant": _rate(significant, draws),
                      "partner_named": _rate(p_named, draws),
                      "partner_significant": _rate(p_significant, draws)}
    out["sizes"] = rows
    return out


def bench_fairplay(rounds: int = ROUNDS, seed: int | None = None, pool: str | None = None,
                   sizes: tuple[int, ...] = SIZES, draws: int = DRAWS,
                   honest: int = HONEST, cheat_rounds: dict[str, int] | None = None,
                   ) -> dict[str, Any]:
    """Simulate and analyse ``rounds`` rounds (or read them from ``pool``), and every
    figure: speed, calibration, power."""
    seed = random.SystemRandom().getrandbits(32) if seed is None else seed
    start = time.perf_counter()
    records = make_pool(rounds, seed, pool, honest, cheat_rounds) if rounds else load(pool or "")
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for rec in sorted(records, key=lambda m: (m["kind"], m["number"])):
        by_kind.setdefault(rec["kind"], []).append(rec)
    pools = {k: fold(k, recs) for k, recs in by_kind.items()}
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"seed": seed, "speed": speed(pools)}
    if "honest" in pools:
        out["calibration"] = calibration(pools, rng)
    out["power"] = {k: power(p, sizes, draws, rng) for k, p in pools.items() if k in TARGETS}
    out["matches"] = {k: p.matches for k, p in pools.items()}
    out["seconds"] = time.perf_counter() - start
    return out


def _pct(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{r['share']:.1%} ({r['k']}/{r['n']}; 95 % CI {lo:.1%}-{hi:.1%})"


def lines(f: dict[str, Any]) -> list[str]:
    s = f["speed"]
    out = [f"fair play, speed: {s['ms_per_hand']:.0f} ms CPU a hand as the audit analyses it "
           f"(limit 100): {s['ms_rest']:.0f} ms for tricks 6 to 11, {s['ms_lead']:.0f} ms an "
           f"opening lead on {OWN_SHARE:.0%} of hands; {s['hands']:,} hands ("
           + ", ".join(f"{k} {v:.0f}" for k, v in s["per_kind"].items()) + ")"]
    out.append("fair play, matches analysed: "
               + ", ".join(f"{k} {n}" for k, n in f["matches"].items()))
    c = f.get("calibration")
    if c:
        for a in c["archives"]:
            out.append(f"  calibration, {a['significant']['n']} disjoint honest archives of "
                       f"{a['matches']} matches, 5 %: a significant group (exit 3) in "
                       f"{_pct(a['significant'])}; a player named in {_pct(a['named'])}; "
                       f"every player's own figure tested in {a['own_tested']}")
        lead = c["leads"]
        out.append(f"  honest opening leads (every table): {lead['n']:,}, drift "
                   f"{100 * lead['drift']:+.2f} ± {100 * lead['se']:.2f} points a lead "
                   f"(z {lead['z']:+.2f}); Σ excess² / Σ variance {lead['variance_ratio']:.3f}; "
                   f"disjoint runs of {c['lead_runs']['leads']} leads above z 1.645 in "
                   f"{_pct(c['lead_runs']['above'])}; their z: mean "
                   f"{c['lead_runs']['z_mean']:+.2f}, standard deviation "
                   f"{c['lead_runs']['z_sd']:.2f}")
        out.append("    own z per honest player: " + ", ".join(
            f"{k} {z:+.2f} ({n})" for k, (n, z) in lead["per_player"].items()))
        out.append("  every group over the whole honest pool (every lead analysed kept):")
        for name, n, excess, z in c["pool"]:
            out.append(f"    {name:<40} {n:>7,} decisions, excess {100 * excess:+.2f} "
                       f"points, z {z:+.2f}")
    for kind, k in f["power"].items():
        out.append(f"fair play, power against {kind} ({k['matches']} matches analysed; over "
                   "them, every lead kept):")
        for name, n, excess, z in k["pool"]:
            out.append(f"    {name:<40} {n:>7,} decisions, excess {100 * excess:+.2f} "
                       f"points, z {z:+.2f}")
        for size, r in k["sizes"].items():
            drawn = (f"drawn with replacement from {k['matches']} matches"
                     + (" (matches repeat: an approximation)" if size > k["matches"] else ""))
            out.append(f"  {size:>5,} matches, {r['archive_flagged']['n']} archives {drawn}:")
            for t, v in r["power"].items():
                out.append(f"    {t} flagged{' (named)' if t.startswith('own') else ''} "
                           f"in {_pct(v)}")
            out.append(f"    archive flagged (exit 3) in {_pct(r['archive_flagged'])}; an honest "
                       f"player named in {_pct(r['honest_named'])}, significant on its whole "
                       f"figure in {_pct(r['honest_significant'])}")
            if kind in PARTNER:
                out.append(f"    the cheat's honest partner named in {_pct(r['partner_named'])}, "
                           f"significant on its whole figure in {_pct(r['partner_significant'])}")
    out.append(f"fair play: {f['seconds']:.0f} s in all (eram41; seed {f['seed']})")
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=ROUNDS,
                    help="rounds to simulate: one match of each cheat and --honest honest "
                         "matches each (0: only read --pool)")
    ap.add_argument("--honest", type=int, default=HONEST, help="honest matches a round")
    ap.add_argument("--cheat-rounds", nargs="*", default=None, metavar="KIND=N",
                    help="a cheat's matches in the first N rounds only (the rest honest; "
                         "a kind not named: none)")
    ap.add_argument("--pool", help="JSON lines file of analysed matches: read, and appended "
                                   "to (fairplay_pool.py writes the same)")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES),
                    help="archive sizes of the power (matches)")
    ap.add_argument("--draws", type=int, default=DRAWS, help="archives a size")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    cheat_rounds = None if a.cheat_rounds is None else {
        k: int(n) for k, n in (x.split("=", 1) for x in a.cheat_rounds)}
    got = bench_fairplay(a.rounds, a.seed, a.pool, tuple(a.sizes), a.draws, a.honest,
                         cheat_rounds)
    for text in lines(got):
        print(text)
