"""Alterations of who signed a log and of its byte form: the signature flipped or
dropped, another key named, the identity point as key, the rules map written in
another order or under a preset's name it does not deserve, the log cut short.

Each registers in :data:`~tarneeb.testing.alterations.REGISTRY` (see
:mod:`tarneeb.testing.alterations` for the call form); all are match-level.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.signing import public_key_raw
from tarneeb.replay.log import (
    SignatureRecord,
    parse_log,
)
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    NotApplicable,
    _close,
    _flip_bit,
    _open,
    _register,
)


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
    log.header = replace(log.header,
                                     public_key=public_key_raw(impostor.public_key()))
    return _close(log, impostor), Alteration(
        "other-key", None, "header key replaced by another key, which signed the log",
        expect="key-mismatch", pin_key=real)


@_register("weak-key", "name the identity point as key, with the signature that verifies "
           "anything under it", match_level=True)
def weak_key(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """The header names the identity point of Edwards25519 as the platform key and the
    signature is ``01 00…00 ‖ 00…00``, which OpenSSL verifies for any message under it
    (``resign`` is ignored: the point is that no key is needed)."""
    log = _open(data)
    log.header = replace(log.header, public_key=IDENTITY_POINT)
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
    log.header = replace(log.header, rules_raw=dict(items))
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
    log.header = replace(log.header, rules=rules, rules_raw=None)
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
