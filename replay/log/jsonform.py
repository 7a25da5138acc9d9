"""The JSON form of a log, converting both ways without loss; this module reads it back.

``to_json(log bytes)`` gives a document people and other languages can read;
``from_json(document)`` gives back the very same msgpack bytes, so the
platform's signature still verifies after a round trip. Byte strings are hex,
cards are written like ``10♥`` (any form :func:`~tarneeb.replay.rules.cards.parse_card`
reads is accepted back), suits as ``♥``.

>>> from tarneeb.replay.log import HandRecord
>>> record_to_json(HandRecord(deal_number=0, dealer=1, plays=bytes([34, 0])))["plays"]
['10♥', '2♣']
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal, overload

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.signing import public_key_raw, sign
from tarneeb.replay.log.blind import DEALING_BLIND, BlindTranscript, RevealedKeys, keys_from_list
from tarneeb.replay.log.decode import decode_record
from tarneeb.replay.log.jsonout import (
    JSON_FORMAT,
    dumps,
    dumps_log,
    log_to_json,
    record_to_json,
    schema,
    to_json,
)
from tarneeb.replay.log.parse import decode_hand, parse_log
from tarneeb.replay.log.records import (
    ABANDON_CAUSES,
    MAGIC,
    PASS_CODE,
    Abandonment,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    Record,
    RecordedDeal,
    Seat,
    SignatureRecord,
    encode_record,
)
from tarneeb.replay.log.stream import DEFAULT_LIMITS, CapExceeded, Limits, LogError
from tarneeb.replay.rules.cards import (
    CardError,
    mask_of,
    parse_card,
    parse_suit,
)
from tarneeb.replay.rules.ruleset import RulesError, RuleSet

# ---------------------------------------------------------------- JSON → msgpack
_FIELD: Any = object()  # (no value given: the record's field)


class _In:
    def __init__(self, index: int, rec: dict[str, Any]) -> None:
        self.index, self.rec = index, rec

    def fail(self, what: str) -> LogError:
        kind = self.rec.get("type", "?") if isinstance(self.rec, dict) else "?"
        return LogError(f"record {self.index} ({kind}): {what}")

    def get(self, key: str) -> Any:
        if key not in self.rec:
            raise self.fail(f"missing field {key!r}")
        return self.rec[key]

    @overload
    def hex(self, key: str, value: Any = _FIELD, nil: Literal[False] = False) -> bytes: ...
    @overload
    def hex(self, key: str, value: Any = _FIELD, *, nil: bool) -> bytes | None: ...

    def hex(self, key: str, value: Any = _FIELD, nil: bool = False) -> bytes | None:
        """The bytes of ``value`` (a hex text), or of the field ``key`` when no value is
        given; a null is None with ``nil`` (an item of a list too: a kept scalar)."""
        v = self.get(key) if value is _FIELD else value
        if v is None and nil:
            return None
        if not isinstance(v, str):
            raise self.fail(f"{key} must be a hex string")
        try:
            return bytes.fromhex(v)
        except ValueError:
            raise self.fail(f"{key} is not hex") from None

    @overload
    def card(self, key: str, v: Any, nil: Literal[False] = False) -> int: ...
    @overload
    def card(self, key: str, v: Any, nil: bool) -> int | None: ...

    def card(self, key: str, v: Any, nil: bool = False) -> int | None:
        if v is None and nil:
            return None
        if not isinstance(v, str):
            raise self.fail(f"{key}: {v!r} is not a card")
        try:
            return parse_card(v)
        except CardError as e:
            raise self.fail(f"{key}: {e}") from None

    @overload
    def list_(self, key: str, nil: Literal[False] = False) -> list[Any]: ...
    @overload
    def list_(self, key: str, nil: bool) -> list[Any] | None: ...

    def list_(self, key: str, nil: bool = False) -> list[Any] | None:
        v = self.get(key)
        if v is None and nil:
            return None
        if not isinstance(v, list):
            raise self.fail(f"{key} must be a list")
        return v


def record_from_json(index: int, obj: Any, limits: Limits = DEFAULT_LIMITS,
                     named_trump: bool = False) -> Record:
    """A record from its JSON object; errors name the record index and field.

    ``named_trump`` (the header's rules name the trump): a hand's trump is a move.
    """
    return _record_from_json(index, obj, limits, named_trump)[0]


def _record_from_json(index: int, obj: Any, limits: Limits, named_trump: bool
                      ) -> tuple[Record, bytes]:
    """:func:`record_from_json`, and the record's bytes (made once, for the check)."""
    if not isinstance(obj, dict):
        raise LogError(f"record {index}: not a JSON object")
    r = _In(index, obj)
    kind = r.get("type")
    fields = _FIELDS.get(kind) if isinstance(kind, str) else None  # else: unknown type below
    unknown = sorted(set(obj) - fields) if fields is not None else []
    if unknown:  # what the log would not carry: the JSON would say more than the log
        raise r.fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
    rec: Header | HandRecord | EndRecord | SignatureRecord | RevealedKeys
    try:
        if kind == "hand":
            rec = _hand_from_json(r, named_trump)
        elif kind == "header":
            rec = _header_from_json(r, limits)
        elif kind == "end":
            rec = EndRecord(r.get("winner"), r.hex("server_seed", nil=True),
                            _abandoned_from_json(r))
        elif kind == "signature":
            rec = SignatureRecord(r.hex("signature"))
        elif kind == "keys":
            rec = RevealedKeys(r.get("deal_number"), _hexes(r, "scalars"),
                               _hexes(r, "permutations"))
        else:
            raise r.fail(f"unknown record type {kind!r}")
        # the msgpack decoder checks every field's type and range
        raw = encode_record(rec, named_trump)
        if isinstance(rec, HandRecord):
            back: Record = decode_hand(raw, named_trump, rec.blind is not None)
        elif isinstance(rec, RevealedKeys):
            back = keys_from_list(msgpack.unpackb(raw, raw=False), 0)
        else:
            back = decode_record(msgpack.unpackb(raw, raw=False), 0, limits)
        # the log made must say all the document says, and nothing else
        differs = _differs(obj, record_to_json(back))
        if differs is not None:
            raise r.fail(f"{differs}: the log would not say what the document says")
    except LogError as e:
        if e.message.startswith("record "):
            raise
        raise r.fail(e.message) from None
    except (TypeError, ValueError, OverflowError) as e:
        raise r.fail(str(e)) from None
    return rec, raw


def _differs(given: Any, back: Any, key: str = "") -> str | None:
    """Where the JSON ``given`` says other than ``back``, the same record exported from the
    log it makes (``None``: nowhere). Spellings of one value are the same value: a card as
    ``TH``, hex in upper case, a suit by number, a recorded hand or the timer marks in any
    order, ``closed`` left out of a closed hand; ``true`` is never a number."""
    if type(back) is dict:
        if type(given) is not dict:
            return f"{key or 'the record'} is not an object"
        if "closed" in back and "closed" not in given and back["closed"] is True:
            given = {**given, "closed": True}
        if set(given) != set(back):
            extra = sorted(set(given) ^ set(back))
            return f"field(s) {', '.join(map(repr, extra))} of {key or 'the record'}"
        return next((d for k in back if (d := _differs(given[k], back[k], k)) is not None),
                    None)
    if type(back) is list:
        if type(given) is not list or len(given) != len(back):
            return f"{key}: another number of items"
        if key == "timer" or (key == "hands" and all(type(h) is str for h in back)):
            given = sorted(given, key=lambda v: (type(v) is not int, _value(v)))
        return next((d for g, b in zip(given, back, strict=True)
                     if (d := _differs(g, b, key)) is not None), None)
    if type(given) is type(back) and given == back:
        return None
    if type(back) is str and type(given) in (str, int) and _value(given) == _value(back):
        return None
    return f"{key}: {given!r}"


def _value(v: Any) -> Any:
    """What a spelled value stands for: a card or suit number, lower-case hex; else itself."""
    if type(v) is not str:
        return v
    for parse in (parse_card, parse_suit):
        try:
            return parse(v)
        except CardError:
            pass
    return v.lower()


def _hexes(r: _In, key: str) -> list[bytes | None]:
    return [r.hex(key, x, nil=True) for x in r.list_(key)]


def _blind_from_json(r: _In) -> BlindTranscript | None:
    b = r.rec.get("blind")
    if b is None:
        return None
    v1 = {"publics", "passes", "partials", "partial_proofs", "opened", "proofs"}
    if not isinstance(b, dict) or not isinstance(b.get("proofs"), list) or set(b) not in (
            v1, v1 | {"batch_proofs", "shuffle_proofs"}):
        raise r.fail("blind must be {publics, passes, partials, partial_proofs, opened, proofs}"
                     " (and batch_proofs, shuffle_proofs in v2)")
    sub = _In(r.index, b)
    # a missing element (null) is kept as None for the log's decoder to refuse, as it
    # refuses every other field out of shape
    passes: Any = _hexes(sub, "passes")
    partials: Any = _hexes(sub, "partials")
    partial_proofs: Any = _hexes(sub, "partial_proofs")
    t = BlindTranscript(sub.hex("publics"), passes, partials, partial_proofs,
                        sub.hex("opened", nil=True))
    if "shuffle_proofs" in b:  # tarneeb-blind-v2
        halves = _hexes(sub, "shuffle_proofs")  # each pass's elements, then its scalars
        if len(halves) % 2 or len(halves) > 8 or any(h is None for h in halves):
            raise r.fail("shuffle_proofs must be two hex strings for each pass (eight)")
        whole = [h for h in halves if h is not None]  # all of them (none is None, above)
        t.shuffle_proofs = [whole[i] + whole[i + 1] for i in range(0, len(whole), 2)]
        t.batch_proofs = sub.hex("batch_proofs")
    for k, proof in enumerate(b["proofs"]):
        if proof is None:
            continue
        if not isinstance(proof, list) or len(proof) != 2 or not isinstance(proof[0], int):
            raise r.fail("each play proof is [position, hex proof] or null")
        t.play_proofs[k] = (proof[0], sub.hex("proof", proof[1]))
    return t


def _abandoned_from_json(r: _In) -> Abandonment | None:
    a = r.rec.get("abandoned")
    if a is None:
        return None
    if not isinstance(a, dict) or a.get("cause") not in ABANDON_CAUSES \
            or not isinstance(a.get("reason"), str):
        raise r.fail("abandoned must be null or {\"cause\": one of "
                     + ", ".join(ABANDON_CAUSES) + ", \"seat\": 0-3 or null, "
                     "\"reason\": text}")
    return Abandonment(a["cause"], a.get("seat"), a["reason"])


# the fields of each record's JSON object: import refuses any other (the log would drop it)
_FIELDS = {
    "hand": {"type", "deal_number", "dealer", "calls", "revealed", "trump", "plays", "timer",
             "tricks", "scores", "totals", "deal", "closed", "blind"},
    "header": {"type", "magic", "version", "rules", "seats", "match_id", "server_commitment",
               "batch", "client_commitments", "client_seeds", "first_dealer", "public_key",
               "dealing"},
    "end": {"type", "winner", "server_seed", "abandoned"},
    "signature": {"type", "signature"},
    "keys": {"type", "deal_number", "scalars", "permutations"},
}


def _hand_from_json(r: _In, named_trump: bool) -> HandRecord:
    calls = []
    for c in r.list_("calls"):
        if not isinstance(c, dict) or set(c) != {"seat", "call"}:
            raise r.fail("each call is {\"seat\": s, \"call\": n or \"pass\"}")
        call = PASS_CODE if c["call"] == "pass" else c["call"]
        if type(call) is not int or type(c["seat"]) is not int:  # true is no seat or bid
            raise r.fail(f"call {c!r} is not a seat and a bid or pass")
        calls.append((c["seat"], call))
    trump = r.get("trump")
    if trump is not None:
        try:
            trump = parse_suit(trump) if isinstance(trump, str) else trump
        except CardError as e:
            raise r.fail(f"trump: {e}") from None
        if named_trump and (type(trump) is not int or not 0 <= trump <= 3):  # (a move)
            raise r.fail(f"trump: {trump!r} is not a suit")
    timer = 0
    for k in r.list_("timer"):
        if type(k) is not int or not 0 <= k < 64:
            raise r.fail(f"timer: {k!r} is not a move index 0-63")
        timer |= 1 << k
    deal = r.get("deal")
    recorded = None
    if deal is not None:
        if not isinstance(deal, dict) or not isinstance(deal.get("hands"), list) \
                or len(deal["hands"]) != 4:
            raise r.fail("deal must be {\"hands\": [four card lists], \"thirteenth\": card}")
        hands = [mask_of(r.card("deal", c) for c in h) if isinstance(h, list) else -1
                 for h in deal["hands"]]
        recorded = RecordedDeal((hands[0], hands[1], hands[2], hands[3]),
                                r.card("thirteenth", deal.get("thirteenth"), nil=True))
    plays = bytes(r.card("plays", c) for c in r.list_("plays"))
    closed = r.rec.get("closed", True)
    if type(closed) is not bool:
        raise r.fail(f"closed must be true or false, not {closed!r}")
    if not closed and any(r.rec.get(k) is not None for k in ("tricks", "scores", "totals")):
        raise r.fail("an open hand (closed: false) has no claims record: its tricks, scores "
                     "and totals are null")
    return HandRecord(
        deal_number=r.get("deal_number"), dealer=r.get("dealer"), calls=calls,
        revealed=r.card("revealed", r.get("revealed"), nil=True), trump=trump, plays=plays,
        timer=timer, tricks=r.get("tricks"), scores=r.get("scores"), totals=r.get("totals"),
        deal=recorded, closed=closed, blind=_blind_from_json(r))


def _header_from_json(r: _In, limits: Limits) -> Header:
    if r.get("magic") != MAGIC:
        raise r.fail(f"magic must be {MAGIC!r}")
    rules_raw = r.get("rules")
    if isinstance(rules_raw, dict) and isinstance(rules_raw.get("name"), str) \
            and len(rules_raw["name"]) > limits.max_name:
        raise r.fail(f"a rules name of {len(rules_raw['name']):,} characters: over the "
                     f"max_name cap of {limits.max_name:,}")
    try:
        rules = RuleSet.from_dict(rules_raw)
    except (RulesError, TypeError) as e:
        raise r.fail(f"rules: {e}") from None
    seats = []
    for s in r.list_("seats"):
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) \
                or not isinstance(s.get("computer"), bool):
            raise r.fail("each seat is {\"name\": text, \"computer\": true/false}")
        if len(s["name"]) > limits.max_name:  # before any copy of a huge name is made
            raise r.fail(f"a seat name of {len(s['name']):,} characters: over the max_name "
                         f"cap of {limits.max_name:,} bytes")
        seats.append(Seat(s["name"], s["computer"]))
    batch = r.get("batch")
    proof = None
    if batch is not None:
        if not isinstance(batch, dict) or not isinstance(batch.get("path"), list):
            raise r.fail("batch must be {index, size, path, root, head_signature}")
        index: Any = batch.get("index")  # checked, as every field, by the log's decoder
        size: Any = batch.get("size")
        proof = BatchProof(index, size,
                           [r.hex("batch path", p) for p in batch["path"]],
                           r.hex("batch root", batch.get("root")),
                           r.hex("batch head_signature", batch.get("head_signature")))
    cc, cs = r.list_("client_commitments", nil=True), r.list_("client_seeds", nil=True)
    return Header(
        rules=rules, seats=seats, match_id=r.hex("match_id"), first_dealer=r.get("first_dealer"),
        server_commitment=r.hex("server_commitment", nil=True), batch=proof,
        client_commitments=None if cc is None else [r.hex("client_commitments", x) for x in cc],
        client_seeds=None if cs is None else [r.hex("client_seeds", x) for x in cs],
        public_key=r.hex("public_key", nil=True), version=r.get("version"), rules_raw=rules_raw,
        blind=_dealing_from_json(r))


