"""The records of a match log, and the bytes each is written as.

A log is a sequence of msgpack values: a *move* is a bare unsigned integer, every
other value a *record*, an array starting with its record type (``HEADER``,
``DEAL``, ``CLAIMS``, ``END``, ``SIGNATURE``, and for blind dealing ``BLIND``,
``PROOF``, ``KEYS``). Here are the record types as Python values and their encoding
in canonical msgpack form; :mod:`tarneeb.replay.log.decode` reads them back with
every check, :mod:`tarneeb.replay.log.parse` reads a whole log, and
:mod:`tarneeb.replay.log` is the format's overview (``docs/FORMAT.md`` documents
every byte).

>>> encode_move(CARD_MOVE + 34).hex(), encode_move(TIMER_MOVE | CALL_MOVE | 2 << 4 | 7).hex()
('23', 'cce7')
>>> encode_record(EndRecord(winner=1, server_seed=None)).hex(" ")
'94 02 01 c0 c0'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Union

import msgpack

from tarneeb.replay.log.kinds import (
    BLIND,
    CLAIMS,
    DEAL,
    DEALING_BLIND,
    END,
    HEADER,
    KEYS,
    PROOF,
    SIGNATURE,
)
from tarneeb.replay.log.stream import LogCutShort
from tarneeb.replay.rules.ruleset import OPTIONAL_FIELDS, RuleSet

if TYPE_CHECKING:  # loaded only for a log dealt blind
    from tarneeb.replay.log.blind import BlindTranscript, RevealedKeys

MAGIC = "tarneeb-log"
VERSION = 3
# the seed protocol of each version (3: version 2's header, the log written move by move)
PROTOCOLS = {1: "tarneeb-fair-v1", 2: "tarneeb-fair-v2", 3: "tarneeb-fair-v2"}
RECORD_NAMES = {HEADER: "header", DEAL: "deal", END: "end", SIGNATURE: "signature",
                CLAIMS: "claims", BLIND: "blind", PROOF: "proof", KEYS: "keys"}
PASS_CODE = 15  # a call's low nibble: 0-13 a bid, 15 a pass
# how many fields each record has, its type included (a blind header has one more): the
# careful reader, the fast one and the torn-tail rule read the shapes from here
RECORD_FIELDS = {HEADER: 12, DEAL: 5, END: 4, SIGNATURE: 2, CLAIMS: 5, BLIND: 6, PROOF: 3,
                 KEYS: 4}

# A move is one msgpack unsigned integer m: bit 7 set when the turn timer made the
# move; the low seven bits say which move (0 is never one: a zero-filled tail is no move).
CARD_MOVE = 1  # 1-52: card m - 1 played
TRUMP_MOVE = 56  # 56-59: suit m - 56 named as trump (rules whose trump is named)
CALL_MOVE = 64  # 64-127: a call, m - 64 = seat << 4 | value (0-13 a bid, 15 a pass)
TIMER_MOVE = 128
ABANDON_CAUSES = ("disconnect", "timeout", "resignation", "server-fault")

RULE_FIELDS = tuple(f.name for f in fields(RuleSet) if f.name not in OPTIONAL_FIELDS)
MAX_REASON = 1024  # characters of an abandonment reason


@dataclass(slots=True)
class Seat:
    """A seat as the header names it: the player's ``name`` and whether a ``computer``
    plays it."""

    name: str
    computer: bool


@dataclass(slots=True)
class BatchProof:
    """Where the server commitment stands in a published season: leaf ``index`` of the
    signed season head ``(size, root)``, with its RFC 6962 inclusion ``path`` and the
    platform's ``head_signature`` over the head."""

    index: int
    size: int
    path: list[bytes]
    root: bytes
    head_signature: bytes


@dataclass(slots=True)
class Header:
    """The header record: the rules, the four seats, the match id, the first dealer, and
    what the deals are proven by (the seeds' commitments, a season's inclusion proof,
    the platform's key) or whether they are dealt blind."""

    rules: RuleSet
    seats: list[Seat]
    match_id: bytes
    first_dealer: int
    server_commitment: bytes | None = None
    batch: BatchProof | None = None
    client_commitments: list[bytes] | None = None
    client_seeds: list[bytes] | None = None
    public_key: bytes | None = None  # raw 32-byte Ed25519 key of the platform
    version: int = VERSION
    rules_raw: dict[str, Any] | None = None  # the rules table as stored, kept for exact bytes
    blind: bool = False  # dealing: blind (a 13th header field); else dealt from seeds/recorded


