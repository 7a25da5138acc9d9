"""The match log: an append-only stream of msgpack values, written move by move.

A log is a sequence of msgpack values. A *move* is a bare unsigned integer (one
byte; two when the turn timer made it); everything else is a *record*, a msgpack
array starting with its record type:

* ``[0, "tarneeb-log", version, rules, seats, match_id, server_commitment,
  batch, client_commitments, client_seeds, first_dealer, public_key]`` — the header;
* ``[1, deal_number, dealer, revealed, deal]`` — a deal: it opens a hand, whose
  moves (calls, the trump named, the cards) follow one by one;
* ``[4, trump, tricks, scores, totals]`` — the claims: they close the hand;
* ``[2, winner, server_seed, abandoned]`` — the end: finished, or abandoned (who, why);
* ``[3, signature]`` — Ed25519 over every byte before this record.

A server appends each value as it happens, so a log cut off anywhere still reads
up to its last whole value. Every record is in canonical msgpack form (what
:func:`msgpack.packb` writes), so a log has exactly one byte form and the JSON
form converts back to the very same bytes. In memory a hand is one
:class:`HandRecord` (its deal, moves and claims); ``docs/FORMAT.md`` documents
every byte.

The format's names are all importable from here; they live by job in
:mod:`tarneeb.replay.log.records` (the records and their bytes),
:mod:`tarneeb.replay.log.decode` (one record or run of moves read back, every field
checked) and :mod:`tarneeb.replay.log.parse` (a whole log from bytes, a stream or a file); the
others are the capped stream reader (``stream``), the fast reader (``fastread``), the
writer (``writer``), the JSON form (``jsonout`` writes it, ``jsonform`` reads it back),
the annotated dump (``annotate``) and blind dealing's records (``blind``).

May import: :mod:`tarneeb.replay.rules` and :mod:`tarneeb.audit` (nothing of the judge:
the format knows no verdict). Its modules import each other, never this facade.

>>> rec = HandRecord(deal_number=0, dealer=1, calls=[(2, 5), (3, 4), (0, 2), (1, 3)],
...                  plays=bytes([34, 0]), timer=1 << 5)
>>> raw = encode_hand(rec, named_trump=False)
>>> raw.hex(" ")
'95 01 00 01 c0 c0 65 74 42 53 23 cc 81 95 04 c0 c0 c0 94 00 00 00 00'
>>> decode_hand(raw, named_trump=False) == rec
True
"""

from __future__ import annotations

from tarneeb.replay.log.decode import SCORE_LIMIT, decode_record, move_run
from tarneeb.replay.log.parse import decode_hand, parse_log, read_log, torn_tail
from tarneeb.replay.log.records import (
    ABANDON_CAUSES,
    CALL_MOVE,
    CARD_MOVE,
    CLAIMS,
    DEAL,
    END,
    HEADER,
    MAGIC,
    MAX_REASON,
    PASS_CODE,
    PROTOCOLS,
    RECORD_NAMES,
    RULE_FIELDS,
    SIGNATURE,
    TIMER_MOVE,
    TRUMP_MOVE,
    VERSION,
    Abandonment,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    ParsedLog,
    Record,
    RecordedDeal,
    Seat,
    SignatureRecord,
    claims_list,
    deal_list,
    encode_calls,
    encode_hand,
    encode_move,
    encode_record,
    hand_moves,
    record_to_list,
)
from tarneeb.replay.log.stream import DEFAULT_LIMITS, CapExceeded, Limits, LogCutShort, LogError

# internals that the fast reader (tarneeb.replay.log.fastread) and its tests take from here
from tarneeb.replay.log.decode import _CALL_OK as _CALL_OK  # isort: skip
from tarneeb.replay.log.decode import _CALL_PAIRS as _CALL_PAIRS  # isort: skip
from tarneeb.replay.log.decode import _CARDS as _CARDS  # isort: skip
from tarneeb.replay.log.parse import _parse as _parse  # isort: skip
from tarneeb.replay.log.parse import _parse_carefully as _parse_carefully  # isort: skip

__all__ = [
    "ABANDON_CAUSES", "CALL_MOVE", "CARD_MOVE", "CLAIMS", "DEAL", "DEFAULT_LIMITS", "END",
    "HEADER", "MAGIC", "MAX_REASON", "PASS_CODE", "PROTOCOLS", "RECORD_NAMES", "RULE_FIELDS",
    "SCORE_LIMIT", "SIGNATURE", "TIMER_MOVE", "TRUMP_MOVE", "VERSION", "Abandonment",
    "BatchProof", "CapExceeded", "EndRecord", "HandRecord", "Header", "Limits", "LogCutShort",
    "LogError", "ParsedLog", "Record", "RecordedDeal", "Seat", "SignatureRecord", "claims_list",
    "deal_list", "decode_hand", "decode_record", "encode_calls", "encode_hand", "encode_move",
    "encode_record", "hand_moves", "move_run", "parse_log", "read_log", "record_to_list",
    "torn_tail",
]