def _dealing_from_json(r: _In) -> bool:
    dealing = r.rec.get("dealing")
    if dealing not in (None, DEALING_BLIND):
        raise r.fail(f"dealing must be {DEALING_BLIND!r} or absent")
    return dealing == DEALING_BLIND


def from_json(doc: Any, limits: Limits = DEFAULT_LIMITS, signing: bool = False) -> bytes:
    """The msgpack bytes of a JSON log document (raises :class:`LogError` naming the record).

    What comes in is held to the very caps the log reader applies (the result is read
    back by it), so import never makes a log that ``verify`` refuses to read.

    A document of a log cut short (``cut_short_at``, as ``export`` writes it) gives the
    log cut where it says, or none (:func:`_check_cut`), followed by the bytes after the
    cut when it carries them (``cut_bytes``, as ``export`` writes them: the very log
    exported); with ``signing`` (the log is to be signed next) it is refused: only a
    whole match is signed.
    """
    if not isinstance(doc, dict) or doc.get("format") != JSON_FORMAT:
        raise LogError(f"not a JSON tarneeb log (expected \"format\": \"{JSON_FORMAT}\")")
    unknown = sorted(set(doc) - {"format", "version", "records", "cut_short_at", "cut_bytes"})
    if unknown or type(doc.get("version")) is not int or doc["version"] != 3:
        raise LogError(f"not a JSON tarneeb log of version 3 (\"version\": "
                       f"{doc.get('version')!r}" + (f"; unknown field(s) {unknown}" if unknown
                                                   else "") + ")")
    cut = doc.get("cut_short_at")
    if "cut_short_at" in doc and (type(cut) is not int or cut < 0):
        raise LogError("\"cut_short_at\" must be the byte where the log stops (a whole "
                       f"number from 0), not {cut!r}")
    tail = _cut_bytes(doc, limits)
    if cut is not None and signing:
        raise LogError(f"the document says the log was cut short at byte {cut}: only a whole "
                       "match is signed")
    records = doc.get("records")
    if not isinstance(records, list) or not records:
        raise LogError("\"records\" must be a non-empty list")
    if len(records) > limits.max_records:
        raise CapExceeded("max_records", limits.max_records, f"{len(records):,} records")
    for i, rec in enumerate(records):
        _check_sizes(i, rec, limits)
    encoded = []
    named_trump = False
    for i, obj in enumerate(records):
        rec, raw = _record_from_json(i, obj, limits, named_trump)
        if isinstance(rec, Header):
            named_trump = rec.rules.trump == "named"
        encoded.append(raw)
    data = b"".join(encoded)
    try:
        parse_log(data, limits=limits, strict=True)  # read back whole, or not made at all
    except LogError as e:  # name the record, not a byte of bytes the user never saw
        if e.offset is None:
            raise
        at, index = 0, 0
        while index + 1 < len(encoded) and at + len(encoded[index]) <= e.offset:
            at += len(encoded[index])
            index += 1
        kind = records[index].get("type", "?") if isinstance(records[index], dict) else "?"
        raise LogError(f"record {index} ({kind}): {e.message}") from None
    if cut is not None:
        _check_cut(cut, len(data), records[-1], tail is not None)
    if tail is not None:
        data = _with_cut_bytes(data, tail, limits)
    return data


