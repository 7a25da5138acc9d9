"""Which paths of the rules a replayed match went through.

The corpus in ``fixtures/`` must exercise every path of the specification;
:func:`exercised_paths` names the paths one match took, from the engine's
history, so a test can prove the coverage.

>>> from tarneeb.replay.rules.ruleset import preset
>>> sorted(exercised_paths(preset("eram41"), [], []))
[]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tarneeb.replay.rules.actions import BID_BASE
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand, break_tie, qualifying_players, team_of, totals_winner


def value_class(rules: RuleSet, bid: int, own_score: int) -> str:
    """``face`` (worth its number), ``double``, ``triple`` … or ``value-N``, and ``@30`` marks
    a value changed by the player's own score."""
    value = rules.bid_value(bid, own_score)
    names = {1: "face", 2: "double", 3: "triple", 4: "quadruple"}
    name = names.get(value // bid) if value % bid == 0 else None
    name = name or f"value-{value}"
    base = rules.bid_value(bid, -(10**9))
    return f"{name}@30" if value != base else name


# The paths of a match's end (personal games): a player on the target held back by its
# partner, both teams qualifying in one hand, and which rule of the tie chain decides.
END_PATHS = ("partner-blocks-win", "both-qualify", "tie-decided:")


def all_paths(rules: RuleSet) -> set[str]:
    """Every path a corpus for ``rules`` should exercise."""
    common = {"cancelled", "cancelled-in-a-row", "negative-total", "timer-bid", "timer-play",
              "match-won"}
    common |= {f"bid-{b}-{made}" for b in (11, 12, 13) for made in ("made", "failed")}
    if rules.made_13_wins:
        common.add("made-13-wins")
    if rules.scoring == "team":
        team = common | {"classic-made", "classic-failed", "auction-all-pass", "kaboot-made",
                         "kaboot-failed", "all-13-without-13", "timer-trump",
                         "declarers-no-trick", "kaboot-failed-no-trick"}
        team.add("auction-ended-on-13" if rules.auction_ends_on_13
                 else "auction-passes-after-13")
        return team
    paths = common | {"partner-blocks-win", "no-trick"}
    if rules.timer_bid == "reach_minimum":
        paths.add("timer-bid-reaches-minimum")
    for bid in range(rules.min_bid, 14):
        for score in {0, *(s for s, _ in rules.min_bid_steps),
                      *([rules.values_high_from] if rules.values_high_from is not None else [])}:
            if bid >= rules.lowest_bid(score):
                c = value_class(rules, bid, score)
                paths |= {f"made:{c}", f"failed:{c}"}
    if rules.partner_min == 1:  # the boundary: a partner at exactly zero still blocks
        paths.add("partner-blocks-win:zero")
    paths |= {f"both-qualify:{rules.tie_label}", "both-qualify-equal", "both-qualify-decided"} \
        if rules.tie != ("play_on",) else {"both-qualify:play_on"}
    if rules.tie[-1] != "play_on":  # a team as the fallback: every link of the chain decides
        paths -= {"both-qualify-equal"}
        paths |= {f"tie-decided:{step}" for step in rules.tie}
    for _, low in rules.min_bid_steps:
        paths.add(f"min-bid:{low}")
    for _, low in rules.min_total_steps:
        paths.add(f"min-total:{low}")
    return paths


def exercised_paths(rules: RuleSet, history: Sequence[Hand], timers: Sequence[int]) -> Counter[str]:
    """Count the paths of the rules that a match's ``history`` went through.

    ``timers`` holds each hand's timer bit mask (bit k: move k was the timer's).
    """
    seen: Counter[str] = Counter()
    before = [0, 0, 0, 0]
    streak = 0
    for i, hand in enumerate(history):
        timer = timers[i] if i < len(timers) else 0
        n_calls = len(hand.calls)
        if timer & ((1 << n_calls) - 1):
            seen["timer-bid"] += 1
            if rules.timer_bid == "reach_minimum" and _timer_reached_minimum(rules, hand, timer,
                                                                              before):
                seen["timer-bid-reaches-minimum"] += 1
        if rules.bidding == "auction" and hand.declarer is not None and timer >> n_calls & 1:
            seen["timer-trump"] += 1
        if timer >> (n_calls + (1 if hand.declarer is not None else 0)):
            seen["timer-play"] += 1
        for _, low in rules.min_bid_steps:
            if any(rules.lowest_bid(before[s]) == low for s in range(4)):
                seen[f"min-bid:{low}"] += 1
        for _, low in rules.min_total_steps:
            if rules.lowest_total(max(before)) == low:
                seen[f"min-total:{low}"] += 1
        if hand.cancelled:
            streak += 1
            seen["cancelled"] += 1
            if streak >= 2:
                seen["cancelled-in-a-row"] += 1
            if rules.bidding == "auction":
                seen["auction-all-pass"] += 1
            before = list(hand.totals) if hand.totals else before
            continue
        streak = 0
        if hand.scores is None or hand.totals is None or len(hand.plays) < 52:
            before = list(hand.totals) if hand.totals else before
            continue
        if rules.scoring == "team":
            _team_paths(rules, hand, seen)
        else:
            for seat in range(4):
                bid = hand.bid_of(seat)
                if bid is None:
                    continue
                made = "made" if hand.tricks[seat] >= bid else "failed"
                seen[f"{made}:{value_class(rules, bid, before[seat])}"] += 1
                if bid >= 11:
                    seen[f"bid-{bid}-{made}"] += 1
                if hand.tricks[seat] == 0:
                    seen["no-trick"] += 1
            _win_paths(rules, hand, seen)
        if rules.made_13_wins and hand.winner is not None and _made_13(hand) and totals_winner(
                rules, hand.totals) != hand.winner:
            seen["made-13-wins"] += 1  # the made 13 won a match the totals did not
        if any(t < 0 for t in hand.totals):
            seen["negative-total"] += 1
        if hand.winner is not None:
            seen["match-won"] += 1
        before = list(hand.totals)
    return seen


def _made_13(hand: Hand) -> bool:
    """A bid of 13 made in ``hand`` (a personal 13 taking all 13, or a classic 13 made)."""
    if hand.contract is not None and hand.declarer is not None:
        bteam = team_of(hand.declarer)
        return hand.contract == 13 and hand.tricks[bteam] + hand.tricks[bteam + 2] == 13
    return any(hand.bid_of(s) == 13 and hand.tricks[s] == 13 for s in range(4))


def _timer_reached_minimum(rules: RuleSet, hand: Hand, timer: int, before: list[int]) -> bool:
    """The last bidder's timer bid was raised above the lowest to reach the table minimum."""
    k = len(hand.calls) - 1
    if k < 0 or not timer >> k & 1:
        return False
    seat, action = hand.calls[k]
    return seat == hand.dealer and action - BID_BASE > rules.lowest_bid(before[seat])


def _team_paths(rules: RuleSet, hand: Hand, seen: Counter[str]) -> None:
    if hand.declarer is None or hand.contract is None:
        return
    bteam = team_of(hand.declarer)
    t = hand.tricks[bteam] + hand.tricks[bteam + 2]
    made = "made" if t >= hand.contract else "failed"
    if hand.contract >= 11:
        seen[f"bid-{hand.contract}-{made}"] += 1
    if hand.contract == 13:
        seen["kaboot-made" if t == 13 else "kaboot-failed"] += 1
        if t == 0:
            seen["kaboot-failed-no-trick"] += 1
        if hand.calls[-1][1] == BID_BASE + 13:
            seen["auction-ended-on-13"] += 1
        elif any(a == BID_BASE + 13 for _, a in hand.calls):
            seen["auction-passes-after-13"] += 1
    else:
        seen[f"classic-{made}"] += 1
        if t in (0, 13):
            seen["all-13-without-13"] += 1
        if t == 0:
            seen["declarers-no-trick"] += 1


def _win_paths(rules: RuleSet, hand: Hand, seen: Counter[str]) -> None:
    assert hand.totals is not None
    seen.update(end_paths(rules, hand.totals, hand.winner))


def end_paths(rules: RuleSet, totals: Sequence[int], winner: int | None) -> list[str]:
    """The paths of a personal game's match end that a hand ending on ``totals`` (and
    ``winner``, the team that has won after it, or ``None``) goes through.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> end_paths(preset("eram41"), [41, 43, 2, 0], 0)  # seat 1 blocked: team 0 wins
    ['partner-blocks-win', 'partner-blocks-win:zero']
    >>> end_paths(preset("eram41"), [41, 41, 2, 2], None)
    ['both-qualify:team_total', 'both-qualify-equal']
    """
    out = []
    totals = list(totals)
    on_target = [p for p in range(4) if totals[p] >= rules.target]
    qualifying = qualifying_players(rules, totals)
    blocked = [p for p in on_target if p not in qualifying]
    if blocked:
        out.append("partner-blocks-win")
        if rules.partner_min == 1 and any(totals[p ^ 2] == 0 for p in blocked):
            out.append("partner-blocks-win:zero")
    if len({team_of(p) for p in qualifying}) == 2:
        out.append(f"both-qualify:{rules.tie_label}")
        out.append("both-qualify-equal" if winner is None else "both-qualify-decided")
        if rules.tie[-1] != "play_on":
            out.append(f"tie-decided:{break_tie(rules, totals, qualifying)[1]}")
    return out
