"""An annotated hex dump of a log: every field at its byte offset.

``tarneeb dump LOG`` prints it; ``docs/FORMAT.md`` shows one of a real log.
Because every record is in canonical msgpack form, re-packing a field gives
exactly its bytes, so the dump walks the records without a second parser.

>>> from tarneeb.replay.log import EndRecord, encode_record
>>> print("\\n".join(annotate(encode_record(EndRecord(1, None)), whole=False)))
000000  94                                              end record: array of 4
000001  02                                                type: 2 (end)
000002  01                                                winner: 1 (team 1+3)
000003  c0                                                server_seed: nil
000004  c0                                                abandoned: nil (finished)
>>> moves = bytes([0x42, 0x6f, 0xcc, 0xb4])
>>> print("\\n".join(annotate(moves, whole=False)))  # doctest: +NORMALIZE_WHITESPACE
000000  42 6f cc b4
  moves: seat 0 bids 2, seat 2 passes | cards: A♠ (timer)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import msgpack

from tarneeb.audit.encoding import unsafe_character
from tarneeb.replay.log.records import (
    CALL_MOVE,
    CARD_MOVE,
    HEADER,
    MAGIC,
    PASS_CODE,
    RECORD_NAMES,
    TRUMP_MOVE,
)
from tarneeb.replay.log.stream import (
    DEFAULT_LIMITS,
    CapExceeded,
    Limits,
    LogError,
    Moves,
    RecordReader,
)
from tarneeb.replay.rules.cards import SUIT_SYMBOLS, card_name, cards_of

FIELDS = {
    0: ["type", "magic", "version", "rules", "seats", "match_id", "server_commitment", "batch",
        "client_commitments", "client_seeds", "first_dealer", "public_key", "dealing"],
    1: ["type", "deal_number", "dealer", "revealed", "deal"],
    2: ["type", "winner", "server_seed", "abandoned"],
    3: ["type", "signature"],
    4: ["type", "trump", "tricks", "scores", "totals"],
    5: ["type", "publics", "passes", "partials", "partial_proofs", "opened"],
    6: ["type", "position", "proof"],
    7: ["type", "deal_number", "scalars", "permutations"],
}
WIDTH = 16


def _meaning(kind: int, name: str, value: Any) -> str:
    if value is None:
        return "nil (finished)" if name == "abandoned" else "nil"
    if name == "type":
        return f"{value} ({RECORD_NAMES.get(value, '?')})"
    if name == "calls":
        return ", ".join(f"seat {b >> 4} {'pass' if b & 15 == PASS_CODE else b & 15}"
                         for b in value) or "none"
    if name in ("revealed",):
        return card_name(value)
    if name == "trump":
        return SUIT_SYMBOLS[value]
    if name == "plays":
        shown = " ".join(card_name(c) for c in value[:8])
        return f"{len(value)} cards: {shown}{' …' if len(value) > 8 else ''}"
    if name == "timer":
        return "no timer moves" if value == 0 else \
            "timer moves: " + ", ".join(str(k) for k in range(value.bit_length()) if value >> k & 1)
    if name == "winner":
        return f"{value} (team {'0+2' if value == 0 else '1+3'})"
    if name == "abandoned":
        return f"{value[0]}, seat {value[1]}: {value[2]!r}"
    if name == "rules":
        return f"map of {len(value)} fields, name {value.get('name')!r}"
    if name == "seats":
        # a damaged log is dumped too: a name that could rewrite the terminal is shown escaped
        return "; ".join(f"{n if unsafe_character(n) is None else repr(n)} "
                         f"({'computer' if c else 'human'})" for n, c in value)
    if name == "deal":
        return " | ".join(" ".join(card_name(c) for c in cards_of(h)) for h in value[:4])
    if isinstance(value, bytes):
        return f"{len(value)} bytes {value.hex()[:16]}…" if len(value) > 8 else value.hex()
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return f"{len(value)} × {len(value[0])} bytes"
    return repr(value)


def _rows(offset: int, raw: bytes, text: str, indent: str) -> Iterator[str]:
    for i in range(0, max(len(raw), 1), WIDTH):
        chunk = raw[i:i + WIDTH].hex(" ")
        label = f"{indent}{text}" if i == 0 else ""
        yield f"{offset + i:06x}  {chunk:<{WIDTH * 3}}{label}".rstrip()


def describe_moves(run: bytes) -> str:
    """What a run of move bytes says: the calls, the trump named, the cards (8 shown)."""
    calls, trump, cards = [], [], []
    i = 0
    while i < len(run):
        timer = run[i] == 0xcc
        code = run[i + 1] & 0x7f if timer else run[i]
        i += 2 if timer else 1
        mark = " (timer)" if timer else ""
        if code >= CALL_MOVE:
            v = code & 15
            calls.append(f"seat {(code >> 4) & 3} " + ("passes" if v == PASS_CODE
                                                       else f"bids {v}") + mark)
        elif code >= TRUMP_MOVE:
            trump.append(f"{SUIT_SYMBOLS[code - TRUMP_MOVE]} named{mark}")
        else:
            cards.append(card_name(code - CARD_MOVE) + mark)
    parts = []
    if calls:
        parts.append(", ".join(calls))
    parts.extend(trump)
    if cards:
        more = f" … ({len(cards)} cards)" if len(cards) > 8 else ""
        parts.append("cards: " + " ".join(cards[:8]) + more)
    return " | ".join(parts)


def annotate(data: bytes | BinaryIO, show_hands: int | None = None,
             limits: Limits = DEFAULT_LIMITS, whole: bool = True) -> Iterator[str]:
    """Lines of ``offset  hex  meaning`` for every field of every record.

    The log is read as a stream within ``limits``, like every reader of logs: damage is
    shown in place ("not readable from here on") and the dump stops there; a cap passed
    raises :class:`~tarneeb.replay.log.stream.CapExceeded` after the lines before it.
    ``show_hands`` shows only that many hands (their deal, moves and claims);
    ``whole=False`` shows records that are not a whole log (no "not a tarneeb log").
    """
    for e in entries(data, show_hands, limits, whole):
        yield from lines_of(e)


def lines_of(e: dict[str, Any]) -> Iterator[str]:
    """The lines :func:`annotate` shows for one of :func:`entries`."""
    if e["kind"] == "more-hands":
        yield "…       (further hands)"
    elif e["kind"] in ("not-readable", "not-a-log"):
        yield f"{e['offset']:06x}  {e['text']}"
    else:
        yield from _rows(e["offset"], bytes.fromhex(e["hex"]), e["text"],
                         "  " if e["kind"] == "field" else "")


def entries(data: bytes | BinaryIO, show_hands: int | None = None,
            limits: Limits = DEFAULT_LIMITS, whole: bool = True) -> Iterator[dict[str, Any]]:
    """What :func:`annotate` shows, as data (``tarneeb dump --json``): one dict per record
    and per field, and one per run of moves, with ``kind`` (``record``, ``field``,
    ``moves``, ``not-a-log`` (with ``whole``, the default: the first record is not a
    log's header, or there is none), ``not-a-record``, ``cut-off``, ``not-readable``,
    ``more-hands``), ``offset``, ``hex`` (its bytes), ``record``,
    ``field`` and ``text``.

    >>> from tarneeb.replay.log import EndRecord, encode_record
    >>> [e["field"] for e in entries(encode_record(EndRecord(1, None)), whole=False)]
    [None, 'type', 'winner', 'server_seed', 'abandoned']
    """
    reader = RecordReader(data, limits)
    hands = 0
    first = whole
    try:
        for r in reader:
            obj, pos = r.value, r.offset
            if first:
                first = False
                if not (type(obj) is list and len(obj) > 1 and obj[0] == HEADER
                        and obj[1] == MAGIC):
                    yield _entry("not-a-log", pos, b"",
                                 "not a tarneeb log: it does not begin with a header record")
            if type(obj) is Moves:
                if show_hands is None or hands <= show_hands:
                    yield _entry("moves", pos, r.raw, f"moves: {describe_moves(obj)}", "moves")
                continue
            if not isinstance(obj, list) or not obj:
                yield _entry("not-a-record", pos, r.raw, "not a record")
                continue
            kind = obj[0]
            if kind == 1:
                hands += 1
                if hands > limits.max_hands:
                    raise CapExceeded("max_hands", limits.max_hands,
                                      "the match has more dealing attempts", pos)
                if show_hands is not None and hands > show_hands:
                    if hands == show_hands + 1:
                        yield _entry("more-hands", pos, b"", "further hands", "hand")
                    continue
            if kind == 4 and show_hands is not None and hands > show_hands:
                continue
            yield from _record(pos, r.raw, obj)
    except CapExceeded:
        raise
    except LogError as e:
        yield _entry("not-readable", e.offset or 0, b"",
                     f"not readable from here on: {e.message}")
        return
    if reader.cut_short is not None:
        at = reader.cut_short.offset or 0
        yield _entry("cut-off", at, reader.data[at:], "cut off: not a whole record")
    elif first:
        yield _entry("not-a-log", 0, b"", "not a tarneeb log: it is empty")


PROBLEMS = ("not-a-log", "not-a-record", "not-readable", "cut-off")
"""The kinds of :func:`entries` that say the bytes are not a whole, readable log."""


def first_problem(entry: dict[str, Any], seen: str | None) -> str | None:
    """``seen``, or, when it is None and ``entry`` is one of :data:`PROBLEMS`, what it says
    and where: the first problem of a dump, for its exit code.

    >>> first_problem({"kind": "cut-off", "offset": 26, "text": "cut off"}, None)
    'cut off at offset 0x1a'
    """
    if seen is not None or entry["kind"] not in PROBLEMS:
        return seen
    if entry["kind"] == "not-a-log":
        return str(entry["text"])
    return f"{entry['text']} at offset {entry['offset']:#x}"


def _entry(kind: str, offset: int, raw: bytes, text: str, record: str | None = None,
           field: str | None = None) -> dict[str, Any]:
    return {"kind": kind, "offset": offset, "hex": raw.hex(), "record": record,
            "field": field, "text": text}


def _record(pos: int, raw: bytes, obj: list[Any]) -> Iterator[dict[str, Any]]:
    kind = obj[0] if type(obj[0]) is int else -1
    names = FIELDS.get(kind, [])
    record = RECORD_NAMES.get(kind, "?")
    head = len(raw) - sum(len(msgpack.packb(x, use_bin_type=True)) for x in obj)
    yield _entry("record", pos, raw[:head], f"{record} record: array of {len(obj)}", record)
    at = pos + head
    for i, value in enumerate(obj):
        packed = msgpack.packb(value, use_bin_type=True)
        name = names[i] if i < len(names) else f"field {i}"
        try:
            meaning = _meaning(kind, name, value)
        except (TypeError, ValueError, IndexError, AttributeError, KeyError):
            meaning = f"{value!r:.40} (not what a log holds here)"
        yield _entry("field", at, packed, f"{name}: {meaning}", record, name)
        at += len(packed)