def _cut_bytes(doc: dict[str, Any], limits: Limits) -> bytes | None:
    """The bytes after the cut the document carries (``cut_bytes``), or ``None``."""
    if "cut_bytes" not in doc:
        return None
    if "cut_short_at" not in doc:
        raise LogError("\"cut_bytes\" are the bytes after the cut: the document says no "
                       "\"cut_short_at\"")
    text = doc["cut_bytes"]
    if type(text) is not str or len(text) > 2 * limits.max_bytes:
        raise LogError("\"cut_bytes\" must be hex text of the bytes after the cut, within "
                       f"the max_bytes cap of {limits.max_bytes:,}")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise LogError("\"cut_bytes\" is not hex") from None


def _with_cut_bytes(data: bytes, tail: bytes, limits: Limits) -> bytes:
    """The log: its whole records, then the bytes after the cut, which must be no whole
    record (the document would not say all the log does) and must leave it cut there."""
    whole = data + tail
    log = parse_log(whole, limits=limits)
    at = None if log.cut_short is None else log.cut_short.offset
    if at != len(data):
        raise LogError(f"\"cut_bytes\": the log with them is not cut short at byte "
                       f"{len(data)}, where its records end (" + (
                           "it reads whole" if at is None else f"it is cut at byte {at}")
                       + ")")
    return whole


