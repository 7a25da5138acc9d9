"""The records of a blind-dealt log: the transcript of each deal, each play's proof, the keys.

In a log whose header says ``dealing: blind`` (``docs/FORMAT.md``), every deal
record is followed by a **blind record** (type 5), the public transcript of that
deal (``docs/PROTOCOL.md`` §13), each card move by a **proof record** (type 6)
that opens the card at its position, and, after the end record, each dealing
attempt may have a **keys record** (type 7): the scalars and permutations the
seats revealed after the match. Group elements, proofs and permutations are
packed into ``bin`` fields, 52 positions at a time, so a transcript costs few
bytes beyond the elements themselves:

* ``[5, publics, passes, partials, partial_proofs, opened]`` — ``publics`` bin 128
  (``Y_0 … Y_3``); ``passes`` four bin 1,664 (52 elements each); ``partials`` three
  bin 1,664: round ``r`` holds, for every position ``p``, the element after the
  ``r+1``-th partial decryption, by seat ``(owner(p) + 1 + r) mod 4``;
  ``partial_proofs`` three bin 3,328, their proofs; ``opened`` bin 64 or nil, the
  dealer's proof that the revealed card (the deal record's ``revealed``) is the
  card dealt at position 51, its 13th (``tarneeb-blind-v1``: no proof of the passes);
* ``tarneeb-blind-v2`` has the same six fields, but ``partial_proofs`` holds nine bins:
  bin 768, twelve 64-byte batched proofs (round ``r``, seat ``k`` at ``4r + k``: one
  for all the positions the seat decrypts in the round), then for each pass its
  shuffle proof (``docs/PROTOCOL.md`` §13.6) in two bins, its 104 elements (bin
  3,328) and its 109 scalars (bin 3,488), since no field is longer than 4,096 bytes;
* ``tarneeb-blind-v3`` is laid out as v2, each pass's shuffle argument (§13.9) in its
  22 elements (bin 704) and its 44 scalars (bin 1,408); the first pass's bin of elements
  tells the version, and every pass has that version's sizes;
* ``[6, position, proof]`` — right after a card move: the card is the one dealt at
  ``position`` (0-51), proven by its owner (step ``play``);
* ``[7, deal_number, scalars, permutations]`` — four bin 32 or nil, four bin 52 or
  nil (a seat that keeps its key has nil).

This module holds the in-memory form and its msgpack lists; it needs no
cryptography. :mod:`tarneeb.replay.verify.blind` verifies a transcript.

>>> t = BlindTranscript(bytes(128), [bytes(1664)] * 4, [bytes(1664)] * 3, [bytes(3328)] * 3)
>>> blind_from_list(blind_list(t), 0) == t
True
>>> k = keys_from_list([KEYS, 2, [bytes(32), None, None, None], [bytes(range(52))] + [None] * 3], 0)
>>> k.deal_number, k.scalars[1], k.permutations[0][:3]
(2, None, b'\\x00\\x01\\x02')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tarneeb.replay.log.kinds import BLIND, DEALING_BLIND, KEYS, PROOF
from tarneeb.replay.log.stream import LogError

ELEMENT, PROOF_LEN, POSITIONS = 32, 64, 52
BATCH_PROOFS = 12 * PROOF_LEN  # v2: per seat per decryption round
SHUFFLE_PROOF = 32 * (4 * POSITIONS + 5)  # v2: per pass (tarneeb.audit.blind.proofs)
SPLIT = 2 * POSITIONS * ELEMENT  # a shuffle proof's elements, then its scalars
V3_ARGUMENT, V3_SPLIT = 32 * 66, 32 * 22  # v3: per pass (tarneeb.audit.blind.argument)
OPENED_POSITION = 51  # the dealer's 13th card: the last position dealt, always the dealer's


@dataclass(slots=True)
class BlindTranscript:
    """The public transcript of one blind deal, as the log holds it (see the module)."""

    publics: bytes
    passes: list[bytes]
    partials: list[bytes]
    partial_proofs: list[bytes]
    opened: bytes | None = None
    shuffle_proofs: list[bytes] | None = None  # v2: the proof of each pass
    batch_proofs: bytes | None = None  # v2: twelve batched proofs (v1: partial_proofs)
    # play index k (0-51, in the hand's play order) -> (position, proof)
    play_proofs: dict[int, tuple[int, bytes]] = field(default_factory=dict)

    @property
    def waiting_for(self) -> int | None:
        """The seat whose dealing step is missing in an unfinished v2 deal (the seat to
        pass, or in the round being decrypted the first seat that has not delivered),
        ``None`` when the deal is complete. Seats pass 0-3, then in each round 0-3."""
        if self.shuffle_proofs is None:
            return None
        if len(self.passes) < 4:
            return len(self.passes)
        d = len(self.batch_proofs or b"") // PROOF_LEN
        return None if d == 12 else d % 4

    @property
    def version(self) -> int:
        """1 (``tarneeb-blind-v1``: passes unproven), 2 or 3 (every pass proven: by a
        linear proof, or by the compact argument)."""
        if self.shuffle_proofs is None:
            return 1
        return 3 if self.shuffle_proofs and len(self.shuffle_proofs[0]) == V3_ARGUMENT else 2

    def byte_size(self) -> int:
        """Bytes of elements and proofs (the log adds a few bytes of framing)."""
        return (len(self.publics) + sum(map(len, self.passes)) + sum(map(len, self.partials))
                + sum(map(len, self.partial_proofs)) + len(self.opened or b"")
                + sum(map(len, self.shuffle_proofs or ())) + len(self.batch_proofs or b"")
                + sum(1 + len(p) for _, p in self.play_proofs.values()))


@dataclass(slots=True)
class RevealedKeys:
    """What the seats revealed of one deal after the match (``None``: kept secret)."""

    deal_number: int
    scalars: list[bytes | None]
    permutations: list[bytes | None]


def halves(proof: bytes) -> tuple[bytes, bytes]:
    """A pass's proof as the log holds it: its elements, then its scalars (v2 or v3)."""
    split = V3_SPLIT if len(proof) == V3_ARGUMENT else SPLIT
    return proof[:split], proof[split:]


