"""The values a recorder takes, checked before anything is written.

Each recorder call refuses a value out of its range with :class:`RecorderError` and
writes nothing. A record the recorder is about to write is read back first, as the
reader reads a log (:func:`readable`): a value the reader would refuse — a seed of the
wrong length, a key given as text, a name over the reader's cap — would make every
value after it unreadable, the moves a server acknowledged with it.

>>> card_of("10♥"), seat_of(3)
(34, 3)
>>> raw_of(b"\\x01" * 32, "server_seed", nil=True) == bytes([1]) * 32
True
>>> raw_of("ab" * 32, "server_seed")
Traceback (most recent call last):
tarneeb.replay.server.values.RecorderError: server_seed must be bytes, not str
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tarneeb.replay.log.records import Header, Seat
from tarneeb.replay.rules.cards import CardError, parse_card, parse_suit
from tarneeb.replay.rules.ruleset import RulesError, RuleSet, check_preset_name, preset

Card = int | str


class RecorderError(ValueError):
    """A call the recorder cannot write: out of order, or a value out of its range."""


def _named(v: int | str, parse: Callable[[str], int], top: int, what: str, forms: str) -> int:
    """A card or suit given as its number (0-``top``) or its name."""
    if isinstance(v, str):
        try:
            return parse(v)
        except CardError as e:
            raise RecorderError(f"{what}: {e}") from None
    if type(v) is not int or not 0 <= v <= top:
        raise RecorderError(f"{what} must be 0-{top} or {forms}, not {v!r}")
    return v


def card_of(c: Card, what: str = "card") -> int:
    return _named(c, parse_card, 51, what, "a card name like '10♥'")


def suit_of(s: int | str) -> int:
    return _named(s, parse_suit, 3, "trump", "a suit symbol (♣ ♦ ♥ ♠)")


def seat_of(s: Any, what: str = "seat") -> int:
    if type(s) is not int or not 0 <= s <= 3:
        raise RecorderError(f"{what} must be 0-3, not {s!r}")
    return s


def four_of(values: Sequence[int] | None, what: str, lo: int, hi: int,
          needed: bool = False) -> list[int] | None:
    if values is None and not needed:
        return None
    out = None if isinstance(values, str | bytes) or values is None else list(values)
    if out is None or len(out) != 4 or any(type(v) is not int or not lo <= v <= hi
                                           for v in out):
        raise RecorderError(f"{what} must be four whole numbers {lo}-{hi}, not {values!r}")
    return out


def rules_of(rules: str | RuleSet | Mapping[str, Any]) -> RuleSet:
    try:
        if isinstance(rules, str):
            return preset(rules)
        # a preset's name is that preset's game (the verifier says wrong-rules otherwise)
        return check_preset_name(rules if isinstance(rules, RuleSet)
                                 else RuleSet.from_dict(dict(rules)))
    except (RulesError, KeyError, TypeError, ValueError) as e:
        raise RecorderError(f"rules: {e}") from None


def raw_of(v: Any, what: str, nil: bool = False) -> Any:
    """Bytes given as ``bytes``, ``bytearray`` or ``memoryview`` (``None`` when ``nil``), as
    ``bytes``; their length is the reader's to judge (:func:`readable`)."""
    if v is None and nil:
        return None
    if not isinstance(v, bytes | bytearray | memoryview):
        raise RecorderError(f"{what} must be bytes, not {type(v).__name__}")
    return bytes(v)


def raws_of(v: Any, what: str) -> list[bytes] | None:
    if v is None:
        return None
    if isinstance(v, str | bytes | bytearray | memoryview):
        raise RecorderError(f"{what} must be a list of four, by seat, not one value")
    return [raw_of(x, what) for x in v]


