"""What every alteration is built from: the record of a change, the registry, the log
opened for editing and written again, and the clean log replayed to find places to change.

:class:`Alteration` says what one alteration changed and the finding it must cause;
:class:`Tamper` is one registered alteration, kept in :data:`REGISTRY` (the modules
``*_alterations`` register theirs; :mod:`tarneeb.testing.alterations` imports them all).
:class:`EditableLog` and :func:`rewrite` open a log's records, change them in place and
encode them again, signed again or not.

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = play_logged_match("eram41", seed=b"alteration base doc")  # reproducible: not secret
>>> rewrite(log, lambda rec: None) == log
True
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from io import BytesIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.derive import DealDeriver
from tarneeb.audit.signing import public_key_raw, sign
from tarneeb.replay.log import (
    PASS_CODE,
    EndRecord,
    HandRecord,
    Header,
    SignatureRecord,
    parse_log,
)
from tarneeb.replay.log.blind import RevealedKeys
from tarneeb.replay.log.writer import LogWriter
from tarneeb.replay.rules.actions import BID_BASE, PASS, TRUMP_BASE, Action
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand
from tarneeb.replay.verify.findings import place
from tarneeb.replay.verify.replayer import deal_of, log_deriver


class NotApplicable(ValueError):
    """The log offers nothing to alter in this way (no such hand, rule set or move)."""


@dataclass(frozen=True)
class Alteration:
    """What one alteration changed and the finding it must cause.

    ``hand`` is the deal number of the altered hand (``None`` for a change to the
    whole match: the signature, the seeds, the end record). ``expect`` is the kind
    of finding the replayer must report, at ``hand``, ``trick`` and ``seat``;
    other findings may follow from it. ``pin_key`` is the platform's raw public
    key to verify with, where the alteration only shows against the pinned key.

    >>> Alteration("change-total", 3, "seat 1's total 12 → 13", seat=1,
    ...            expect="wrong-total").where()
    'hand 3, seat 1'
    """

    name: str
    hand: int | None
    description: str
    trick: int | None = None
    seat: int | None = None
    expect: str = ""
    pin_key: bytes | None = None

    def where(self) -> str:
        """``hand 3, trick 5, seat 1`` (or ``match``), as findings say it."""
        return place(hand=self.hand, trick=self.trick, seat=self.seat)


Altered = tuple[bytes, Alteration]
TamperFn = Callable[..., Altered]


RulesTest = Callable[[RuleSet], bool]


@dataclass(frozen=True)
class Tamper:
    """One registered alteration: its function, a line saying what it does, whether it
    changes the whole match rather than one hand, and a test of the rule sets it can
    apply to (``None``: all).

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> [REGISTRY["bid-not-higher"].applies(preset(r)) for r in ("classic", "eram41")]
    [True, False]
    """

    name: str
    fn: TamperFn
    summary: str
    match_level: bool = False
    needs: RulesTest | None = None
    blind: bool = False  # applies to logs dealt blind only (see blind_alterations)

    def applies(self, rules: RuleSet) -> bool:
        """Whether this alteration can apply to a log of ``rules`` at all."""
        return self.needs is None or self.needs(rules)

    def __call__(self, data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
        return self.fn(data, choice=choice, hand=hand, resign=resign)


REGISTRY: dict[str, Tamper] = {}


def _register(name: str, summary: str, *, match_level: bool = False,
              needs: RulesTest | None = None,
              blind: bool = False) -> Callable[[TamperFn], TamperFn]:
    def add(fn: TamperFn) -> TamperFn:
        REGISTRY[name] = Tamper(name, fn, summary, match_level, needs, blind)
        return fn
    return add


# ---------------------------------------------------------------- reading and writing

@dataclass
class EditableLog:
    """A log's records, to change in place and write again with :func:`rewrite`."""

    header: Header
    hands: list[HandRecord]
    end: EndRecord | None
    signature: SignatureRecord | None
    keys: list[RevealedKeys] = dataclasses.field(default_factory=list)  # blind: after the end

    @property
    def rules(self) -> RuleSet:
        return self.header.rules


def rewrite(data: bytes, change: Callable[[EditableLog], None],
            resign: Ed25519PrivateKey | None = None) -> bytes:
    """The log after ``change`` edits its records in place, re-encoded; signed again with
    ``resign`` (whose public key the header then names), else with its old signature
    (which then no longer matches).

    >>> from tarneeb.replay.server.simulate import play_logged_match
    >>> log = play_logged_match("eram41", seed=b"rewrite doc")
    >>> rewrite(log, lambda rec: None) == log
    True
    """
    log = _open(data)
    change(log)
    return _close(log, resign)


def _open(data: bytes) -> EditableLog:
    log = parse_log(data)
    if log.cut_short is not None:
        raise NotApplicable("the log is cut short already")
    return EditableLog(log.header, log.hands, log.end, log.signature, log.keys)


