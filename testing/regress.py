"""Drive another engine through recorded matches; report where it first disagrees.

A clean log (one the replayer finds no fault in) is a reference: its deals and
moves are fed to the engine under test through the
:class:`~tarneeb.testing.protocol.Engine` protocol while this project's engine
replays them alongside. Before every move the seat to move and the set of
legal actions must agree; after every trick the trick counts (so the trick
winner); after every hand the hand scores, the running totals and the winner.
The first difference ends the match's check and is reported with the hand
(deal number, from 0), the trick (1–13), the seat and the move.

An engine that raises, answers with the wrong type or an out-of-range value,
loops past the time limit or kills its process fails that match; the run goes
on. Matches run in a worker process (``spawn``), reused while the engine
behaves and replaced after a timeout or a crash.

>>> from tarneeb.replay.simulate import play_logged_match
>>> log = play_logged_match("eram41", seed=b"regress doc")  # reproducible: not secret
>>> regress_log("tarneeb.testing.adapters:reference", log, time_limit=None).status
'agree'
>>> report = regress_log("tarneeb.testing.adapters:broken_trump", log, time_limit=None)
>>> report.status, report.first.kind
('disagree', 'trick-winner')
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.heap
import multiprocessing.sharedctypes
import multiprocessing.spawn
import multiprocessing.util
import operator
import os
import sys
import time
import traceback
import types
from collections.abc import Callable, Iterable, Iterator, MutableSequence, Sequence
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, Literal

from tarneeb.replay.cards import SUIT_SYMBOLS, card_name
from tarneeb.replay.engine import (
    TRUMP_BASE,
    Hand,
    MatchState,
    Phase,
    describe_action,
    is_play,
)
from tarneeb.replay.findings import place
from tarneeb.replay.logformat import LogError, ParsedLog, parse_log, read_log
from tarneeb.replay.logstream import DEFAULT_LIMITS, Limits
from tarneeb.replay.replayer import verify_log
from tarneeb.replay.rules import RuleSet

from .protocol import DEFAULT_TIME_LIMIT, NUM_ACTIONS, Engine, EngineFactory

if sys.platform != "win32":  # the spawn machinery, imported with this module (see below)
    import multiprocessing.popen_spawn_posix
    import multiprocessing.resource_tracker

# The multiprocessing submodules above are imported here rather than on first use, so
# that they live exactly as long as this module: a test runner that drops modules
# imported during a run (pytester) would otherwise leave the package pointing at one
# copy of multiprocessing.heap and sys.modules at another, and pickling fails.

STARTUP_LIMIT = 60.0  # starting the worker and importing the engine's module

Status = Literal["agree", "disagree", "engine-failure", "skipped", "unreadable"]

# What the engine and the recording can disagree on ...
DISAGREEMENTS: dict[str, str] = {
    "to-move": "the seat to move (or that no one is, once the hand is over)",
    "legal-actions": "the set of legal actions of the seat to move",
    "trick-winner": "the seat that won a trick",
    "tricks": "the trick counts after a trick",
    "hand-score": "the score of a hand",
    "totals": "the running totals after a hand",
    "winner": "the team that has won (or that no team has yet)",
}
# ... and the ways an engine can fail a match.
ENGINE_FAILURES: dict[str, str] = {
    "factory": "the engine factory raised or did not return an engine",
    "protocol": "the engine lacks a method of the protocol",
    "raised": "a method of the engine raised an exception",
    "garbage": "a method answered with the wrong type or an out-of-range value",
    "timeout": "the match did not finish within the time limit",
    "crashed": "the engine's process died",
}
METHODS = ("new_match", "deal", "to_move", "legal_actions", "apply", "tricks", "hand_scores",
           "totals", "winner")
_CODES = {name: i for i, name in enumerate(("factory", *METHODS))}


class EngineLoadError(ValueError):
    """``MODULE:FACTORY`` does not name an importable factory (bad input, exit code 2)."""


class RegressInputError(ValueError):
    """A path that is missing or holds no logs (bad input, exit code 2)."""


class ScriptError(ValueError):
    """A match script whose moves the rules do not allow: it is no reference."""


# ---------------------------------------------------------------------- match scripts

@dataclass(frozen=True)
class DealScript:
    """One dealing attempt: the four hands, the dealer's 13th card, every move in order.

    ``actions`` are the calls, then the trump choice (classic), then the 52 cards;
    a cancelled hand has its calls only.
    """

    hands: tuple[int, int, int, int]
    thirteenth: int | None
    actions: tuple[int, ...]


@dataclass(frozen=True)
class MatchScript:
    """A whole match as input for an engine: rules, first dealer, every deal and move.

    >>> from tarneeb.replay.rules import preset
    >>> MatchScript(preset("eram41"), 0, ()).hands
    0
    """

    rules: RuleSet
    first_dealer: int
    deals: tuple[DealScript, ...]
    name: str = "<match>"
    reference: str = "the rules"  # who is right, in messages: "the recording" for a log

    @property
    def hands(self) -> int:
        return len(self.deals)

    @property
    def moves(self) -> int:
        return sum(len(d.actions) for d in self.deals)


def hand_actions(hand: Hand) -> tuple[int, ...]:
    """Every move of an engine :class:`~tarneeb.replay.engine.Hand`, in the order made."""
    actions = [a for _, a in hand.calls]
    if hand.declarer is not None and not hand.cancelled and hand.trump is not None:
        actions.append(TRUMP_BASE + hand.trump)
    actions.extend(hand.plays)
    return tuple(actions)


def script_from_history(rules: RuleSet, first_dealer: int, history: Sequence[Hand],
                        name: str = "<match>", reference: str = "the rules") -> MatchScript:
    """The script of a match the engine played (``MatchState.history``)."""
    deals = tuple(DealScript(tuple(h.hands), h.thirteenth, hand_actions(h))  # type: ignore[arg-type]
                  for h in history)
    return MatchScript(rules, first_dealer, deals, name, reference)


# ---------------------------------------------------------------------- reports

@dataclass
class Disagreement:
    """The first place an engine departs from the recording (or fails).

    ``hand`` is the deal number (from 0), ``trick`` 1–13, ``seat`` and ``move``
    the move being compared: about to be made, or the card that ended the trick.
    ``engine`` and ``reference`` say what each side answered.
    """

    kind: str
    message: str
    hand: int | None = None
    trick: int | None = None
    seat: int | None = None
    move: str | None = None
    engine: str | None = None
    reference: str | None = None

    @property
    def engine_failure(self) -> bool:
        return self.kind in ENGINE_FAILURES

    def where(self) -> str:
        return place("match start", hand=self.hand, trick=self.trick, seat=self.seat,
                     move=self.move)

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MatchReport:
    """The outcome of one match: ``status`` and, unless it agrees, why."""

    name: str
    status: Status
    rules: str | None = None
    hands: int = 0  # dealing attempts in the match, cancelled ones included
    moves: int = 0  # moves in the match
    seconds: float = 0.0
    first: Disagreement | None = None
    reason: str | None = None  # why a log was skipped or unreadable

    @property
    def ok(self) -> bool:
        return self.status == "agree"

    @property
    def compared(self) -> bool:
        return self.status in ("agree", "disagree", "engine-failure")

    def line(self) -> str:
        """One line for a terminal.

        >>> MatchReport("a.tlog", "agree", "eram41", 17, 950, 0.02).line()
        'a.tlog: ok (eram41, 17 hands, 950 moves, 0.02 s)'
        """
        if self.status == "agree":
            return (f"{self.name}: ok ({self.rules}, {self.hands} hands, {self.moves} moves, "
                    f"{self.seconds:.2f} s)")
        if self.status == "disagree":
            return f"{self.name}: DISAGREES at {self.first}"
        if self.status == "engine-failure":
            return f"{self.name}: ENGINE FAILED at {self.first}"
        return f"{self.name}: {self.status}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["first"] = self.first.to_json() if self.first is not None else None
        out["seconds"] = round(self.seconds, 4)
        return out


# ---------------------------------------------------------------------- checking values

class _Garbage(Exception):
    pass


def _show(v: Any, limit: int = 60) -> str:
    try:
        text = repr(v)
    except Exception:
        return f"<a {type(v).__name__} that cannot be shown>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


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

    def __init__(self, engine: Any, script: MatchScript, progress: MutableSequence[int]) -> None:
        self.engine, self.script, self.progress = engine, script, progress
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
        try:
            return getattr(self.engine, method)(*args)
        except (Exception, SystemExit) as e:
            shown = ", ".join(_show(a, 30) for a in args)
            raise _EngineFailed(self.found(
                "raised", f"{method}({shown}) raised {type(e).__name__}: "
                f"{_clip(str(e))}{_where_raised(e)}",
                engine=f"{type(e).__name__}: {_clip(str(e))}")) from None

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
        if type(v) is list and 0 < len(v) <= NUM_ACTIONS:  # the common case, fast
            actions = set(v)
            if len(actions) == len(v) and all(type(a) is int for a in v) \
                    and min(actions) >= 0 and max(actions) < NUM_ACTIONS:
                return actions
        wanted = f"a sequence of distinct actions 0-{NUM_ACTIONS - 1}"
        try:
            items = _items(v, NUM_ACTIONS)
            actions = [_int(a, 0, NUM_ACTIONS - 1) for a in items]
            if len(items) > NUM_ACTIONS or len(set(actions)) != len(actions):
                raise _Garbage
        except _Garbage:
            raise self.garbage("legal_actions", v, wanted) from None
        return set(actions)

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
            return self._run()
        except _EngineFailed as e:
            return e.d

    def _run(self) -> Disagreement | None:
        s = self.script
        ref = MatchState(s.rules, s.first_dealer)
        self.call("new_match", s.rules, s.first_dealer)
        for n, d in enumerate(s.deals):
            if ref.phase != Phase.DEAL:
                raise ScriptError(f"{s.name}: hand {n} is dealt after the match was won")
            self._at(n, None, None, None)
            ref.deal(d.hands, d.thirteenth)
            hand = ref.hand
            self.call("deal", d.hands, d.thirteenth)
            for action in d.actions:
                found = self._move(ref, hand, n, action)
                if found is not None:
                    return found
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
                parts.append(f"the engine allows {_actions_text(extra)}, which the rules do not")
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
        t = hand.tricks[hand.declarer & 1] + hand.tricks[(hand.declarer & 1) + 2]
        return (f" (seat {hand.declarer}'s team bid {hand.contract} and took {t}: seat {seat} "
                f"{hand.scores[seat]:+d}, not {scores[seat]:+d})")


def compare(engine: Engine, match: MatchScript) -> Disagreement | None:
    """Drive ``engine`` (a fresh one) through ``match`` in this process: the first
    disagreement or failure, or ``None`` when it agrees everywhere.

    No time limit: use :func:`regress_log` or :class:`Runner` for that.

    >>> from tarneeb.replay.rules import preset
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
               progress: MutableSequence[int] | None = None) -> MatchReport:
    """One match in this process: a fresh engine from ``factory``, the report."""
    progress = progress if progress is not None else [-1] * 5
    report = MatchReport(script.name, "agree", script.rules.name, script.hands, script.moves)
    progress[:] = [-1, -1, -1, _CODES["factory"], -1]
    try:
        engine = factory()
    except (Exception, SystemExit) as e:
        report.status = "engine-failure"
        report.first = Disagreement("factory", f"the engine factory raised {type(e).__name__}: "
                                    f"{_clip(str(e))}{_where_raised(e)}")
        return report
    found = _Driver(engine, script, progress).run()
    if found is not None:
        report.first = found
        report.status = "engine-failure" if found.engine_failure else "disagree"
    return report


