"""Counting: a hand as the engine saw it, who takes each trick, what the hand scores,
and when a match is won.

Plain functions of a :class:`Hand` and the running totals, with no state of their
own: :class:`~tarneeb.replay.rules.engine.MatchState` calls them at the end of each hand,
and the replayer and the report call them to say why a claim is wrong. Teams are
seats 0 and 2 (team 0) and seats 1 and 3 (team 1).

>>> from tarneeb.replay.rules.ruleset import preset
>>> from tarneeb.replay.rules.actions import bid_action
>>> hand = Hand(0, 3, (0, 0, 0, 0), None, calls=[(s, bid_action(3)) for s in range(4)],
...             tricks=[4, 3, 2, 4])
>>> score_hand(preset("qahwa41"), hand, [0, 0, 0, 0])
[3, 3, -3, 3]
>>> team_of(3), partner_of(3)
(1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tarneeb.replay.rules.actions import BID_BASE, Action, is_bid
from tarneeb.replay.rules.cards import Card, Mask
from tarneeb.replay.rules.ruleset import RuleSet


def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


def partner_of(seat: int) -> int:
    return seat ^ 2


def trick_winner(cards: list[Card], leader: int, trump: int | None) -> int:
    """The seat that wins a trick of four ``cards`` led by ``leader``.

    >>> from tarneeb.replay.rules.cards import parse_card as c
    >>> trick_winner([c("2H"), c("AH"), c("3S"), c("KH")], leader=0, trump=3)
    2
    """
    best = cards[0]
    best_suit = best // 13
    for c in cards[1:]:
        s = c // 13
        if s == best_suit:
            if c > best:
                best = c
        elif s == trump:
            best, best_suit = c, s
    return (leader + cards.index(best)) & 3


@dataclass(slots=True)
class Hand:
    """Everything about one dealing attempt, as the engine saw it (also what ``show`` prints)."""

    deal_number: int
    dealer: int
    hands: tuple[Mask, Mask, Mask, Mask]  # as dealt
    thirteenth: Card | None
    trump: int | None = None
    calls: list[tuple[int, Action]] = field(default_factory=list)  # (seat, bid or PASS)
    declarer: int | None = None  # classic: the auction winner
    contract: int | None = None  # classic: the winning bid
    plays: list[Card] = field(default_factory=list)
    trick_winners: list[int] = field(default_factory=list)
    tricks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    scores: list[int] | None = None  # hand score per seat (team games: the team's on both)
    totals: list[int] | None = None  # running totals after the hand
    cancelled: bool = False
    winner: int | None = None  # the team that won the match after this hand

    @property
    def trick_leaders(self) -> list[int]:
        """The seat that led each trick begun: the first lead, then each trick's winner."""
        first = self.declarer if self.declarer is not None else (self.dealer + 1) & 3
        return [first, *self.trick_winners][:(len(self.plays) + 3) // 4]

    def bid_of(self, seat: int) -> int | None:
        for s, a in self.calls:
            if s == seat and is_bid(a):
                return a - BID_BASE
        return None


def score_hand(rules: RuleSet, hand: Hand, totals: list[int]) -> list[int]:
    """The hand score of each seat (team games: the team's score on both partners)."""
    if rules.scoring == "personal":
        bids = [0, 0, 0, 0]
        for seat, action in hand.calls:
            bids[seat] = action - BID_BASE
        b0, b1, b2, b3 = bids
        w0, w1, w2, w3 = hand.tricks
        value = rules.bid_value
        v0, v1 = value(b0, totals[0]), value(b1, totals[1])
        v2, v3 = value(b2, totals[2]), value(b3, totals[3])
        return [v0 if w0 >= b0 else -v0, v1 if w1 >= b1 else -v1,
                v2 if w2 >= b2 else -v2, v3 if w3 >= b3 else -v3]
    b, declarer = hand.contract, hand.declarer
    if b is None or declarer is None:
        raise ValueError(f"hand {hand.deal_number + 1} is scored as an auction's but has no "
                         "contract")
    bteam = team_of(declarer)
    t = hand.tricks[bteam] + hand.tricks[bteam + 2]
    team_scores = [0, 0]
    if b < 13:
        if t >= b:
            team_scores[bteam] = rules.all_tricks_value if t == 13 else t
        else:
            team_scores[bteam] = -b
            team_scores[1 - bteam] = rules.defenders_all_tricks_value if t == 0 else 13 - t
    elif t == 13:
        team_scores[bteam] = rules.kaboot_made_value
    else:
        team_scores[bteam] = -rules.kaboot_failed_value
        team_scores[1 - bteam] = rules.kaboot_defenders_all_tricks_value if t == 0 \
            else rules.kaboot_defenders_factor * (13 - t)
    return [team_scores[s & 1] for s in range(4)]


def team_totals(rules: RuleSet, totals: list[int]) -> tuple[int, int]:
    """Each team's total: the sum of the partners (personal) or the team's score (team games)."""
    if rules.scoring == "team":
        return totals[0], totals[1]
    return totals[0] + totals[2], totals[1] + totals[3]


def qualifying_players(rules: RuleSet, totals: list[int]) -> list[int]:
    """Seats on the target whose partner has at least ``partner_min``."""
    return [p for p in range(4)
            if totals[p] >= rules.target and totals[p ^ 2] >= rules.partner_min]


def match_winner(rules: RuleSet, hand: Hand, totals: list[int]) -> int | None:
    """The team that has won after ``hand`` (scored), or ``None`` when play goes on."""
    if rules.made_13_wins:
        if rules.scoring == "team":  # made: every trick to the declarers, whatever it scores
            declarer = hand.declarer
            if hand.contract == 13 and declarer is not None \
                    and hand.tricks[declarer] + hand.tricks[declarer ^ 2] == 13:
                return team_of(declarer)
        else:
            for seat in range(4):
                if hand.tricks[seat] == 13 and hand.bid_of(seat) == 13:
                    return team_of(seat)
    return totals_winner(rules, totals)


def totals_winner(rules: RuleSet, totals: list[int]) -> int | None:
    """The team that has won on the running ``totals`` alone (a made 13 aside), or
    ``None`` when play goes on.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> r = preset("eram41")
    >>> totals_winner(r, [41, 43, 2, 0]), totals_winner(r, [40, 3, 2, 0])
    (0, None)
    """
    if max(totals) < rules.target:  # nobody on the target: the common case
        return None
    if rules.scoring == "team":
        reached = [t for t in (0, 1) if totals[t] >= rules.target]
        qualifying = [t for t in range(4) if totals[t] >= rules.target]
    else:
        qualifying = qualifying_players(rules, totals)
        reached = sorted({team_of(p) for p in qualifying})
    if len(reached) == 1:
        return reached[0]
    if len(reached) == 2:  # team games: only by a rules file with odd values
        return break_tie(rules, totals, qualifying)[0]
    return None


TIE_TEAMS = {"team_0+2": 0, "team_1+3": 1, "play_on": None}


def break_tie(rules: RuleSet, totals: list[int], qualifying: list[int]
              ) -> tuple[int | None, str]:
    """Both teams qualify: the winning team (``None``: another hand) by the tie chain, and
    the entry of the chain that decided.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> r = preset("sahrat400", tie=["highest_player", "team_total", "team_0+2"])
    >>> break_tie(r, [45, 45, 10, 20], [0, 1]), break_tie(r, [45, 45, 20, 20], [0, 1])
    ((1, 'team_total'), (0, 'team_0+2'))
    """
    for step in rules.tie:
        if step == "team_total":
            a, b = team_totals(rules, totals)
        elif step == "highest_player":
            a = max(totals[p] for p in qualifying if team_of(p) == 0)
            b = max(totals[p] for p in qualifying if team_of(p) == 1)
        else:
            return TIE_TEAMS[step], step
        if a != b:
            return (0 if a > b else 1), step
    return None, "play_on"  # not reached: validation ends every chain in a fallback


__all__ = [
    "TIE_TEAMS",
    "Hand",
    "break_tie",
    "match_winner",
    "partner_of",
    "qualifying_players",
    "score_hand",
    "team_of",
    "team_totals",
    "totals_winner",
    "trick_winner",
]
