"""A match as a player would read it: the text ``tarneeb show`` prints.

Players are named as the log names them and hands counted from 1
(:class:`~tarneeb.replay.verify.people.Table`); :func:`describe`, the ``--json`` form, keeps
the log's seats 0–3 and deal numbers from 0.

Each line is a rich :class:`~rich.text.Text`: red suits and bold headings on a
terminal, plain text elsewhere (``str(line)``). Styles are attached to spans, never
written as markup, so a seat's name or anything else from the log is shown exactly
as it is, whatever brackets it holds.

>>> from tarneeb.replay.rules.cards import parse_card
>>> line = suit_text(parse_card("10♥"))
>>> str(line), line.style
('10♥', 'red')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.text import Text

from tarneeb.replay.log.records import PASS_CODE, HandRecord, ParsedLog
from tarneeb.replay.rules.actions import BID_BASE, PASS, describe_action
from tarneeb.replay.rules.cards import SUIT_LETTERS, SUIT_SYMBOLS, card_name, cards_of, format_hand
from tarneeb.replay.rules.scoring import Hand, team_totals
from tarneeb.replay.verify.findings import Finding, Verdict
from tarneeb.replay.verify.people import Table

_TIMER = ("⏱", "dim")
SIGNATURE_KINDS = ("broken-signature", "unsigned", "key-mismatch", "weak-key")


def signature_problem(verdict: Verdict) -> Finding | None:
    """The finding that makes the log's signature worthless, if there is one."""
    return next((f for f in verdict.findings if f.kind in SIGNATURE_KINDS), None)


def signature_line(verdict: Verdict) -> Text:
    """What the signature proves, in one line: a reader sees it first.

    >>> str(signature_line(Verdict("m.tlog", key_id="139e3940e64b5491", key_pinned=True,
    ...                            signature_verified=True)))
    'Signature: valid, signed by the key given (key 139e3940e64b5491, pinned)'
    >>> str(signature_line(Verdict("m.tlog", signature="absent", checked_to=2217)))
    'Signature: NONE — not signed yet: checked up to byte 2217 (crashed or still being written)'
    """
    problem = signature_problem(verdict)
    if problem is not None:
        return Text.assemble(("Signature: NOT VALID", "bold red"), f" — {problem.message}")
    if not verdict.signature_verified:  # a log cut before its signature: no finding says it
        return Text.assemble(("Signature: NONE", "bold red"), f" — {verdict.signed_by()}")
    return Text.assemble(("Signature: valid", "green"), f", {verdict.signed_by()}")


