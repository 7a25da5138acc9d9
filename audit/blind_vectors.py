"""Test vectors for blind dealing (``fixtures/vectors/blind.json``).

Everything is derived from fixed labels through :func:`tarneeb.audit.blind.fixed_rng`,
so the file is reproducible; the values are NOT secret. Another implementation
checks itself against: the 52 card points, one proof of equal discrete logarithms,
and one whole deal (each seat's scalar, permutation and public key, the four
passes, every partial decryption with its proof, each seat's hand).
"""

from __future__ import annotations

from typing import Any

from .blind import (
    BLIND_PROTOCOL,
    GROUP,
    BlindSeat,
    card_points,
    deal_blind,
    dleq_context,
    fixed_rng,
    mul,
    mul_base,
    prove_dleq,
)

MATCH_ID = b"blind-vector-match"


def blind_vectors() -> dict[str, Any]:
    """The blind-dealing vectors as plain JSON values (hex strings, lists)."""
    rng = fixed_rng(b"blind-vector-proof", 0)
    x = BlindSeat.new(0, MATCH_ID, 0, rng=rng).scalar
    h = card_points()[7]
    ctx = dleq_context(MATCH_ID, 5, "play", 2, 30)
    seats = [BlindSeat.new(s, MATCH_ID, 3, rng=fixed_rng(b"blind-vector-deal", s))
             for s in range(4)]
    deal = deal_blind(seats, MATCH_ID, 3, dealer=2)
    return {
        "protocol": BLIND_PROTOCOL,
        "group": GROUP,
        "card_points": [p.hex() for p in card_points()],
        "dleq": {
            "scalar": x.hex(), "h": h.hex(), "y": mul_base(x).hex(), "z": mul(x, h).hex(),
            "context": ctx.hex(), "proof": prove_dleq(x, h, ctx).hex(),
        },
        "deal": {
            "match_id": MATCH_ID.decode(),
            "deal_number": deal.deal_number,
            "dealer": deal.dealer,
            "seats": [{
                "scalar": s.scalar.hex(), "permutation": list(s.permutation),
                "public": s.public.hex(),
                "hand": [s.learned[p] for p in sorted(s.learned)],
            } for s in seats],
            "passes": [[e.hex() for e in d] for d in deal.passes],
            "partials": [[{"seat": q.seat, "element": q.element.hex(), "proof": q.proof.hex()}
                          for q in chain] for chain in deal.partials],
        },
    }
