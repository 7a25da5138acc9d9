"""Alterations of a match log, one thing at a time.

Each alteration takes the bytes of a clean signed log and returns the altered
bytes and an :class:`Alteration`: what changed, in which hand, and the finding
the replayer must report for it. Only that one thing changes: the claims
(tricks, scores, totals, winner) stay as they were, so the replayer has to find
the change by itself.

With ``resign=`` the altered log is signed again with the platform's key, as
when a platform itself wrote a wrong log: then only the rule finding appears.
Without it the old signature stays and breaks too.

Every alteration has the same call form, ``fn(data, *, choice=0, hand=None,
resign=None)``: ``choice`` picks deterministically among the places the log
offers (which hand, seat, card …), ``hand`` pins the hand (its index, which is
its deal number). :data:`REGISTRY` lists them all by name; :func:`alter` calls
one by name. A log that offers nothing to alter in that way raises
:class:`NotApplicable`.

>>> from tarneeb.replay.simulate import MatchSecrets, play_logged_match
>>> from tarneeb.replay.replayer import verify_bytes
>>> log = play_logged_match("eram41", seed=b"tamper doc")  # reproducible: not secret
>>> key = MatchSecrets(b"tamper doc").key
>>> bad, alt = alter("change-score", log, hand=0, resign=key)
>>> alt.expect, alt.hand
('wrong-hand-score', 0)
>>> [(f.kind, f.hand, f.seat) for f in verify_bytes(bad).findings] == [
...     ("wrong-hand-score", 0, alt.seat)]
True
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import BytesIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.derive import DealDeriver
from tarneeb.audit.seeds import SeasonLeaf, client_commitments, match_binding
from tarneeb.audit.signing import public_key_raw, sign
from tarneeb.replay.blindlog import RevealedKeys
from tarneeb.replay.cards import card_name, cards_of, colour_mate, suit_of
from tarneeb.replay.engine import (
    BID_BASE,
    PASS,
    TRUMP_BASE,
    Action,
    Hand,
    MatchState,
    Phase,
    describe_action,
    is_play,
    trick_winner,
)
from tarneeb.replay.findings import place
from tarneeb.replay.logformat import (
    PASS_CODE,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    RecordedDeal,
    SignatureRecord,
    parse_log,
)
from tarneeb.replay.logwriter import LogWriter
from tarneeb.replay.replayer import deal_of, log_deriver
from tarneeb.replay.rules import PRESETS, RuleSet


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

    >>> from tarneeb.replay.rules import preset
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


def _reveals(rules: RuleSet) -> bool:
    return rules.reveals_card


def _auction(rules: RuleSet) -> bool:
    return rules.bidding == "auction"


def _personal(rules: RuleSet) -> bool:
    return rules.bidding == "personal"


def _raised_minimum(rules: RuleSet) -> bool:
    return rules.bidding == "personal" and any(b > rules.min_bid for _, b in rules.min_bid_steps)


REGISTRY: dict[str, Tamper] = {}


def _register(name: str, summary: str, *, match_level: bool = False,
              needs: RulesTest | None = None,
              blind: bool = False) -> Callable[[TamperFn], TamperFn]:
    def add(fn: TamperFn) -> TamperFn:
        REGISTRY[name] = Tamper(name, fn, summary, match_level, needs, blind)
        return fn
    return add


def alter(name: str, data: bytes, *, choice: int = 0, hand: int | None = None,
          resign: Ed25519PrivateKey | None = None) -> Altered:
    """Apply the alteration ``name`` of :data:`REGISTRY` to the log ``data``.

    >>> sorted(REGISTRY)[:3]
    ['append-hand', 'bad-batch-proof', 'bid-below-minimum']
    """
    try:
        t = REGISTRY[name]
    except KeyError:
        raise KeyError(f"no alteration {name!r} (known: {', '.join(sorted(REGISTRY))})") from None
    return t(data, choice=choice, hand=hand, resign=resign)


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

    >>> from tarneeb.replay.simulate import play_logged_match
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
        log.header = dataclasses.replace(log.header,
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
    return list(log.hands[n - 1].totals) if n > 0 else [0, 0, 0, 0]


# ---------------------------------------------------------------- the signature and seeds

@_register("flip-signature", "flip one bit of the signature", match_level=True)
def flip_signature(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bit of the signature flipped (``resign`` is ignored: it would undo the change)."""
    log = _open(data)
    if log.signature is None:
        raise NotApplicable("the log is not signed")
    i = random.Random(choice).randrange(64 * 8)
    log.signature = SignatureRecord(_flip_bit(log.signature.signature, i))
    return _close(log, None), Alteration(
        "flip-signature", None, f"bit {i % 8} of signature byte {i // 8} flipped",
        expect="broken-signature")


def _flip_bit(b: bytes, bit: int) -> bytes:
    out = bytearray(b)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


