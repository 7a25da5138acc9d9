"""The archive audit as a monitor (``tarneeb audit --state``): its error rate over repeated
looks, how soon it flags a biased archive, and what an incremental run costs.

* **Looks.** Fair archives (:mod:`tarneeb.testing.dealsim`: each match's deals tallied as
  an audit tallies them, rule sets at random, half proven, half recorded) grow one match
  at a time, and the evidence (:class:`~tarneeb.audit.fairness.anytime.Evidence`) is
  looked at after every match: the most looks there can be. Printed: the share of fair
  archives flagged at *any* look, with its Clopper–Pearson 95 % interval (the promise:
  at most alpha = 5 %), beside the share a fixed-sample audit run at 10 looks (after
  every tenth of the archive) flags at least once.
* **Power.** Archives with one cheat of ``testing.dealsim`` (the platform re-deals, with
  probability ``strength``, a deal that does not suit it, in every match; half the
  matches recorded, the cheat in those only): the matches until the evidence first
  flags, per cheat (median over archives, and how many were flagged within the
  horizon), the rigging of the threats bench among them (state-adaptive dealing, seed
  space, near-repeats, partners' fit, drift over the archive, serial balance).
* **Partners' fit alone.** Its two e-processes on fair deals and nothing else, 200
  archives of 300 matches: how many ever reach ``1/alpha`` (each at most alpha).
* **Generated logs.** The same looks on fair archives of real logs (:mod:`tarneeb.testing.archive`,
  the generator the cost archive comes from: bots playing, deals from the seed protocol,
  half recorded): how many the evidence ever flags, and per match-state test (a
  covariate of the play) the largest e-value any reached and its z over the archive (mean
  0 and variance 1 when the deals do not depend on the state). The cost archive itself
  is flagged at match 266 by "close to the target" (an e-value of about 200 there, about 1
  again from match 600 on): this says it is the chance Ville's inequality allows, not a
  dependence of the deals on the match.
* **Fair play** (:mod:`bench_play_looks`): the fair-play figures' anytime bar, looked at
  after every match, beside Holm's correction at each look.
* **Cost.** An archive of 2,000 generated logs: the CPU time (user + system, one job, the
  command in a process of its own, start-up included) of a full audit without a state;
  of the incremental run with a state that knew 1,800 of them, over the 200 new ones
  (target: at most a quarter of the full audit; these two measured three times in turn,
  their medians given); of the first run with the state, and of
  a run after the incremental one that finds nothing new; the least any incremental run
  costs (the run that finds nothing new, plus judging the 200 new logs: an audit of them
  that tallies no deal, less one of a single log, its start-up), the part of the
  incremental run that no speed of the statistics takes away; the peak resident memory
  of each; and the state's size per log (target: about 1 KB). ``scale`` (not part of a
  whole run: some five minutes) does the same at 20,000 logs, 200 of them new.

Run as a script (``python bench/bench_monitor.py [ARCHIVES] [PART]``, PART one of
``looks``, ``power``, ``pairing``, ``generated``, ``play``, ``cost``, ``scale``) or call
:func:`bench_monitor`.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_archive import measured
from bench_play_looks import bench_play_looks, print_play_looks
from scipy import stats

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.anytime import Evidence
from tarneeb.replay.archive.audit import bias_flagged, fairness_results
from tarneeb.replay.archive.monitor import RACY_NS
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.testing.archive import archive_log
from tarneeb.testing.dealsim import random_deal_value, synthetic_match

ALPHA = 0.05
POWER_CHEATS = ("match state", "player", "player in one rule set", "table seat", "team",
                "late comeback",
                "first dealer",
                # each aimed at one of the e-processes of the placement, repeat, deck-order
                # and lag tests
                "seed space", "riffle", "shuffle", "consecutive matches",
                # and at those of the tests that read every deal (anytime/threats.py):
                # state-adaptive dealing, near-repeats, partners' fit, drift, serial balance
                "first deal", "behind late", "near repeat", "partners fit", "drift",
                "player balance",
                # and at the trump honours' points (the trump ace to the computer seats)
                "trump ace")
# rigging slower to flag than the others' 1,000 matches: a longer horizon
HORIZONS = {"first deal": 5000, "behind late": 5000, "player in one rule set": 2000}
# the tests whose e-processes are checked one by one too (each alone must stay <= alpha)
ALONE = ("placed", "repeat", "bounded", "lag", "cells", "drift", "balance", "pairing", "near")


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    lo = 0.0 if k == 0 else float(stats.beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(0.975, k + 1, n - k))
    return lo, hi


def grow(rng: random.Random, matches: int, cheat: str | None = None, strength: float = 0.5,
         fixed_looks: int = 0, alone: set[str] | None = None) -> tuple[int | None, int]:
    """One archive grown match by match: the match at which the evidence first flagged
    (None: never), and how many of ``fixed_looks`` fixed-sample audits flagged it; the
    kinds of ``ALONE`` whose e-process alone ever reached ``1/alpha`` are added to
    ``alone``."""
    evidence = Evidence()
    tallies = {"proven": Tally(), "recorded": Tally()}
    past: list[list[int]] = []
    luck: list[int] = []
    players: dict[str, int] = {}
    names = list(PRESETS)
    flagged_fixed = 0
    for leaf in range(matches):
        origin = "recorded" if rng.random() < 0.5 else "proven"
        share = Tally()
        # progress: how far into the archive (the drift turns at its middle)
        synthetic_match(share, rng, rng.choice(names), 10,
                        cheat if origin == "recorded" else None, strength, past, leaf, luck,
                        leaf / max(1, matches - 1), players)
        evidence.advance(share, ALPHA)
        if alone is not None:
            alone.update(t.kind for t in evidence.tests.values()
                         if t.kind in ALONE and t.log_e >= math.log(1 / ALPHA))
        if fixed_looks:
            tallies[origin].merge(share)
            if (leaf + 1) % (matches // fixed_looks) == 0:
                results = fairness_results({o: t for o, t in tallies.items() if t}, ALPHA,
                                           detectable=False)
                flagged_fixed += bool(bias_flagged(results))
        if cheat is not None and evidence.crossed_at(ALPHA) is not None:
            break
    return evidence.crossed_at(ALPHA), flagged_fixed


def bench_looks(archives: int = 200, matches: int = 300, fixed: int = 40) -> dict[str, Any]:
    """The share of fair archives the evidence ever flags, looked at after every match;
    beside it, of the first ``fixed`` archives, the share a fixed-sample audit at 10 looks
    flags at least once."""
    rng = random.Random(2026_33)  # NOT secret: a reproducible bench
    ever = fixed_any = 0
    alone = dict.fromkeys(ALONE, 0)
    t = time.process_time()
    for i in range(archives):
        crossed_alone: set[str] = set()
        crossed, by_fixed = grow(rng, matches, fixed_looks=10 if i < fixed else 0,
                                 alone=crossed_alone)
        ever += crossed is not None
        fixed_any += by_fixed > 0
        for kind in crossed_alone:
            alone[kind] += 1
    lo, hi = clopper_pearson(ever, archives)
    flo, fhi = clopper_pearson(fixed_any, fixed) if fixed else (0.0, 1.0)
    return {"archives": archives, "matches": matches, "looks": matches,
            "ever_flagged": ever, "rate": ever / archives, "ci95": (lo, hi),
            "fixed_archives": fixed, "fixed_any_of_10": fixed_any,
            "fixed_rate": fixed_any / fixed if fixed else None, "fixed_ci95": (flo, fhi),
            "alone": {k: (v, clopper_pearson(v, archives)) for k, v in alone.items()},
            "cpu_s": time.process_time() - t}


def bench_power(archives: int = 5, horizon: int = 1000,
                strength: float = 0.5) -> dict[str, dict[str, Any]]:
    """Per cheat, the matches until the evidence first flags the archive (within
    ``horizon`` matches, or the cheat's own in ``HORIZONS``: state-adaptive dealing in
    one state of one player's, or on one deal a match, in the recorded half of the
    matches, takes a few thousand)."""
    out = {}
    for cheat in POWER_CHEATS:
        rng = random.Random(f"power {cheat}")  # NOT secret
        longer = HORIZONS.get(cheat, horizon)
        at = [grow(rng, longer, cheat, strength)[0] for _ in range(archives)]
        found = sorted(a for a in at if a is not None)
        out[cheat] = {"flagged": len(found), "archives": archives, "horizon": longer,
                      "median": found[len(found) // 2] if len(found) * 2 > archives else None,
                      "matches": at}
    return out


def bench_pairing(archives: int = 200, matches: int = 300) -> dict[str, Any]:
    """The partners' fit e-processes alone on fair deals (uniform shuffles, 10 a match,
    nothing else simulated): per fit, how many archives ever reach ``1/alpha``."""
    from tarneeb.audit.fairness.anytime.threats import advance_pairing
    rng = random.Random(2026_32)  # NOT secret: a reproducible bench
    t = time.process_time()
    crossed = {"suit": 0, "honour": 0}
    for _ in range(archives):
        bets: dict[str, list[float]] = {"suit": [], "honour": []}
        hit: set[str] = set()
        for _ in range(matches):
            deals = [random_deal_value(rng) for _ in range(10)]
            for what in crossed:
                if advance_pairing({}, bets[what], {what: deals}) >= math.log(1 / ALPHA):
                    hit.add(what)
        for what in hit:
            crossed[what] += 1
    return {"archives": archives, "matches": matches,
            "crossed": {w: (k, clopper_pearson(k, archives)) for w, k in crossed.items()},
            "cpu_s": time.process_time() - t}


def bench_generated_looks(archives: int = 20, matches: int = 300) -> dict[str, Any]:
    """Fair archives of generated logs looked at after every match: how many the evidence
    ever flags, and per match-state test its largest e-value (log10) and its z's mean
    and variance over the archives."""
    from tarneeb.replay.archive.battery.measures import tally_match
    from tarneeb.replay.verify.replayer import verify_bytes
    t = time.process_time()
    flagged = 0
    top: dict[str, float] = {}
    zs: dict[str, list[float]] = {}
    for a in range(archives):
        seed = b"bench monitor, generated %d" % a  # NOT secret
        evidence, total = Evidence(), Tally()
        for i in range(matches):
            v = verify_bytes(archive_log(i, seed, recorded=i % 2 == 1)[1])
            share = Tally()
            tally_match(share, v.rules, v.computer, "platform", v.history, v.names)
            total.merge(share)
            evidence.advance(share, ALPHA)
            for test, e in evidence.tests.items():
                if e.kind == "cov":
                    top[test[-1]] = max(top.get(test[-1], 0.0), e.log_e / math.log(10))
        flagged += evidence.crossed_at(ALPHA) is not None
        for key in total.counts:
            if key[0] == "covariate":
                x, xy = (total.sums[(f"covariate-{w}", key[1], key[2])] for w in ("x", "xy"))
                xx = total.sums[("covariate-xx", key[1], key[2])]
                if xx:
                    zs.setdefault(key[1][-1], []).append(
                        (xy - key[2].mean * x) / math.sqrt(key[2].variance * xx))
    return {"archives": archives, "matches": matches, "flagged": flagged,
            "ci95": clopper_pearson(flagged, archives), "max_e_log10": top,
            "z": {k: (sum(v) / len(v), sum(z * z for z in v) / len(v) - (sum(v) / len(v)) ** 2)
                  for k, v in zs.items()},
            "cpu_s": time.process_time() - t}


def _median(runs: list[tuple[float, float, int]]) -> tuple[float, float]:
    """The median CPU of ``runs`` (:func:`~bench_archive.measured`'s), and the most memory
    any took."""
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def bench_cost(logs: int = 2000, new: int = 200, rounds: int = 3) -> dict[str, Any]:
    """CPU and peak memory of a full audit of ``logs`` logs, of the first run with a state
    (over all but the last ``new``), of the incremental run over the last ``new`` (the
    state knowing the others) and of a run after it that finds nothing new; the state's
    bytes per log. The incremental run and the full audit are measured ``rounds`` times in
    turn (the state put back as it was before each incremental run), and their medians
    given: a single run of either moves with the machine by a tenth or more."""
    audit = [sys.executable, "-m", "tarneeb.cli.entry", "audit", "--json", "-j", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        # a bytecode cache of the run's own, filled by the first run, as a platform's
        # daily audit has one (else every run is charged the compiling of every module)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
        root = Path(tmp) / "archive"
        root.mkdir()
        for i in range(logs):
            name, data = archive_log(i, b"bench monitor", recorded=i % 2 == 1)
            (root / name).write_bytes(data)
        old = sorted(root.iterdir())[-new:]
        aside, alone, one = Path(tmp) / "new", Path(tmp) / "new alone", Path(tmp) / "one"
        for d in (aside, alone, one):
            d.mkdir()
        for p in old:
            (alone / p.name).write_bytes(p.read_bytes())
            p.rename(aside / p.name)
        (one / old[0].name).write_bytes((alone / old[0].name).read_bytes())
        state = Path(tmp) / "audit.state"
        measured([*audit, str(aside)], env)  # the cache filled (the full audit's modules)
        # each run as a daily one finds the logs: none written in the seconds before it
        # (those a run keeps with no change time, for the next to check: RACY_NS)
        time.sleep(RACY_NS / 1e9)
        first, first_mb, _ = measured([*audit, str(root), "--state", str(state)], env)
        for p in aside.iterdir():
            p.rename(root / p.name)
        time.sleep(RACY_NS / 1e9)
        before = state.read_bytes()  # (a state closed: no journal beside it)
        incrementals, fulls = [], []
        for _ in range(rounds):
            state.write_bytes(before)
            incrementals.append(measured([*audit, str(root), "--state", str(state)], env))
            fulls.append(measured([*audit, str(root)], env))
        incremental, incremental_mb = _median(incrementals)
        full, full_mb = _median(fulls)
        nothing, nothing_mb, _ = measured([*audit, str(root), "--state", str(state)], env)
        checksum, checksum_mb, _ = measured(
            [*audit, str(root), "--state", str(state), "--checksum"], env)
        # the least any incremental run costs: what the run with nothing new does, and
        # judging the new logs (reading and replaying them: an audit of them that tallies
        # no deal, less one of a single log, its start-up)
        judging = (measured([*audit, str(alone), "--no-stats"], env)[0]
                   - measured([*audit, str(one), "--no-stats"], env)[0])
        size = os.path.getsize(state)
        tables = _state_tables(state)
    return {"logs": logs, "new": new, "full_cpu_s": full, "incremental_cpu_s": incremental,
            "ratio": incremental / full, "rounds": {
                "full_cpu_s": [r[0] for r in fulls],
                "incremental_cpu_s": [r[0] for r in incrementals]},
            "first_run_cpu_s": first,
            "judging_new_cpu_s": judging, "floor_cpu_s": nothing + judging,
            "floor_ratio": (nothing + judging) / full,
            "nothing_new_cpu_s": nothing, "checksum_cpu_s": checksum, "peak_mb": {
                "full": full_mb, "first": first_mb, "incremental": incremental_mb,
                "nothing_new": nothing_mb, "checksum": checksum_mb},
            "state_bytes": size, "state_bytes_per_log": size / logs,
            "state_tables_per_log": {k: v / logs for k, v in tables.items()}}


def _state_tables(path: Path) -> dict[str, int]:
    """The bytes of each table and index of a state file (SQLite's dbstat; empty where
    this SQLite lacks it), and of the logs' shares and records alone."""
    import sqlite3
    db = sqlite3.connect(path)
    try:
        out = dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name "
                              "ORDER BY 2 DESC").fetchall())
        out.update(db.execute("SELECT 'logs: figures', sum(length(figures)) FROM logs "
                              "UNION ALL SELECT 'logs: record', sum(length(record)) "
                              "FROM logs").fetchall())
    except sqlite3.Error:
        out = {}
    finally:
        db.close()
    return out


