"""Test vectors of the rules layer: what each deal of ``deals.json`` gives under each
rule set (hands, the card shown, the trump), written to ``hands.json``.

The deals themselves (deck orders, dealers) are the fairness layer's vectors
(:mod:`tarneeb.audit.vectors`); this file turns each into hands and a trump as
``docs/PROTOCOL.md`` §5.5 and ``docs/RULES.md`` say, so an outside implementer can
check that step too. Every seed in them is a public TEST VECTOR.

Regenerate (or check) the file::

    python -m tarneeb.replay.vectors fixtures/vectors
    python -m tarneeb.replay.vectors fixtures/vectors --check

>>> sorted(build_vectors())
['hands.json']
"""

from __future__ import annotations

from typing import Any

from tarneeb.audit.derive import Deal
from tarneeb.audit.encoding import PROTOCOL
from tarneeb.audit.vectors import CARD_NUMBERING, WARNING, deal_vectors, render
from tarneeb.audit.vectors import main as vectors_main

from .cards import SUIT_LETTERS, card_name, cards_of, format_hand
from .dealing import hands_of, revealed_of, trump_of
from .rules import PRESETS


def _hands_vector(dv: dict[str, Any]) -> dict[str, Any]:
    deal = Deal(dv["deal_number"], dv["dealer"], tuple(dv["deck"]))
    hands = hands_of(deal)
    trump = {name: trump_of(deal, rules) for name, rules in PRESETS.items()}
    return {
        "deal_number": deal.deal_number,
        "dealer": deal.dealer,
        "deck": list(deal.deck),
        "deck_names": [card_name(c, symbols=False) for c in deal.deck],
        "hands": [cards_of(h) for h in hands],
        "hand_masks": hands,
        "hands_text": [format_hand(h, symbols=False) for h in hands],
        "thirteenth": deal.thirteenth,
        "thirteenth_name": card_name(deal.thirteenth, symbols=False),
        "trump": trump,
        "trump_names": {k: (SUIT_LETTERS[v] if v is not None else "named")
                        for k, v in trump.items()},
        "revealed": {name: revealed_of(deal, rules) for name, rules in PRESETS.items()},
    }


def hands_vectors() -> dict[str, Any]:
    """Hands, shown card and trump per preset for every deal of ``deals.json``."""
    return {
        "protocol": PROTOCOL,
        "warning": WARNING,
        "card_numbering": CARD_NUMBERING,
        "hand_masks": "bit c set for each card c held",
        "trump_numbering": "suit number 0-3 (C D H S); null: named by the auction winner",
        "rules": {name: rules.trump for name, rules in PRESETS.items()},
        "vectors": [{"name": v["name"], "deals": [_hands_vector(d) for d in v["deals"]]}
                    for v in deal_vectors()["vectors"]],
    }


def build_vectors() -> dict[str, Any]:
    """The rules layer's vector file, by file name."""
    return {"hands.json": hands_vectors()}


def render_vectors() -> dict[str, str]:
    return render(build_vectors())


def main(argv: list[str] | None = None) -> int:
    """``python -m tarneeb.replay.vectors DIRECTORY [--check]``."""
    return vectors_main(argv, render_vectors(), prog="tarneeb.replay.vectors")


if __name__ == "__main__":
    raise SystemExit(main())
