"""Driving one engine through one match script beside this project's engine, in this
process: before every move the seat to move and the legal actions are compared, after
every trick the trick counts, after every hand the scores, totals and winner; the first
difference (or the engine raising, or answering garbage) ends the match.

:func:`compare` and :func:`assert_agrees` are for property tests; :func:`run_script`
is what a :class:`~tarneeb.testing.regress.runner.Runner` calls in its worker.
"""

from __future__ import annotations

import collections
import operator
import os
import traceback
from collections.abc import Iterable, MutableSequence
from itertools import islice
from typing import Any, Literal, overload

from tarneeb.audit.encoding import shown
from tarneeb.replay.rules.actions import describe_action, is_play
from tarneeb.replay.rules.cards import SUIT_SYMBOLS, card_name
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.scoring import Hand
from tarneeb.testing.protocol import NUM_ACTIONS, Engine, EngineFactory, EngineFailure
from tarneeb.testing.regress.command import SubprocessEngine
from tarneeb.testing.regress.report import Disagreement, MatchReport
from tarneeb.testing.regress.scripts import MatchScript, ScriptError

METHODS = ("new_match", "deal", "to_move", "legal_actions", "apply", "tricks", "hand_scores",
           "totals", "winner")
_CODES = {name: i for i, name in enumerate(("factory", *METHODS))}


# ---------------------------------------------------------------------- checking values

class _Garbage(Exception):
    pass


def _show(v: Any, limit: int = 60) -> str:
    try:
        text = shown(repr(v))  # an object's own __repr__ may hold anything
    except Exception:
        return f"<a {type(v).__name__} that cannot be shown>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _said(e: BaseException) -> str:
    """What an exception an engine raised says, as safe text: clipped, every control
    character escaped (it goes into a report line, a JUnit file, a pytest failure), and
    never raising itself (an exception whose ``__str__`` raises).

    >>> print(_said(ValueError("bad\\x1b[2J\\nline")))
    bad\\x1b[2J\\nline
    """
    try:
        text = str(e)
    except Exception:
        return f"<a {type(e).__name__} that cannot be shown>"
    return shown(_clip(text))


def _int(v: Any, lo: int, hi: int) -> int:
    if type(v) is int:  # the common case, fast
        if lo <= v <= hi:
            return v
        raise _Garbage
    if isinstance(v, bool):
        raise _Garbage
    try:
        n = operator.index(v)
    except Exception:
        raise _Garbage from None
    if not lo <= n <= hi:
        raise _Garbage
    return n


def _items(v: Any, most: int) -> list[Any]:
    if v is None or isinstance(v, str | bytes | bytearray | dict):
        raise _Garbage
    try:
        return list(islice(iter(v), most + 1))
    except _Garbage:
        raise
    except Exception:
        raise _Garbage from None


def _actions_text(actions: Iterable[int], limit: int = 8) -> str:
    names = [describe_action(a) for a in sorted(actions)]
    if len(names) > limit:
        names = [*names[:limit], f"… ({len(names) - limit} more)"]
    return ", ".join(names)


