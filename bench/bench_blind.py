"""What blind dealing costs: CPU time per deal and bytes per hand, beside the seed protocol's.

Time per deal (CPU time, one core, the least of ``rounds`` deals), split as a deal is:
the four shuffle passes (208 scalar multiplications), the dealing (156 partial
decryptions with their proofs, 52 last layers removed), the proofs of the 52 cards
played and the 13th card shown; then checking a deal's transcript, from the proofs
alone and from the revealed keys. Bytes: short matches dealt blind, every byte of the
log but the header, the signature and the keys records, per played hand (a cancelled
hand has its transcript too, so it is counted in the total); and the keys records
per dealing attempt.

Run it as a script (``python bench/bench_blind.py``) or call :func:`bench_blind`.

>>> r = bench_blind(rounds=1, matches=1)
>>> r["deal_seconds"] > 0 and r["bytes_per_played_hand"] > 20_000
True
"""

from __future__ import annotations

import time
from typing import Any

import msgpack

from tarneeb.audit.blind import (
    BlindSeat,
    Opening,
    deal_blind,
    fixed_rng,
    verify_deal,
)
from tarneeb.replay.log import encode_record, parse_log
from tarneeb.replay.log.blind import blind_list, proof_list
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.blind import play_blind_match


def _cpu(fn: Any) -> tuple[float, Any]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def _one_deal(i: int) -> dict[str, float]:
    match_id = b"bench-blind"
    seats = [BlindSeat.new(s, match_id, i, rng=fixed_rng(b"bench %d" % i, s)) for s in range(4)]
    deck = None

    def passes() -> None:
        nonlocal deck
        from tarneeb.audit.blind import card_points

        deck = card_points()
        for s in seats:
            deck = s.shuffle(deck)

    t_pass, _ = _cpu(passes)
    # the dealing as the seats do it, passes included (deal_blind runs them again)
    t_total, deal = _cpu(lambda: deal_blind(seats, match_id, i, dealer=0))
    t_deal = t_total - t_pass

    def proofs() -> list[Opening]:
        out = []
        for s in seats:
            for p in sorted(s.learned):
                card, proof = s.open(p, "play")
                out.append(Opening(p, card, "play", proof))
        card, proof = seats[0].open(51, "open")  # the dealer's 13th
        out.append(Opening(51, card, "open", proof))
        return out

    t_proofs, openings = _cpu(proofs)
    deal.openings = openings
    t_check, faults = _cpu(lambda: verify_deal(deal))
    assert not faults
    keys = [s.reveal() for s in seats]
    t_keys_check, faults = _cpu(lambda: verify_deal(deal, keys))
    assert not faults
    return {"passes": t_pass, "dealing": t_deal, "proofs": t_proofs,
            "verify_proofs": t_check, "verify_with_keys": t_keys_check}


def _sizes(matches: int) -> dict[str, float]:
    body = played = attempts = keys = transcripts = proofs = 0
    for i in range(matches):
        for name in PRESETS:
            log = play_blind_match(name, seed=f"bench-blind/{name}/{i}".encode(), target=5)
            p = parse_log(log)
            k = sum(len(encode_record(x)) for x in p.keys)
            body += len(log) - len(encode_record(p.header)) - len(encode_record(p.signature)) - k
            played += sum(1 for h in p.hands if h.plays)
            attempts += len(p.hands)
            keys += k
            for h in p.hands:
                assert h.blind is not None
                transcripts += len(msgpack.packb(blind_list(h.blind), use_bin_type=True))
                proofs += sum(len(msgpack.packb(proof_list(*x), use_bin_type=True))
                              for x in h.blind.play_proofs.values())
    return {"bytes_per_played_hand": body / played, "keys_bytes_per_attempt": keys / attempts,
            "transcript_bytes_per_attempt": transcripts / attempts,
            "proof_bytes_per_played_hand": proofs / played,
            "blind_played_hands": played, "blind_attempts": attempts}


def bench_blind(rounds: int = 5, matches: int = 2) -> dict[str, Any]:
    """The least time of ``rounds`` deals for each part, and sizes over ``matches`` short
    matches a rule set."""
    runs = [_one_deal(i) for i in range(rounds)]
    best = {k: min(r[k] for r in runs) for k in runs[0]}
    deal = best["passes"] + best["dealing"] + best["proofs"]
    return {"name": "blind", **best, "deal_seconds": deal, **_sizes(matches)}


def lines(r: dict[str, Any], hmac_us: float | None = None,
          hmac_bytes: float | None = None) -> list[str]:
    beside = f" (dealt from seeds: {hmac_us:.1f} µs)" if hmac_us is not None else ""
    size = f" (dealt from seeds: {hmac_bytes:.1f})" if hmac_bytes is not None else ""
    return [
        f"blind dealing: {r['deal_seconds'] * 1000:.0f} ms CPU per deal for the four seats "
        f"together{beside}: passes {r['passes'] * 1000:.0f} ms, dealing (partial decryptions "
        f"and proofs) {r['dealing'] * 1000:.0f} ms, proofs of the 52 cards played and the 13th "
        f"shown {r['proofs'] * 1000:.0f} ms",
        f"blind dealing: checking a deal's transcript {r['verify_proofs'] * 1000:.0f} ms from "
        f"the proofs alone, {r['verify_with_keys'] * 1000:.0f} ms with the revealed keys",
        f"blind dealing: {r['transcript_bytes_per_attempt']:,.0f} bytes of transcript per "
        f"dealing attempt, {r['proof_bytes_per_played_hand']:,.0f} bytes of play proofs per "
        f"played hand; {r['bytes_per_played_hand']:,.0f} bytes per played hand{size} in all "
        f"(cancelled attempts included, header, signature and keys excluded; "
        f"{r['blind_played_hands']} played hands of {r['blind_attempts']} attempts); revealed "
        f"keys {r['keys_bytes_per_attempt']:.0f} bytes per dealing attempt",
    ]


def main() -> int:
    for text in lines(bench_blind()):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
