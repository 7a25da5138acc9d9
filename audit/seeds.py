"""Server and client seeds, and their commitments.

A server seed is 32 fresh bytes from :mod:`secrets`; its commitment, published
before any card is dealt, is ``SHA-256(b"tarneeb-fair-v1/server-commit\\x00" || seed)``.
Each seat also commits to its own client seed, bound to the match and the seat,
and reveals it only once all four commitments are in.

>>> seed = bytes(range(32))  # a fixed seed: for examples and test vectors only
>>> server_commitment(seed).hex()[:16]
'ff8cc8aa5fc77d7c'
>>> verify_server_seed(seed, server_commitment(seed))
>>> c = client_commitment("m-1", 2, b"seat two")
>>> verify_client_seed("m-1", 2, b"seat two", c)
>>> try:
...     verify_client_seed("m-1", 3, b"seat two", c)
... except ClientCommitmentError as e:
...     print(e.seat, str(e)[:51])
3 client seed of seat 3 does not match its commitment
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .encoding import (
    CLIENT_COMMIT_TAG,
    SERVER_COMMIT_TAG,
    SERVER_SEED_LEN,
    check_client_seed,
    check_client_seeds,
    check_commitment,
    check_match_id,
    check_seat,
    check_server_seed,
    lp16,
)
from .errors import AuditInputError, ClientCommitmentError, ServerCommitmentError
from .merkle import MerkleTree

CLIENT_SEED_DEFAULT_LEN = 32


def new_server_seed() -> bytes:
    """A fresh server seed: 32 bytes from the operating system's secure source.

    Use a new one for every match.

    >>> len(new_server_seed())
    32
    """
    return secrets.token_bytes(SERVER_SEED_LEN)


def new_client_seed(length: int = CLIENT_SEED_DEFAULT_LEN) -> bytes:
    """A fresh client seed (1-64 bytes, 32 by default) for a player's software to send.

    >>> len(new_client_seed())
    32
    """
    if not 1 <= length <= 64:
        raise AuditInputError(f"client seed length: {length}; it must be 1-64 bytes")
    return secrets.token_bytes(length)


def server_commitment(server_seed: bytes) -> bytes:
    """``SHA-256(b"tarneeb-fair-v1/server-commit\\x00" || server_seed)``: 32 bytes.

    >>> server_commitment(bytes(32)).hex()[:16]
    '54ea44035dee5021'
    """
    return hashlib.sha256(SERVER_COMMIT_TAG + check_server_seed(server_seed)).digest()


def client_commitment(match_id: bytes | str, seat: int, client_seed: bytes) -> bytes:
    """A seat's commitment to its client seed, bound to the match and the seat.

    ``SHA-256(b"tarneeb-fair-v1/client-commit\\x00" || u16be(len(match_id)) || match_id
    || seat (one byte) || u16be(len(seed)) || seed)``.

    >>> client_commitment("m-1", 0, b"x") != client_commitment("m-1", 1, b"x")
    True
    """
    mid = check_match_id(match_id)
    seat = check_seat(seat)
    seed = check_client_seed(client_seed, seat)
    return hashlib.sha256(CLIENT_COMMIT_TAG + lp16(mid) + bytes([seat]) + lp16(seed)).digest()


def client_commitments(match_id: bytes | str,
                       client_seeds: Sequence[bytes]) -> tuple[bytes, bytes, bytes, bytes]:
    """The four seats' commitments, in seat order."""
    seeds = check_client_seeds(client_seeds)
    a, b, c, d = (client_commitment(match_id, s, seeds[s]) for s in range(4))
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
                       commitment: bytes) -> None:
    """Check one seat's revealed client seed against that seat's commitment."""
    seat = check_seat(seat)
    commitment = check_commitment(commitment, f"client commitment of seat {seat}")
    got = client_commitment(match_id, seat, client_seed)
    if not hmac.compare_digest(got, commitment):
        raise ClientCommitmentError(
            f"client seed of seat {seat} does not match its commitment for this match and seat: "
            f"the seed commits to {_short(got)}, the recorded commitment is {_short(commitment)}",
            seat)


def verify_client_seeds(match_id: bytes | str, client_seeds: Sequence[bytes],
                        commitments: Sequence[bytes]) -> None:
    """Check all four seats' seeds against their commitments (seat order 0-3)."""
    seeds = check_client_seeds(client_seeds)
    if isinstance(commitments, bytes | str) or len(commitments) != 4:
        raise AuditInputError("client commitments: there must be 4, one per seat")
    for seat in range(4):
        verify_client_seed(match_id, seat, seeds[seat], commitments[seat])


@dataclass(frozen=True, slots=True)
class Season:
    """Server seeds for many matches, committed at once by one Merkle root.

    Match ``i`` uses ``seeds[i]``; its leaf in the tree is ``commitments[i]``.
    Keep :attr:`seeds` secret; publish :attr:`root` (and the size) before the first
    match, and each match's commitment, index and proof when it starts.

    >>> s = Season.from_seeds([bytes([i]) * 32 for i in range(3)])
    >>> s.size, len(s.proof(2))
    (3, 1)
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
        return cls(seeds_t, commitments, MerkleTree(commitments))

    @property
    def size(self) -> int:
        return len(self.seeds)

    @property
    def root(self) -> bytes:
        return self.tree.root

    def proof(self, index: int) -> list[bytes]:
        """The inclusion proof of match ``index``'s commitment."""
        return self.tree.proof(index)


__all__ = [
    "Season", "client_commitment", "client_commitments", "new_client_seed", "new_server_seed",
    "server_commitment", "verify_client_seed", "verify_client_seeds", "verify_server_seed",
]
