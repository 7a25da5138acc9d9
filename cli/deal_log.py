"""``tarneeb deal``'s two jobs beyond the seeds: the match id as the user gives it, and
``tarneeb deal LOG --hand N``, one hand re-derived from a log's own seeds and compared
with what the log played.

The match id is printed everywhere as hex (``show``, ``report``, ``export``), so ``-m``
takes the hex form: an even number of hex digits is decoded as hex, anything else is
the id's UTF-8 text. An id that looks like hex but is taken as text (an odd number of
digits, or given with ``--match-id-text``) gets a warning, since a wrong id silently
derives other hands.

>>> match_id_of("12d92bef79b70ff9", None, None)
(b'\\x12\\xd9+\\xefy\\xb7\\x0f\\xf9', None)
>>> match_id_of("match-1", None, None)
(b'match-1', None)
>>> match_id_of("abc", None, None)[1][:40]
"match id 'abc' looks like hex but has an"
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from tarneeb.audit import AuditInputError, parse_hex
from tarneeb.audit.encoding import check_match_id
from tarneeb.audit.encoding import shown as escaped

# findings that say the log did not play the deal the seeds give (at the hand, or the seeds)
_DEAL_KINDS = frozenset({"wrong-deal", "bad-deal", "card-not-held", "wrong-revealed-card",
                         "wrong-dealer", "wrong-deal-number", "not-replayed"})
_SEED_KINDS = frozenset({"server-seed", "client-seed", "batch-proof", "wrong-first-dealer"})
_SIGNATURE_KINDS = frozenset({"broken-signature", "unsigned", "key-mismatch", "weak-key"})
_HEXLIKE = re.compile(r"(?:0[xX])?[0-9a-fA-F]+")


def match_id_of(printed: str | None, text: str | None,
                hex_id: str | None) -> tuple[bytes, str | None]:
    """The match id given by ``-m`` (hex as printed, else text), ``--match-id-text`` or
    ``--match-id-hex`` (exactly one), and a warning for an id that looks like hex but is
    taken as text (``None`` when there is nothing to warn of)."""
    given = [v for v in (printed, text, hex_id) if v is not None]
    if len(given) != 1:
        raise AuditInputError("give the match id once: -m ID (hex as show and report print "
                              "it, or text), --match-id-text TEXT or --match-id-hex HEX")
    if hex_id is not None:
        return parse_hex(hex_id, "match id"), None
    value = printed if printed is not None else text
    assert value is not None
    hexlike = _HEXLIKE.fullmatch(value) is not None
    digits = len(value) - (2 if value[:2] in ("0x", "0X") else 0)
    if printed is not None and hexlike and digits % 2 == 0:
        return check_match_id(parse_hex(value, "match id")), None
    warning = None
    if hexlike and printed is not None:
        warning = (f"match id {value!r} looks like hex but has an odd number of digits, so it "
                   "is taken as text (its UTF-8 bytes); the id show and report print is hex "
                   "with an even number of digits: check that you copied it whole")
    elif hexlike:
        warning = (f"match id {value!r} looks like hex, the form show and report print, but "
                   "--match-id-text takes it as text (its UTF-8 bytes); give it with -m to "
                   "take it as hex")
    return check_match_id(value), warning


def shown_id(mid: bytes) -> str:
    """The match id as people read it: its hex (what ``-m`` takes), and its text when it
    is printable UTF-8 text.

    >>> shown_id(b"match-1"), shown_id(bytes.fromhex("12d9ff"))
    ("6d617463682d31 (text 'match-1')", '12d9ff')
    """
    try:
        text = mid.decode("utf-8")
    except UnicodeDecodeError:
        return mid.hex()
    return f"{mid.hex()} (text {text!r})" if text.isprintable() else mid.hex()


def text_of(mid: bytes) -> str | None:
    """The match id as text, or ``None`` when it is not printable UTF-8 text."""
    try:
        text = mid.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if text.isprintable() else None


def deal_from_log(path: Path, hand: int, server_seed: str | None, as_json: bool,
                  emit_json: Any) -> int:
    """``tarneeb deal LOG --hand N``: hand ``hand`` (from 1) re-derived from the log's own
    seeds and match id, and whether the log played that deal. Returns the exit code: 0
    the log played the deal the seeds give, 1 it did not (or its seeds do not check)."""
    from tarneeb.audit import DealDeriver, server_commitment
    from tarneeb.replay.log import LogError
    from tarneeb.replay.rules.cards import card_name, cards_of, format_hand
    from tarneeb.replay.rules.dealing import hands_of, revealed_of, trump_of
    from tarneeb.replay.verify.people import Table
    from tarneeb.replay.verify.receipt import season_leaf
    from tarneeb.replay.verify.replayer import verify_log
    from tarneeb.replay.verify.trust import Trust
    from tarneeb.report.checkit import check_it

    from .common import load_log, shown_name

    try:
        log = load_log(path)
    except LogError as e:
        raise AuditInputError(str(e)) from None
    h = log.header
    name = shown_name(path)
    if not log.hands:
        raise AuditInputError(f"{name}: the log has no hand")
    if not 1 <= hand <= len(log.hands):
        raise AuditInputError(f"{name}: no hand {hand}: the log has hands 1-{len(log.hands)}")
    if h.blind:
        raise AuditInputError(f"{name}: dealt blind: no seeds derive its deals (tarneeb verify "
                              "checks its transcripts)")
    if h.server_commitment is None or h.client_seeds is None:
        has_deals = any(x.deal is not None for x in log.hands)
        raise AuditInputError(f"{name}: " + ("the platform recorded its deals in the log: "
                                             "there are no seeds to derive them from"
                                             if has_deals else "the log has neither seeds to "
                                             "derive its deals nor a recorded deal"))
    seed = parse_hex(server_seed, "server seed", 32) if server_seed is not None else \
        log.end.server_seed if log.end is not None else None
    if seed is None:
        raise AuditInputError(f"{name}: the server seed is not revealed in the log (it is cut "
                              "short or the match is not over): give it with -s HEX")
    rec = log.hands[hand - 1]
    table = Table([s.name for s in h.seats])
    seed_ok = server_commitment(seed) == h.server_commitment
    verdict = verify_log(log, name, Trust(server_seed=seed if server_seed else None))
    # hand N is the N-th dealing attempt, dealt by the dealer the rules give, as the verifier,
    # `tarneeb show --hand N` and the page count it: never the record's own (maybe false) say
    number = hand - 1
    dealer = next((x.dealer for x in verdict.history if x.deal_number == number), rec.dealer)
    deriver = DealDeriver(seed, h.match_id, tuple(h.client_seeds), season_leaf(h))
    dealt = deriver.deal(number, dealer)
    hands = hands_of(dealt)
    trump, revealed = trump_of(dealt, h.rules), revealed_of(dealt, h.rules)
    # a trump the rules take from the deal, given otherwise, is another deal's
    kinds = _DEAL_KINDS | ({"wrong-trump"} if trump is not None else set())
    here = [f for f in verdict.findings
            if (f.hand == number and f.kind in kinds)
            or (f.hand is None and f.kind in _SEED_KINDS)]
    # a hand the verifier did not replay (a finding before it stopped the replay) was not
    # checked at all: it has no findings of its own, and proves nothing; nor was one whose
    # replay stopped short of the calls and cards the log records (a finding that stops a
    # hand: the rest taken from the log's totals), or a hand the rules cancelled that the
    # log plays all the same: the cards it records were never held to these hands
    replayed = any(x.deal_number == number and len(x.plays) == len(rec.plays)
                   and len(x.calls) == len(rec.calls) for x in verdict.history)
    recorded = None if rec.deal is None else list(rec.deal.hands) == list(hands)
    # a hand the log cancels that its calls do not: never played, with these hands or any
    unplayed = [f for f in verdict.findings if f.hand == number and f.kind == "cancelled-wrongly"]
    played = seed_ok and replayed and not here and recorded is not False and not unplayed
    unsigned = [f for f in verdict.findings if f.kind in _SIGNATURE_KINDS]
    if as_json:
        emit_json({
            "log": name, "hand": hand, "deal_number": number, "dealer": dealer,
            "match_id": h.match_id.hex(), "match_id_text": text_of(h.match_id),
            "server_seed_matches_commitment": seed_ok,
            "hands": [[card_name(c, symbols=False) for c in reversed(cards_of(x))]
                      for x in hands],
            "thirteenth": card_name(dealt.thirteenth, symbols=False),
            "revealed": None if revealed is None else card_name(revealed, symbols=False),
            "trump": None if trump is None else "CDHS"[trump],
            "recorded_deal_matches": recorded,
            "replayed": replayed,
            "as_played": played,
            "signature_findings": [f.kind for f in unsigned],
            "findings": [f.to_json() for f in here + unplayed],
        })
        return 0 if played else 1
    typer.echo(f"{escaped(name)}: hand {hand} (deal number {number}), "
               f"rules {h.rules.name}, "
               f"match id {shown_id(h.match_id)}")
    for s in range(4):
        who = " (dealer)" if s == dealer else ""
        typer.echo(f"  {table.name(s)}, seat {s + 1}{who}: {format_hand(hands[s])}")
    shown = "revealed to all" if revealed is not None else "not shown"
    typer.echo(f"  dealer's 13th card: {card_name(dealt.thirteenth)} ({shown})")
    if not seed_ok:
        typer.echo("NOT PROVEN: the server seed does not match the commitment the log "
                   "carries, so these are not the hands the platform committed to")
    elif here or recorded is False:  # (what the replay found of this hand's deal)
        typer.echo(f"NOT AS RECORDED: the log's hand {hand} is not this deal:")
        if recorded is False:
            typer.echo("  the deal the log records differs from the one the seeds give")
        for f in here:
            typer.echo(f"  {f.kind}: {table.say(f.message.removeprefix(f.kind + ': '))}")
    elif unplayed:
        typer.echo(f"NOT PLAYED: the log cancels hand {hand}, which its calls do not cancel "
                   "(cancelled-wrongly): these are the hands the seeds deal, never played")
    elif not replayed:
        first = next(((f.kind, f.hand) for f in verdict.findings
                      if f.hand is not None and f.hand <= number), None)
        why = "" if first is None else \
            f" (its first finding up to there: {first[0]} in hand {first[1] + 1})"
        typer.echo(f"NOT PROVEN: the verifier did not replay hand {hand}{why}, so nothing "
                   "says the log played it with these hands")
    else:
        typer.echo(f"as recorded: the log plays hand {hand} with exactly these hands")
    for f in unsigned:  # the deal is the seeds', but the file may not be the platform's log
        typer.echo(f"note: the log's signature: {f.kind}: this file may not be the "
                   "platform's log")
    again = check_it(log, name, hand, dealer).seeds_command
    if again is not None and server_seed is None:
        typer.echo(f"the same from the seeds alone: {again}")
    return 0 if played else 1


__all__ = ["deal_from_log", "match_id_of", "shown_id", "text_of"]