def blind_list(t: BlindTranscript) -> list[Any]:
    if t.shuffle_proofs is not None:
        return [BLIND, t.publics, list(t.passes), list(t.partials),
                [t.batch_proofs, *(half for p in t.shuffle_proofs for half in halves(p))],
                t.opened]
    return [BLIND, t.publics, list(t.passes), list(t.partials), list(t.partial_proofs), t.opened]


def proof_list(position: int, proof: bytes) -> list[Any]:
    return [PROOF, position, proof]


def keys_list(k: RevealedKeys) -> list[Any]:
    return [KEYS, k.deal_number, list(k.scalars), list(k.permutations)]


def _fail(kind: str, what: str, offset: int) -> LogError:
    return LogError(f"{kind} record: {what}", offset)


def _bins(v: Any, n: int, size: int, name: str, kind: str, offset: int,
          nil: bool = False) -> list[Any]:
    if type(v) is not list or len(v) != n or not all(
            (type(x) is bytes and len(x) == size) or (nil and x is None) for x in v):
        raise _fail(kind, f"{name} must be {n} byte strings of {size} bytes"
                    + (" or nil" if nil else ""), offset)
    return list(v)


def blind_from_list(data: list[Any], offset: int) -> BlindTranscript:
    """A blind record from its msgpack list; raises :class:`LogError` naming the field."""
    if len(data) != 6:
        raise _fail("blind", f"has {len(data)} fields, not 6", offset)
    _, publics, passes, partials, proofs, opened = data
    if type(publics) is not bytes or len(publics) != 4 * ELEMENT:
        raise _fail("blind", f"publics must be {4 * ELEMENT} bytes (four keys)", offset)
    if opened is not None and (type(opened) is not bytes or len(opened) != PROOF_LEN):
        raise _fail("blind", f"opened must be a {PROOF_LEN}-byte proof or nil", offset)
    if (type(proofs) is list and proofs and type(proofs[0]) is bytes
            and len(proofs[0]) <= BATCH_PROOFS):  # tarneeb-blind-v2 (v1's first bin is longer)
        return _v2_from_list(publics, passes, partials, proofs, opened, offset)
    return BlindTranscript(
        publics, _bins(passes, 4, POSITIONS * ELEMENT, "passes", "blind", offset),
        _bins(partials, 3, POSITIONS * ELEMENT, "partials", "blind", offset),
        _bins(proofs, 3, POSITIONS * PROOF_LEN, "partial_proofs", "blind", offset), opened)


def _v2_from_list(publics: bytes, passes: Any, partials: Any, proofs: list[Any],
                  opened: bytes | None, offset: int) -> BlindTranscript:
    """A v2 or v3 transcript, complete or stopped at the seat that did not deliver
    (FORMAT.md): the first pass's bin of elements tells which."""
    k = len(passes) if type(passes) is list else -1
    batch = proofs[0]
    d, rest = divmod(len(batch), PROOF_LEN)
    if not 0 <= k <= 4 or rest or (k < 4 and d) or len(proofs) != 1 + 2 * k:
        raise _fail("blind", "a v2 transcript holds 0-4 passes, and after its batched proofs "
                    "(none before the fourth pass) two bins of shuffle proof a pass", offset)
    if (d < 12 or k < 4) and opened is not None:
        raise _fail("blind", "an unfinished deal opens no card", offset)
    v3 = k > 0 and type(proofs[1]) is bytes and len(proofs[1]) == V3_SPLIT
    split, whole, name = (V3_SPLIT, V3_ARGUMENT, "v3 shuffle arguments'") if v3 else \
        (SPLIT, SHUFFLE_PROOF, "v2 shuffle proofs'")
    return BlindTranscript(
        publics, _bins(passes, k, POSITIONS * ELEMENT, "passes", "blind", offset),
        _bins(partials, -(-d // 4), POSITIONS * ELEMENT, "partials", "blind", offset), [],
        opened,
        [a + b for a, b in zip(
            _bins(proofs[1::2], k, split, f"{name} elements", "blind", offset),
            _bins(proofs[2::2], k, whole - split, f"{name} scalars", "blind", offset),
            strict=True)], batch)


def proof_from_list(data: list[Any], offset: int) -> tuple[int, bytes]:
    if len(data) != 3 or type(data[1]) is not int or not 0 <= data[1] < POSITIONS \
            or type(data[2]) is not bytes or len(data[2]) != PROOF_LEN:
        raise _fail("proof", f"must be [6, position 0-51, {PROOF_LEN}-byte proof]", offset)
    return data[1], data[2]


def keys_from_list(data: list[Any], offset: int) -> RevealedKeys:
    if len(data) != 4 or type(data[1]) is not int or not 0 <= data[1] <= 1_000_000:
        raise _fail("keys", "must be [7, deal_number, four scalars, four permutations]", offset)
    return RevealedKeys(data[1], _bins(data[2], 4, 32, "scalars", "keys", offset, nil=True),
                        _bins(data[3], 4, POSITIONS, "permutations", "keys", offset, nil=True))


__all__ = [
    "BLIND", "DEALING_BLIND", "KEYS", "OPENED_POSITION", "PROOF", "BlindTranscript",
    "RevealedKeys", "blind_from_list", "blind_list", "keys_from_list", "keys_list",
    "proof_from_list", "proof_list",
]