@dataclass(slots=True)
class RecordedDeal:
    """A deal written out in full by a platform that does not use the seed protocol."""

    hands: tuple[int, int, int, int]
    thirteenth: int | None


@dataclass(slots=True)
class HandRecord:
    """One dealing attempt: its deal record, its moves and (once closed) its claims.

    ``closed`` is false for the hand a log stops in (cut off, or abandoned): it has
    the moves made so far and no claims.
    """

    deal_number: int
    dealer: int
    calls: list[tuple[int, int]] = field(default_factory=list)  # (seat, bid; PASS_CODE = pass)
    revealed: int | None = None
    trump: int | None = None
    plays: bytes = b""
    timer: int = 0  # bit k: move k of the hand (calls, trump choice, plays) was the timer's
    tricks: list[int] | None = None
    scores: list[int] | None = None
    totals: list[int] | None = field(default_factory=lambda: [0, 0, 0, 0])
    deal: RecordedDeal | None = None
    closed: bool = True
    blind: BlindTranscript | None = None  # a blind deal's transcript and play proofs


@dataclass(slots=True)
class Abandonment:
    """Why a match stopped before it was won: ``cause`` one of ``ABANDON_CAUSES``,
    the ``seat`` that left (``None`` for a server fault), the platform's ``reason``."""

    cause: str
    seat: int | None
    reason: str


@dataclass(slots=True)
class EndRecord:
    """The end record: the winning team (``None`` for none), the revealed server seed and,
    for a match that stopped before it was won, why."""

    winner: int | None
    server_seed: bytes | None
    abandoned: Abandonment | None = None


@dataclass(slots=True)
class SignatureRecord:
    """The signature record: the platform's Ed25519 signature over every byte before it."""

    signature: bytes


Record = Union[Header, HandRecord, EndRecord, SignatureRecord, "RevealedKeys"]


@dataclass(slots=True)
class ParsedLog:
    """A log read from bytes: its records, the byte offset of each, and the signed bytes."""

    header: Header
    hands: list[HandRecord]
    offsets: list[int]  # offsets[i] is where hands[i]'s deal record starts
    end: EndRecord | None
    end_offset: int | None
    signature: SignatureRecord | None
    signed_bytes: bytes  # every byte before the signature record
    signature_offset: int | None
    cut_short: LogCutShort | None = None  # set when the stream stops inside a value
    size: int = 0
    zero_tail: int = 0  # how many zero bytes the file ends with
    keys: list[RevealedKeys] = field(default_factory=list)  # blind: revealed after the match
    key_offsets: list[int] = field(default_factory=list)


# ---------------------------------------------------------------- encoding
def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def encode_calls(calls: list[tuple[int, int]]) -> bytes:
    """Calls as move bytes (no timer marks)."""
    return bytes(CALL_MOVE | (s << 4) | v for s, v in calls)


def encode_move(code: int) -> bytes:
    """The bytes of one move (``code`` with ``TIMER_MOVE`` set for a timer move)."""
    return bytes((code,)) if code < 128 else bytes((0xcc, code))


def hand_moves(rec: HandRecord, named_trump: bool) -> list[int]:
    """The move codes of a hand in order, timer bits included."""
    codes = [CALL_MOVE | (s << 4) | v for s, v in rec.calls]
    if named_trump and rec.trump is not None:
        codes.append(TRUMP_MOVE + rec.trump)
    codes.extend(CARD_MOVE + c for c in rec.plays)
    timer = rec.timer
    if timer:
        codes = [c | TIMER_MOVE if timer >> k & 1 else c for k, c in enumerate(codes)]
    return codes


def deal_list(rec: HandRecord) -> list[Any]:
    deal = None if rec.deal is None else [*rec.deal.hands, rec.deal.thirteenth]
    return [DEAL, rec.deal_number, rec.dealer, rec.revealed, deal]


def claims_list(rec: HandRecord, named_trump: bool) -> list[Any]:
    return [CLAIMS, None if named_trump else rec.trump, rec.tricks, rec.scores, rec.totals]