def _not_allowed(ref: MatchState, extra: Iterable[int]) -> list[str]:
    """What the engine allows that the rules do not, grouped by the rule each breaks,
    that rule named in game terms.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> m = MatchState(preset("sahrat400"), first_dealer=3)
    >>> m.deal((0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39))
    >>> m.totals = [30, 0, 0, 0]
    >>> from tarneeb.replay.rules.actions import BID_BASE
    >>> print(_not_allowed(m, [BID_BASE + 2])[0].split(": ")[1])
    the lowest bid of seat 0 is 3, as its score is 30 (the minimum bid rises with the score)
    """
    groups: dict[str, list[int]] = {}
    for a in sorted(extra):
        problem = ref.check(a)
        groups.setdefault(problem.kind if problem is not None else "", []).append(a)
    seat = ref.current_player
    out = []
    for kind, actions in groups.items():
        why = ""
        if kind == "renege" and ref.led_suit is not None:
            led = SUIT_SYMBOLS[ref.led_suit]
            why = f": seat {seat} holds {led}, the led suit, and must follow it"
        elif kind == "bid-minimum" and seat is not None:
            score, low = ref.totals[seat], ref.lowest_bid(seat)
            why = (f": the lowest bid of seat {seat} is {low}, as its score is {score} (the "
                   "minimum bid rises with the score)")
        elif kind == "bid-range":
            low = ref.rules.min_bid if ref.rules.bidding == "personal" else ref.rules.auction_min
            high = ref.rules.max_bid if ref.rules.bidding == "personal" else 13
            why = f": bids run from {low} to {high}"
        elif kind == "bid-not-higher":
            why = (f": each bid in the auction must be higher than the last, "
                   f"{ref.highest_call()} already bid")
        elif kind == "not-held":
            why = f": seat {seat} does not hold them"
        elif kind == "wrong-phase":
            problem = ref.check(actions[0])
            why = f": {problem}" if problem is not None else ""
        out.append(f"the engine allows {_actions_text(actions)}, which the rules do not{why}")
    return out


def _team(t: int | None) -> str:
    return "no winner yet" if t is None else f"team {t} (seats {t} and {t + 2})"


def _phase_text(state: MatchState) -> str:
    if state.phase == Phase.BID:
        return "the auction" if state.rules.bidding == "auction" else "the bidding"
    if state.phase == Phase.TRUMP:
        return "naming the trump"
    return "the play"


# ---------------------------------------------------------------------- the driver

class _EngineFailed(Exception):
    def __init__(self, d: Disagreement) -> None:
        super().__init__(str(d))
        self.d = d


