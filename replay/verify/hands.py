"""The replay of a parsed log in Python, hand by hand: the definition of a verdict.

:func:`verify_parsed` checks the header, the signature and the seeds
(:mod:`tarneeb.replay.verify.provenance`), then replays every dealing attempt on one
:class:`~tarneeb.replay.rules.engine.MatchState`: the deal derived from the seeds (or
recorded, or proven blind), every call and card, and the claims of each hand and of the
match's end. A hand whose every move is legal is taken in one piece
(:meth:`MatchState.play_hand`); any other is replayed move by move, which says what is
wrong and where. :func:`tarneeb.replay.verify.replayer.verify_log` is the way in (it first
judges where a log that ends open stops, :mod:`tarneeb.replay.verify.tail`).

>>> from tarneeb.replay.log import parse_log
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.verify.trust import NOTHING
>>> log = parse_log(play_logged_match("qahwa41", seed=b"hands doc"))  # reproducible
>>> v = verify_parsed(log, "m.tlog", NOTHING, count_paths=False, fast=False)
>>> v.clean, v.hands == len(log.hands)
(True, True)
"""

from __future__ import annotations

from typing import Any

from tarneeb.audit.derive import DealDeriver
from tarneeb.replay.log.records import PASS_CODE, HandRecord, ParsedLog
from tarneeb.replay.rules.actions import BID_BASE, PASS, TRUMP_BASE, describe_action
from tarneeb.replay.rules.cards import card_name, check_deal
from tarneeb.replay.rules.engine import IllegalAction, MatchState, Phase
from tarneeb.replay.rules.fastplay import hands_of, owners_from_order
from tarneeb.replay.rules.scoring import Hand
from tarneeb.replay.verify.ending import check_end, team_name
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.provenance import (
    NO_DEAL,
    NO_RECEIPT_NOTE,
    SECRET_HAND,
    check_header_form,
    check_seeds,
    check_signature,
    deal_of,
    note_rules,
    note_secret_hands,
    report_not_replayed,
)
from tarneeb.replay.verify.trust import Trust

SUITS = "♣♦♥♠"

_CALL_KINDS = {"bid-range": "bid-out-of-range", "bid-minimum": "bid-below-minimum",
               "bid-not-higher": "bid-not-higher", "wrong-phase": "pass-not-allowed"}