def suit_text(card: int) -> Text:
    """A card's name, red for ♦ and ♥."""
    return Text(card_name(card), "red" if card // 13 in (1, 2) else "")


def _suit(s: int | None) -> Text:
    if s is None:
        return Text("none")
    return Text(SUIT_SYMBOLS[s], "red" if s in (1, 2) else "")


def _hand_text(mask: int) -> Text:
    parts = format_hand(mask).split("  ")
    return Text("  ").join(Text(p, "red" if p[:1] in "♥♦" else "") for p in parts)


def narrate(log: ParsedLog, verdict: Verdict, history: list[Hand],
            only_hand: int | None = None) -> Iterator[Text]:
    """The lines of ``tarneeb show``: players, then each hand (or only the one whose deal
    number is ``only_hand``, counted from 0 as in the log)."""
    h = log.header
    r = h.rules
    table = Table([s.name for s in h.seats])
    yield Text.assemble((r.name, "bold"), f" match {h.match_id.hex()}, target {r.target}")
    yield signature_line(verdict)
    for seat, s in enumerate(h.seats):
        label = "computer" if s.computer else "human"
        yield Text(f"  {table.name(seat)} [{label}], seat {seat + 1}, partner of "
                   f"{table.name(seat ^ 2)}")
    timers = {rec.deal_number: rec.timer for rec in log.hands}
    records = {rec.deal_number: rec for rec in log.hands}
    for hand in history:
        if only_hand is not None and hand.deal_number != only_hand:
            continue
        yield Text()
        yield from _narrate_hand(log, hand, timers.get(hand.deal_number, 0), table,
                                 _checked(hand, records.get(hand.deal_number)))
        for f in verdict.findings:
            if f.hand == hand.deal_number:
                yield Text(f"  ! {table.say(str(f))}", "red")
    last = log.hands[-1] if log.hands else None
    if last is not None and not last.closed and only_hand in (None, last.deal_number):
        yield Text()
        yield from _narrate_open_hand(last, table)
    if any(rec.timer for rec in log.hands):
        yield Text()
        yield Text("⏱ a move the turn timer made")
    if only_hand is None:
        yield Text()
        if log.end is not None and log.end.winner is not None:
            yield Text(f"Winner (claimed): {table.team(log.end.winner)}", "bold")
        if verdict.ending is not None:
            ending = table.ending(verdict)
            yield Text(ending[0].upper() + ending[1:], "bold")
        for f in verdict.findings:  # the match's own (a hand's are under it)
            if f.hand is None:
                yield Text(f"! {table.say(str(f))}", "red")
        if verdict.clean:
            yield Text.assemble(("Verdict: clean", "green"), f" ({verdict.deals_line()})")
        else:
            yield Text(f"Verdict: {_count(len(verdict.findings), 'finding')}; run tarneeb verify",
                       "red")
        yield Text(verdict.signed_by())


def _narrate_open_hand(rec: HandRecord, table: Table) -> Iterator[Text]:
    """The hand a log stops in (cut off, or the match abandoned), as the log has it."""
    yield Text.assemble((f"Hand {rec.deal_number + 1}", "bold"),
                        f" — dealer: {table.name(rec.dealer)}; "
                        f"the log stops in it, after {_count(len(rec.calls), 'call')} and "
                        f"{_count(len(rec.plays), 'card')}")
    if rec.calls:
        yield Text("  calls: " + ", ".join(
            f"{table.name(s)} {'pass' if v == PASS_CODE else v}" for s, v in rec.calls))
    if rec.plays:
        yield Text("  cards: " + " ".join(card_name(c) for c in rec.plays))


def _checked(hand: Hand, rec: HandRecord | None) -> bool:
    """Whether the replay of ``hand`` held every call and card the log records for it to
    the rules (else it stopped short: a finding, the rest taken from the log's totals; or
    it was not dealt, or the rules cancelled a hand the log plays all the same)."""
    return rec is not None and any(hand.hands) and len(hand.plays) == len(rec.plays) \
        and len(hand.calls) == len(rec.calls)


def _narrate_hand(log: ParsedLog, hand: Hand, timer: int, table: Table,
                  checked: bool = True) -> Iterator[Text]:
    """One hand; ``timer`` marks the moves the turn timer made (bit k: move k);
    ``checked``: False for a hand not replayed to the end of what the log records, whose
    score, totals and winner are then the log's claims."""
    r = log.header.rules

    def mark(k: int) -> Text:
        return Text.assemble(_TIMER) if timer >> k & 1 else Text()

    n_calls = len(hand.calls)
    first_play = n_calls + (1 if hand.declarer is not None else 0)
    name = table.name
    width = max(len(n) for n in table.names)
    yield Text.assemble((f"Hand {hand.deal_number + 1}", "bold"), f" — dealer: {name(hand.dealer)}")
    if not checked:
        yield Text("  NOT REPLAYED to its end: the calls and cards below are those the "
                   "replay checked; the score, totals and any winner are the log's claims",
                   "red")
    if any(hand.hands):
        for seat in range(4):
            yield Text.assemble(f"  {name(seat) + ':':{width + 1}} ", _hand_text(hand.hands[seat]))
    if r.reveals_card and hand.thirteenth is not None:
        yield Text.assemble("  revealed: ", suit_text(hand.thirteenth), " → trump ",
                            _suit(hand.trump))
    calls = Text(", ").join(
        Text.assemble(f"{name(s)} {'pass' if a == PASS else describe_action(a)[4:]}", mark(k))
        for k, (s, a) in enumerate(hand.calls))
    yield Text.assemble(f"  {'auction' if r.bidding == 'auction' else 'bids'}: ", calls)
    if hand.cancelled:
        why = "all four passed" if r.bidding == "auction" else "the bids were too low"
        yield Text(f"  cancelled: {why}; the next dealer deals", "yellow")
        return
    if hand.declarer is not None:
        yield Text.assemble(f"  {name(hand.declarer)} wins the auction with {hand.contract} and "
                            "names trump ", _suit(hand.trump), mark(n_calls))
    elif not r.reveals_card:
        yield Text.assemble("  trump: ", _suit(hand.trump))
    for t in range(len(hand.trick_winners)):
        cards = hand.plays[4 * t:4 * t + 4]
        leader = hand.trick_leaders[t]
        shown = Text("  ").join(
            Text.assemble(f"{name((leader + i) & 3)} ", suit_text(c),
                          mark(first_play + 4 * t + i))
            for i, c in enumerate(cards))
        yield Text.assemble(f"  trick {t + 1:2}: ", shown, f"  → {name(hand.trick_winners[t])}")
    yield Text("  tricks: " + ", ".join(f"{name(s)} {n}" for s, n in enumerate(hand.tricks)))
    said = "" if checked else " (the log's claim)"
    if hand.scores is not None and hand.totals is not None:
        teams = ", ".join(f"{table.team(t)} {n}"
                          for t, n in enumerate(team_totals(r, hand.totals)))
        if r.scoring == "team":
            scores = ", ".join(f"{table.team(t)} {hand.scores[t]}" for t in (0, 1))
            yield Text(f"  hand score{said}: {scores}; totals: {teams}")
        else:
            scores, totals = (", ".join(f"{name(s)} {n}" for s, n in enumerate(row))
                              for row in (hand.scores, hand.totals))
            yield Text(f"  hand score{said}: {scores}; totals: {totals}; teams: {teams}")
    if hand.winner is not None and checked:
        yield Text(f"  {table.team(hand.winner)} win the match", "bold green")
    elif hand.winner is not None:
        yield Text(f"  {table.team(hand.winner)} win the match by the log's claimed totals "
                   "(not replayed)", "yellow")


def _count(n: int, word: str) -> str:
    """``1 card``, ``4 cards``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _call(action: int) -> int | str:
    return "pass" if action == PASS else action - BID_BASE


def describe(log: ParsedLog, verdict: Verdict, history: list[Hand],
             only_hand: int | None = None) -> dict[str, Any]:
    """What ``tarneeb show --json`` prints: the match as replayed, for a program.

    Numbers are as in the log and the verdict's JSON: hands (dealing attempts), seats
    and tricks from 0; cards as ``card_name(c, symbols=False)`` (``TH``), suits as
    letters (``CDHS``).
    """
    h, r = log.header, log.header.rules
    timers = {rec.deal_number: rec.timer for rec in log.hands}
    records = {rec.deal_number: rec for rec in log.hands}
    problem = signature_problem(verdict)
    hands = []
    for hand in history:
        if only_hand is not None and hand.deal_number != only_hand:
            continue
        timer = timers.get(hand.deal_number, 0)
        n_calls = len(hand.calls)
        first_play = n_calls + (1 if hand.declarer is not None else 0)
        tricks = []
        for t, winner in enumerate(hand.trick_winners):
            leader = hand.trick_leaders[t]
            tricks.append({"trick": t, "leader": leader, "winner": winner, "cards": [
                {"seat": (leader + i) & 3, "card": card_name(c, symbols=False),
                 "timer": bool(timer >> (first_play + 4 * t + i) & 1)}
                for i, c in enumerate(hand.plays[4 * t:4 * t + 4])]})
        hands.append({
            "deal_number": hand.deal_number, "dealer": hand.dealer,
            # False: the replay stopped short of what the log records (scores, totals and
            # winner are then the log's claims)
            "replayed": _checked(hand, records.get(hand.deal_number)),
            "hands": [[card_name(c, symbols=False) for c in reversed(cards_of(m))]
                      for m in hand.hands] if any(hand.hands) else None,
            "revealed": (card_name(hand.thirteenth, symbols=False)
                         if r.reveals_card and hand.thirteenth is not None else None),
            "trump": SUIT_LETTERS[hand.trump] if hand.trump is not None else None,
            "calls": [{"seat": seat, "call": _call(a), "timer": bool(timer >> k & 1)}
                      for k, (seat, a) in enumerate(hand.calls)],
            "declarer": hand.declarer, "contract": hand.contract, "cancelled": hand.cancelled,
            "tricks": tricks, "tricks_taken": hand.tricks, "scores": hand.scores,
            "totals": hand.totals, "winner": hand.winner,
            "findings": [f.to_json() for f in verdict.findings if f.hand == hand.deal_number],
        })
    return {
        "path": verdict.path, "rules": r.name, "match_id": h.match_id.hex(), "target": r.target,
        "seats": [{"seat": i, "team": i & 1, "name": s.name, "computer": s.computer}
                  for i, s in enumerate(h.seats)],
        "signature": {"valid": problem is None and verdict.signature_verified,
                      "pinned": verdict.key_pinned,
                      "problem": problem.to_json() if problem is not None else None,
                      "signed": verdict.signed_by()},
        "hands": hands,
        "winner_claimed": log.end.winner if log.end is not None else None,
        "verdict": verdict.to_json(),
    }