# ---------------------------------------------------------------------- logs as references

def prepare(log: bytes | ParsedLog, name: str = "<log>") -> MatchScript | MatchReport:
    """The script of a clean log, or the report saying why the log is no reference."""
    if not isinstance(log, ParsedLog):
        try:
            log = parse_log(log, name)
        except LogError as e:
            return MatchReport(name, "unreadable", reason=str(e))
    verdict = verify_log(log, name)
    rules = log.header.rules.name
    if verdict.error is not None:
        return MatchReport(name, "unreadable", rules, verdict.hands, reason=verdict.error)
    if not verdict.clean:
        first = verdict.findings[0]
        return MatchReport(name, "skipped", rules, verdict.hands,
                           reason=f"the log is not clean, so it is no reference "
                           f"({len(verdict.findings)} finding(s); first: {first})")
    return script_from_history(log.header.rules, log.header.first_dealer, verdict.history, name,
                               "the recording")


def load_factory(spec: str) -> EngineFactory:
    """The factory named by ``MODULE:FACTORY`` (``FACTORY`` may be dotted, ``pkg.mod:Cls.make``).

    >>> load_factory("tarneeb.testing.adapters:reference").__name__
    'reference'
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise EngineLoadError(f"an engine is named MODULE:FACTORY (for example "
                              f"tarneeb.testing.adapters:reference), not {spec!r}")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise EngineLoadError(f"cannot import the engine module {module_name!r}: {e}") from None
    except (Exception, SystemExit) as e:
        raise EngineLoadError(f"importing the engine module {module_name!r} raised "
                              f"{type(e).__name__}: {e}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise EngineLoadError(f"the module {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise EngineLoadError(f"{spec} is not callable: it must return an engine")
    return obj  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- isolation

def _worker_main(conn: Any, engine: str | EngineFactory, progress: Any) -> None:
    """The worker process: load the factory, then run match scripts until told to stop.

    The engine's prints go to stderr, so the caller's stdout (``--json``) stays clean.
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        factory = load_factory(engine) if isinstance(engine, str) else engine
    except EngineLoadError as e:
        conn.send(("error", str(e)))
        return
    conn.send(("ready", None))
    while True:
        try:
            script = conn.recv()
        except (EOFError, OSError):
            return
        if script is None:
            return
        try:
            conn.send(("report", run_script(factory, script, progress)))
        except ScriptError as e:
            conn.send(("script-error", str(e)))


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start a spawn worker without re-running the caller's ``__main__`` in it.

    The worker needs nothing from ``__main__`` (its target and the engine are
    imported by name), and a script without an ``if __name__ == "__main__"``
    guard would otherwise run again inside it.
    """
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _method_at(progress: Sequence[int]) -> str:
    code = progress[3]
    name = ("factory", *METHODS)[code] if 0 <= code <= len(METHODS) else None
    return "the engine factory" if name == "factory" else f"{name}()" if name else "the engine"


class Runner:
    """Runs matches of one engine, each in a worker process with a time limit.

    ``engine`` is ``"MODULE:FACTORY"`` or a factory importable by name (a
    module-level function or class). ``time_limit=None`` runs in this process
    with no limit and no isolation (fast, for engines you trust).

    >>> from tarneeb.replay.rules import preset
    >>> with Runner("tarneeb.testing.adapters:reference", time_limit=None) as r:
    ...     r.run(MatchScript(preset("eram41"), 0, (), "empty")).status
    'agree'
    """

    def __init__(self, engine: str | EngineFactory, time_limit: float | None = DEFAULT_TIME_LIMIT,
                 startup_limit: float = STARTUP_LIMIT) -> None:
        self.engine = engine
        self.time_limit = time_limit
        self.startup_limit = startup_limit
        self.workers_started = 0
        self._factory: EngineFactory | None = None
        self._proc: Any = None
        self._conn: Any = None
        self._ctx = multiprocessing.get_context("spawn")
        self._progress: Any = None

    # -- lifecycle
    def start(self) -> None:
        """Load the engine (in the worker when isolated); :class:`EngineLoadError` if it fails."""
        if self.time_limit is None:
            if self._factory is None:
                self._factory = (load_factory(self.engine) if isinstance(self.engine, str)
                                 else self.engine)
            return
        if self._proc is not None:
            return
        if self._progress is None:
            self._progress = self._ctx.RawArray("i", 5)
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.engine, self._progress),
                                 name="tarneeb-regress-worker", daemon=True)
        from_main = getattr(self.engine, "__module__", None) == "__main__" or (
            isinstance(self.engine, str) and self.engine.startswith("__main__:"))
        with contextlib.nullcontext() if from_main else _main_module_hidden():
            proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        self.workers_started += 1
        try:
            ready = parent.poll(self.startup_limit)
            kind, detail = parent.recv() if ready else ("error", None)
        except (EOFError, OSError):
            kind, detail = "error", None
        if kind != "ready":
            self._kill()
            if detail is None:
                detail = (f"the engine's worker did not start within {self.startup_limit:g} s "
                          f"(importing {self.engine!r})" if not ready else
                          f"the engine's worker died while importing {self.engine!r}")
            raise EngineLoadError(detail)

    def close(self) -> None:
        """Stop the worker (politely, then by force)."""
        proc, conn = self._proc, self._conn
        if proc is None:
            return
        with contextlib.suppress(OSError, BrokenPipeError):
            conn.send(None)
        proc.join(1.0)
        self._kill()

    def _kill(self) -> None:
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is not None and proc.is_alive():
            proc.kill()
        if proc is not None:
            proc.join(5.0)
        if conn is not None:
            conn.close()

    def __enter__(self) -> Runner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches
    def run_log(self, log: bytes | ParsedLog, name: str = "<log>") -> MatchReport:
        """Check one log: skipped or unreadable when it is no reference."""
        t0 = time.perf_counter()
        script = prepare(log, name)
        report = script if isinstance(script, MatchReport) else self.run(script)
        report.seconds = time.perf_counter() - t0
        return report

    def run(self, script: MatchScript) -> MatchReport:
        """Check one match script."""
        t0 = time.perf_counter()
        if self.time_limit is None:
            self.start()
            report = run_script(self._factory, script)  # type: ignore[arg-type]
        else:
            report = self._run_isolated(script)
        report.seconds = time.perf_counter() - t0
        return report

    def _run_isolated(self, script: MatchScript) -> MatchReport:
        self.start()
        conn, proc, progress = self._conn, self._proc, self._progress
        progress[:] = [-1, -1, -1, -1, -1]
        base = MatchReport(script.name, "engine-failure", script.rules.name, script.hands,
                           script.moves)
        try:
            conn.send(script)
            answered = conn.poll(self.time_limit)
            if answered:
                kind, report = conn.recv()
                if kind == "report" and isinstance(report, MatchReport):
                    return report
                if kind == "script-error":
                    raise ScriptError(report)
                raise EOFError
        except (EOFError, OSError, BrokenPipeError):
            proc.join(1.0)
            code = proc.exitcode
            self._kill()
            base.first = self._located(
                "crashed", f"the engine's process died (exit code {code}) in "
                f"{_method_at(progress)}", progress)
            return base
        self._kill()
        base.first = self._located(
            "timeout", f"no answer within the time limit of {self.time_limit:g} s: the engine "
            f"was in {_method_at(progress)}", progress)
        return base

    @staticmethod
    def _located(kind: str, message: str, progress: Sequence[int]) -> Disagreement:
        hand, trick, seat, _, move = (None if x < 0 else x for x in progress[:5])
        return Disagreement(kind, message, hand, trick, seat,
                            describe_action(move) if move is not None else None)


def regress_log(engine: str | EngineFactory, log: bytes | ParsedLog,
                time_limit: float | None = DEFAULT_TIME_LIMIT, name: str = "<log>") -> MatchReport:
    """Check one log against an engine (a one-off worker; use :class:`Runner` for many).

    ``time_limit=None`` runs the engine in this process, without a limit.
    """
    with Runner(engine, time_limit) as runner:
        return runner.run_log(log, name)


# ---------------------------------------------------------------------- many logs

def collect_logs(paths: Iterable[str | Path]) -> list[Path]:
    """The ``*.tlog`` files named: files as given, directories' own ``*.tlog`` sorted by name.

    Raises :class:`RegressInputError` for a missing path or a directory without logs.
    """
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(p.glob("*.tlog"))
            if not found:
                raise RegressInputError(f"{p}: no *.tlog match logs in this directory")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise RegressInputError(f"{p}: no such file or directory")
    if not out:
        raise RegressInputError("no match logs given")
    return out


@dataclass
class RegressRun:
    """Every match's report and the run's time."""

    reports: list[MatchReport] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: Status) -> int:
        return sum(1 for r in self.reports if r.status == status)

    @property
    def matches(self) -> int:
        """Matches compared (not skipped, not unreadable)."""
        return sum(1 for r in self.reports if r.compared)

    @property
    def hands(self) -> int:
        """Dealing attempts in the matches compared."""
        return sum(r.hands for r in self.reports if r.compared)

    @property
    def exit_code(self) -> int:
        """0 every match agrees, 1 a disagreement or engine failure, 2 an unreadable log."""
        if self.count("unreadable"):
            return 2
        return 1 if self.count("disagree") or self.count("engine-failure") else 0

    def summary(self) -> str:
        """
        >>> RegressRun([MatchReport("a", "agree", "eram41", 17, 900)], 0.5).summary()
        'regress: 1 match, 17 hands, 0.50 s: 1 agree, 0 disagree, 0 engine failures'
        """
        matches = f"{self.matches} match" + ("" if self.matches == 1 else "es")
        text = (f"regress: {matches}, {self.hands} hands, {self.seconds:.2f} s: "
                f"{self.count('agree')} agree, {self.count('disagree')} disagree, "
                f"{self.count('engine-failure')} engine failures")
        if self.count("skipped"):
            text += f", {self.count('skipped')} skipped (not clean)"
        if self.count("unreadable"):
            text += f", {self.count('unreadable')} unreadable"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"matches": [r.to_json() for r in self.reports],
                "summary": {"matches": self.matches, "hands": self.hands,
                            "seconds": round(self.seconds, 3),
                            **{s: self.count(s) for s in ("agree", "disagree", "engine-failure",
                                                          "skipped", "unreadable")},
                            "exit_code": self.exit_code}}


def regress_paths(engine: str | EngineFactory, paths: Iterable[str | Path],
                  time_limit: float | None = DEFAULT_TIME_LIMIT,
                  on_report: Callable[[MatchReport], None] | None = None,
                  limits: Limits = DEFAULT_LIMITS) -> RegressRun:
    """Check every log under ``paths``; ``on_report`` sees each report as it comes.
    Each log is read as a stream within ``limits`` (a larger one is unreadable).

    Raises :class:`RegressInputError` (paths) or :class:`EngineLoadError` (engine)
    before any match runs.
    """
    files = collect_logs(paths)
    run = RegressRun()
    t0 = time.perf_counter()
    with Runner(engine, time_limit) as runner:
        for path in files:
            try:
                log = read_log(str(path), limits)
            except LogError as e:
                report = MatchReport(str(path), "unreadable", reason=str(e))
            else:
                report = runner.run_log(log, str(path))
            run.reports.append(report)
            if on_report is not None:
                on_report(report)
    run.seconds = time.perf_counter() - t0
    return run

__all__ = [
    "DEFAULT_TIME_LIMIT", "DISAGREEMENTS", "ENGINE_FAILURES", "DealScript", "Disagreement",
    "EngineLoadError", "MatchReport", "MatchScript", "RegressInputError", "RegressRun", "Runner",
    "ScriptError", "assert_agrees", "collect_logs", "compare", "hand_actions", "load_factory",
    "prepare", "regress_log", "regress_paths", "run_script", "script_from_history",
]
