"""Server and client seeds, their commitments, and the binding of a match.

A server seed is 32 fresh bytes from :mod:`secrets`; its commitment, published
before any card is dealt, is ``SHA-256(b"tarneeb-fair-v2/server-commit\\x00" || seed)``.
The match's *binding* names what the server promised: its commitment, and for a
match of a season the season head (tree size and root) and the leaf index. Each
seat commits to its own client seed bound to that binding, the match and the
seat, and reveals it only once all four commitments are in; every deal is
derived under the same binding, so the server cannot move a match to another
leaf once the seats have committed.

>>> seed = bytes(range(32))  # a fixed seed: for examples and test vectors only
>>> server_commitment(seed).hex()[:16]
'3d1d2e516f6b2d76'
>>> verify_server_seed(seed, server_commitment(seed))
>>> b = match_binding(server_commitment(seed))
>>> c = client_commitment("m-1", 2, b"seat two's seed!", b)
>>> verify_client_seed("m-1", 2, b"seat two's seed!", c, b)
>>> try:
...     verify_client_seed("m-1", 3, b"seat two's seed!", c, b)
... except ClientCommitmentError as e:
...     print(e.seat, str(e)[:51])
3 client seed of seat 3 does not match its commitment
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .encoding import (
    BINDING_TAG,
    CLIENT_COMMIT_TAG,
    CLIENT_SEED_MAX,
    CLIENT_SEED_MIN,
    MAX_SEASON_SIZE,
    SEASON_HEAD_TAG,
    SERVER_COMMIT_TAG,
    SERVER_SEED_LEN,
    check_bytes,
    check_client_seed,
    check_client_seeds,
    check_commitment,
    check_count,
    check_match_id,
    check_seat,
    check_server_seed,
    lp16,
    u64be,
)
from .errors import AuditInputError, ClientCommitmentError, ServerCommitmentError
from .signing import Ed25519PrivateKey, Ed25519PublicKey, sign, verify

if TYPE_CHECKING:  # a season's tree is loaded only for seasons
    from .merkle import MerkleTree

CLIENT_SEED_DEFAULT_LEN = 32
BINDING_LEN = 32


def new_server_seed() -> bytes:
    """A fresh server seed: 32 bytes from the operating system's secure source.

    Use a new one for every match.

    >>> len(new_server_seed())
    32
    """
    import secrets  # only a server makes seeds: a verifier never loads it

    return secrets.token_bytes(SERVER_SEED_LEN)


def new_client_seed(length: int = CLIENT_SEED_DEFAULT_LEN) -> bytes:
    """A fresh client seed (16-64 bytes, 32 by default) for a player's software to send.

    >>> len(new_client_seed())
    32
    """
    if not CLIENT_SEED_MIN <= length <= CLIENT_SEED_MAX:
        raise AuditInputError(f"client seed length: {length}; it must be "
                              f"{CLIENT_SEED_MIN}-{CLIENT_SEED_MAX} bytes")
    import secrets

    return secrets.token_bytes(length)


def server_commitment(server_seed: bytes) -> bytes:
    """``SHA-256(b"tarneeb-fair-v2/server-commit\\x00" || server_seed)``: 32 bytes.

    >>> server_commitment(bytes(32)).hex()[:16]
    '552887ba06ff1135'
    """
    return hashlib.sha256(SERVER_COMMIT_TAG + check_server_seed(server_seed)).digest()


@dataclass(frozen=True, slots=True)
class SeasonHead:
    """What a platform publishes for a season before its first match: the number of
    leaves and the Merkle root over their server commitments, signed together (as a
    Certificate Transparency signed tree head binds size and root).

    >>> head = SeasonHead(5, bytes(32))
    >>> head.message()[:27], len(head.message())
    (b'tarneeb-fair-v2/season-head', 68)
    """

    size: int
    root: bytes

    def __post_init__(self) -> None:
        check_count(self.size, "season size", 1, MAX_SEASON_SIZE)
        check_commitment(self.root, "season root")

    def message(self) -> bytes:
        """The signed bytes: ``SEASON_HEAD_TAG || u64be(size) || root``."""
        return SEASON_HEAD_TAG + u64be(self.size) + bytes(self.root)

    def sign(self, private_key: Ed25519PrivateKey) -> bytes:
        """The platform's 64-byte signature of the head."""
        return sign(private_key, self.message())

    def verify(self, public_key: Ed25519PublicKey, signature: bytes) -> None:
        """Raise :class:`~tarneeb.audit.errors.SignatureError` unless ``signature`` is the
        platform's signature of this head (this size and this root)."""
        verify(public_key, self.message(), signature)