def _check_cut(cut: int, size: int, last: dict[str, Any], carried: bool) -> None:
    """Its records (``size`` bytes) are the whole values before the cut, so they must end
    at ``cut``, and not with the signature unless the document ``carried`` the bytes after
    the cut (``cut_bytes``): without them the log would read as whole."""
    said = f"\"cut_short_at\" says the log was cut short at byte {cut}"
    if cut != size:
        raise LogError(f"{said}, but its records, the whole ones before the cut, end at byte "
                       f"{size}")
    if last.get("type") == "signature" and not carried:
        raise LogError(f"{said}, after its signature: the log without the bytes cut off "
                       "would read as whole")


def sign_log(data: bytes, key: Ed25519PrivateKey) -> bytes:
    """An unsigned log, signed with the platform's ``key``: the header must name that
    key (or none, and it is filled in: the header's bytes change, so the log is re-encoded)
    and the log must end with its end record."""
    log = parse_log(data)
    if log.signature is not None:
        raise LogError("the log is signed already; remove its signature record to sign again")
    if log.cut_short is not None or log.end is None:
        raise LogError("the log does not end with its end record: only a whole match is signed")
    public = public_key_raw(key.public_key())
    if log.header.public_key is None:
        header = replace(log.header, public_key=public)
        named = header.rules.trump == "named"
        data = encode_record(header) + b"".join(encode_record(h, named) for h in log.hands) \
            + encode_record(log.end) + b"".join(map(encode_record, log.keys))
    elif log.header.public_key != public:
        raise LogError("the header names another public key than the signing key's")
    return data + encode_record(SignatureRecord(sign(key, data)))