def _close(log: EditableLog, resign: Ed25519PrivateKey | None,
           keep_signature: bool = True) -> bytes:
    if resign is not None:  # whoever signs again is the key the header names
        log.header = replace(log.header,
                                         public_key=public_key_raw(resign.public_key()))
    out = BytesIO()
    w = LogWriter(out)
    w.write(log.header)
    for rec in log.hands:
        w.write(rec)
    if log.end is not None:
        w.write(log.end)
    for k in log.keys:
        w.write(k)
    if resign is not None:
        w.sign(lambda data: sign(resign, data))
    elif keep_signature and log.signature is not None:
        w.write(log.signature)
    return out.getvalue()


# ---------------------------------------------------------------- replaying the clean log

def _deriver(log: EditableLog) -> DealDeriver | None:
    return log_deriver(log.header, log.end)


def _deal_of(log: EditableLog, deriver: DealDeriver | None, n: int,
             dealer: int) -> tuple[tuple[int, int, int, int], int | None]:
    deal = deal_of(log.hands[n], deriver, n, dealer)
    if deal is None:
        raise NotApplicable("the log has neither seeds nor recorded deals to replay")
    return deal


def _actions(rec: HandRecord) -> list[tuple[str, Action]]:
    moves: list[tuple[str, Action]] = [
        ("call", PASS if code == PASS_CODE else BID_BASE + code) for _, code in rec.calls]
    if rec.trump is not None:
        moves.append(("trump", TRUMP_BASE + rec.trump))
    moves.extend(("play", c) for c in rec.plays)
    return moves


Visit = Callable[[MatchState, int, Action], None]


def _replay(log: EditableLog, upto: int | None = None, visit: Visit | None = None) -> list[Hand]:
    """The engine's hands of a clean log, up to hand ``upto`` (all by default).

    ``visit(state, move, action)`` sees every move of hand ``upto`` before it is taken.
    """
    deriver = _deriver(log)
    first = deriver.first_dealer() if deriver is not None else log.header.first_dealer
    state = MatchState(log.rules, first)
    last = len(log.hands) - 1 if upto is None else upto
    for n, rec in enumerate(log.hands[:last + 1]):
        hands, thirteenth = _deal_of(log, deriver, n, state.dealer)
        state.deal(hands, thirteenth)
        move = 0
        for what, action in _actions(rec):
            if state.phase in (Phase.DEAL, Phase.OVER):
                break
            if what == "trump" and state.phase != Phase.TRUMP:
                continue  # a dealt trump is a claim, not a move
            if visit is not None and n == last:
                visit(state, move, action)
            try:
                state.apply(action)
            except ValueError as e:
                raise NotApplicable(f"the log is not clean (hand {n}: {e})") from None
            move += 1
    return state.history


def _seat_of_play(hand: Hand, k: int) -> int:
    return (hand.trick_leaders[k // 4] + k % 4) & 3


def _owner(hand: Hand, card: int) -> int:
    return next(s for s in range(4) if hand.hands[s] >> card & 1)


def _misplay_kind(hand: Hand, k: int, card: int) -> str:
    """The finding for ``card`` standing at play ``k`` of a clean hand, where the seat
    on turn does not hold it."""
    if card in hand.plays[:k]:
        return "card-already-played"
    if k % 4 == 0 and k > 0:
        return "wrong-trick-winner"
    start = k - k % 4
    already = {_seat_of_play(hand, i) for i in range(start, k)}
    return "card-not-held" if _owner(hand, card) in already else "played-out-of-turn"


def _pick_hand(log: EditableLog, rng: random.Random, hand: int | None,
               ok: Callable[[HandRecord], bool], what: str) -> int:
    if hand is not None:
        if not 0 <= hand < len(log.hands):
            raise NotApplicable(f"the log has no hand {hand}")
        if not ok(log.hands[hand]):
            raise NotApplicable(f"hand {hand} is not {what}")
        return hand
    candidates = [i for i, rec in enumerate(log.hands) if ok(rec)]
    if not candidates:
        raise NotApplicable(f"the log has no hand that is {what}")
    return rng.choice(candidates)


def _played(rec: HandRecord) -> bool:
    return len(rec.plays) == 52


def _cancelled(rec: HandRecord) -> bool:
    return not rec.plays and rec.tricks is None


def _totals_before(log: EditableLog, n: int) -> list[int]:
    if n == 0:
        return [0, 0, 0, 0]
    totals = log.hands[n - 1].totals
    if totals is None:
        raise NotApplicable(f"hand {n - 1} has no totals: the log stops inside it")
    return list(totals)


def _flip_bit(b: bytes, bit: int) -> bytes:
    out = bytearray(b)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)