def _where_raised(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return ""
    frame = tb[-1]
    return f" (at {os.path.basename(frame.filename)}:{frame.lineno} in {frame.name})"


class _Driver:
    """Feeds one script to one engine beside the reference engine."""

    def __init__(self, engine: Any, script: MatchScript, progress: MutableSequence[int],
                 isolated: bool = False) -> None:
        self.engine, self.script, self.progress = engine, script, progress
        self.isolated = isolated  # in a worker of its own: no Ctrl-C reaches it
        # the place of each of the last calls, for a failure an answer read late reveals
        self.places: collections.deque[tuple[int | None, ...]] = collections.deque(maxlen=8)
        self.ref = script.reference
        self.hand: int | None = None
        self.trick: int | None = None
        self.seat: int | None = None
        self.move: int | None = None
        self.moves = 0

    # -- locations and outcomes
    def _at(self, hand: int | None, trick: int | None, seat: int | None,
            move: int | None) -> None:
        self.hand, self.trick, self.seat, self.move = hand, trick, seat, move
        p = self.progress
        p[0] = -1 if hand is None else hand
        p[1] = -1 if trick is None else trick
        p[2] = -1 if seat is None else seat
        p[4] = -1 if move is None else move

    def found(self, kind: str, message: str, engine: str | None = None,
              reference: str | None = None) -> Disagreement:
        return Disagreement(kind, message, self.hand, self.trick, self.seat,
                            describe_action(self.move) if self.move is not None else None,
                            engine, reference)

    def call(self, method: str, *args: Any) -> Any:
        self.progress[3] = _CODES[method]
        self.places.append((self.hand, self.trick, self.seat, self.move))
        try:
            return getattr(self.engine, method)(*args)
        except EngineFailure as e:  # an adapter's own account (a subprocess that hung, ...)
            if 0 < e.calls_back < len(self.places):  # about an earlier call: its place
                self.hand, self.trick, self.seat, self.move = self.places[-1 - e.calls_back]
            raise _EngineFailed(self.found(e.kind, e.message)) from None
        except BaseException as e:  # (SystemExit, GeneratorExit, a BaseException of its own)
            if isinstance(e, KeyboardInterrupt) and not self.isolated:
                raise  # Ctrl-C, in this process
            listed = ", ".join(_show(a, 30) for a in args)
            raise _EngineFailed(self.found(
                "raised", f"{method}({listed}) raised {type(e).__name__}: "
                f"{_said(e)}{_where_raised(e)}",
                engine=f"{type(e).__name__}: {_said(e)}")) from None

    def garbage(self, method: str, value: Any, wanted: str) -> _EngineFailed:
        return _EngineFailed(self.found(
            "garbage", f"{method}() answered {_show(value)}, not {wanted}", engine=_show(value)))

    # -- typed reads
    def read_seat(self) -> int | None:
        v = self.call("to_move")
        if v is None:
            return None
        try:
            return _int(v, 0, 3)
        except _Garbage:
            raise self.garbage("to_move", v, "a seat 0-3 or None") from None

    def read_actions(self) -> set[int]:
        v = self.call("legal_actions")
        if type(v) is list and 0 < len(v) <= NUM_ACTIONS \
                and all(type(a) is int for a in v):  # the common case, fast
            actions = set(v)
            if len(actions) == len(v) and min(actions) >= 0 and max(actions) < NUM_ACTIONS:
                return actions
        wanted = f"a sequence of distinct actions 0-{NUM_ACTIONS - 1}"
        try:
            items = _items(v, NUM_ACTIONS)
            listed = [_int(a, 0, NUM_ACTIONS - 1) for a in items]
            actions = set(listed)
            if len(items) > NUM_ACTIONS or len(actions) != len(listed):
                raise _Garbage
        except _Garbage:
            raise self.garbage("legal_actions", v, wanted) from None
        return actions

    @overload
    def read_ints(self, method: str, lo: int, hi: int, nil: Literal[False] = False
                  ) -> list[int]: ...
    @overload
    def read_ints(self, method: str, lo: int, hi: int, nil: bool) -> list[int] | None: ...

    def read_ints(self, method: str, lo: int, hi: int, nil: bool = False) -> list[int] | None:
        v = self.call(method)
        if v is None and nil:
            return None
        try:
            items = _items(v, 4)
            if len(items) != 4:
                raise _Garbage
            return [_int(x, lo, hi) for x in items]
        except _Garbage:
            what = f"four numbers {lo}-{hi} by seat" if lo == 0 else "four whole numbers by seat"
            raise self.garbage(method, v, what + (" or None" if nil else "")) from None

    def read_winner(self) -> int | None:
        v = self.call("winner")
        if v is None:
            return None
        try:
            return _int(v, 0, 1)
        except _Garbage:
            raise self.garbage("winner", v, "a team 0-1 or None") from None

    # -- the match
    def run(self) -> Disagreement | None:
        missing = [m for m in METHODS if not callable(getattr(self.engine, m, None))]
        if missing:
            return self.found("protocol", "the engine has no " + ", ".join(
                f"{m}()" for m in missing) + f" ({type(self.engine).__name__} is not an Engine)")
        try:
            found = self._run()
            if found is None:
                self._end()
            return found
        except _EngineFailed as e:
            return e.d

    def _end(self) -> None:
        """After the last call: an engine command must have written nothing more."""
        if isinstance(self.engine, SubprocessEngine):
            try:
                self.engine.end_match()
            except EngineFailure as e:
                raise _EngineFailed(self.found(e.kind, e.message)) from None

    def _run(self) -> Disagreement | None:
        s = self.script
        ref = MatchState(s.rules, s.first_dealer)
        self.call("new_match", s.rules, s.first_dealer)
        for n, d in enumerate(s.deals):
            if ref.phase != Phase.DEAL:
                raise ScriptError(f"{s.name}: hand {n} is dealt after the match was won")
            self._at(n, None, None, None)
            ref.deal(d.hands, d.thirteenth)
            hand = ref.hand_under_way
            self.call("deal", d.hands, d.thirteenth)
            for action in d.actions:
                found = self._move(ref, hand, n, action)
                if found is not None:
                    return found
            if d.open:  # the hand an abandoned match stops in: no end to compare
                if n != len(s.deals) - 1:
                    raise ScriptError(f"{s.name}: hand {n} stops before it is over, and "
                                      "another follows it")
                return None
            if ref.phase not in (Phase.DEAL, Phase.OVER):
                raise ScriptError(f"{s.name}: hand {n} stops before it is over")
            found = self._hand_over(ref, hand, n)
            if found is not None:
                return found
        return None

    def _move(self, ref: MatchState, hand: Hand, n: int, action: int) -> Disagreement | None:
        seat = ref.current_player
        trick = len(hand.plays) // 4 + 1 if ref.phase == Phase.PLAY else None
        self._at(n, trick, seat, action)
        ref_legal = ref.legal_actions()
        if action not in ref_legal:
            problem = ref.check(action)
            raise ScriptError(f"{self.script.name}: hand {n}: {describe_action(action)} is not "
                              f"a legal move ({problem})")
        said = self.read_seat()
        if said != seat:
            return self.found(
                "to-move", f"seat {seat} is to move in {_phase_text(ref)} per {self.ref}, "
                f"{'no one' if said is None else f'seat {said}'} per the engine",
                engine=str(said), reference=str(seat))
        legal = self.read_actions()
        if legal != set(ref_legal):
            parts = []
            if action not in legal:
                parts.append(f"the recorded move {describe_action(action)} is not among the "
                             "engine's legal actions")
            extra, lacking = legal - set(ref_legal), set(ref_legal) - legal - {action}
            if extra:
                parts.extend(_not_allowed(ref, extra))
            if lacking:
                parts.append(f"the engine does not allow {_actions_text(lacking)}")
            return self.found("legal-actions", f"legal actions in {_phase_text(ref)}: "
                              + "; ".join(parts), engine=_actions_text(legal, 52),
                              reference=_actions_text(ref_legal, 52))
        self.call("apply", action)
        ref.apply_unchecked(action)  # in ref_legal: judged already
        self.moves += 1
        if is_play(action) and len(hand.plays) % 4 == 0:
            return self._trick_over(hand)
        return None

    def _trick_over(self, hand: Hand) -> Disagreement | None:
        counts = self.read_ints("tricks", 0, 13)
        if counts == hand.tricks:
            return None
        k = len(hand.trick_winners)
        winner = hand.trick_winners[-1]
        leader = hand.trick_leaders[-1]
        cards = hand.plays[-4:]
        played = ", ".join(f"seat {(leader + i) & 3} {card_name(c)}" for i, c in enumerate(cards))
        trump = f"trump {SUIT_SYMBOLS[hand.trump]}" if hand.trump is not None else "no trump"
        before = list(hand.tricks)
        before[winner] -= 1
        gained = [s for s in range(4) if counts[s] == before[s] + 1]
        rest_same = all(counts[s] == before[s] for s in range(4) if s not in gained)
        if len(gained) == 1 and rest_same:
            return self.found(
                "trick-winner", f"trick {k} ({played}; {trump}): won by seat {winner} per "
                f"{self.ref}, by seat {gained[0]} per the engine",
                engine=f"seat {gained[0]}", reference=f"seat {winner}")
        return self.found("tricks", f"after trick {k} ({played}; {trump}): tricks "
                          f"{hand.tricks} per {self.ref}, {counts} per the engine",
                          engine=str(counts), reference=str(hand.tricks))

    def _hand_over(self, ref: MatchState, hand: Hand, n: int) -> Disagreement | None:
        self._at(n, None, None, None)
        said = self.read_seat()
        if said is not None:
            why = "it was cancelled" if hand.cancelled else "13 tricks were played"
            return self.found("to-move", f"the hand is over ({why}), but the engine has seat "
                              f"{said} to move", engine=str(said), reference="None")
        if not hand.cancelled:
            scores = self.read_ints("hand_scores", -(1 << 31), 1 << 31, nil=True)
            if scores != hand.scores:
                return self.found("hand-score", f"hand scores {hand.scores} per {self.ref}, "
                                  f"{scores} per the engine"
                                  f"{self._score_detail(ref, hand, scores)}",
                                  engine=str(scores), reference=str(hand.scores))
        totals = self.read_ints("totals", -(1 << 31), 1 << 31)
        if totals != ref.totals:
            return self.found("totals", f"running totals after the hand {ref.totals} per "
                              f"{self.ref}, {totals} per the engine",
                              engine=str(totals), reference=str(ref.totals))
        won = self.read_winner()
        if won != ref.winner:
            return self.found("winner", f"after the hand: {_team(ref.winner)} per {self.ref}, "
                              f"{_team(won)} per the engine (totals {ref.totals})",
                              engine=str(won), reference=str(ref.winner))
        return None

    @staticmethod
    def _score_detail(ref: MatchState, hand: Hand, scores: list[int] | None) -> str:
        if scores is None or hand.scores is None:
            return ""
        seat = next(s for s in range(4) if scores[s] != hand.scores[s])
        if ref.rules.scoring == "personal":
            return (f" (seat {seat} bid {hand.bid_of(seat)} and took {hand.tricks[seat]}: "
                    f"{hand.scores[seat]:+d}, not {scores[seat]:+d})")
        team = (hand.declarer or 0) & 1  # a team game's hand has its declarer
        t = hand.tricks[team] + hand.tricks[team + 2]
        return (f" (seat {hand.declarer}'s team bid {hand.contract} and took {t}: seat {seat} "
                f"{hand.scores[seat]:+d}, not {scores[seat]:+d})")


def compare(engine: Engine, match: MatchScript) -> Disagreement | None:
    """Drive ``engine`` (a fresh one) through ``match`` in this process: the first
    disagreement or failure, or ``None`` when it agrees everywhere.

    No time limit: use :func:`regress_log` or :class:`Runner` for that.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> from tarneeb.testing.adapters import reference
    >>> compare(reference(), MatchScript(preset("classic"), 0, ())) is None
    True
    """
    return _Driver(engine, match, [-1] * 5).run()


def assert_agrees(engine: Engine | EngineFactory, match: MatchScript) -> None:
    """Raise :class:`AssertionError` naming the first disagreement (for property tests).

    ``engine`` is an engine or a factory of engines (a class, a function: called once).
    """
    if isinstance(engine, type) or (callable(engine) and not isinstance(engine, Engine)):
        engine = engine()
    found = compare(engine, match)
    if found is not None:
        raise AssertionError(f"{match.name}: {found}")


def run_script(factory: EngineFactory, script: MatchScript,
               progress: MutableSequence[int] | None = None,
               isolated: bool = False) -> MatchReport:
    """One match in this process: a fresh engine from ``factory``, the report.

    ``isolated``: this process is a worker in a session of its own, which Ctrl-C does not
    reach, so a :class:`KeyboardInterrupt` is the engine's own, raised like any other."""
    progress = progress if progress is not None else [-1] * 5
    report = MatchReport(script.name, "agree", script.rules.name, script.hands, script.moves)
    progress[:] = [-1, -1, -1, _CODES["factory"], -1]
    try:
        engine = factory()
    except EngineFailure as e:  # an engine command that could not be started afresh
        report.status = "engine-failure"
        report.first = Disagreement(e.kind, e.message)
        return report
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt) and not isolated:
            raise
        report.status = "engine-failure"
        report.first = Disagreement("factory", f"the engine factory raised {type(e).__name__}: "
                                    f"{_said(e)}{_where_raised(e)}")
        return report
    found = _Driver(engine, script, progress, isolated).run()
    if found is not None:
        report.first = found
        report.status = "engine-failure" if found.engine_failure else "disagree"
    return report
