"""The exceptions of :mod:`tarneeb.audit`.

Every failure is an :class:`AuditError`, itself a ``ValueError``, and each kind
of failure has its own subclass, so a caller can tell a malformed input from a
seed that does not match its commitment:

>>> from tarneeb.audit import AuditError, server_commitment, verify_server_seed
>>> try:
...     verify_server_seed(bytes(32), server_commitment(bytes([1]) * 32))
... except AuditError as e:
...     print(type(e).__name__, "-", str(e)[:41])
ServerCommitmentError - server seed does not match its commitment
"""

from __future__ import annotations


class AuditError(ValueError):
    """Base class: something to audit is malformed or does not verify."""


class AuditInputError(AuditError):
    """An input is malformed: a seed of the wrong length, bad hex, a deal number out of range."""


class CommitmentError(AuditError):
    """A revealed seed does not match its commitment."""


class ServerCommitmentError(CommitmentError):
    """The revealed server seed does not match the published server commitment."""


class ClientCommitmentError(CommitmentError):
    """A seat's revealed client seed does not match that seat's commitment."""

    def __init__(self, message: str, seat: int) -> None:
        super().__init__(message)
        self.seat = seat


class MerkleProofError(AuditError):
    """An inclusion proof does not lead from a commitment to the published root."""


class DealMismatchError(AuditError):
    """A recorded deal is not the one the committed seeds produce."""


class SignatureError(AuditError):
    """A signature does not verify with the given public key."""


class KeyFileError(AuditError):
    """A key file cannot be read, written or parsed."""


class WeakKeyError(SignatureError):
    """A public key of small order or not canonically encoded: no signature under it
    proves anything."""


__all__ = [
    "AuditError", "AuditInputError", "ClientCommitmentError", "CommitmentError",
    "DealMismatchError", "KeyFileError", "MerkleProofError", "ServerCommitmentError",
    "SignatureError", "WeakKeyError",
]
