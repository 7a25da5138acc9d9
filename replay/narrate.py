"""A match as a player would read it: the text ``tarneeb show`` prints.

Lines carry rich markup (suits in colour); a plain-text console drops it. Everything
from the log that is text (seat names, the rules' name, findings) is escaped, so no
name is ever read as markup.

>>> from tarneeb.replay.cards import parse_card
>>> suit_markup(parse_card("10♥"))
'[red]10♥[/red]'
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.markup import escape

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
    yield f"[bold]{escape(r.name)}[/bold] match {h.match_id.hex()}, target {r.target}"
    for seat, s in enumerate(h.seats):  # names are data: escaped, never read as markup
        label = "computer" if s.computer else "human"
        yield f"  seat {seat} ({TEAMS[seat & 1]}): {escape(s.name)} \\[{label}]"
    timers = {rec.deal_number: rec.timer for rec in log.hands}
    for hand in history:
        if only_hand is not None and hand.deal_number != only_hand:
            continue
        yield ""
        yield from _narrate_hand(log, hand, timers.get(hand.deal_number, 0))
        for f in verdict.findings:
            if f.hand == hand.deal_number:
                yield f"  [red]! {escape(str(f))}[/red]"
    if any(rec.timer for rec in log.hands):
        yield ""
        yield "⏱ a move the turn timer made"
    if only_hand is None:
        yield ""
        if log.end is not None and log.end.winner is not None:
            yield f"[bold]Winner (claimed): {TEAMS[log.end.winner]}[/bold]"
        if verdict.clean:
            yield f"[green]Verdict: clean[/green] ({escape(verdict.deals_line())})"
        else:
            yield f"[red]Verdict: {len(verdict.findings)} finding(s); run tarneeb verify[/red]"
        yield escape(verdict.signed_by())


def _narrate_hand(log: ParsedLog, hand: Hand, timer: int) -> Iterator[str]:
    """One hand; ``timer`` marks the moves the turn timer made (bit k: move k)."""
    r = log.header.rules
    mark = "[dim]⏱[/dim]"
    n_calls = len(hand.calls)
    first_play = n_calls + (1 if hand.declarer is not None else 0)
    yield f"[bold]Hand {hand.deal_number}[/bold] — dealer: seat {hand.dealer}"
    if any(hand.hands):
        for seat in range(4):
            yield f"  seat {seat}: {_hand_text(hand.hands[seat])}"
    if r.reveals_card and hand.thirteenth is not None:
        yield f"  revealed: {suit_markup(hand.thirteenth)} → trump {_suit(hand.trump)}"
    calls = ", ".join(f"seat {s} {'pass' if a == PASS else describe_action(a)[4:]}"
                      + (mark if timer >> k & 1 else "") for k, (s, a) in enumerate(hand.calls))
    yield f"  {'auction' if r.bidding == 'auction' else 'bids'}: {calls}"
    if hand.cancelled:
        why = "all four passed" if r.bidding == "auction" else "the bids were too low"
        yield f"  [yellow]cancelled: {why}; the next dealer deals[/yellow]"
        return
    if hand.declarer is not None:
        yield f"  seat {hand.declarer} wins the auction with {hand.contract} and names " \
              f"trump {_suit(hand.trump)}" + (mark if timer >> n_calls & 1 else "")
    elif not r.reveals_card:
        yield f"  trump: {_suit(hand.trump)}"
    for t in range(len(hand.trick_winners)):
        cards = hand.plays[4 * t:4 * t + 4]
        leader = hand.trick_leaders[t]
        shown = "  ".join(f"{(leader + i) & 3}:{suit_markup(c)}"
                          + (mark if timer >> (first_play + 4 * t + i) & 1 else "")
                          for i, c in enumerate(cards))
        yield f"  trick {t + 1:2}: {shown}  → seat {hand.trick_winners[t]}"
    yield f"  tricks: {hand.tricks}"
    if hand.scores is not None and hand.totals is not None:
        yield f"  hand score: {hand.scores}   totals: {hand.totals}   " \
              f"teams: {list(team_totals(r, hand.totals))}"
    if hand.winner is not None:
        yield f"  [bold green]{TEAMS[hand.winner]} wins the match[/bold green]"
