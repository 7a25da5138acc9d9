"""A match as a player would read it: the text ``tarneeb show`` prints.

Lines carry rich markup (suits in colour); a plain-text console drops it.

>>> from tarneeb.replay.cards import parse_card
>>> suit_markup(parse_card("10♥"))
'[red]10♥[/red]'
"""

from __future__ import annotations

from collections.abc import Iterator

from .cards import SUIT_SYMBOLS, card_name, format_hand
from .engine import PASS, Hand, describe_action, team_totals
from .findings import Verdict
from .logformat import ParsedLog

TEAMS = ("team 0+2", "team 1+3")


def suit_markup(card: int) -> str:
    name = card_name(card)
    return f"[red]{name}[/red]" if card // 13 in (1, 2) else name


def _suit(s: int | None) -> str:
    if s is None:
        return "none"
    sym = SUIT_SYMBOLS[s]
    return f"[red]{sym}[/red]" if s in (1, 2) else sym


def _hand_text(mask: int) -> str:
    text = format_hand(mask)
    for sym in "♥♦":
        parts = text.split("  ")
        text = "  ".join(f"[red]{p}[/red]" if p.startswith(sym) else p for p in parts)
    return text


def narrate(log: ParsedLog, verdict: Verdict, history: list[Hand],
            only_hand: int | None = None) -> Iterator[str]:
    """The lines of ``tarneeb show``: seats, then each hand (or only ``only_hand``)."""
    h = log.header
    r = h.rules
    yield f"[bold]{r.name}[/bold] match {h.match_id.hex()}, target {r.target}"
    for seat, s in enumerate(h.seats):
        label = "computer" if s.computer else "human"
        yield f"  seat {seat} ({TEAMS[seat & 1]}): {s.name} [{label}]".replace("[c", "\\[c") \
            .replace("[h", "\\[h")
    for hand in history:
        if only_hand is not None and hand.deal_number != only_hand:
            continue
        yield ""
        yield from _narrate_hand(log, hand)
    if only_hand is None:
        yield ""
        if log.end is not None and log.end.winner is not None:
            yield f"[bold]Winner (claimed): {TEAMS[log.end.winner]}[/bold]"
        if verdict.clean:
            yield "[green]Verdict: clean[/green]"
        else:
            yield f"[red]Verdict: {len(verdict.findings)} finding(s); run tarneeb verify[/red]"


def _narrate_hand(log: ParsedLog, hand: Hand) -> Iterator[str]:
    r = log.header.rules
    yield f"[bold]Hand {hand.deal_number}[/bold] — dealer: seat {hand.dealer}"
    if any(hand.hands):
        for seat in range(4):
            yield f"  seat {seat}: {_hand_text(hand.hands[seat])}"
    if r.reveals_card and hand.thirteenth is not None:
        yield f"  revealed: {suit_markup(hand.thirteenth)} → trump {_suit(hand.trump)}"
    calls = ", ".join(f"seat {s} {'pass' if a == PASS else describe_action(a)[4:]}"
                      for s, a in hand.calls)
    yield f"  {'auction' if r.bidding == 'auction' else 'bids'}: {calls}"
    if hand.cancelled:
        yield "  [yellow]cancelled: the bids were too low; the next dealer deals[/yellow]"
        return
    if hand.declarer is not None:
        yield f"  seat {hand.declarer} wins the auction with {hand.contract} and names " \
              f"trump {_suit(hand.trump)}"
    elif not r.reveals_card:
        yield f"  trump: {_suit(hand.trump)}"
    for t in range(len(hand.trick_winners)):
        cards = hand.plays[4 * t:4 * t + 4]
        leader = hand.trick_leaders[t]
        shown = "  ".join(f"{(leader + i) & 3}:{suit_markup(c)}" for i, c in enumerate(cards))
        yield f"  trick {t + 1:2}: {shown}  → seat {hand.trick_winners[t]}"
    yield f"  tricks: {hand.tricks}"
    if hand.scores is not None and hand.totals is not None:
        yield f"  hand score: {hand.scores}   totals: {hand.totals}   " \
              f"teams: {list(team_totals(r, hand.totals))}"
    if hand.winner is not None:
        yield f"  [bold green]{TEAMS[hand.winner]} wins the match[/bold green]"
