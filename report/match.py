"""``tarneeb report``: one match as a page a player can read, with the proof behind the verdict.

The page opens with the verdict in plain words, then who signed the log, the proof
that the deals were not chosen (step by step), the scoreboard, and every hand: the
four hands as dealt, the bids, each trick and its winner, the scores as the platform
claimed them and as the rules give them, the timer's moves; each finding is shown
where it happens, with the rule it breaks.

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = play_logged_match("sahrat41", seed=b"report doc")  # reproducible: not secret
>>> html, verdict = match_report(log, "match.tlog")
>>> verdict.clean, "No problems found" in html, html.count('class="hand"') > 1
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tarneeb.replay.log import PASS_CODE, HandRecord, ParsedLog, parse_log
from tarneeb.replay.rules.actions import PASS
from tarneeb.replay.rules.cards import CLUBS, DIAMONDS, HEARTS, SPADES, SUIT_MASKS, cards_of
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand
from tarneeb.replay.verify.findings import KINDS, Finding, Verdict
from tarneeb.replay.verify.people import Card, Table
from tarneeb.replay.verify.provenance import ROOT_NOT_PINNED
from tarneeb.replay.verify.replayer import verify_log
from tarneeb.replay.verify.trust import NOTHING, Trust

from .checkit import check_it
from .page import Banner, render_page
from .rulebook import Rule, rule_for

# where a finding with no hand is shown
BLIND_KINDS = frozenset({"blind-transcript", "wrong-decryption", "wrong-shuffle",
                         "card-not-dealt", "wrong-key"})
SIGNATURE_KINDS = frozenset({"broken-signature", "unsigned", "key-mismatch", "weak-key",
                             "not-canonical"})
SEED_KINDS = frozenset({"server-seed", "seed-not-revealed", "batch-proof", "client-seed",
                        "wrong-first-dealer", "receipt-mismatch"})
# where a finding of no hand is, for people
_PLACE = {**dict.fromkeys(SIGNATURE_KINDS, "the signature"),
          **dict.fromkeys(SEED_KINDS, "the seeds"),
          **dict.fromkeys(("wrong-winner", "winner-too-early", "no-winner"), "the declared winner"),
          "cut-short": "the end of the log", "receipt-mismatch": "the receipt",
          "wrong-rules": "the rules"}
# headlines that say more than a count, in order of weight
_HEADLINES = {
    "broken-signature": "The platform's signature does not cover this log: it was changed "
                        "or torn after signing",
    "weak-key": "This log's signature proves nothing: the signing key is a weak key",
    "unsigned": "This log is not signed: anyone could have written it",
    "key-mismatch": "This log was not signed by the platform's key",
    "wrong-deal": "The cards dealt are not the ones the seeds give",
    "server-seed": "The platform's seed does not match what it committed to",
    "client-seed": "A player's seed does not match what that player committed to",
    "receipt-mismatch": "This log is not the match the platform promised before play",
}
# notes of the verdict that the signature and proof sections say in their own words
_SAID_ELSEWHERE = ("signature checked", "the deals are recorded",
                   "not compared with a seat's pre-play receipt")
_SUIT_ORDER = (SPADES, HEARTS, CLUBS, DIAMONDS)  # colours alternate, as format_hand does


@dataclass
class FindingView:
    """A finding as the page shows it."""

    number: int  # 1-based, in the order the replayer found them
    kind: str
    title: str  # what the kind means
    message: str  # the replayer's sentence, with names and hands from 1
    where: str
    rule: Rule
    anchor: str  # the id of the place on the page where it happens
    seat: int | None = None
    card: str | None = None
    hand: int | None = None  # 1-based


@dataclass
class Compare:
    """A number the platform claimed beside the one the rules give."""

    claimed: int | None
    rules: int | None

    @property
    def differs(self) -> bool:
        return self.claimed != self.rules


@dataclass
class SeatRow:
    name: str
    dealer: bool
    suits: list[list[Card]]  # the hand as dealt, by suit
    # the hand as the log records it, when that is not the deal the seeds give
    recorded: list[list[tuple[Card, bool]]] | None
    bid: str
    bid_timer: bool
    tricks: Compare
    score: Compare
    total: Compare


@dataclass
class PlayedCard:
    card: Card
    led: bool
    won: bool
    timer: bool
    flagged: bool


@dataclass
class TrickView:
    number: int  # 1-13
    anchor: str
    by_seat: list[list[PlayedCard]]  # the card each player played (more when not replayed)
    winner: str
    findings: list[FindingView] = field(default_factory=list)
    replayed: bool = True


@dataclass
class HandView:
    number: int  # 1-based
    anchor: str
    dealer: str
    cancelled: str  # why the hand did not count, or ""
    revealed: Card | None
    trump: Card | None
    trump_how: str
    calls: list[tuple[str, str, bool]]  # name, "7" or "pass", a timer move
    contract: str
    seats: list[SeatRow]
    tricks: list[TrickView]
    findings: list[FindingView]
    winner: str
    replayed: bool  # False when the hand could not be dealt (no deal or seeds)
    complete: bool  # replayed to its end (or cancelled by the rules)


@dataclass
class Step:
    """One step of the proof chain."""

    title: str
    status: str  # "pass", "fail" or "skip"
    detail: str
    findings: list[FindingView] = field(default_factory=list)


GAMES = {
    "eram41": "Syrian Tarneeb 41, ERAM CARDS rules",
    "qahwa41": "Syrian Tarneeb 41, Qahwa rules",
    "sahrat41": "Syrian Tarneeb 41, Sahrat rules",
    "sahrat400": "Tarneeb 400, Sahrat rules",
    "classic": "Classic Tarneeb, Sahrat rules",
}


def game_name(rules_name: str) -> str:
    """The game a rule set names, as players call it; house rules keep their own name."""
    return f"{GAMES[rules_name]} ({rules_name})" if rules_name in GAMES else \
        f"house rules {rules_name}"


def match_report(data: bytes | ParsedLog, path: str = "<log>",
                 trust: Trust = NOTHING) -> tuple[str, Verdict]:
    """The report page (HTML) of the log ``data`` (its bytes, or as read by
    :func:`~tarneeb.replay.log.read_log` within limits), and the verdict it shows,
    judged against what the user trusts (:class:`~tarneeb.replay.verify.trust.Trust`, as
    :func:`~tarneeb.replay.verify.replayer.verify_log` takes it); ``trust.key_source``
    says where the pinned key came from (a file name), and with a seat's receipt the
    proof chain shows the commitment as promised before play.

    Raises :class:`~tarneeb.replay.log.LogError` for bytes that are not a log at all.
    """
    log = data if isinstance(data, ParsedLog) else parse_log(data, path, trust.limits)
    verdict = verify_log(log, path, trust)
    receipt = trust.receipt_for(log.header.match_id) is not None
    return render_page("match.html", **_context(log, verdict, trust.key_source,
                                                receipt)), verdict


def _context(log: ParsedLog, v: Verdict, key_source: str | None,
             receipt: bool = False) -> dict[str, object]:
    h = log.header
    table = Table([s.name for s in h.seats])
    views = [_finding_view(i + 1, f, table, h.rules) for i, f in enumerate(v.findings)]
    by_hand: dict[int, list[FindingView]] = {}
    for f, fv in zip(v.findings, views, strict=True):
        if f.hand is not None:
            by_hand.setdefault(f.hand, []).append(fv)
    hands = [_hand_view(log.hands[i] if i < len(log.hands) else None, hand, table, h.rules,
                        by_hand.get(hand.deal_number, []))
             for i, hand in enumerate(v.history)]
    shown = {hv.number - 1 for hv in hands}
    loose = [fv for f, fv in zip(v.findings, views, strict=True)
             if f.hand is not None and f.hand not in shown]  # a hand past the replay's end
    signature = [fv for f, fv in zip(v.findings, views, strict=True)
                 if f.hand is None and f.kind in SIGNATURE_KINDS]
    seeds = [fv for f, fv in zip(v.findings, views, strict=True)
             if f.hand is None and f.kind in SEED_KINDS]
    ending = [fv for f, fv in zip(v.findings, views, strict=True)
              if f.hand is None and f.kind not in SIGNATURE_KINDS | SEED_KINDS] + loose
    for fv in signature:
        fv.anchor = "signature"
    for fv in ending:
        fv.anchor = "end"
    players = [(table.names[s], seat.computer, table.team(s & 1)) for s, seat in
               enumerate(h.seats)]
    rules = h.rules
    winner_claimed = log.end.winner if log.end is not None else None
    last = v.history[-1] if v.history else None
    check = check_it(log, v.path)
    proof = _proof(log, v, table, views, seeds, receipt)
    # a problem of no hand that a proof step shows is shown there, not again at the end
    in_steps = {id(fv) for step in proof for fv in step.findings if fv.hand is None}
    ending = [fv for fv in ending if id(fv) not in in_steps]
    return dict(
        title=f"Match report: {game_name(rules.name)}",
        subtitle=f"{table.team(0)} against {table.team(1)} · log {v.path} · "
                 f"match {h.match_id.hex()[:16]} · {len(log.hands)} hands recorded",
        verdict=_banner(v, table, views, receipt, _signed_by_its_own_key(log, views)),
        generator="Made by tarneeb report: every deal, bid, card and score re-checked "
                  "from the signed log.",
        players=players,
        rules=rules,
        game=game_name(rules.name),
        rules_notes=[_sentence(table.say(n)) for n in v.notes
                     if not n.startswith(_SAID_ELSEWHERE)],
        signer=_signer(log, v, key_source),
        signature_findings=signature,
        proof=proof,
        proven=v.deals_proven,
        hands=hands,
        findings=views,
        end_findings=ending,
        winner_claimed=table.team(winner_claimed) if winner_claimed is not None else None,
        winner_rules=table.team(last.winner) if last is not None and last.winner is not None
        else None,
        error=table.say(v.error) if v.error else "",
        ending=_sentence(table.ending(v)) if v.ending else "",
        team_names=(table.team(0), table.team(1)),
        check={**vars(check), "blind": h.blind},  # "check it yourself": seeds, id, commands
        check_seeds=list(zip(table.names, check.client_seeds, strict=False)),
    )


def _finding_view(n: int, f: Finding, table: Table, rules: RuleSet) -> FindingView:
    meaning = KINDS.get(f.kind, f.kind)
    where = [f"hand {f.hand + 1}" if f.hand is not None else "",
             f"trick {f.trick}" if f.trick is not None else "",
             table.name(f.seat) if f.seat is not None else ""]
    if f.hand is None:
        anchor = "proof"
    elif f.trick is not None:
        anchor = f"hand-{f.hand + 1}-trick-{f.trick}"
    else:
        anchor = f"hand-{f.hand + 1}"
    message = f.message.removeprefix(f"{f.kind}: ")
    return FindingView(n, f.kind, _sentence(meaning), _sentence(table.say(message)),
                       ", ".join(w for w in where if w) or _PLACE.get(f.kind, "the log"),
                       rule_for(f.kind, rules), anchor,
                       f.seat, f.card, f.hand + 1 if f.hand is not None else None)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _signed_by_its_own_key(log: ParsedLog, views: list[FindingView]) -> str | None:
    """With a key-mismatch finding: the key id of the key named inside the log when the
    signature verifies under it (the log is whole, another key signed it); else None."""
    own = log.header.public_key
    if own is None or log.signature is None or all(fv.kind != "key-mismatch" for fv in views):
        return None
    from tarneeb.audit.signing import key_id, verify

    try:
        verify(own, log.signed_bytes, log.signature.signature)
    except ValueError:  # (a bad signature, a weak key)
        return None
    return key_id(own)


def _banner(v: Verdict, table: Table, views: list[FindingView], receipt: bool,
            other_key: str | None = None) -> Banner:
    """The page's verdict, after the views (it reads their places); ``other_key``: the key
    that signed a log whose key is not the one given (:func:`_signed_by_its_own_key`)."""
    if v.error is not None and not v.history:
        return Banner("unreadable", "This log could not be read",
                      f"{table.say(v.error)}. Nothing in it can be checked.")
    if views and other_key is not None:  # whole, but signed by another key: not torn
        others = [fv for fv in views if fv.kind not in ("key-mismatch", "broken-signature")]
        more = " ".join(f"{_sentence(fv.where)}: {fv.message}." for fv in others[:2])
        marked = f" {'It is' if len(others) == 1 else 'Each is'} marked below where it " \
            "happens, with the rule it breaks." if others else ""
        given = f"not under the key you gave (key {v.key_id})" if v.key_pinned else \
            "which is none of the platform keys you gave"
        return Banner("findings", "This log was not signed by the platform's key: another key "
                      "signed it", f"Its signature verifies under the key named inside the log "
                      f"(key {other_key}), {given}. {more}{marked}".replace("  ", " ").strip())
    if views:
        n = len(views)
        kinds = {fv.kind for fv in views}
        lead = next((k for k in _HEADLINES if k in kinds), None)
        head = _HEADLINES[lead] if lead else \
            f"{n} problem{'s' if n > 1 else ''} found: this match log does not check out"
        told = [fv for fv in views if fv.kind != lead][:2] or \
            [fv for fv in views if fv.hand is not None][:1]
        detail = " ".join(f"{_sentence(fv.where)}: {fv.message}." for fv in told)
        rest = n - len(told) - (lead is not None and lead not in {fv.kind for fv in told})
        more = f" And {rest} more." if rest > 0 else ""
        count = "It is" if n == 1 else f"{n} problems in all; each is" if lead else "Each is"
        text = f"{detail}{more} {count} marked below where it happens, with the rule it breaks."
        return Banner("findings", head, text.strip())
    if v.error is not None:
        return Banner("unreadable", "The log stops in the middle",
                      f"{table.say(v.error)}. Everything before that point checks out and "
                      "is shown below, but the match cannot be judged as a whole.")
    stopped = f" The match did not finish: it was {table.ending(v)}." if v.ending else ""
    mixed = (f" (a name that mixes {' and '.join(v.signer_scripts)} letters: see that it is "
             "the platform you mean)" if len(v.signer_scripts) > 1 else "")
    signed = f"signed by {v.signer} (key {v.key_id}){mixed}" if v.signer else \
        f"signed by the key you gave (key {v.key_id})" if v.key_pinned else \
        "signed by the key named inside the log (compare its key id below with the one the " \
        "platform publishes)"
    checked = ("Every deal was dealt blind and is proven by its decryptions and plays (its "
               "shuffle passes, tarneeb-blind-v1, carry no proofs)" if v.blind and v.blind_v1
               else "Every deal was dealt blind and is proven by its transcript" if v.blind
               else "Every deal is the one the committed seeds give") + \
        ", and every bid, card, score and the winner follow the rules." + \
        ("" if receipt else " That the seeds were "
         "committed before play is shown by a player's receipt or the platform's publication " \
        "(step 1 below).")
    if v.deals_proven and not v.key_pinned:
        return Banner("notice", "No problems found, but nothing ties this log to the platform",
                      f"{checked} The log is {signed}: anyone could make such a log, seeds "
                      "and all, with a key of their own. Make the report with the platform's "
                      f"key (--key or --keys) to settle who wrote it.{stopped}")
    if v.deals_proven:
        return Banner("clean", "No problems found: this match was dealt fairly and played by "
                      "the rules", f"{checked} The log is {signed}.{stopped}")
    return Banner("notice", "No rule was broken, but the deals are only recorded",
                  "Every bid, card, score and the winner follow the rules, but the platform "
                  "wrote the deals into the log itself: nothing proves the cards were not "
                  f"chosen. The log is {signed}.{stopped}")


def _signer(log: ParsedLog, v: Verdict, key_source: str | None) -> dict[str, object]:
    bad = {f.kind for f in v.findings if f.hand is None and f.kind in SIGNATURE_KINDS}
    ok = v.signature_verified and not bad & {"broken-signature", "unsigned", "weak-key"}
    return dict(key_id=v.key_id, pinned=v.key_pinned, platform=v.signer, source=key_source,
                status="pass" if ok else "missing" if log.signature is None else "fail")


def _proof(log: ParsedLog, v: Verdict, table: Table, views: list[FindingView],
           seed_findings: list[FindingView], receipt: bool = False) -> list[Step]:
    h = log.header
    of = {k: [fv for fv in seed_findings if fv.kind == k] for k in SEED_KINDS}
    if h.server_commitment is None:
        return []
    steps: list[Step] = []
    if h.batch is not None:
        b = h.batch
        pinned = ROOT_NOT_PINNED not in v.notes
        steps.append(Step("The platform published a season root before the season",
                          "fail" if of["batch-proof"] else "pass" if pinned else "skip",
                          f"Root {b.root.hex()[:16]}…: this match is number {b.index + 1} of "
                          f"{b.size}, and its commitment leads to that root"
                          + (", the one you gave." if pinned else
                             ", named in the log itself: that it is the root the platform "
                             "published is not checked (give it with --root)."),
                          of["batch-proof"]))
    fingerprint = f"The log gives its commitment {h.server_commitment.hex()[:16]}…, a " \
        "fingerprint of the seed that reveals nothing of it."
    promised = of["receipt-mismatch"]
    if promised:
        steps.append(Step("The platform locked in a secret seed before play", "fail",
                          f"{fingerprint} The receipt given before play does not match this "
                          "log.", promised))
    elif receipt:
        steps.append(Step("The platform locked in a secret seed before play", "pass",
                          f"{fingerprint} The receipt the platform signed when play started "
                          "names this commitment and the players' commitments: they were "
                          "fixed before play."))
    else:
        steps.append(Step("The platform locked in a secret seed before play", "skip",
                          f"{fingerprint} That it was given out before play is shown by a "
                          "player's pre-play receipt (tarneeb report --receipt), or by where "
                          "and when the platform published it."))
    client = of["client-seed"]
    steps.append(Step("Each player added a seed of their own",
                      "fail" if client else "pass" if h.client_seeds else "skip",
                      "Each player committed to a seed before anyone revealed one, then "
                      "revealed it; "
                      + ("some do not match." if client else "all four match their "
                         "commitments." if h.client_seeds else "the log does not carry them."),
                      client))
    revealed = log.end is not None and log.end.server_seed is not None
    server = of["server-seed"] + of["seed-not-revealed"]
    steps.append(Step("The platform revealed its seed after the match",
                      "fail" if server else "pass",
                      "The revealed seed matches the commitment published before play."
                      if revealed and not server else "The seed cannot be checked.", server))
    first = of["wrong-first-dealer"]
    proven = not server and h.client_seeds is not None
    steps.append(Step("The first dealer was drawn from the seeds",
                      "fail" if first else "pass" if proven else "skip",
                      f"The seeds draw {table.name(h.first_dealer)} as first dealer."
                      if proven and not first else
                      "Not checked: the seeds are not all there." if not proven else "", first))
    wrong = [fv for fv in views if fv.kind == "wrong-deal"]
    missing = [fv for fv in views if fv.kind == "not-replayed"]
    n = len(v.history)
    if wrong:
        made = "Some deals the log records are not the ones the seeds give."
    elif missing:
        made = "Some dealing attempts could not be re-made from the seeds (see the problem)."
    elif proven:
        made = f"All {n} deals in this report are the ones the seeds give: nobody could " \
            "choose the cards."
    else:
        made = "Not done: without every seed, no deal can be re-made."
    if v.blind:  # dealt blind: the transcripts prove the deals, not the seeds
        faults = [fv for fv in views if fv.kind in BLIND_KINDS]
        made = ("Each seat shuffled and dealt with keys of its own, so nobody, the platform "
                "included, saw a hand but their own; every deal's transcript and every card "
                "played checks (docs/PROTOCOL.md §13)" + (
                    ", but the shuffle passes of its tarneeb-blind-v1 transcripts carry no "
                    "proofs: a seat that changed the deck is named only by revealed keys."
                    if v.blind_v1 else ".") if v.deals_proven else
                "Some deals dealt blind are not proven by their transcripts (see the problems).")
        steps.append(Step(f"Every deal was dealt blind and proven ({n} dealing attempts)",
                          "pass" if v.deals_proven else "fail", made, faults + missing))
    else:
        steps.append(Step(f"Every deal was re-made from the seeds ({n} dealing attempts)",
                          "fail" if wrong or missing or not proven else "pass", made,
                          wrong + missing))
    for step in steps:
        for fv in step.findings:
            if fv.hand is None:  # else it is shown in its hand, and the step links there
                fv.anchor = "proof"
    return steps


def _claims(rec: HandRecord | None) -> tuple[list[int] | None, list[int] | None,
                                               list[int] | None, int, bytes]:
    """What the platform claimed for a hand: tricks, scores, totals, its timer bits, and
    the cards in the order it recorded them (with :func:`_recorded_deal`, the only reads
    of a raw hand record)."""
    if rec is None:
        return None, None, None, 0, b""
    return rec.tricks, rec.scores, rec.totals, rec.timer, rec.plays


def _recorded_deal(rec: HandRecord | None, hand: Hand) -> tuple[int, int, int, int] | None:
    """The four hands the log records, when they are not the ones replayed (a wrong deal)."""
    if rec is None or rec.deal is None or rec.deal.hands == hand.hands or not any(hand.hands):
        return None
    return rec.deal.hands


def _tricks(hand: Hand, recorded: bytes, timer: int, first_play: int, table: Table,
            findings: list[FindingView]) -> list[TrickView]:
    """The tricks as replayed, then any cards the log records past the point where the
    replay had to stop (each under the player who was dealt it)."""
    trump = hand.trump
    leaders = hand.trick_leaders
    replayed = len(hand.plays)
    plays = list(hand.plays) + list(recorded[replayed:])
    tricks = []
    for t in range((len(plays) + 3) // 4):
        anchor = f"hand-{hand.deal_number + 1}-trick-{t + 1}"
        here = [f for f in findings if f.anchor == anchor]
        winner = hand.trick_winners[t] if t < len(hand.trick_winners) else None
        by_seat: list[list[PlayedCard]] = [[], [], [], []]
        for i, c in enumerate(plays[4 * t:4 * t + 4]):
            k = 4 * t + i
            if k < replayed:
                seat = (leaders[t] + i) & 3
            else:  # not replayed: shown under the player who was dealt the card
                seat = next((s for s in range(4) if hand.hands[s] >> c & 1), 0)
            name = table.card(c, trump)
            flagged = any(f.card == name.text if f.card else f.seat == seat for f in here)
            by_seat[seat].append(PlayedCard(name, k < replayed and i == 0,
                                            seat == winner and k < replayed,
                                            bool(timer >> (first_play + k) & 1), flagged))
        tricks.append(TrickView(t + 1, anchor, by_seat, table.name(winner)
                                if winner is not None else "not replayed", here,
                                4 * t + 4 <= replayed))
    return tricks


def _at(values: list[int] | None, s: int) -> int | None:
    return None if values is None else values[s]


def _hand_view(rec: HandRecord | None, hand: Hand, table: Table, rules: RuleSet,
               findings: list[FindingView]) -> HandView:
    r = rules
    number = hand.deal_number + 1
    tricks_c, scores_c, totals_c, timer, plays = _claims(rec)
    complete = hand.cancelled or len(hand.trick_winners) == 13
    n_calls = len(hand.calls)
    first_play = n_calls + (1 if hand.declarer is not None else 0)
    trump = hand.trump
    calls = [(table.name(s), "pass" if a == PASS else str(a - 52), bool(timer >> k & 1))
             for k, (s, a) in enumerate(hand.calls)]
    if rec is not None and not hand.calls:  # the replay stopped in the bidding
        calls = [(table.name(s), "pass" if c == PASS_CODE else str(c), bool(timer >> k & 1))
                 for k, (s, c) in enumerate(rec.calls)]
    recorded = _recorded_deal(rec, hand)
    seats = []
    for s in range(4):
        bid = [c for c in calls if c[0] == table.name(s)]
        played = complete and not hand.cancelled  # else the rules give no tricks or score
        seats.append(SeatRow(
            table.name(s), s == hand.dealer,
            [[table.card(c, trump) for c in reversed(cards_of(hand.hands[s] & SUIT_MASKS[u]))]
             for u in _SUIT_ORDER],
            None if recorded is None else
            [[(table.card(c, trump), not hand.hands[s] >> c & 1)
              for c in reversed(cards_of(recorded[s] & SUIT_MASKS[u]))] for u in _SUIT_ORDER],
            " · ".join(b[1] for b in bid) or "—", any(b[2] for b in bid),
            Compare(_at(tricks_c, s), hand.tricks[s] if played else _at(tricks_c, s)),
            Compare(_at(scores_c, s), _at(hand.scores, s) if complete else _at(scores_c, s)),
            Compare(_at(totals_c, s), _at(hand.totals, s))))
    replayed = any(hand.hands)
    tricks = _tricks(hand, plays, timer, first_play, table, findings)
    if not replayed:  # no cards to draw the tricks with: a trick's problem is shown at the
        tricks = []   # head of its hand (the page draws no trick table to hold it)
        for f in findings:
            f.anchor = f"hand-{number}"
    if hand.cancelled:
        cancelled = "all four passed" if r.bidding == "auction" else \
            "the four bids were too low"
    else:
        cancelled = ""
    if r.trump == "revealed":
        trump_how = "the suit of the revealed card"
    elif r.reveals_card:
        trump_how = "the colour-mate of the revealed card"
    elif r.trump == "fixed":
        trump_how = "always, in this game"
    else:
        trump_how = f"named by {table.name(hand.declarer)}" if hand.declarer is not None else ""
    contract = f"{table.name(hand.declarer)} wins the auction with {hand.contract}" \
        if hand.declarer is not None else ""
    return HandView(number, f"hand-{number}", table.name(hand.dealer), cancelled,
                    table.card(hand.thirteenth, trump) if r.reveals_card
                    and hand.thirteenth is not None else None,
                    table.suit(trump), trump_how, calls, contract, seats, tricks,
                    [f for f in findings if f.anchor not in {t.anchor for t in tricks}],
                    table.team(hand.winner) if hand.winner is not None else "",
                    replayed, complete)