@_register("drop-signature", "remove the signature record", match_level=True)
def drop_signature(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The signature record removed: the log is unsigned."""
    log = _open(data)
    if log.signature is None or log.end is None:
        raise NotApplicable("the log has no signature or no end record")
    return _close(log, None, keep_signature=False), Alteration(
        "drop-signature", None, "the signature record removed", expect="unsigned")


@_register("other-key", "sign with another key named in the header; pin the platform's key",
           match_level=True)
def other_key(data: bytes, *, choice: int = 0, hand: int | None = None,
              resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header names an impostor's key and the impostor signs; the platform's key
    (``Alteration.pin_key``) must be pinned to see it."""
    log = _open(data)
    real = log.header.public_key
    if real is None:
        raise NotApplicable("the log names no platform key")
    impostor = Ed25519PrivateKey.from_private_bytes(
        hashlib.sha256(b"tarneeb tamper impostor %d" % choice).digest())
    log.header = dataclasses.replace(log.header,
                                     public_key=public_key_raw(impostor.public_key()))
    return _close(log, impostor), Alteration(
        "other-key", None, "header key replaced by another key, which signed the log",
        expect="key-mismatch", pin_key=real)


@_register("corrupt-server-seed", "flip a bit of the revealed server seed", match_level=True)
def corrupt_server_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """A bit of the revealed server seed flipped: it no longer matches its commitment."""
    log = _open(data)
    if log.end is None or log.end.server_seed is None:
        raise NotApplicable("the log reveals no server seed")
    i = random.Random(choice).randrange(32 * 8)
    log.end = EndRecord(log.end.winner, _flip_bit(log.end.server_seed, i))
    return _close(log, resign), Alteration(
        "corrupt-server-seed", None, f"bit {i % 8} of server seed byte {i // 8} flipped",
        expect="server-seed")


@_register("hide-server-seed", "leave the server seed unrevealed", match_level=True)
def hide_server_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record reveals no server seed."""
    log = _open(data)
    if log.end is None or log.end.server_seed is None:
        raise NotApplicable("the log reveals no server seed")
    log.end = EndRecord(log.end.winner, None)
    return _close(log, resign), Alteration(
        "hide-server-seed", None, "the server seed is not revealed", expect="seed-not-revealed")


@_register("corrupt-client-seed", "flip a bit of one seat's client seed", match_level=True)
def corrupt_client_seed(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """A bit of one client seed flipped: it no longer matches that seat's commitment."""
    log = _open(data)
    seeds = log.header.client_seeds
    if seeds is None:
        raise NotApplicable("the log has no client seeds")
    rng = random.Random(choice)
    seat = rng.randrange(4)
    bit = rng.randrange(len(seeds[seat]) * 8)
    new = list(seeds)
    new[seat] = _flip_bit(seeds[seat], bit)
    log.header = dataclasses.replace(log.header, client_seeds=new)
    return _close(log, resign), Alteration(
        "corrupt-client-seed", None, f"bit {bit % 8} of seat {seat}'s client seed byte "
        f"{bit // 8} flipped", seat=seat, expect="client-seed")


@_register("bad-batch-proof", "claim an inclusion proof that leads to another root",
           match_level=True)
def bad_batch_proof(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header claims the commitment is in a published root it does not lead to
    (a proof the log had is corrupted; a log without one gets a made-up one)."""
    log = _open(data)
    if log.header.server_commitment is None:
        raise NotApplicable("the log has no server commitment")
    b = log.header.batch
    if b is not None:
        root, index, size, path = _flip_bit(b.root, choice % 256), b.index, b.size, b.path
        what = "the published root changed by one bit"
    else:
        fake = hashlib.sha256(b"tarneeb tamper batch %d" % choice).digest()
        root, index, size, path = hashlib.sha256(fake).digest(), 1, 2, [fake]
        what = "an inclusion proof added that does not lead to its root"
    leaf = SeasonLeaf(index, size, root)
    head_signature = leaf.head.sign(resign) if resign is not None else bytes(64)
    batch = BatchProof(index, size, path, root, head_signature)
    header = log.header
    if header.client_seeds is not None:  # the platform re-makes the commitments to match
        binding = match_binding(header.server_commitment, leaf)
        header = dataclasses.replace(header, client_commitments=list(
            client_commitments(header.match_id, header.client_seeds, binding)))
    log.header = dataclasses.replace(header, batch=batch)
    return _close(log, resign), Alteration("bad-batch-proof", None, what, expect="batch-proof")


@_register("first-dealer", "name another first dealer", match_level=True)
def first_dealer(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header names another seat as first dealer than the seeds draw."""
    log = _open(data)
    if _deriver(log) is None:
        raise NotApplicable("the first dealer is only drawn from seeds")
    old = log.header.first_dealer
    new = (old + 1 + choice % 3) & 3
    log.header = dataclasses.replace(log.header, first_dealer=new)
    return _close(log, resign), Alteration(
        "first-dealer", None, f"first dealer seat {old} → seat {new}", seat=new,
        expect="wrong-first-dealer")


@_register("strip-seeds", "remove every seed and commitment, so no deal can be derived",
           match_level=True)
def strip_seeds(data: bytes, *, choice: int = 0, hand: int | None = None,
                resign: Ed25519PrivateKey | None = None) -> Altered:
    """The server commitment, the season proof, the client commitments and seeds and the
    revealed server seed removed: nothing proves (or records) any deal, so no hand can be
    replayed, and whatever the hands claim goes unchecked unless the replayer says so."""
    log = _open(data)
    if log.header.server_commitment is None:
        raise NotApplicable("the log has no seeds")
    if any(rec.deal is not None for rec in log.hands):
        raise NotApplicable("the log records deals too")
    log.header = dataclasses.replace(log.header, server_commitment=None, batch=None,
                                     client_commitments=None, client_seeds=None)
    if log.end is not None:
        log.end = EndRecord(log.end.winner, None)
    return _close(log, resign), Alteration(
        "strip-seeds", None, "every seed and commitment removed: no deal can be derived",
        expect="not-replayed")


@_register("weak-key", "name the identity point as key, with the signature that verifies "
           "anything under it", match_level=True)
def weak_key(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header names the identity point of Edwards25519 as the platform key and the
    signature is ``01 00…00 ‖ 00…00``, which OpenSSL verifies for any message under it
    (``resign`` is ignored: the point is that no key is needed)."""
    log = _open(data)
    log.header = dataclasses.replace(log.header, public_key=IDENTITY_POINT)
    log.signature = SignatureRecord(IDENTITY_POINT + bytes(32))
    return _close(log, None), Alteration(
        "weak-key", None, "header key set to the identity point, signature 01 00…00 ‖ 00…00",
        expect="weak-key")


IDENTITY_POINT = bytes([1]) + bytes(31)


@_register("reorder-rules", "write the rules map with its keys in another order",
           match_level=True)
def reorder_rules(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header's rules map with two of its keys swapped: the same rules, another byte
    form (a log has one)."""
    log = _open(data)
    items = list(log.rules.to_dict().items())
    rng = random.Random(choice)
    i = rng.randrange(len(items) - 1)
    j = i + 1 + rng.randrange(len(items) - 1 - i)
    items[i], items[j] = items[j], items[i]
    log.header = dataclasses.replace(log.header, rules_raw=dict(items))
    return _close(log, resign), Alteration(
        "reorder-rules", None, f"rules keys {items[j][0]!r} and {items[i][0]!r} swapped",
        expect="not-canonical")


# fields no rule set's play reads: changing one changes the rules' name, not the match
_UNUSED_BY = {"personal": ("kaboot_made_value", 27), "team": ("values", tuple(range(3, 15)))}


@_register("misname-rules", "keep a preset's name on rules changed where its platform offers "
           "no option", match_level=True)
def misname_rules(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header's rules keep a preset's name with one field changed that the match never
    reads (personal scoring: the kaboot value; team scoring: the bid values), so the
    replay is the same and only the name lies: these rules are not that preset."""
    log = _open(data)
    if log.rules.name not in PRESETS:
        raise NotApplicable("the rules bear no preset's name")
    field, value = _UNUSED_BY[log.rules.scoring]
    rules = log.rules.with_options(**{field: value})
    log.header = dataclasses.replace(log.header, rules=rules, rules_raw=None)
    return _close(log, resign), Alteration(
        "misname-rules", None, f"rules named {rules.name} with {field} {value}",
        expect="wrong-rules")


# ---------------------------------------------------------------- the end of the log

@_register("cut-short", "cut the log inside a record or after one", match_level=True)
def cut_short(data: bytes, *, choice: int = 0, hand: int | None = None,
              resign: Ed25519PrivateKey | None = None) -> Altered:
    """The log cut off as a crashed server leaves it: inside a record or between two
    (``resign`` is ignored: a stream cut short is never signed)."""
    log = parse_log(data)
    rng = random.Random(choice)
    if not log.hands:
        raise NotApplicable("the log has no hand records")
    i = rng.randrange(len(log.hands))
    start = log.offsets[i]
    stop = log.offsets[i + 1] if i + 1 < len(log.hands) else log.end_offset or len(data)
    if rng.random() < 0.5:
        at = start + 1 + rng.randrange(stop - start - 1)
        what = f"cut {at - start} bytes into hand record {i}"
    else:
        at = start
        what = f"cut before hand record {i}"
    return data[:at], Alteration("cut-short", None, what, expect="cut-short")


@_register("drop-end", "remove the end record", match_level=True)
def drop_end(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record removed: no winner declared, the log looks unfinished."""
    log = _open(data)
    if log.end is None:
        raise NotApplicable("the log has no end record")
    log.end = None
    return _close(log, resign), Alteration("drop-end", None, "the end record removed",
                                           expect="cut-short")


@_register("change-winner", "declare the other team or no team the winner", match_level=True)
def change_winner(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record declares the other team (``choice`` even) or nobody (odd)."""
    log = _open(data)
    if log.end is None or log.end.winner is None:
        raise NotApplicable("the log declares no winner")
    old = log.end.winner
    new = 1 - old if choice % 2 == 0 else None
    log.end = EndRecord(new, log.end.server_seed)
    kind = "wrong-winner" if new is not None else "no-winner"
    return _close(log, resign), Alteration(
        "change-winner", None, f"winner team {old} → {'none' if new is None else f'team {new}'}",
        expect=kind)


@_register("drop-last-hand", "remove the winning hand, keep the declared winner",
           match_level=True)
def drop_last_hand(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last hand record removed: the winner is declared before the match is won."""
    log = _open(data)
    if log.end is None or log.end.winner is None or len(log.hands) < 2:
        raise NotApplicable("the log has no winner or a single hand")
    n = len(log.hands) - 1
    del log.hands[n]
    return _close(log, resign), Alteration(
        "drop-last-hand", None, f"hand {n}, which won the match, removed",
        expect="winner-too-early")


@_register("append-hand", "add a hand after the match was won")
def append_hand(data: bytes, *, choice: int = 0, hand: int | None = None,
                resign: Ed25519PrivateKey | None = None) -> Altered:
    """A copy of a played hand appended after the winning hand, numbered as the next one."""
    log = _open(data)
    if not log.hands:
        raise NotApplicable("the log has no hands")
    rng = random.Random(choice)
    src = _pick_hand(log, rng, None, _played, "played")
    last = log.hands[-1]
    n = len(log.hands)
    rec = dataclasses.replace(log.hands[src], deal_number=n, dealer=(last.dealer + 1) & 3,
                              calls=list(log.hands[src].calls), totals=list(last.totals))
    log.hands.append(rec)
    return _close(log, resign), Alteration(
        "append-hand", n, f"hand {n} (a copy of hand {src}) appended after the win",
        expect="played-after-win")


# ---------------------------------------------------------------- hand headers and deals

@_register("change-deal-number", "renumber one dealing attempt")
def change_deal_number(data: bytes, *, choice: int = 0, hand: int | None = None,
                       resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's deal number changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    new = n + 1 + rng.randrange(3) if n == 0 or rng.random() < 0.5 else n - 1
    log.hands[n] = dataclasses.replace(log.hands[n], deal_number=new)
    return _close(log, resign), Alteration(
        "change-deal-number", n, f"hand {n} numbered {new}", expect="wrong-deal-number")


@_register("change-dealer", "name another dealer for one hand")
def change_dealer(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's dealer changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    old = log.hands[n].dealer
    new = (old + 1 + rng.randrange(3)) & 3
    log.hands[n] = dataclasses.replace(log.hands[n], dealer=new)
    return _close(log, resign), Alteration(
        "change-dealer", n, f"hand {n} dealt by seat {new}, not seat {old}", seat=new,
        expect="wrong-dealer")


@_register("record-wrong-deal", "record a deal the seeds do not produce")
def record_wrong_deal(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """A seeded log gets a recorded deal for one hand: the seeds' deal with one card
    moved between two hands."""
    log = _open(data)
    deriver = _deriver(log)
    if deriver is None:
        raise NotApplicable("the log's deals are not derived from seeds")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is None, "without a recorded deal")
    rec = log.hands[n]
    hands, thirteenth = _deal_of(log, deriver, n, rec.dealer)
    moved, what = _move_card(hands, rng)
    log.hands[n] = dataclasses.replace(rec, deal=RecordedDeal(moved, thirteenth))
    return _close(log, resign), Alteration(
        "record-wrong-deal", n, f"hand {n} records the seeds' deal with {what}",
        expect="wrong-deal")


def _move_card(hands: tuple[int, int, int, int],
               rng: random.Random) -> tuple[tuple[int, int, int, int], str]:
    a = rng.randrange(4)
    b = (a + 1 + rng.randrange(3)) & 3
    card = rng.choice(cards_of(hands[a]))
    out = list(hands)
    out[a] &= ~(1 << card)
    out[b] |= 1 << card
    return (out[0], out[1], out[2], out[3]), f"{card_name(card)} moved from seat {a} to seat {b}"


@_register("move-dealt-card", "move a card between hands: in a recorded deal, or "
           "(seeded logs) as a played card of another seat")
def move_dealt_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """A card moved from one seat's hand to another's.

    With recorded deals the deal itself changes (one seat has 12 cards, another 14);
    in a seeded log, whose deals the seeds fix, a played card is replaced by a card
    another seat holds (see :func:`replace_played_card`).
    """
    log = _open(data)
    if _deriver(log) is not None:
        out, alt = replace_played_card(data, choice=choice, hand=hand, resign=resign)
        return out, dataclasses.replace(alt, name="move-dealt-card")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is not None, "a recorded deal")
    rec = log.hands[n]
    assert rec.deal is not None
    moved, what = _move_card(rec.deal.hands, rng)
    log.hands[n] = dataclasses.replace(rec, deal=RecordedDeal(moved, rec.deal.thirteenth))
    return _close(log, resign), Alteration("move-dealt-card", n, f"hand {n}: {what}",
                                           expect="bad-deal")


@_register("nil-deal", "a recorded deal set to nil, and that hand's plays changed")
def nil_deal(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """In a log of recorded deals, one played hand's deal removed and two of its plays
    swapped: without a deal nothing shows the swap, unless the hand is reported as not
    replayed."""
    log = _open(data)
    if _deriver(log) is not None:
        raise NotApplicable("the log's deals are derived from seeds")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.deal is not None and _played(r),
                   "played with a recorded deal")
    rec = log.hands[n]
    i = rng.randrange(51)
    plays = bytearray(rec.plays)
    plays[i], plays[i + 1] = plays[i + 1], plays[i]
    log.hands[n] = dataclasses.replace(rec, deal=None, plays=bytes(plays))
    return _close(log, resign), Alteration(
        "nil-deal", n, f"hand {n}: deal set to nil, plays {i} and {i + 1} swapped",
        expect="not-replayed")


@_register("change-revealed", "reveal another card (or one where none is shown)")
def change_revealed(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """One hand's revealed card changed (for rules that reveal none: a card added)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    rec = log.hands[n]
    old = rec.revealed
    new = rng.choice([c for c in range(52) if c != old])
    log.hands[n] = dataclasses.replace(rec, revealed=new)
    shown = card_name(old) if old is not None else "nothing"
    seat = rec.dealer if log.rules.reveals_card else None
    return _close(log, resign), Alteration(
        "change-revealed", n, f"hand {n} reveals {card_name(new)}, not {shown}", seat=seat,
        expect="wrong-revealed-card")


@_register("change-revealed-and-trump", "reveal another card of the dealer's and claim "
           "its trump", needs=_reveals)
def change_revealed_and_trump(data: bytes, *, choice: int = 0, hand: int | None = None,
                              resign: Ed25519PrivateKey | None = None) -> Altered:
    """A consistent lie: another card of the dealer's of another colour is revealed,
    and the trump claimed is its colour-mate."""
    log = _open(data)
    if not log.rules.reveals_card:
        raise NotApplicable(f"{log.rules.name} reveals no card")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    rec = log.hands[n]
    dealt = _replay(log, n)[-1].hands[rec.dealer]
    assert rec.revealed is not None
    colour = (suit_of(rec.revealed), colour_mate(suit_of(rec.revealed)))
    others = [c for c in cards_of(dealt) if suit_of(c) not in colour]
    if not others:
        raise NotApplicable(f"the dealer of hand {n} holds only one colour")
    new = rng.choice(others)
    log.hands[n] = dataclasses.replace(rec, revealed=new, trump=colour_mate(suit_of(new)))
    return _close(log, resign), Alteration(
        "change-revealed-and-trump", n, f"hand {n} reveals {card_name(new)} (not "
        f"{card_name(rec.revealed)}) with its trump", seat=rec.dealer,
        expect="wrong-revealed-card")


_SUITS = "♣♦♥♠"


@_register("change-trump", "claim another trump (classic: the auction winner names another)")
def change_trump(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One played hand's trump changed.

    Where the trump follows from the deal, the claimed trump byte changes. In classic
    the auction winner names the trump, so naming another is a legal move: the
    alteration picks a suit that changes the winner of some trick, which the play
    that follows then contradicts.
    """
    log = _open(data)
    rng = random.Random(choice)
    if log.rules.trump != "named":
        n = _pick_hand(log, rng, hand, _played, "played")
        rec = log.hands[n]
        assert rec.trump is not None
        new = (rec.trump + 1 + rng.randrange(3)) & 3
        log.hands[n] = dataclasses.replace(rec, trump=new)
        return _close(log, resign), Alteration(
            "change-trump", n, f"hand {n} claims {_SUITS[new]} trump, not "
            f"{_SUITS[rec.trump]}", expect="wrong-trump")
    history = _replay(log)
    options = []
    for n, rec in enumerate(log.hands):
        if (hand is not None and n != hand) or not _played(rec):
            continue
        h = history[n]
        for suit in range(4):
            if suit == h.trump:
                continue
            for t in range(13):
                cards = list(h.plays[4 * t:4 * t + 4])
                w = trick_winner(cards, h.trick_leaders[t], suit)
                if w != h.trick_winners[t]:
                    options.append((n, suit, t + 1, w))
                    break
    if not options:
        raise NotApplicable("no other trump changes the winner of a trick")
    n, suit, trick, winner = rng.choice(options)
    rec = log.hands[n]
    log.hands[n] = dataclasses.replace(rec, trump=suit)
    old = history[n].trick_winners[trick - 1]
    desc = (f"hand {n}: seat {history[n].declarer} names {_SUITS[suit]}, not "
            f"{_SUITS[rec.trump or 0]}; trick {trick} then goes to seat {winner}, not {old}")
    if trick < 13:  # the next trick is led by the old winner, not the new one
        return _close(log, resign), Alteration("change-trump", n, desc, trick=trick + 1,
                                               seat=winner, expect="wrong-trick-winner")
    return _close(log, resign), Alteration("change-trump", n, desc, seat=winner,
                                           expect="wrong-trick-count")


# ---------------------------------------------------------------- calls

def _bid_calls(rec: HandRecord) -> list[int]:
    return [i for i, (_, code) in enumerate(rec.calls) if code != PASS_CODE]


def _set_call(log: EditableLog, n: int, i: int, code: int) -> HandRecord:
    rec = log.hands[n]
    calls = list(rec.calls)
    calls[i] = (calls[i][0], code)
    log.hands[n] = dataclasses.replace(rec, calls=calls)
    return rec


def _call_text(code: int) -> str:
    return "pass" if code == PASS_CODE else f"bid {code}"


@_register("change-bid", "change one bid so the hand scores differently")
def change_bid(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid of a played hand changed to one that turns a made bid into a failed one
    or the other way round (classic: the winning bid)."""
    log = _open(data)
    rng = random.Random(choice)
    rules = log.rules
    n = _pick_hand(log, rng, hand, lambda r: _played(r) and r.tricks is not None, "played")
    rec = log.hands[n]
    assert rec.tricks is not None
    if rules.bidding == "personal":
        i = rng.randrange(len(rec.calls))
        seat, bid = rec.calls[i]
        took = rec.tricks[seat]
        if took >= bid:  # made: make it fail
            new = took + 1 if took < 13 else None
        else:  # failed: make it made
            new = max(took, rules.min_bid)
            new = new if new <= took else None
        if new is None or new == bid:
            new = rules.min_bid - 1 if rules.min_bid > 0 else None
        if new is None:
            raise NotApplicable("no bid to change")
        _set_call(log, n, i, new)
        before = _totals_before(log, n)
        bids = [code for _, code in log.hands[n].calls]
        if new < rules.min_bid:
            kind = "bid-out-of-range"
        elif new < rules.lowest_bid(before[seat]):
            kind = "bid-below-minimum"
        elif sum(bids) < rules.lowest_total(max(before)):
            kind = "played-when-cancelled"
            seat = None
        else:
            kind = "wrong-hand-score"
        return _close(log, resign), Alteration(
            "change-bid", n, f"hand {n}: seat {rec.calls[i][0]} bid {new}, not {bid}",
            seat=seat, expect=kind)
    # classic: the contract
    i = _bid_calls(rec)[-1]
    seat, bid = rec.calls[i]
    team = rec.tricks[seat] + rec.tricks[seat ^ 2]
    if bid == 13:
        new = 12
    elif team >= bid:
        new = min(team + 1, 13)
    else:
        new = team if team >= rules.auction_min else bid + 1
    _set_call(log, n, i, new)
    earlier = [code for _, code in rec.calls[:i] if code != PASS_CODE]
    passed = {s for s, code in rec.calls[:i] if code == PASS_CODE}
    if earlier and new <= max(earlier):
        kind = "bid-not-higher"
    elif new == 13 and i < len(rec.calls) - 1:
        kind, seat = "bidding-overrun", rec.calls[i + 1][0]
    elif bid == 13 and len(passed) < 3:  # the auction no longer ends on this bid
        kind = "bidding-incomplete"
        seat = next(s for s in ((seat + k) & 3 for k in (1, 2, 3)) if s not in passed)
    else:  # the bidding team's score changes (team scores stand on both partners)
        kind, seat = "wrong-hand-score", min(seat, seat ^ 2)
    return _close(log, resign), Alteration(
        "change-bid", n, f"hand {n}: seat {rec.calls[i][0]} bid {new}, not {bid}",
        seat=seat, expect=kind)


@_register("bid-out-of-range", "a bid below the lowest bid of the rules")
def bid_out_of_range(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid changed to a number below the rules' range (personal: 0-1, auction: 1-6)."""
    log = _open(data)
    rng = random.Random(choice)
    rules = log.rules
    low = rules.min_bid if rules.bidding == "personal" else rules.auction_min
    if low == 0:
        raise NotApplicable("every bid from 0 is in range")
    n = _pick_hand(log, rng, hand, lambda r: bool(_bid_calls(r)), "with a bid")
    i = rng.choice(_bid_calls(log.hands[n]))
    new = rng.randrange(low)
    rec = _set_call(log, n, i, new)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-out-of-range", n, f"hand {n}: seat {seat} bid {new}, not {old}", seat=seat,
        expect="bid-out-of-range")


@_register("bid-below-minimum", "a bid below the 400 minimum for the player's score",
           needs=_raised_minimum)
def bid_below_minimum(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid of a player whose score raised their lowest bid changed to the plain lowest."""
    log = _open(data)
    rules = log.rules
    rng = random.Random(choice)
    options = []
    for n, rec in enumerate(log.hands):
        if hand is not None and n != hand:
            continue
        before = _totals_before(log, n)
        for i, (seat, code) in enumerate(rec.calls):
            if rules.lowest_bid(before[seat]) > rules.min_bid and code != PASS_CODE:
                options.append((n, i))
    if not options:
        raise NotApplicable("no player had a raised lowest bid")
    n, i = rng.choice(options)
    rec = _set_call(log, n, i, rules.min_bid)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-below-minimum", n, f"hand {n}: seat {seat} (lowest bid "
        f"{rules.lowest_bid(_totals_before(log, n)[seat])}) bid {rules.min_bid}, not {old}",
        seat=seat, expect="bid-below-minimum")


@_register("bid-not-higher", "an auction bid no higher than the bid before it",
           needs=_auction)
def bid_not_higher(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """In the auction, a bid lowered to the bid before it."""
    log = _open(data)
    if log.rules.bidding != "auction":
        raise NotApplicable("only an auction has bids that must be higher")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: len(_bid_calls(r)) >= 2, "with two bids")
    rec = log.hands[n]
    bids = _bid_calls(rec)
    k = rng.randrange(1, len(bids))
    i, before = bids[k], rec.calls[bids[k - 1]][1]
    _set_call(log, n, i, before)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-not-higher", n, f"hand {n}: seat {seat} bid {before} after a {before}, not {old}",
        seat=seat, expect="bid-not-higher")


@_register("pass-for-bid", "a pass where the rules have none", needs=_personal)
def pass_for_bid(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """In personal bidding, one bid changed to a pass."""
    log = _open(data)
    if log.rules.bidding != "personal":
        raise NotApplicable("the auction has passes")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    i = rng.randrange(len(log.hands[n].calls))
    rec = _set_call(log, n, i, PASS_CODE)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "pass-for-bid", n, f"hand {n}: seat {seat} passes instead of bidding {old}",
        seat=seat, expect="pass-not-allowed")


@_register("swap-calls", "two calls in the wrong order")
def swap_calls(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Two neighbouring calls of different seats swapped: a call out of turn."""
    log = _open(data)
    rng = random.Random(choice)

    def ok(r: HandRecord) -> bool:
        return any(r.calls[i][0] != r.calls[i + 1][0] for i in range(len(r.calls) - 1))

    n = _pick_hand(log, rng, hand, ok, "with two calls")
    rec = log.hands[n]
    i = rng.choice([i for i in range(len(rec.calls) - 1) if rec.calls[i][0] != rec.calls[i + 1][0]])
    calls = list(rec.calls)
    calls[i], calls[i + 1] = calls[i + 1], calls[i]
    log.hands[n] = dataclasses.replace(rec, calls=calls)
    return _close(log, resign), Alteration(
        "swap-calls", n, f"hand {n}: calls {i} and {i + 1} swapped ({_call_text(calls[i][1])} "
        f"by seat {calls[i][0]} comes first)", seat=calls[i][0], expect="bid-out-of-turn")


@_register("drop-last-call", "the bidding stops a call early")
def drop_last_call(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last call of one hand removed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    rec = log.hands[n]
    seat, code = rec.calls[-1]
    log.hands[n] = dataclasses.replace(rec, calls=list(rec.calls[:-1]))
    return _close(log, resign), Alteration(
        "drop-last-call", n, f"hand {n}: seat {seat}'s {_call_text(code)} removed", seat=seat,
        expect="bidding-incomplete")


@_register("extra-call", "a call after the bidding ended")
def extra_call(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """A call appended after the last call of one hand."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    rec = log.hands[n]
    seat = (rec.calls[-1][0] + 1) & 3
    code = PASS_CODE if log.rules.bidding == "auction" and rng.random() < 0.5 \
        else rng.randrange(7, 14)
    log.hands[n] = dataclasses.replace(rec, calls=[*rec.calls, (seat, code)])
    return _close(log, resign), Alteration(
        "extra-call", n, f"hand {n}: seat {seat} {_call_text(code)} after the bidding ended",
        seat=seat, expect="bidding-overrun")


@_register("lower-bids", "bids too low to play, in a hand that was played")
def lower_bids(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Every call of a played hand lowered to the least the seat may call (classic: a
    pass), so the hand should have been cancelled."""
    log = _open(data)
    rules = log.rules
    rng = random.Random(choice)

    def ok(r: HandRecord) -> bool:
        if not _played(r):
            return False
        if rules.bidding == "auction":
            return True
        before = _totals_before(log, r.deal_number)
        return sum(rules.lowest_bid(b) for b in before) < rules.lowest_total(max(before))

    n = _pick_hand(log, rng, hand, ok, "played with bids that can be lowered")
    rec = log.hands[n]
    before = _totals_before(log, n)
    if rules.bidding == "auction":
        calls = [((rec.dealer + k) & 3, PASS_CODE) for k in (1, 2, 3, 4)]
    else:
        calls = [(s, rules.lowest_bid(before[s])) for s, _ in rec.calls]
    log.hands[n] = dataclasses.replace(rec, calls=calls)
    return _close(log, resign), Alteration(
        "lower-bids", n, f"hand {n}: calls lowered to {', '.join(_call_text(c) for _, c in calls)}",
        expect="played-when-cancelled")


@_register("raise-cancelled-bids", "bids enough to play, in a hand that was cancelled")
def raise_cancelled_bids(data: bytes, *, choice: int = 0, hand: int | None = None,
                         resign: Ed25519PrivateKey | None = None) -> Altered:
    """The dealer's bid of a cancelled hand raised to 13 (classic: the first pass made a
    bid of 7), so the hand should have been played."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: _cancelled(r) and bool(r.calls), "cancelled")
    rec = log.hands[n]
    if log.rules.bidding == "auction":
        rec = _set_call(log, n, 0, log.rules.auction_min)
        seat = rec.calls[0][0]
        return _close(log, resign), Alteration(
            "raise-cancelled-bids", n, f"hand {n}: seat {seat} bids {log.rules.auction_min} "
            "instead of passing, and nobody names a trump", seat=seat, expect="wrong-trump")
    i = len(rec.calls) - 1
    _set_call(log, n, i, 13)
    return _close(log, resign), Alteration(
        "raise-cancelled-bids", n, f"hand {n}: the dealer bids 13, not {rec.calls[i][1]}",
        expect="cancelled-wrongly")


# ---------------------------------------------------------------- plays

def _set_plays(log: EditableLog, n: int, plays: bytes) -> HandRecord:
    rec = log.hands[n]
    log.hands[n] = dataclasses.replace(rec, plays=plays)
    return rec


@_register("swap-plays", "swap two cards of different seats within a hand")
def swap_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Two played cards of different seats swapped: at the first of the two places a
    seat plays a card another seat holds."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    i = rng.randrange(51)
    seat_i = _seat_of_play(h, i)
    same_trick = rng.random() < 0.5
    pool = range(i + 1, min(52, i - i % 4 + 4)) if same_trick else range(i + 1, 52)
    options = [j for j in pool if _seat_of_play(h, j) != seat_i] or \
        [j for j in range(i + 1, 52) if _seat_of_play(h, j) != seat_i]
    j = rng.choice(options)
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "swap-plays", n, f"hand {n}: plays {i} ({card_name(h.plays[i])}, seat {seat_i}) and {j} "
        f"({card_name(h.plays[j])}, seat {_seat_of_play(h, j)}) swapped", trick=i // 4 + 1,
        seat=seat_i, expect=_misplay_kind(h, i, h.plays[j]))


@_register("replace-played-card", "a played card replaced by another seat's or a played one")
def replace_played_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """One played card replaced by a card another seat still holds then, or (one time in
    four) by a card already played."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    k = rng.randrange(1 if rng.random() < 0.25 else 0, 52)
    seat = _seat_of_play(h, k)
    if k > 0 and rng.random() < 0.25:
        card = rng.choice(h.plays[:k])
    else:
        later = [c for c in h.plays[k + 1:] if _owner(h, c) != seat]
        card = rng.choice(later) if later else rng.choice(h.plays[:k] or [h.plays[k]])
    if card == h.plays[k]:
        raise NotApplicable("no other card to play")
    plays = bytearray(h.plays)
    plays[k] = card
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "replace-played-card", n, f"hand {n}: play {k} by seat {seat} is {card_name(card)}, "
        f"not {card_name(h.plays[k])}", trick=k // 4 + 1, seat=seat,
        expect=_misplay_kind(h, k, card))


@_register("renege", "a seat plays off-suit while holding the suit led")
def renege(data: bytes, *, choice: int = 0, hand: int | None = None,
           resign: Ed25519PrivateKey | None = None) -> Altered:
    """A seat's card that followed suit swapped with a later card of the same seat of
    another suit: a renege at the first place."""
    log = _open(data)
    rng = random.Random(choice)
    options = []
    history = _replay(log)
    for n, rec in enumerate(log.hands):
        if (hand is not None and n != hand) or not _played(rec):
            continue
        h = history[n]
        for i in range(52):
            if i % 4 == 0:
                continue
            led = suit_of(h.plays[i - i % 4])
            if suit_of(h.plays[i]) != led:
                continue
            seat = _seat_of_play(h, i)
            for j in range(i + 1, 52):
                if _seat_of_play(h, j) == seat and suit_of(h.plays[j]) != led:
                    options.append((n, i, j))
    if not options:
        raise NotApplicable("no seat followed suit and later played another suit")
    n, i, j = rng.choice(options)
    h = history[n]
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    seat = _seat_of_play(h, i)
    return _close(log, resign), Alteration(
        "renege", n, f"hand {n}: seat {seat} plays {card_name(h.plays[j])} in trick "
        f"{i // 4 + 1} and {card_name(h.plays[i])} in trick {j // 4 + 1}", trick=i // 4 + 1,
        seat=seat, expect="renege")


@_register("lead-out-of-turn", "a trick led by a seat that did not win the trick before")
def lead_out_of_turn(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """The lead of a trick (not the first) swapped with another card of the same trick."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    t = rng.randrange(1, 13)
    i, j = 4 * t, 4 * t + 1 + rng.randrange(3)
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "lead-out-of-turn", n, f"hand {n}: trick {t + 1} led with seat "
        f"{_seat_of_play(h, j)}'s {card_name(h.plays[j])}", trick=t + 1,
        seat=_seat_of_play(h, i), expect="wrong-trick-winner")


@_register("truncate-plays", "a played hand stops before its 52nd card")
def truncate_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last cards of one played hand removed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    keep = rng.randrange(1, 52)
    _set_plays(log, n, log.hands[n].plays[:keep])
    return _close(log, resign), Alteration(
        "truncate-plays", n, f"hand {n} stops after {keep} of 52 cards", trick=keep // 4 + 1,
        expect="hand-incomplete")


@_register("drop-plays", "a hand with enough bids left unplayed")
def drop_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Every card of one played hand removed: as if it had been cancelled."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    _set_plays(log, n, b"")
    return _close(log, resign), Alteration(
        "drop-plays", n, f"hand {n}'s 52 cards removed", expect="cancelled-wrongly")


@_register("play-cancelled", "cards played in a hand that was cancelled")
def play_cancelled(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The plays of a played hand copied into a cancelled one."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _cancelled, "cancelled")
    src = _pick_hand(log, rng, None, _played, "played")
    _set_plays(log, n, log.hands[src].plays)
    return _close(log, resign), Alteration(
        "play-cancelled", n, f"hand {n}, cancelled, gets hand {src}'s 52 cards",
        expect="played-when-cancelled")


# ---------------------------------------------------------------- timer marks

@_register("mark-timer", "mark a move as the timer's that is not the rules' automatic move")
def mark_timer(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """One move that is not the rules' automatic move marked as made by the timer."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    rec = log.hands[n]
    found: list[tuple[int, int, Action, int | None]] = []
    n_calls = len(rec.calls)

    def visit(state: MatchState, move: int, action: Action) -> None:
        if not rec.timer >> move & 1 and action not in state.timer_actions():
            trick = (move - n_calls - (1 if state.hand.declarer is not None else 0)) // 4 + 1 \
                if is_play(action) and state.phase == Phase.PLAY else None
            found.append((move, state.current_player, action, trick))

    _replay(log, n, visit)
    if not found:
        raise NotApplicable(f"every move of hand {n} is the automatic one")
    move, seat, action, trick = rng.choice(found)
    log.hands[n] = dataclasses.replace(rec, timer=rec.timer | 1 << move)
    return _close(log, resign), Alteration(
        "mark-timer", n, f"hand {n}: seat {seat}'s {describe_action(action)} (move {move}) "
        "marked as the timer's", trick=trick, seat=seat, expect="wrong-timer-move")


@_register("cancelled-claims", "a cancelled hand's record carries a trump, tricks or scores")
def cancelled_claims(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """A cancelled hand given a trump, or trick counts, or hand scores of zero: fields
    FORMAT.md has nil for a cancelled hand (the claims are no lie, the byte form is)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _cancelled, "cancelled")
    field, value = [("trump", rng.randrange(4)), ("tricks", [0, 0, 0, 0]),
                    ("scores", [0, 0, 0, 0])][choice % 3]
    log.hands[n] = dataclasses.replace(log.hands[n], **{field: value})
    return _close(log, resign), Alteration(
        "cancelled-claims", n, f"hand {n}, cancelled, carries {field} {value}",
        expect="not-canonical")


# ---------------------------------------------------------------- claims

def _claim(log: EditableLog, n: int, field: str, seat: int, delta: int) -> tuple[int, int]:
    rec = log.hands[n]
    values = list(getattr(rec, field))
    old = values[seat]
    values[seat] = old + delta
    log.hands[n] = dataclasses.replace(rec, **{field: values})
    return old, values[seat]


@_register("change-score", "claim another hand score for one seat")
def change_score(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed hand score changed (the totals stay)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.scores is not None, "scored")
    seat = rng.randrange(4)
    old, new = _claim(log, n, "scores", seat, rng.choice([-2, -1, 1, 2]))
    return _close(log, resign), Alteration(
        "change-score", n, f"hand {n}: seat {seat}'s score {old} → {new}", seat=seat,
        expect="wrong-hand-score")


@_register("change-tricks", "claim another trick count for one seat")
def change_tricks(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed trick count changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.tricks is not None, "played")
    seat = rng.randrange(4)
    assert log.hands[n].tricks is not None
    delta = -1 if log.hands[n].tricks[seat] == 13 else 1 \
        if log.hands[n].tricks[seat] == 0 else rng.choice([-1, 1])
    old, new = _claim(log, n, "tricks", seat, delta)
    return _close(log, resign), Alteration(
        "change-tricks", n, f"hand {n}: seat {seat}'s tricks {old} → {new}", seat=seat,
        expect="wrong-trick-count")


@_register("change-total", "claim another running total for one seat")
def change_total(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed running total after a hand changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    seat = rng.randrange(4)
    old, new = _claim(log, n, "totals", seat, rng.choice([-3, -1, 1, 3]))
    return _close(log, resign), Alteration(
        "change-total", n, f"hand {n}: seat {seat}'s total {old} → {new}", seat=seat,
        expect="wrong-total")


# ---------------------------------------------------------------- conversions

def with_recorded_deals(data: bytes, resign: Ed25519PrivateKey) -> bytes:
    """The same match as a platform without the seed protocol logs it: every deal
    written out in the hand records, no seeds or commitments, signed by ``resign``.

    Not an alteration: the result verifies clean (with a note that the deals are
    recorded, not proven). It is the base for :func:`move_dealt_card`'s ``bad-deal``.
    """
    log = _open(data)
    deriver = _deriver(log)
    if deriver is None:
        raise NotApplicable("the log's deals are not derived from seeds")
    first = deriver.first_dealer()
    for n, rec in enumerate(log.hands):
        hands, thirteenth = _deal_of(log, deriver, n, rec.dealer)
        log.hands[n] = dataclasses.replace(rec, deal=RecordedDeal(hands, thirteenth))
    log.header = dataclasses.replace(log.header, server_commitment=None, batch=None,
                                     client_commitments=None, client_seeds=None,
                                     first_dealer=first)
    if log.end is not None:
        log.end = EndRecord(log.end.winner, None)
    return _close(log, resign)


def iter_tampers(rules: RuleSet, blind: bool = False) -> Iterator[Tamper]:
    """The alterations that can apply to a log of ``rules``, by name (``blind``: those of
    a log dealt blind).

    >>> from tarneeb.replay.rules import preset
    >>> "bid-not-higher" in [t.name for t in iter_tampers(preset("classic"))]
    True
    """
    for name in sorted(REGISTRY):
        t = REGISTRY[name]
        if t.applies(rules) and t.blind == blind:
            yield t


__all__ = [
    "REGISTRY", "Alteration", "Altered", "NotApplicable", "Tamper", "alter", "iter_tampers",
    "with_recorded_deals",
]

from . import blind_alterations  # noqa: E402, F401  (registers the blind dealing alterations)