def bench_monitor(archives: int = 200) -> dict[str, Any]:
    return {"looks": bench_looks(archives), "power": bench_power(),
            "pairing": bench_pairing(), "generated": bench_generated_looks(),
            "play": bench_play_looks(5 * archives), "cost": bench_cost()}


def print_monitor(f: dict[str, Any]) -> None:
    looks = f["looks"]
    lo, hi = looks["ci95"]
    print(f"monitor: {looks['archives']} fair archives of {looks['matches']} matches, the "
          f"evidence looked at after every match: {looks['ever_flagged']} ever flagged = "
          f"{looks['rate']:.1%} (95 % CI {lo:.1%}-{hi:.1%}; promise <= {ALPHA:.0%})")
    if looks["fixed_archives"]:
        flo, fhi = looks["fixed_ci95"]
        print(f"  the fixed-sample audit at 10 looks: {looks['fixed_any_of_10']} of "
              f"{looks['fixed_archives']} flagged at least once = {looks['fixed_rate']:.1%} "
              f"(95 % CI {flo:.1%}-{fhi:.1%})")
    for kind, (k, (lo, hi)) in looks.get("alone", {}).items():
        print(f"  the {kind} e-process alone: {k} ever at 1/alpha (95 % CI {lo:.1%}-{hi:.1%})")
    for cheat, p in f.get("power", {}).items():
        print(f"  {cheat}: flagged {p['flagged']} of {p['archives']} within {p['horizon']} "
              f"matches; median {p['median']} matches to flag (each: {p['matches']})")
    if "pairing" in f:
        pf = f["pairing"]
        for what, (k, (lo, hi)) in pf["crossed"].items():
            print(f"  the {what} fit e-process alone on {pf['archives']} fair archives of "
                  f"{pf['matches']} matches: {k} ever at 1/alpha (95 % CI {lo:.1%}-{hi:.1%})")
    if "generated" in f:
        g = f["generated"]
        lo, hi = g["ci95"]
        print(f"  generated logs: {g['flagged']} of {g['archives']} fair archives of "
              f"{g['matches']} matches ever flagged (95 % CI {lo:.1%}-{hi:.1%})")
        for test, e in g["max_e_log10"].items():
            m, var = g["z"].get(test, (math.nan, math.nan))
            print(f"    {test}: largest e-value 10^{e:.2f}; z mean {m:+.2f}, variance {var:.2f}")
    if "play" in f:
        print_play_looks(f["play"])
    for what in ("cost", "scale"):
        if what in f:
            _print_cost(f[what])