def _check_sizes(index: int, rec: Any, limits: Limits) -> None:
    """The caps of the log reader on one JSON record, before any of it is converted:
    nesting, and the length of every list, object and text (hex text: twice the bytes)."""
    level, depth = [rec] if type(rec) is list or type(rec) is dict else [], 0
    while level:
        depth += 1
        if depth > limits.max_depth:
            raise LogError(f"record {index}: nested deeper than a log is: over the max_depth "
                           f"cap of {limits.max_depth:,}")
        nxt = []
        for v in level:
            items = v.values() if type(v) is dict else v
            most = limits.max_map if type(v) is dict else limits.max_field
            if len(items) > most:
                raise LogError(f"record {index}: a list or object of {len(items):,} items, "
                               f"more than any field of a log holds ({most:,})")
            for x in items:
                if type(x) is str and len(x) > 2 * limits.max_field:
                    raise LogError(f"record {index}: a text of {len(x):,} characters, more "
                                   f"than any field of a log holds")
                if type(x) is list or type(x) is dict:
                    nxt.append(x)
        level = nxt


def loads(text: str, limits: Limits = DEFAULT_LIMITS, signing: bool = False) -> bytes:
    """``from_json`` of JSON text; a syntax error names the line and column.

    >>> loads('{"format": "tarneeb-log-json", "records": [{"deal_number": ' + "9" * 99 + '}]}')
    Traceback (most recent call last):
    ...
    tarneeb.replay.log.stream.LogError: a number of 99 digits: over the max_int_digits cap of 24
    """
    if len(text) > limits.max_json_bytes:
        raise CapExceeded("max_bytes", limits.max_bytes, f"JSON text of {len(text):,} "
                          "characters, more than eight times")

    def whole(digits: str) -> int:
        if len(digits.lstrip("-")) > limits.max_int_digits:
            raise LogError(f"a number of {len(digits.lstrip('-'))} digits: over the "
                           f"max_int_digits cap of {limits.max_int_digits}")
        return int(digits)

    def no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):  # which one counts would depend on the JSON reader
            twice = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
            raise LogError(f"not a JSON log: the key {twice!r} appears twice in one object")
        return obj

    try:
        doc = json.loads(text, parse_int=whole, object_pairs_hook=no_repeats)
    except json.JSONDecodeError as e:
        at = e.msg.removesuffix(" at")  # (some of its messages end in " at")
        raise LogError(f"not valid JSON: {at} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise LogError(f"JSON nested deeper than a log is: over the max_depth cap of "
                       f"{limits.max_depth:,}") from None
    return from_json(doc, limits, signing)


__all__ = ["JSON_FORMAT", "dumps", "dumps_log", "from_json", "loads", "log_to_json",
           "record_from_json", "schema", "sign_log", "to_json"]