def encode_hand(rec: HandRecord, named_trump: bool) -> bytes:
    """A hand's bytes: its deal record, its moves, its claims record (when closed).

    ``named_trump`` (the rules' ``trump == "named"``): the trump is a move, not a claim.
    """
    moves = hand_moves(rec, named_trump)
    if rec.blind is not None:
        return _encode_blind_hand(rec, moves, named_trump)
    timed = any(c >= 128 for c in moves)
    raw = b"".join(map(encode_move, moves)) if timed else bytes(moves)
    out = _pack(deal_list(rec)) + raw
    if rec.closed:
        out += _pack(claims_list(rec, named_trump))
    return out


def _encode_blind_hand(rec: HandRecord, moves: list[int], named_trump: bool) -> bytes:
    """A blind hand: its deal and blind records, its moves, each card followed by its proof."""
    from tarneeb.replay.log.blind import blind_list, proof_list

    assert rec.blind is not None
    out = [_pack(deal_list(rec)), _pack(blind_list(rec.blind))]
    first_card = len(moves) - len(rec.plays)
    out.extend(encode_move(m) for m in moves[:first_card])
    proofs = rec.blind.play_proofs
    for k, m in enumerate(moves[first_card:]):
        out.append(encode_move(m))
        if k in proofs:
            out.append(_pack(proof_list(*proofs[k])))
    if rec.closed:
        out.append(_pack(claims_list(rec, named_trump)))
    return b"".join(out)


def _rules_map(header: Header) -> dict[str, Any]:
    """The header's rules map as it holds it: its own map when read from a log, so the bytes
    stay the ones signed."""
    return header.rules_raw if header.rules_raw is not None else header.rules.to_dict()


def _seat_pairs(header: Header) -> list[list[Any]]:
    """The header's seats as the log holds them: ``[name, computer]`` each."""
    return [[s.name, s.computer] for s in header.seats]


def record_to_list(rec: Header | EndRecord | SignatureRecord | RevealedKeys) -> list[Any]:
    """The msgpack array of a record other than a hand."""
    if isinstance(rec, Header):
        batch = None
        if rec.batch is not None:
            b = rec.batch
            batch = [b.index, b.size, list(b.path), b.root, b.head_signature]
        out = [HEADER, MAGIC, rec.version, _rules_map(rec), _seat_pairs(rec),
               rec.match_id, rec.server_commitment, batch, rec.client_commitments,
               rec.client_seeds, rec.first_dealer, rec.public_key]
        if rec.blind:
            out.append(DEALING_BLIND)
        return out
    if isinstance(rec, EndRecord):
        a = rec.abandoned
        return [END, rec.winner, rec.server_seed,
                None if a is None else [a.cause, a.seat, a.reason]]
    if isinstance(rec, SignatureRecord):
        return [SIGNATURE, rec.signature]
    from tarneeb.replay.log.blind import RevealedKeys, keys_list  # a log dealt blind

    if isinstance(rec, RevealedKeys):
        return keys_list(rec)
    raise TypeError(f"not a log record: {rec!r}")


def encode_record(rec: Record, named_trump: bool = False) -> bytes:
    """The bytes of a record (a hand: all of its values, see :func:`encode_hand`)."""
    if isinstance(rec, HandRecord):
        return encode_hand(rec, named_trump)
    return _pack(record_to_list(rec))


__all__ = [
    "ABANDON_CAUSES", "BLIND", "CALL_MOVE", "CARD_MOVE", "CLAIMS", "DEAL", "DEALING_BLIND",
    "END", "HEADER", "KEYS", "MAGIC", "MAX_REASON", "PASS_CODE", "PROOF", "PROTOCOLS",
    "RECORD_NAMES", "RULE_FIELDS", "SIGNATURE", "TIMER_MOVE", "TRUMP_MOVE", "VERSION",
    "Abandonment", "BatchProof", "EndRecord", "HandRecord", "Header", "ParsedLog", "Record",
    "RecordedDeal", "Seat", "SignatureRecord", "claims_list", "deal_list", "encode_calls",
    "encode_hand", "encode_move", "encode_record", "hand_moves", "record_to_list",
]