def verify_parsed(log: ParsedLog, path: str, trust: Trust, count_paths: bool,
                  fast: bool) -> Verdict:
    """The verdict of ``log`` as it stands (where a log that ends open stops is judged
    before: :func:`~tarneeb.replay.verify.replayer.judged_log`)."""
    public_key = trust.public_key
    receipt = trust.receipt_for(log.header.match_id)
    v = Verdict(path)
    v.rules = log.header.rules
    v.computer = tuple(s.computer for s in log.header.seats)
    v.names = tuple(s.name for s in log.header.seats)
    note_rules(log.header.rules, v)
    check_header_form(log.header, v)
    check_signature(log, v, public_key, trust.keys)
    deriver, no_deal = check_seeds(log, v, trust.root, public_key, trust.server_seed)
    if receipt is not None:
        from tarneeb.replay.verify.receipt import check_receipt

        check_receipt(log.header, receipt, v, public_key, log.hands)
    elif log.header.server_commitment is not None:
        v.notes.append(NO_RECEIPT_NOTE)
    header = log.header
    first_dealer = header.first_dealer
    seeds_ok = False
    if deriver is not None:
        # proven only when every seed matches what was committed (and published) before play
        seeds_ok = not any(f.kind in ("client-seed", "batch-proof", "receipt-mismatch")
                           for f in v.findings)
        drawn = deriver.first_dealer()
        if drawn != first_dealer:
            v.add("wrong-first-dealer", f"the log names seat {first_dealer} as first dealer, "
                  f"but the seeds draw seat {drawn}", seat=first_dealer)
            first_dealer = drawn
    state = MatchState(header.rules, first_dealer)
    timers: list[int] = []
    replay = _HandReplay(state, v, deriver, no_deal, fast)
    if header.blind:  # libsodium is loaded only for a log dealt blind
        from tarneeb.replay.verify.blind import BlindChecker

        replay.blind = BlindChecker(log, v)
        replay.fast = False  # the fast path deals from the seeds
        v.blind = True
    for rec, offset in zip(log.hands, log.offsets, strict=True):
        if state.is_over:
            v.add("played-after-win", f"hand {rec.deal_number} was played after "
                  f"{team_name(state.winner)} had won the match", hand=rec.deal_number,
                  offset=offset)
            break
        replay.run(rec, offset)
        timers.append(rec.timer)
    v.hands, v.played, v.recorded = replay.replayed, replay.played, replay.recorded
    v.deals_proven = seeds_ok  # then every deal is derived: none is recorded or missing
    if replay.blind is not None:
        v.deals_proven = seeds_ok and not replay.blind.faults and not replay.missing
        note_secret_hands(v, replay.blind.secret_cancelled)
        if replay.blind.v1_hands:  # tarneeb-blind-v1: nothing proves the passes
            v.blind_v1 = True
            v.notes.append(f"{len(replay.blind.v1_hands)} dealing attempt(s) dealt blind under "
                           "tarneeb-blind-v1: their shuffle passes carry no proofs, so a pass "
                           "that changed the deck is named only with the revealed keys")
        for n in replay.blind.secret_cancelled:  # never shown: no made-up cards in the history
            if n < len(state.history):
                state.history[n].hands = (0, 0, 0, 0)
    if v.recorded:
        v.notes.append(f"{v.recorded} of the deals replayed are recorded by the platform, not "
                       "proven by committed seeds")
    if trust.require_proof:
        require_proof(v, replay.blind.v1_hands if replay.blind is not None else [])
    report_not_replayed(v, replay.missing)
    check_end(log, state, v, replay.at_last_move)
    if count_paths:
        from tarneeb.replay.rules.paths import exercised_paths

        v.paths = exercised_paths(header.rules, state.history, timers)
    v.history = state.history
    v.open_hand = state.hand  # (None when no hand is under way)
    return v


def require_proof(v: Verdict, v1_hands: list[int]) -> None:
    """The user requires every deal proven from the log (``--require-proof``): a deal the
    platform recorded, or dealt blind under ``tarneeb-blind-v1`` (its passes unproven), is
    an ``unproven-deal`` finding (the recorded ones together, each v1 hand on its own)."""
    if v.recorded:
        v.add("unproven-deal", f"{v.recorded} of the deals replayed are recorded by the "
              "platform, not derived from committed seeds: nothing in the log proves them, "
              "and proof is required")
    for n in v1_hands:
        v.add("unproven-deal", "dealt blind under tarneeb-blind-v1: its shuffle passes carry "
              "no proofs, and proof is required", hand=n)


class _Abandon(Exception):
    """The hand cannot be replayed further; carry on from the log's own totals."""


class _LogStops(_Abandon):
    """The hand a log stops in (no claims record) is replayed to its last move."""


