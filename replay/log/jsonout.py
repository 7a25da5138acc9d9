"""The JSON form of a log, written: a document people and other languages can read.

``to_json(log bytes)`` gives it; :func:`tarneeb.replay.log.jsonform.from_json` gives back
the very same msgpack bytes, so the platform's signature still verifies after a round
trip. Byte strings are hex, cards are written like ``10♥``, suits as ``♥``.

>>> from tarneeb.replay.log import HandRecord
>>> record_to_json(HandRecord(deal_number=0, dealer=1, plays=bytes([34, 0])))["plays"]
['10♥', '2♣']
"""

from __future__ import annotations

import json
from typing import Any

from tarneeb.replay.log.blind import DEALING_BLIND, BlindTranscript, RevealedKeys, halves
from tarneeb.replay.log.parse import parse_log
from tarneeb.replay.log.records import (
    MAGIC,
    PASS_CODE,
    EndRecord,
    HandRecord,
    Header,
    ParsedLog,
    Record,
    _rules_map,
)
from tarneeb.replay.log.stream import DEFAULT_LIMITS, Limits
from tarneeb.replay.rules.cards import card_name, cards_of

JSON_FORMAT = "tarneeb-log-json"
SUITS = "♣♦♥♠"


def _hex(b: bytes | None) -> str | None:
    return None if b is None else b.hex()


def _card(c: int | None) -> str | None:
    return None if c is None else card_name(c)


def _blind_to_json(t: BlindTranscript, plays: int) -> dict[str, Any]:
    return {"publics": t.publics.hex(), "passes": [d.hex() for d in t.passes],
            "partials": [d.hex() for d in t.partials],
            "partial_proofs": [d.hex() for d in t.partial_proofs], "opened": _hex(t.opened),
            **({} if t.shuffle_proofs is None else {
                "batch_proofs": _hex(t.batch_proofs),
                "shuffle_proofs": [h.hex() for d in t.shuffle_proofs  # elements, scalars
                                   for h in halves(d)]}),
            "proofs": [None if k not in t.play_proofs else
                       [t.play_proofs[k][0], t.play_proofs[k][1].hex()] for k in range(plays)]}


def record_to_json(rec: Record) -> dict[str, Any]:
    if isinstance(rec, HandRecord):
        out = {
            "type": "hand", "deal_number": rec.deal_number, "dealer": rec.dealer,
            "calls": [{"seat": s, "call": "pass" if v == PASS_CODE else v} for s, v in rec.calls],
            "revealed": _card(rec.revealed),
            "trump": None if rec.trump is None else SUITS[rec.trump],
            "plays": [card_name(c) for c in rec.plays],
            "timer": [k for k in range(rec.timer.bit_length()) if rec.timer >> k & 1],
            "tricks": rec.tricks, "scores": rec.scores, "totals": rec.totals,
            "deal": None if rec.deal is None else {
                "hands": [[card_name(c) for c in cards_of(h)] for h in rec.deal.hands],
                "thirteenth": _card(rec.deal.thirteenth)},
            "closed": rec.closed,
        }
        if rec.blind is not None:  # a hand dealt blind: its transcript and play proofs
            out["blind"] = _blind_to_json(rec.blind, len(rec.plays))
        return out
    if isinstance(rec, RevealedKeys):
        return {"type": "keys", "deal_number": rec.deal_number,
                "scalars": [_hex(x) for x in rec.scalars],
                "permutations": [_hex(x) for x in rec.permutations]}
    if isinstance(rec, Header):
        head = {
            "type": "header", "magic": MAGIC, "version": rec.version,
            "rules": _rules_map(rec),
            "seats": [{"name": s.name, "computer": s.computer} for s in rec.seats],
            "match_id": rec.match_id.hex(),
            "server_commitment": _hex(rec.server_commitment),
            "batch": None if rec.batch is None else {
                "index": rec.batch.index, "size": rec.batch.size,
                "path": [p.hex() for p in rec.batch.path], "root": rec.batch.root.hex(),
                "head_signature": rec.batch.head_signature.hex()},
            "client_commitments": None if rec.client_commitments is None
            else [c.hex() for c in rec.client_commitments],
            "client_seeds": None if rec.client_seeds is None
            else [c.hex() for c in rec.client_seeds],
            "first_dealer": rec.first_dealer,
            "public_key": _hex(rec.public_key),
        }
        if rec.blind:
            head["dealing"] = DEALING_BLIND
        return head
    if isinstance(rec, EndRecord):
        a = rec.abandoned
        return {"type": "end", "winner": rec.winner, "server_seed": _hex(rec.server_seed),
                "abandoned": None if a is None else {"cause": a.cause, "seat": a.seat,
                                                     "reason": a.reason}}
    return {"type": "signature", "signature": rec.signature.hex()}


def records_to_json(records: list[Record]) -> list[dict[str, Any]]:
    return [record_to_json(r) for r in records]


def log_records(log: ParsedLog) -> list[Record]:
    out: list[Record] = [log.header, *log.hands]
    if log.end is not None:
        out.append(log.end)
    out.extend(log.keys)
    if log.signature is not None:
        out.append(log.signature)
    return out


def to_json(data: bytes, path: str | None = None) -> dict[str, Any]:
    """The JSON document of a log's bytes (raises :class:`LogError` if unreadable)."""
    return log_to_json(parse_log(data, path), data)


def log_to_json(log: ParsedLog, data: bytes | None = None) -> dict[str, Any]:
    """The JSON document of a parsed log; ``data``, the log's bytes, for one cut short:
    the bytes after the cut go in it too (``cut_bytes``), so import gives back the very
    log, with the original's verdict (a torn record, bytes after the signature)."""
    doc: dict[str, Any] = {"format": JSON_FORMAT, "version": log.header.version,
           "records": records_to_json(log_records(log))}
    if log.cut_short is not None:
        at = log.cut_short.offset or 0
        doc["cut_short_at"] = at
        if data is not None:
            doc["cut_bytes"] = data[at:].hex()
    return doc


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the JSON form, as shipped in the package
    (``tarneeb/log.schema.json``): for a server in another language that writes it.

    >>> schema()["properties"]["format"]
    {'const': 'tarneeb-log-json'}
    """
    from importlib.resources import files

    text = files("tarneeb").joinpath("log.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def dumps(data: bytes, path: str | None = None, limits: Limits = DEFAULT_LIMITS) -> str:
    """The JSON text of a log, read within ``limits``: one record a line, so a diff of two
    logs reads by record."""
    return dumps_log(parse_log(data, path, limits), data)


def dumps_log(log: ParsedLog, data: bytes | None = None) -> str:
    """The JSON text of a parsed log (see :func:`dumps`; ``data`` as in :func:`log_to_json`)."""
    doc = log_to_json(log, data)
    records = doc.pop("records")
    head = json.dumps(doc, ensure_ascii=False)[:-1]
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    return head + ', "records": [\n' + lines + "\n]}"


__all__ = ["JSON_FORMAT", "SUITS", "dumps", "dumps_log", "log_records", "log_to_json",
           "record_to_json", "records_to_json", "schema", "to_json"]