def seats_of(seats: Any) -> list[Seat]:
    """Four names, or ``(name, computer)`` pairs."""
    if isinstance(seats, str | bytes) or len(seats) != 4:
        raise RecorderError(f"a match has four seats, not {seats!r}")
    out = []
    for s in seats:
        pair = (s, False) if isinstance(s, str) else tuple(s) \
            if isinstance(s, tuple | list) else ()
        if len(pair) != 2 or not isinstance(pair[0], str):
            raise RecorderError(f"a seat is a name, or a (name, computer) pair, not {s!r}")
        if not isinstance(pair[1], bool):  # ("Ann", "no") is no computer seat
            raise RecorderError(f"a seat's computer flag is True or False, not {pair[1]!r}")
        out.append(Seat(pair[0], pair[1]))
    return out


def revealed_seed(seed: bytes | None, commitment: bytes | None) -> bytes | None:
    """The server seed an end record reveals, checked against the header's ``commitment``:
    a seed that is not the committed one, or a seed for a log that commits to none, is
    refused (signed, the log would hold a finding for ever)."""
    import hmac

    from tarneeb.audit.seeds import server_commitment

    if seed is None:
        return None
    if commitment is None:
        raise RecorderError("the log's header commits to no server seed: none is revealed "
                            "(server_seed=None)")
    if len(seed) == 32 and not hmac.compare_digest(server_commitment(seed), commitment):
        raise RecorderError("the server seed is not the one the log's header commits to")
    return seed


def checked_signature(signature: Any, public_key: bytes | None, signed: bytes) -> bytes:
    """What a signing function returned, if it is a 64-byte Ed25519 signature of
    ``signed`` under the header's ``public_key`` (when the header names one)."""
    if not isinstance(signature, bytes) or len(signature) != 64:
        what = f"{len(signature)} bytes" if isinstance(signature, bytes) else \
            type(signature).__name__
        raise RecorderError(f"the signing function gave {what}, not a 64-byte Ed25519 "
                            "signature: nothing written")
    if public_key is not None:
        from tarneeb.audit.errors import AuditError
        from tarneeb.audit.signing import verify

        try:
            verify(public_key, signed, signature)
        except AuditError:
            raise RecorderError("the signature does not verify under the key the log's "
                                "header names: nothing written") from None
    return signature


def readable(what: str, raw: bytes,
             read: Callable[[list[Any], int], object] | None = None) -> None:
    """Raise :class:`RecorderError` unless ``raw``, the bytes of one record, read back as
    a log's reader reads them (a header as a log's first record; ``read``: the reader of
    a record of blind dealing, which the other records' decoder does not take)."""
    import msgpack

    from tarneeb.replay.log.decode import decode_record
    from tarneeb.replay.log.parse import parse_log
    from tarneeb.replay.log.stream import LogError

    try:
        if what == "header":
            parse_log(raw)
        else:
            (read or decode_record)(msgpack.unpackb(raw, raw=False), 0)
    except LogError as e:
        raise RecorderError(e.message) from None  # it names the record


def read_back(kind: str, value: Callable[[], list[Any]],
              read: Callable[[list[Any], int], object]) -> None:
    """:func:`readable` of the ``kind`` record made by ``value`` (a blind record, a card's
    proof, a keys record): written unreadable, it would make every value after it
    unreadable, the moves acknowledged with it."""
    import msgpack

    try:
        raw = msgpack.packb(value(), use_bin_type=True)
    except (TypeError, ValueError, AttributeError, OverflowError) as e:
        raise RecorderError(f"{kind} record: {e}") from None
    readable(kind, raw, read)


def header_bytes(header: Header) -> bytes:
    """The header's bytes, once they read back as a log's header."""
    from tarneeb.replay.log.records import encode_record

    try:
        raw = encode_record(header)
    except (TypeError, ValueError, OverflowError) as e:  # a value msgpack cannot write
        raise RecorderError(f"header: {e}") from None
    readable("header", raw)
    return raw


__all__ = ["Card", "RecorderError", "card_of", "four_of", "header_bytes", "raw_of", "raws_of",
           "read_back", "readable", "rules_of", "seat_of", "seats_of", "suit_of"]
