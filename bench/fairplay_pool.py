"""A pool of analysed matches for the fair-play calibration and power: every hand of
every simulated match analysed by the audit's own analysis, with **every** opening lead
analysed (the audit analyses it on ``OWN_SHARE`` of hands, by a coin drawn from the hand's
stream whatever the cards), so archives can be built from the pool as the audit would
analyse them — each lead kept with chance ``OWN_SHARE`` by a fresh coin, which is the
audit's selection — or with every lead kept, for the own figure's calibration.

One JSON line per match (appended, so a run can be stopped and resumed): its kind and
number, names and labels, CPU seconds of the simulation, of the opening leads and of the
rest of the analysis, and each hand's record (:meth:`HandPlay.to_json`: the lead, when it
carries information, then tricks 6 to 11). A match's streams come from ``seed``, its
kind and its number (reproducible: NOT secret; benches only).

Made by ``bench/bench_fairplay.py --pool POOL.jsonl --seed 34 --rounds R`` (each round:
one match of each cheat, six honest ones; ``--cheat-rounds`` stops the cheats earlier).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

from tarneeb.replay.fairplay.analyse import OWN_SHARE, HandPlay, analyse_hand
from tarneeb.testing.fairplay import simulate

CHEAT_KINDS = ("peeker", "peek30", "computer30", "partners")
ON_DEMAND = ("peekers",)  # two partners who both see every hand: when named in cheat_rounds


def pool_match(kind: str, number: int, seed: int, every_lead: bool = True,
               ) -> dict[str, Any]:
    """Match ``number`` of ``kind``, simulated and analysed: every opening lead, or (not
    ``every_lead``) those of the audit's own selection (``OWN_SHARE`` of hands, by a coin
    of the hand's stream)."""
    sim_rng = random.Random(f"fairplay-pool:{seed}:{kind}:{number}:play")
    rng = random.Random(f"fairplay-pool:{seed}:{kind}:{number}:analysis")
    start = time.process_time()
    ((names, computer, hands),) = simulate(kind, 1, sim_rng)
    sim = time.process_time() - start
    lead_s = rest_s = 0.0
    out = []
    for h in hands:
        start = time.process_time()
        lead = analyse_hand(h, True, rng, first_trick=6, last_trick=5,
                            own_share=1.0 if every_lead else OWN_SHARE)
        mid = time.process_time()
        rest = analyse_hand(h, True, rng, own_share=0.0)
        end = time.process_time()
        lead_s += mid - start
        rest_s += end - mid
        out.append(HandPlay(h.deal_number, lead.decisions + rest.decisions).to_json())
    return {"kind": kind, "number": number, "names": list(names), "computer": list(computer),
            "sim_s": sim, "lead_s": lead_s, "rest_s": rest_s, "every_lead": every_lead,
            "hands": out}


def load(path: str | Path) -> list[dict[str, Any]]:
    """The pool's matches (a last line cut short by a stopped run is left out)."""
    out = []
    for line in Path(path).read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def make_pool(rounds: int, seed: int, path: str | None = None, honest: int = 6,
              cheat_rounds: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """``rounds`` rounds, each of one match of each cheat (of ``kind`` in the first
    ``cheat_rounds[kind]`` rounds only, when given) with every lead analysed, and
    ``honest`` honest matches with the audit's own selection of leads; a round's matches
    are numbered by it, so a pool grows round by round whatever was asked before. Kept in
    ``path`` when given: matches already there are not played again."""
    have = load(path) if path and Path(path).exists() else []
    done = {(m["kind"], m["number"]) for m in have}
    fh = open(path, "a") if path else None  # noqa: SIM115 (appended to as matches finish)
    if fh is not None and path and Path(path).read_bytes()[-1:] not in (b"", b"\n"):
        fh.write("\n")  # a line cut short by a stopped run stays a line apart
    try:
        for r in range(rounds):
            kinds = [k for k in CHEAT_KINDS + ON_DEMAND if r < (
                cheat_rounds.get(k, 0) if cheat_rounds is not None
                else rounds * (k in CHEAT_KINDS))]
            for kind, number in [(k, r) for k in kinds] + [("honest", r * honest + j)
                                                          for j in range(honest)]:
                if (kind, number) in done:
                    continue
                rec = pool_match(kind, number, seed, every_lead=kind != "honest")
                have.append(rec)
                if fh is not None:
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
    finally:
        if fh is not None:
            fh.close()
    return have