@dataclass(frozen=True, slots=True)
class SeasonLeaf:
    """Where a match stands in a season: leaf ``index`` of the head ``(size, root)``."""

    index: int
    size: int
    root: bytes

    def __post_init__(self) -> None:
        check_count(self.size, "season size", 1, MAX_SEASON_SIZE)
        check_count(self.index, "leaf index", 0, self.size - 1)
        check_commitment(self.root, "season root")

    @property
    def head(self) -> SeasonHead:
        return SeasonHead(self.size, self.root)

    def verify(self, commitment: bytes, proof: Sequence[bytes]) -> None:
        """Check that ``commitment`` is this leaf of the tree (RFC 9162 inclusion proof).

        The size comes from the head, so a proof is checked against the one size the
        platform signed; a proof of leaf 3 of 5 that also fits a tree of 8 leaves
        gives another binding (:func:`match_binding`), hence other commitments and deals.
        """
        from .merkle import verify_inclusion  # a match of a season only

        verify_inclusion(commitment, self.index, self.size, proof, self.root)


def match_binding(server_commitment: bytes, season: SeasonLeaf | None = None) -> bytes:
    """The 32 bytes that bind a match to what the server promised before play.

    A match committed alone: ``SHA-256(BINDING_TAG || 0x00 || C)``; a match of a
    season: ``SHA-256(BINDING_TAG || 0x01 || u64be(size) || root || u64be(index) || C)``.
    Every client commitment and every deal of the match include it.

    >>> c = server_commitment(bytes(32))
    >>> match_binding(c) != match_binding(c, SeasonLeaf(0, 1, bytes(32)))
    True
    """
    c = check_commitment(server_commitment, "server commitment")
    if season is not None and not isinstance(season, SeasonLeaf):
        raise AuditInputError(f"season: {type(season).__name__}; it must be a SeasonLeaf or "
                              "None")
    if season is None:
        return hashlib.sha256(BINDING_TAG + b"\x00" + c).digest()
    return hashlib.sha256(BINDING_TAG + b"\x01" + u64be(season.size) + bytes(season.root)
                          + u64be(season.index) + c).digest()


def _check_binding(binding: bytes) -> bytes:
    binding = check_bytes(binding, "match binding")
    if len(binding) != BINDING_LEN:
        raise AuditInputError(f"match binding: {len(binding)} bytes; it must be {BINDING_LEN} "
                              "(see match_binding)")
    return binding


def client_commitment(match_id: bytes | str, seat: int, client_seed: bytes,
                      binding: bytes) -> bytes:
    """A seat's commitment to its client seed, bound to the match's binding, the match
    and the seat.

    ``SHA-256(b"tarneeb-fair-v2/client-commit\\x00" || binding || u16be(len(match_id))
    || match_id || seat (one byte) || u16be(len(seed)) || seed)``.

    >>> b = match_binding(server_commitment(bytes(32)))
    >>> client_commitment("m-1", 0, bytes(16), b) != client_commitment("m-1", 1, bytes(16), b)
    True
    """
    start = _client_commit_start(binding, match_id)
    seat = check_seat(seat)
    return _client_commit(start, seat, check_client_seed(client_seed, seat))


def _client_commit_start(binding: bytes, match_id: bytes | str) -> bytes:
    """What every seat's commitment message of a match starts with, its parts checked."""
    return CLIENT_COMMIT_TAG + _check_binding(binding) + lp16(check_match_id(match_id))


def _client_commit(start: bytes, seat: int, seed: bytes) -> bytes:
    return hashlib.sha256(start + bytes([seat]) + lp16(seed)).digest()


