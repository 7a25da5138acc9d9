"""Pre-play receipts as files: what a seat keeps, and the check of a log against it.

When play starts the platform signs the terms of the match
(:class:`tarneeb.audit.Receipt`: match id, rules, seat labels, the server
commitment or season head and leaf, the four client commitments) and gives each
seat a copy, a small JSON file. ``tarneeb verify --receipt FILE LOG`` then checks
that the log is the match that was promised; any difference is a finding.

The rules and each seat enter the signed bytes as the log header holds them: the
rules map and ``[name, computer]`` in canonical msgpack (docs/FORMAT.md).

>>> from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
>>> from tarneeb.replay.log import parse_log
>>> secrets_ = MatchSecrets(b"receipt doc")          # reproducible: not secret
>>> log = parse_log(play_logged_match("eram41", seed=b"receipt doc"))
>>> text = receipt_json(log.header, secrets_.key)
>>> signed = read_receipt(text.encode())
>>> v = Verdict("m.tlog"); check_receipt(log.header, signed, v); v.findings
[]
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.encoding import PROTOCOL
from tarneeb.audit.errors import AuditError
from tarneeb.audit.jsontext import JsonTextError, read_json
from tarneeb.audit.receipt import DEALINGS, Receipt
from tarneeb.audit.seeds import SeasonLeaf
from tarneeb.audit.signing import key_id, public_key_from_raw, public_key_raw
from tarneeb.replay.log.records import (
    BatchProof,
    HandRecord,
    Header,
    Seat,
    _pack,
    _rules_map,
    _seat_pairs,
)
from tarneeb.replay.rules.ruleset import RulesError, RuleSet, check_preset_name, preset
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.provenance import season_leaf

RECEIPT_FORMAT = "tarneeb-receipt"
BLIND_DEALING = "tarneeb-blind-v3"  # what the recorder deals blind under
MAX_RECEIPT_BYTES = 64 * 1024


class ReceiptError(ValueError):
    """A receipt file that cannot be read: one line saying what is wrong."""


@dataclass(frozen=True)
class SignedReceipt:
    """A receipt with the key that signed it and the signature (not yet checked)."""

    receipt: Receipt
    public_key: bytes
    signature: bytes



def receipt_of(header: Header, dealing: str | None = None) -> Receipt:
    """The terms a log header records, as a receipt (for a seeded log), promising
    ``dealing`` (``None``: no dealing protocol, as a receipt made before receipts named it)."""
    if header.server_commitment is None or header.client_commitments is None:
        raise ReceiptError("the log commits to no seeds, so it has no receipt")
    return Receipt(
        match_id=header.match_id, rules=_pack(_rules_map(header)),
        seats=tuple(_pack(s) for s in _seat_pairs(header)),
        server_commitment=header.server_commitment, season=season_leaf(header),
        client_commitments=tuple(header.client_commitments), dealing=dealing)


def _dealing(name: str) -> str:
    """A dealing protocol's name, from it or from the recorder's word for it: ``seeds``
    (:data:`~tarneeb.audit.encoding.PROTOCOL`), ``blind`` (:data:`BLIND_DEALING`)."""
    dealing = {"seeds": PROTOCOL, "blind": BLIND_DEALING}.get(name, name)
    if dealing not in DEALINGS:
        raise ReceiptError(f"dealing {name!r}: it is seeds, blind or one of "
                           + ", ".join(DEALINGS))
    return dealing


def make_receipt(key: Ed25519PrivateKey, *, rules: str | RuleSet | Mapping[str, Any],
                 seats: Sequence[str | tuple[str, bool]], match_id: bytes,
                 server_commitment: bytes, client_commitments: Sequence[bytes],
                 season: BatchProof | None = None, dealing: str = "seeds") -> str:
    """The receipt file of a match about to be played, signed with ``key``: what a platform
    gives each seat once the four client commitments are in, before any seed is revealed.

    The terms are given as :class:`~tarneeb.replay.server.recorder.MatchRecorder` takes them
    (a preset's name, a :class:`~tarneeb.replay.rules.ruleset.RuleSet` or its fields; four names or
    ``(name, computer)`` pairs; ``dealing`` as the recorder takes it, ``seeds`` or ``blind``,
    or a protocol's name of :data:`~tarneeb.audit.receipt.DEALINGS`), and enter the receipt
    as the log's header will hold them,
    so ``tarneeb verify --receipt`` finds the log of this match to be the one promised.
    Raises :class:`ReceiptError` for terms that are not a match's.
    """
    try:
        ruleset = preset(rules) if isinstance(rules, str) else check_preset_name(
            rules if isinstance(rules, RuleSet) else RuleSet.from_dict(dict(rules)))
    except (RulesError, KeyError, TypeError) as e:
        raise ReceiptError(f"rules: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise TypeError(f"make_receipt: key is the platform's private key "
                        f"(load_private_key_file), not {type(key).__name__}")
    if isinstance(seats, str | bytes) or len(seats) != 4 or not all(
            isinstance(s, str) or (isinstance(s, tuple | list) and len(s) == 2
                                   and isinstance(s[0], str)) for s in seats):
        raise ReceiptError("a match has four seats: names, or (name, computer) pairs")
    if not isinstance(match_id, bytes | bytearray) or not 1 <= len(match_id) <= 64:
        raise ReceiptError(f"match_id must be 1-64 bytes, not {match_id!r}"[:120])
    header = Header(rules=ruleset, match_id=bytes(match_id), first_dealer=0,
                    seats=[Seat(s, False) if isinstance(s, str) else Seat(str(s[0]), bool(s[1]))
                           for s in seats],
                    server_commitment=server_commitment, batch=season,
                    client_commitments=list(client_commitments),
                    blind=_dealing(dealing) != PROTOCOL)
    try:
        return receipt_json(header, key, _dealing(dealing))
    except AuditError as e:
        raise ReceiptError(str(e)) from None


def receipt_json(header: Header, key: Ed25519PrivateKey, dealing: str | None = None) -> str:
    """The receipt file the platform gives each seat when play starts, signed with ``key``.

    ``header`` is the log's (the first dealer does not enter the receipt); a platform that
    has no header yet calls :func:`make_receipt`. ``dealing``: the dealing protocol promised
    (default: the seeds', or :data:`BLIND_DEALING` for a header that says dealt blind).
    """
    r = receipt_of(header, _dealing(dealing) if dealing is not None else
                   BLIND_DEALING if header.blind else PROTOCOL)
    pub = key.public_key()
    leaf = r.season
    doc = {
        "format": RECEIPT_FORMAT, "protocol": PROTOCOL,
        "match_id": r.match_id.hex(),
        "rules": _rules_map(header), "seats": _seat_pairs(header),
        "server_commitment": r.server_commitment.hex(),
        "season": None if leaf is None else {"index": leaf.index, "size": leaf.size,
                                             "root": leaf.root.hex()},
        "client_commitments": [c.hex() for c in r.client_commitments],
        "dealing": r.dealing,
        "public_key": public_key_raw(pub).hex(), "key_id": key_id(pub),
        "signature": r.sign(key).hex(),
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


_HEX = re.compile(r"(?:0[xX])?((?:[0-9a-fA-F]{2})*)")


def _hex(doc: dict[str, Any], name: str, length: int | None = None) -> bytes:
    # one reading in every verifier (PROTOCOL.md §8.1): hex digits in pairs, upper or lower
    # case, after an optional 0x (PROTOCOL.md §2), nothing else; bytes.fromhex alone also
    # took white space between the pairs, which the TypeScript verifier refuses
    v = doc.get(name)
    match = _HEX.fullmatch(v) if isinstance(v, str) else None
    raw = bytes.fromhex(match.group(1)) if match is not None else None
    if raw is None or (length is not None and len(raw) != length):
        size = f" of {length} bytes" if length is not None else ""
        raise ReceiptError(f"field {name!r} must be hex{size}")
    return raw


def read_receipt(data: bytes, path: str = "<receipt>") -> SignedReceipt:
    """A receipt from its file's bytes; raises :class:`ReceiptError` naming what is wrong
    (``TypeError`` for ``data`` that is not bytes: ``make_receipt``'s text ``.encode()``)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"read_receipt takes a receipt file's bytes, not "
                        f"{type(data).__name__}" + (" (the text's .encode(); a file's "
                        "bytes: Path(...).read_bytes())" if isinstance(data, str) else ""))
    try:
        return _read(bytes(data))
    except ReceiptError as e:
        raise ReceiptError(f"{path}: not a receipt: {e}") from None


def _read(data: bytes) -> SignedReceipt:
    try:  # one reading, the TypeScript verifier's too (PROTOCOL.md §8.1)
        doc = read_json(data, "a receipt", MAX_RECEIPT_BYTES)
    except JsonTextError as e:
        raise ReceiptError(str(e)) from None
    if not isinstance(doc, dict) or doc.get("format") != RECEIPT_FORMAT:
        raise ReceiptError(f"expected \"format\": \"{RECEIPT_FORMAT}\"")
    unknown = sorted(set(doc) - _RECEIPT_FIELDS)
    if unknown:  # a receipt says only what is signed (and the key that signed it)
        raise ReceiptError(f"unknown field(s) {', '.join(map(repr, unknown))}")
    if doc.get("protocol") != PROTOCOL:
        raise ReceiptError(f"protocol {doc.get('protocol')!r}; this tool checks {PROTOCOL}")
    seats = doc.get("seats")
    if not isinstance(seats, list) or len(seats) != 4 or not all(
            isinstance(s, list) and len(s) == 2 and isinstance(s[0], str)
            and isinstance(s[1], bool) for s in seats):
        raise ReceiptError("seats must be four [name, computer] pairs")
    rules = doc.get("rules")
    if not isinstance(rules, dict):
        raise ReceiptError("rules must be a map")
    cc = doc.get("client_commitments")
    if not isinstance(cc, list) or len(cc) != 4:
        raise ReceiptError("client_commitments must be four hex commitments")
    season = doc.get("season")
    dealing = doc.get("dealing")  # absent: a receipt made before receipts named it
    if "dealing" in doc and dealing not in DEALINGS:
        raise ReceiptError(f"dealing must be one of {', '.join(DEALINGS)}")
    try:
        leaf = None
        if season is not None:
            if not isinstance(season, dict) or set(season) != {"index", "size", "root"}:
                raise ReceiptError("season must be {index, size, root} or null")
            index: Any = season["index"]  # checked by SeasonLeaf, as a receipt's every field
            size: Any = season["size"]
            leaf = SeasonLeaf(index, size, _hex(season, "root", 32))
        receipt = Receipt(
            match_id=_hex(doc, "match_id"), rules=_pack(rules),
            seats=tuple(_pack(s) for s in seats),
            server_commitment=_hex(doc, "server_commitment", 32), season=leaf,
            client_commitments=tuple(_hex({"c": c}, "c", 32) for c in cc), dealing=dealing)
    except (AuditError, TypeError, ValueError) as e:
        if isinstance(e, ReceiptError):
            raise
        raise ReceiptError(str(e)) from None
    public = _hex(doc, "public_key", 32)
    if "key_id" in doc and doc["key_id"] != key_id(public):
        raise ReceiptError(f"key_id {doc['key_id']!r} is not the id of its public_key "
                           f"({key_id(public)})")
    return SignedReceipt(receipt, public, _hex(doc, "signature", 64))


_RECEIPT_FIELDS = {"format", "protocol", "match_id", "rules", "seats", "server_commitment",
                   "season", "client_commitments", "dealing", "public_key", "key_id",
                   "signature"}


def _key_name(raw: bytes) -> str:
    try:
        return key_id(public_key_from_raw(raw))
    except AuditError:
        return f"{raw.hex()[:16]}… (not a valid Ed25519 key)"


_FIELD_NAMES = {"match_id": "match id", "rules": "rules", "seats": "seats",
                "server_commitment": "server commitment", "season": "season leaf",
                "client_commitments": "client commitments"}


def _describe(name: str, promised: Receipt, logged: Receipt) -> str:
    if name == "season":
        def where(r: Receipt) -> str:
            s = r.season
            return "no season" if s is None else \
                f"leaf {s.index} of the season of {s.size} with root {s.root.hex()[:16]}…"
        return f"the receipt promised {where(promised)}, the log has {where(logged)}"
    if name == "client_commitments":
        # each seat said as "seat N", so the text for people names its player
        seats = [f"seat {s}" for s in range(4)
                 if promised.client_commitments[s] != logged.client_commitments[s]]
        if len(seats) == 1:
            return f"the client commitment of {seats[0]} is not the one promised"
        return f"the client commitments of {', '.join(seats)} are not the ones promised"
    return f"its {_FIELD_NAMES[name]} is not the one promised"


def check_receipt(header: Header, signed: SignedReceipt, v: Verdict,
                  pinned_key: bytes | None = None,
                  hands: Sequence[HandRecord] = ()) -> None:
    """Add a ``receipt-mismatch`` finding for every way the log is not the promised match.

    The receipt's signature is checked with ``pinned_key`` when given, else with the
    log's own key; a receipt signed by another key than the log's is a finding too. The
    dealing protocol promised is checked against the header and each of ``hands`` (the
    log's dealing attempts): a hand dealt under another is a finding.
    """
    key = pinned_key if pinned_key is not None else header.public_key
    if key is None:
        v.add("receipt-mismatch", "the log names no key to check the receipt's signature with")
    elif signed.public_key != key:
        v.add("receipt-mismatch", f"the receipt is signed by key {_key_name(signed.public_key)}, "
              f"not by the platform's key {_key_name(key)} that the log is checked with")
    else:
        try:
            signed.receipt.verify(public_key_from_raw(key), signed.signature)
        except AuditError:
            v.add("receipt-mismatch", "the receipt's signature does not verify: it was changed "
                  "after the platform signed it")
    try:
        logged = receipt_of(header)
    except ReceiptError:
        v.add("receipt-mismatch", "the receipt promised a match with committed seeds, but the "
              "log commits to none")
        return
    for name in signed.receipt.differences(logged):
        v.add("receipt-mismatch", "the log is not the match promised before play: "
              + _describe(name, signed.receipt, logged))
    check_dealing(header, signed.receipt.dealing, hands, v)


def check_dealing(header: Header, promised: str | None, hands: Sequence[HandRecord],
                  v: Verdict) -> None:
    """The dealing protocol the receipt promised against the log's: the header's (seeds or
    blind) and each hand's transcript (its blind version, by its shape). A receipt that
    promises none (made before receipts named it) binds nothing: a note says so for a log
    dealt blind (a v1 deal is then a finding only with ``--require-proof``)."""
    if promised is None:
        if header.blind:
            v.notes.append("the receipt does not name the dealing protocol (a receipt made "
                           "before receipts did): it does not bind the blind dealing's "
                           "version (--require-proof makes a deal without pass proofs a "
                           "finding)")
        return
    if (promised != PROTOCOL) != header.blind:
        v.add("receipt-mismatch", f"the log is not the match promised before play: the "
              f"receipt promised dealing under {promised}, the log is "
              + ("dealt blind" if header.blind else f"dealt from seeds ({PROTOCOL})"))
        return
    if not header.blind:
        return
    other = [(rec.deal_number, f"tarneeb-blind-v{rec.blind.version}") for rec in hands
             if rec.blind is not None and (rec.blind.shuffle_proofs is None
                                           or rec.blind.shuffle_proofs)
             and f"tarneeb-blind-v{rec.blind.version}" != promised]
    for n, dealt in other:
        v.add("receipt-mismatch", f"the log is not the match promised before play: the "
              f"receipt promised dealing under {promised}, this hand is dealt under {dealt}",
              hand=n)


__all__ = ["BLIND_DEALING", "ReceiptError", "SignedReceipt", "check_dealing", "check_receipt",
           "make_receipt", "read_receipt", "receipt_json", "receipt_of", "season_leaf"]