def _print_cost(c: dict[str, Any]) -> None:
    mb = c["peak_mb"]
    rounds = c["rounds"]
    spread = "".join(f"; {what} {min(rounds[f'{what}_cpu_s']):.2f}-"
                     f"{max(rounds[f'{what}_cpu_s']):.2f}" for what in ("full", "incremental"))
    print(f"  cost: full audit of {c['logs']:,} logs {c['full_cpu_s']:.2f} s CPU "
          f"({mb['full']:.0f} MB at most), incremental over {c['new']} new "
          f"{c['incremental_cpu_s']:.2f} s = {c['ratio']:.2f}x (medians of "
          f"{len(rounds['full_cpu_s'])} rounds in turn{spread}; "
          f"target at {2000:,} logs: "
          f"<= 0.25; {mb['incremental']:.0f} MB; the least any incremental run costs, "
          f"nothing new plus judging the new logs ({c['judging_new_cpu_s']:.2f} s), "
          f"{c['floor_cpu_s']:.2f} s = {c['floor_ratio']:.2f}x); nothing new "
          f"{c['nothing_new_cpu_s']:.2f} s ({mb['nothing_new']:.0f} MB), with --checksum "
          f"{c['checksum_cpu_s']:.2f} s ({mb['checksum']:.0f} MB); the first run "
          f"with the state, over {c['logs'] - c['new']:,} logs, {c['first_run_cpu_s']:.2f} s "
          f"({mb['first']:.0f} MB); state {c['state_bytes_per_log']:.0f} bytes a log "
          f"(target about 1,000)")
    parts = c.get("state_tables_per_log", {})
    if parts:
        print("    of which, a log: " + ", ".join(f"{k} {v:.0f}" for k, v in parts.items()
                                                if v >= 1))

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    figures: dict[str, Any] = {}
    if what in ("all", "looks"):
        figures["looks"] = bench_looks(n)
    if what in ("all", "power"):
        figures["power"] = bench_power()
    if what in ("all", "pairing"):
        figures["pairing"] = bench_pairing()
    if what in ("all", "generated"):
        figures["generated"] = bench_generated_looks()
    if what in ("all", "play"):
        figures["play"] = bench_play_looks(5 * n)
    if what in ("all", "cost"):
        figures["cost"] = bench_cost()
    if what == "scale":  # not in "all": some five minutes, most of it making the logs
        figures["scale"] = bench_cost(20_000, 200)
    print_monitor(figures if "looks" in figures else {"looks": {
        "archives": 0, "matches": 0, "ever_flagged": 0, "rate": 0.0, "ci95": (0, 1),
        "fixed_archives": 0}, **figures})