def client_commitments(match_id: bytes | str, client_seeds: Sequence[bytes],
                       binding: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """The four seats' commitments, in seat order."""
    seeds = check_client_seeds(client_seeds)
    start = _client_commit_start(binding, match_id)  # checked and made once for the four
    a, b, c, d = (_client_commit(start, s, seeds[s]) for s in range(4))
    return a, b, c, d


def _short(b: bytes) -> str:
    return b.hex()[:16] + "…"


def verify_server_seed(server_seed: bytes, commitment: bytes) -> None:
    """Check a revealed server seed against its commitment; raise if it does not match.

    Raises :class:`~tarneeb.audit.errors.ServerCommitmentError` on a mismatch and
    :class:`~tarneeb.audit.errors.AuditInputError` for a seed or commitment of the
    wrong length.
    """
    commitment = check_commitment(commitment, "server commitment")
    got = server_commitment(server_seed)
    if not hmac.compare_digest(got, commitment):
        raise ServerCommitmentError(
            f"server seed does not match its commitment: the seed commits to {_short(got)}, "
            f"the published commitment is {_short(commitment)}")


def verify_client_seed(match_id: bytes | str, seat: int, client_seed: bytes,
                       commitment: bytes, binding: bytes) -> None:
    """Check one seat's revealed client seed against that seat's commitment."""
    seat = check_seat(seat)
    commitment = check_commitment(commitment, f"client commitment of seat {seat}")
    got = client_commitment(match_id, seat, client_seed, binding)
    if not hmac.compare_digest(got, commitment):
        raise ClientCommitmentError(
            f"client seed of seat {seat} does not match its commitment for this match, seat "
            "and binding: "
            f"the seed commits to {_short(got)}, the recorded commitment is {_short(commitment)}",
            seat)


def verify_client_seeds(match_id: bytes | str, client_seeds: Sequence[bytes],
                        commitments: Sequence[bytes], binding: bytes) -> None:
    """Check all four seats' seeds against their commitments (seat order 0-3)."""
    seeds = check_client_seeds(client_seeds)
    if isinstance(commitments, bytes | str) or len(commitments) != 4:
        raise AuditInputError("client commitments: there must be 4, one per seat")
    for seat in range(4):
        verify_client_seed(match_id, seat, seeds[seat], commitments[seat], binding)


@dataclass(frozen=True, slots=True)
class Season:
    """Server seeds for many matches, committed at once by one Merkle root.

    Match ``i`` uses ``seeds[i]``; its leaf in the tree is ``commitments[i]``.
    Keep :attr:`seeds` secret; publish the signed :attr:`head` (size and root)
    before the first match, and name each match's leaf (index, commitment, proof)
    before its seats commit their seeds.

    >>> s = Season.from_seeds([bytes([i]) * 32 for i in range(3)])
    >>> s.size, len(s.proof(2)), s.leaf(2).head == s.head
    (3, 1, True)
    """

    seeds: tuple[bytes, ...]
    commitments: tuple[bytes, ...]
    tree: MerkleTree

    @classmethod
    def new(cls, matches: int) -> Season:
        """Fresh seeds for ``matches`` matches (at least 1)."""
        if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
            raise AuditInputError(f"number of matches: {matches!r}; it must be at least 1")
        return cls.from_seeds([new_server_seed() for _ in range(matches)])

    @classmethod
    def from_seeds(cls, seeds: Sequence[bytes]) -> Season:
        if not seeds:
            raise AuditInputError("a season needs at least one seed")
        seeds_t = tuple(check_server_seed(s) for s in seeds)
        commitments = tuple(server_commitment(s) for s in seeds_t)
        from .merkle import MerkleTree

        return cls(seeds_t, commitments, MerkleTree(commitments))

    @property
    def size(self) -> int:
        return len(self.seeds)

    @property
    def root(self) -> bytes:
        return self.tree.root

    @property
    def head(self) -> SeasonHead:
        """The season head to sign and publish: size and root."""
        return SeasonHead(self.size, self.root)

    def leaf(self, index: int) -> SeasonLeaf:
        """Where match ``index`` stands: its leaf of this season's head."""
        return SeasonLeaf(index, self.size, self.root)

    def proof(self, index: int) -> list[bytes]:
        """The inclusion proof of match ``index``'s commitment."""
        return self.tree.proof(index)


__all__ = [
    "Season", "SeasonHead", "SeasonLeaf", "client_commitment", "client_commitments",
    "match_binding", "new_client_seed", "new_server_seed", "server_commitment",
    "verify_client_seed", "verify_client_seeds", "verify_server_seed",
]