class _HandReplay:
    """Replays one hand record at a time on the match state, adding findings."""

    def __init__(self, state: MatchState, v: Verdict, deriver: DealDeriver | None,
                 no_deal: str = "", fast: bool = True) -> None:
        self.state, self.v, self.deriver, self.no_deal = state, v, deriver, no_deal
        self.drift = [0, 0, 0, 0]  # claimed minus true running totals, after the last hand
        self.replayed = self.played = self.recorded = 0
        self.missing: list[tuple[int, int, str]] = []  # (deal number, offset, why) unreplayed
        self.fast = fast and deriver is not None
        self.reveals = state.rules.reveals_card
        self.blind: Any = None  # a BlindChecker for a log dealt blind
        self.at_last_move = False  # the hand the log stops in was replayed to its last move

    def _fast(self) -> bool:
        """A derived deal whose every move is legal, as one piece (:meth:`MatchState.play_hand`),
        then the claims: ``False`` with the state untouched when the hand needs the
        move-by-move replay below, which says what is wrong."""
        state, rec, deriver = self.state, self.rec, self.deriver
        if deriver is None:  # (the fast path is only taken with a deriver)
            return False
        order = bytes(deriver.deck(self.n))
        thirteenth = order[51]  # the last card dealt
        if rec.revealed != (thirteenth if self.reveals else None):
            return False
        owners = owners_from_order(order, state.dealer)
        hand = state.play_hand(hands_of(owners), thirteenth, rec.calls, rec.trump, rec.plays,
                               owners)
        if hand is None:
            return False
        self.replayed += 1
        if hand.cancelled:
            if rec.tricks is not None or rec.scores is not None or rec.trump is not None \
                    or rec.totals != hand.totals or any(self.drift):
                self._cancelled_claims()
        else:
            self.played += 1
            if rec.tricks != hand.tricks or rec.scores != hand.scores \
                    or rec.totals != hand.totals or any(self.drift):
                self._claims()
        return True

    def run(self, rec: HandRecord, offset: int) -> None:
        state, v = self.state, self.v
        n = state.deal_number
        self.offset, self.rec, self.n = offset, rec, n
        if self.fast and rec.closed and not rec.timer and rec.deal is None \
                and rec.deal_number == n and rec.dealer == state.dealer and self._fast():
            return
        if rec.deal_number != n:
            v.add("wrong-deal-number", f"the log numbers this dealing attempt {rec.deal_number}, "
                  f"but it is attempt {n}", hand=n, offset=offset)
        if rec.dealer != state.dealer:
            v.add("wrong-dealer", f"seat {rec.dealer} dealt, but it was seat {state.dealer}'s "
                  "deal", hand=n, seat=rec.dealer, offset=offset)
        dealt = False
        try:
            self._deal()
            dealt = True
            self._bidding()
            if state.phase in (Phase.DEAL, Phase.OVER):  # cancelled
                self._cancelled_claims()
            else:
                self._play()
                if rec.closed:
                    self._claims()
                    self.played += 1
        except _LogStops:
            self.replayed += 1
            self.at_last_move = True
            return
        except _Abandon:
            if rec.closed:
                self._resync()
            elif dealt:  # the hand a log stops in: replayed as far as it goes
                self.replayed += 1
            return
        self.replayed += 1
        self.at_last_move = not rec.closed  # an open hand cancelled, or after its 52nd card
        if rec.timer:
            self._timer_marks(state.history[-1])

    # -- the deal
    def _blind_deal(self) -> None:
        """A blind hand: its transcript checked, dealt the hands it proves."""
        state, rec, v, n = self.state, self.rec, self.v, self.n
        if rec.deal is not None:
            v.add("not-canonical", "a hand dealt blind writes out a deal; FORMAT.md has nil "
                  "there", hand=n, offset=self.offset)
        reveals = state.rules.reveals_card
        bh = self.blind.check(rec, n, state.dealer, reveals, self.offset)
        if bh is not None and bh.waiting is not None:  # the deal stopped: nothing to replay
            raise _Abandon
        if bh is None or bh.hands is None or (reveals and bh.thirteenth is None):
            self.missing.append((n, self.offset, "its blind deal does not give four hands"))
            raise _Abandon
        if not bh.proven:  # only calls are replayed on secret hands: they do not depend on them
            if rec.plays or (state.rules.trump == "named" and rec.trump is not None):
                self.missing.append((n, self.offset, SECRET_HAND))
                raise _Abandon
            self.blind.secret_cancelled.append(n)
        state.deal(bh.hands, bh.thirteenth if reveals else None)
        self._revealed(bh.thirteenth, opened=True)

    def _deal(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        if self.blind is not None:
            self._blind_deal()
            return
        deal = deal_of(rec, self.deriver, n, state.dealer)
        if deal is None:
            self.missing.append((n, self.offset, self.no_deal or NO_DEAL))
            raise _Abandon
        hands, thirteenth = deal
        derived = self.deriver is not None
        if derived:
            if rec.deal is not None:
                if (rec.deal.hands, rec.deal.thirteenth) != deal:
                    v.add("wrong-deal", "the recorded deal is not the one the committed seeds "
                          "produce", hand=n, offset=self.offset)
                else:
                    v.add("not-canonical", "the record writes out the deal the seeds derive; "
                          "FORMAT.md has nil there", hand=n, offset=self.offset)
        else:
            problem = check_deal(hands, state.dealer, thirteenth, state.rules.reveals_card)
            if problem:
                v.add("bad-deal", f"the recorded deal is not a deal: {problem}", hand=n,
                      offset=self.offset)
                raise _Abandon
            self.recorded += 1  # a deal that is no deal is not replayed from
        state.deal(hands, thirteenth, validate=not derived)
        self._revealed(thirteenth, opened=False)

    def _revealed(self, thirteenth: int | None, opened: bool) -> None:
        """The card the log reveals must be the dealer's 13th where the rules show it, and
        none where they do not; ``opened``: a blind deal's proof opened the 13th card."""
        state, rec, v, n = self.state, self.rec, self.v, self.n
        if not state.rules.reveals_card:
            if rec.revealed is not None:  # nothing shows it: a bare claim
                v.add("wrong-revealed-card", f"the log reveals {card_name(rec.revealed)}, but "
                      f"{state.rules.name} reveals no card", hand=n, offset=self.offset)
        elif rec.revealed != thirteenth:
            if opened:  # cannot be: the proof names it
                v.add("wrong-revealed-card", "the revealed card is not the one opened", hand=n,
                      seat=state.dealer, offset=self.offset)
                return
            shown = card_name(rec.revealed) if rec.revealed is not None else "no card"
            actual = card_name(thirteenth) if thirteenth is not None else "no card"
            v.add("wrong-revealed-card", f"the log reveals {shown}, but the dealer's 13th "
                  f"card is {actual}", hand=n, seat=state.dealer,
                  card=shown, offset=self.offset)

    # -- bids
    def _timer_check(self, move: int, action: int, trick: int | None = None) -> None:
        if self.rec.timer >> move & 1 and action not in self.state.timer_actions():
            allowed = ", ".join(describe_action(a) for a in self.state.timer_actions())
            self.v.add("wrong-timer-move", f"the timer's move was {describe_action(action)}, "
                       f"but the rules' automatic move is {allowed}", hand=self.n, trick=trick,
                       seat=self.state.current_player,
                       card=card_name(action) if action < 52 else None, offset=self.offset)

    def _bidding(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        timer = rec.timer
        move = 0
        if not timer:  # the fast path, without timer moves
            move = state.apply_calls([(s, PASS if c == PASS_CODE else BID_BASE + c)
                                      for s, c in rec.calls])
        for seat, code in rec.calls[move:]:
            if state.phase != Phase.BID:
                v.add("bidding-overrun", f"seat {seat}'s call comes after the bidding had ended",
                      hand=n, seat=seat, offset=self.offset)
                break
            action = PASS if code == PASS_CODE else BID_BASE + code
            if seat != state.current_player:
                said = describe_action(action)
                v.add("bid-out-of-turn", f"seat {seat} made a call ({said}) when it was seat "
                      f"{state.current_player}'s turn", hand=n, seat=seat, offset=self.offset)
                raise _Abandon
            if timer:
                self._timer_check(move, action)
            move += 1
            problem = state.check(action)
            if problem is not None:
                # a pass in personal bidding is no bid at all: the state cannot hold it
                no_bid = action == PASS or problem.kind == "wrong-phase"
                v.add("pass-not-allowed" if no_bid else
                      _CALL_KINDS.get(problem.kind, "bid-out-of-range"), str(problem), hand=n,
                      seat=seat, offset=self.offset)
                if no_bid or (state.rules.bidding == "personal" and not 2 <= code <= 13):
                    raise _Abandon  # no value to score it by
            state.apply_unchecked(action)
        if state.phase == Phase.BID:
            # the log stops in the bidding; a trump named or a card played after it is a
            # move the bidding never allowed, open hand or not
            if not rec.closed and not rec.plays and rec.trump is None:
                raise _LogStops
            v.add("bidding-incomplete", f"the bidding stops before it is over: seat "
                  f"{state.current_player} has not called", hand=n, seat=state.current_player,
                  offset=self.offset)
            raise _Abandon
        self.move = move

    def _cancelled_claims(self) -> None:
        rec, v, n, hand = self.rec, self.v, self.n, self.state.history[-1]
        total = sum(self._bid_values(hand))
        if rec.plays:
            why = ("all four passed" if self.state.rules.bidding == "auction" else
                   f"the bids total {total}, below the minimum of "
                   f"{self.state.rules.lowest_total(max(_totals(hand)))}")
            v.add("played-when-cancelled", f"the hand was played although {why}: it does not "
                  "count", hand=n, offset=self.offset)
        if not rec.closed:  # the hand a log stops in: its moves are checked, it has no claims
            if rec.trump is not None:  # a trump named after the bidding cancelled the hand
                v.add("not-canonical", "the hand is cancelled, but its record carries a trump; "
                      "FORMAT.md has nil there for a cancelled hand", hand=n, offset=self.offset)
            return
        if rec.scores is not None and any(rec.scores):
            v.add("wrong-hand-score", "the log scores a cancelled hand", hand=n,
                  offset=self.offset)
        extra = [what for what, value in (("a trump", rec.trump), ("trick counts", rec.tricks),
                                          ("hand scores", rec.scores)) if value is not None]
        if extra:
            v.add("not-canonical", f"the hand is cancelled, but its record carries "
                  f"{' and '.join(extra)}; FORMAT.md has nil there for a cancelled hand",
                  hand=n, offset=self.offset)
        self._compare_totals(rec.totals, _totals(hand))

    def _timer_marks(self, hand: Hand) -> None:
        """Timer marks only on moves the hand has: calls, the named trump, the plays."""
        moves = len(self.rec.calls) + len(self.rec.plays) + (hand.declarer is not None)
        extra = self.rec.timer >> moves
        if extra:
            marks = [moves + i for i in range(extra.bit_length()) if extra >> i & 1]
            shown = ", ".join(map(str, marks[:5])) + (" …" if len(marks) > 5 else "")
            self.v.add("not-canonical", f"the timer marks move(s) {shown}, but the hand has "
                       f"only {moves} moves (0-{moves - 1})", hand=self.n, offset=self.offset)

    @staticmethod
    def _bid_values(hand: Hand) -> list[int]:
        return [a - BID_BASE for _, a in hand.calls if a != PASS]

    # -- play
    def _play(self) -> None:
        state, rec, v, n = self.state, self.rec, self.v, self.n
        move = self.move
        if state.phase == Phase.TRUMP:
            if rec.trump is None:
                if not rec.closed and not rec.plays:  # the log stops before the trump is named
                    raise _LogStops
                v.add("wrong-trump", "the auction winner named no trump", hand=n,
                      seat=state.current_player, offset=self.offset)
                raise _Abandon
            self._timer_check(move, TRUMP_BASE + rec.trump)
            move += 1
            state.apply(TRUMP_BASE + rec.trump)
        elif rec.closed and rec.trump != state.trump:
            shown = SUITS[rec.trump] if rec.trump is not None else "none"
            given = SUITS[state.trump] if state.trump is not None else "none"
            v.add("wrong-trump", f"the log gives {shown} as trump, but the rules give "
                  f"{given}", hand=n, offset=self.offset)
        if not rec.plays:
            if not rec.closed:
                raise _LogStops
            total = sum(self._bid_values(state.hand_under_way))
            v.add("cancelled-wrongly", f"the hand was not played, but the bids total {total}, "
                  "enough to play", hand=n, offset=self.offset)
            raise _Abandon
        timer = rec.timer >> move
        hands = state.hands
        plays = rec.plays
        start = 0 if timer else state.play_cards(plays)  # the fast path, without timer moves
        for k in range(start, len(plays)):
            card = plays[k]
            if timer >> k & 1:
                self._timer_check(move + k, card, k // 4 + 1)
            try:
                state.apply(card)
            except IllegalAction as e:
                seat = state.current_player
                trick = k // 4 + 1
                where = dict(hand=n, trick=trick, seat=seat, card=card_name(card),
                             offset=self.offset)
                if e.kind == "renege":
                    v.add("renege", f"renege: {e}", **where)
                    state.apply(card, checked=False)
                    continue
                owner = next((s for s in range(4) if hands[s] >> card & 1), None)
                if owner is None:
                    played = state.hand_under_way.plays
                    first = played.index(card) // 4 + 1 if card in played else None
                    earlier = f" in trick {first}" if first is not None else ""
                    v.add("card-already-played", f"{card_name(card)} was already played"
                          f"{earlier}, and is played again in trick {trick}", **where)
                elif k % 4 == 0 and k > 0:
                    v.add("wrong-trick-winner", f"trick {trick} is led with {card_name(card)}, "
                          f"seat {owner}'s card, but seat {seat} won trick {trick - 1} and leads: "
                          f"the trick was given to the wrong seat, or seat {owner} played out "
                          "of turn", **where)
                elif (owner - state.leader) & 3 < len(state.trick):
                    v.add("card-not-held", f"seat {seat} played {card_name(card)}, which it "
                          f"does not hold: it is seat {owner}'s, who has already played to "
                          "this trick", **where)
                else:
                    v.add("played-out-of-turn", f"{card_name(card)} is seat {owner}'s card, "
                          f"played when it was seat {seat}'s turn", **where)
                raise _Abandon from None
        if len(rec.plays) < 52:
            if not rec.closed:  # the log stops inside the play
                raise _LogStops
            v.add("hand-incomplete", f"the hand stops after {len(rec.plays)} of 52 cards",
                  hand=n, trick=len(rec.plays) // 4 + 1, offset=self.offset)
            raise _Abandon

    # -- claims
    def _compare(self, kind: str, what: str, claimed: list[int] | None,
                 actual: list[int]) -> None:
        if claimed == actual:
            return
        if claimed is None:
            self.v.add(kind, f"the log claims no {what}s", hand=self.n, offset=self.offset)
            return
        for s in range(4):
            if claimed[s] != actual[s]:
                self.v.add(kind, f"the log claims a {what} of {claimed[s]} for seat {s}, "
                           f"the rules give {actual[s]}", hand=self.n, seat=s,
                           offset=self.offset)

    def _claims(self) -> None:
        rec, hand = self.rec, self.state.history[-1]
        self._compare("wrong-trick-count", "trick count", rec.tricks, hand.tricks)
        self._compare("wrong-hand-score", "hand score", rec.scores, hand.scores or [0] * 4)
        self._compare_totals(rec.totals, _totals(hand))

    def _compare_totals(self, claimed: list[int] | None, actual: list[int]) -> None:
        """Report a wrong running total where the error arises or changes, not again in every
        later hand that only carries it forward (``claimed`` is ``None`` in a hand the log
        stops in, which has no claims)."""
        if claimed is None:
            return
        drift = [c - a for c, a in zip(claimed, actual, strict=True)]
        for s in range(4):
            if drift[s] and drift[s] != self.drift[s]:
                carried = f" (it was already off by {self.drift[s]})" if self.drift[s] else ""
                self.v.add("wrong-total", f"the log claims a running total of {claimed[s]} for "
                           f"seat {s}, the rules give {actual[s]}{carried}", hand=self.n, seat=s,
                           offset=self.offset)
        self.drift = drift

    def _resync(self) -> None:
        """Finish an unreplayable hand with the log's own totals, so the rest still checks."""
        state = self.state
        if state.hand is None and self.n != state.deal_number:  # it ended before the trouble
            return
        before, claimed = list(state.totals), self.rec.totals
        if claimed is None:  # the hand the log stops in: no totals to carry on with
            return
        state.finish_hand_with([claimed[s] - before[s] for s in range(4)])
        self.drift = [0, 0, 0, 0]
        if not self.missing or self.missing[-1][0] != self.n:
            self.v.notes.append(f"hand {self.n} could not be replayed to its end; the rest of "
                                "the match is checked from the totals the log claims after it")



__all__ = ["verify_parsed"]


def _totals(hand: Hand) -> list[int]:
    """The running totals after a finished hand (which always has them)."""
    if hand.totals is None:
        raise ValueError(f"hand {hand.deal_number + 1} is not finished: it has no totals")
    return hand.totals
