"""The pre-play receipt: what the platform promised when play started, signed.

When the four client commitments are in and play starts, the platform signs the
match id, the rules, the seat labels, the match's binding (its server
commitment, and for a season the head and leaf index) and the four client
commitments, and gives every seat a copy. After the match, anyone holding a copy
can check that the log is the match that was promised: a server that moved the
match to another season leaf, or wrote other commitments, cannot also show a
receipt for it without a signature it never made.

The rules and the seats enter as the bytes the log format gives them (opaque
here: this layer knows no rules).

>>> from tarneeb.audit.seeds import server_commitment
>>> from tarneeb.audit.signing import private_key_from_raw
>>> key = private_key_from_raw(bytes(32))  # a fixed key: examples only
>>> r = Receipt(b"m-1", b"rules", (b"n", b"e", b"s", b"w"), server_commitment(bytes(32)),
...             None, (bytes(32),) * 4)
>>> r.verify(key.public_key(), r.sign(key))
>>> r.message()[:23]
b'tarneeb-fair-v2/receipt'
"""

from __future__ import annotations

from dataclasses import dataclass

from .encoding import PROTOCOL, RECEIPT_TAG, check_bytes, check_commitment, check_match_id, lp16
from .errors import AuditInputError
from .seeds import SeasonLeaf, match_binding
from .signing import Ed25519PrivateKey, Ed25519PublicKey, sign, verify

MAX_TERMS_LEN = 4096
DEALINGS = (PROTOCOL, "tarneeb-blind-v1", "tarneeb-blind-v2", "tarneeb-blind-v3")
"""The dealing protocols a receipt can promise: from the committed seeds (``PROTOCOL``), or
blind under a version of §13."""


def _terms(value: object, what: str) -> bytes:
    raw = check_bytes(value, what)
    if len(raw) > MAX_TERMS_LEN:
        raise AuditInputError(f"{what}: {len(raw)} bytes; at most {MAX_TERMS_LEN}")
    return raw


@dataclass(frozen=True, slots=True)
class Receipt:
    """The terms of a match as promised before play; :meth:`message` is what is signed.

    ``message = RECEIPT_TAG || binding || lp16(match_id) || lp16(rules)
    || lp16(seat_0) … lp16(seat_3) || K_0 || K_1 || K_2 || K_3 [|| lp16(dealing)]``.

    ``dealing`` (one of :data:`DEALINGS`) is the dealing protocol promised; a receipt made
    before receipts named it has ``None`` and its message ends at ``K_3``, so it still
    verifies (and promises no dealing protocol: docs/PROTOCOL.md §8.1).
    """

    match_id: bytes
    rules: bytes
    seats: tuple[bytes, ...]
    server_commitment: bytes
    season: SeasonLeaf | None
    client_commitments: tuple[bytes, ...]
    dealing: str | None = None

    def __post_init__(self) -> None:
        if self.dealing is not None and self.dealing not in DEALINGS:
            raise AuditInputError(f"receipt dealing: {self.dealing!r}; it is one of "
                                  + ", ".join(DEALINGS))
        check_match_id(self.match_id)
        _terms(self.rules, "receipt rules")
        if len(self.seats) != 4 or len(self.client_commitments) != 4:
            raise AuditInputError("a receipt names four seats and four client commitments")
        for s, label in enumerate(self.seats):
            _terms(label, f"receipt seat {s}")
        for s, c in enumerate(self.client_commitments):
            check_commitment(c, f"client commitment of seat {s}")
        check_commitment(self.server_commitment, "server commitment")

    @property
    def binding(self) -> bytes:
        """The match binding (:func:`~tarneeb.audit.seeds.match_binding`) promised."""
        return match_binding(self.server_commitment, self.season)

    def message(self) -> bytes:
        mid = check_match_id(self.match_id)
        return (RECEIPT_TAG + self.binding + lp16(mid) + lp16(bytes(self.rules))
                + b"".join(lp16(bytes(s)) for s in self.seats)
                + b"".join(bytes(c) for c in self.client_commitments)
                + (b"" if self.dealing is None else lp16(self.dealing.encode("ascii"))))

    def sign(self, private_key: Ed25519PrivateKey) -> bytes:
        """The platform's 64-byte signature of the receipt."""
        return sign(private_key, self.message())

    def verify(self, public_key: Ed25519PublicKey | bytes, signature: bytes) -> None:
        """Raise :class:`~tarneeb.audit.errors.SignatureError` unless ``signature`` is the
        signature of this receipt by ``public_key`` (an Ed25519 public key, or its 32 raw
        bytes, as :attr:`SignedReceipt.public_key <tarneeb.replay.verify.receipt.SignedReceipt>`
        holds it)."""
        verify(public_key, self.message(), signature)

    def differences(self, other: Receipt) -> list[str]:
        """What differs between two receipts' terms, as field names (empty: the same match).

        >>> c = bytes(32)
        >>> a = Receipt(b"m", b"r", (b"a",) * 4, c, None, (c,) * 4)
        >>> b = Receipt(b"m", b"r", (b"a",) * 4, c, SeasonLeaf(0, 1, c), (c,) * 4)
        >>> a.differences(b)
        ['season']
        """
        out = []
        for name in ("match_id", "rules", "seats", "server_commitment", "season",
                     "client_commitments"):
            if getattr(self, name) != getattr(other, name):
                out.append(name)
        return out


__all__ = ["DEALINGS", "Receipt"]
