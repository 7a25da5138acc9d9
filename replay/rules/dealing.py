"""From a deal of the fairness layer to what the rules make of it: hands and a trump.

:mod:`tarneeb.audit` hands out deck orders and who receives each position; it
knows no rules. Here a :class:`~tarneeb.audit.derive.Deal` becomes four hand
masks, the card shown to everyone and the trump of a rule set.

>>> from tarneeb.audit.derive import Deal
>>> from tarneeb.replay.rules.ruleset import PRESETS
>>> deal = Deal(0, 3, tuple(range(52)))          # card 0 goes to seat 0, 51 to the dealer
>>> hands_of(deal)[0] & 1, hands_of(deal)[3] >> 51 & 1
(1, 1)
>>> trump_of(deal, PRESETS["eram41"]), trump_of(deal, PRESETS["qahwa41"]), \\
...     trump_of(deal, PRESETS["classic"])
(0, 2, None)
>>> revealed_of(deal, PRESETS["sahrat41"]), revealed_of(deal, PRESETS["sahrat400"])
(51, None)
"""

from __future__ import annotations

from tarneeb.audit.derive import Deal
from tarneeb.replay.rules.cards import Mask, deal_hands
from tarneeb.replay.rules.ruleset import RuleSet


def hands_of(deal: Deal) -> tuple[Mask, Mask, Mask, Mask]:
    """The four hands of ``deal`` as bit masks, seat order."""
    return deal_hands(list(deal.deck), deal.dealer)


def trump_of(deal: Deal, rules: RuleSet) -> int | None:
    """The trump suit of ``deal`` under ``rules`` (0-3), or ``None`` when the auction
    winner names it."""
    return rules.trump_for_deal(deal.thirteenth)


def revealed_of(deal: Deal, rules: RuleSet) -> int | None:
    """The card shown to everyone under ``rules`` (the dealer's 13th card), or ``None``."""
    return deal.thirteenth if rules.reveals_card else None


__all__ = ["hands_of", "revealed_of", "trump_of"]
