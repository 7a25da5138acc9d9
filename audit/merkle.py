"""Merkle trees as Certificate Transparency builds them (RFC 6962 §2.1, RFC 9162 §2.1).

A leaf's hash is ``SHA-256(0x00 || leaf)``, an inner node's ``SHA-256(0x01 || left || right)``;
a tree of ``n > 1`` leaves splits at ``k``, the largest power of two smaller than ``n``.
The leaves here are match commitments, so a platform publishes one root for a
whole season and later reveals any match alone with its inclusion proof.

>>> leaves = [bytes([i]) * 32 for i in range(5)]
>>> tree = MerkleTree(leaves)
>>> proof = tree.proof(4)
>>> len(proof)
1
>>> verify_inclusion(leaves[4], 4, 5, proof, tree.root)
>>> try:
...     verify_inclusion(leaves[3], 4, 5, proof, tree.root)
... except MerkleProofError as e:
...     print(str(e)[:41])
inclusion proof does not lead to the root
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from .errors import AuditInputError, MerkleProofError

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
HASH_LEN = 32


def leaf_hash(leaf: bytes) -> bytes:
    """``SHA-256(0x00 || leaf)``."""
    return hashlib.sha256(LEAF_PREFIX + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def split_point(n: int) -> int:
    """The largest power of two smaller than ``n`` (``n >= 2``).

    >>> [split_point(n) for n in (2, 3, 4, 5, 8, 9)]
    [1, 2, 2, 4, 4, 8]
    """
    return 1 << ((n - 1).bit_length() - 1)


class MerkleTree:
    """A tree over a fixed list of leaves; subtree hashes are computed once.

    >>> MerkleTree([]).root.hex() == hashlib.sha256(b"").hexdigest()
    True
    """

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self.leaves: tuple[bytes, ...] = tuple(bytes(x) for x in leaves)
        self._leaf_hashes = [leaf_hash(x) for x in self.leaves]
        self._memo: dict[tuple[int, int], bytes] = {}
        self.root: bytes = self._mth(0, len(self.leaves))

    def __len__(self) -> int:
        return len(self.leaves)

    def _mth(self, lo: int, hi: int) -> bytes:
        n = hi - lo
        if n == 0:
            return hashlib.sha256(b"").digest()
        if n == 1:
            return self._leaf_hashes[lo]
        got = self._memo.get((lo, hi))
        if got is None:
            k = split_point(n)
            got = node_hash(self._mth(lo, lo + k), self._mth(lo + k, hi))
            self._memo[(lo, hi)] = got
        return got

    def proof(self, index: int) -> list[bytes]:
        """The audit path of leaf ``index``, from the leaf's sibling up to the root's child."""
        n = len(self.leaves)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise AuditInputError(f"leaf index {index!r} is not in a tree of {n} leaves")
        path: list[bytes] = []
        lo, hi, m = 0, n, index
        while hi - lo > 1:
            k = split_point(hi - lo)
            if m < k:
                path.append(self._mth(lo + k, hi))
                hi = lo + k
            else:
                path.append(self._mth(lo, lo + k))
                lo, m = lo + k, m - k
        path.reverse()
        return path


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """The root hash of a tree over ``leaves`` (the RFC's MTH)."""
    return MerkleTree(leaves).root


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """The inclusion proof of ``leaves[index]`` (the RFC's PATH)."""
    return MerkleTree(leaves).proof(index)


def root_from_proof(leaf: bytes, index: int, size: int, proof: Sequence[bytes]) -> bytes:
    """The root that ``proof`` leads to from ``leaf`` at ``index`` in a tree of ``size``.

    The algorithm of RFC 9162 §2.1.3.2; raises
    :class:`~tarneeb.audit.errors.MerkleProofError` when the proof has the wrong
    number of hashes for that index and size.
    """
    for name, v in (("index", index), ("size", size)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise AuditInputError(f"tree {name} must be a whole number, not {v!r}")
    if size < 1:
        raise AuditInputError(f"tree size {size}: a tree with a leaf has at least 1 leaf")
    if not 0 <= index < size:
        raise AuditInputError(
            f"leaf index {index} is not in a tree of {size} leaves (0-{size - 1})")
    for i, p in enumerate(proof):
        if not isinstance(p, bytes | bytearray) or len(p) != HASH_LEN:
            raise AuditInputError(f"inclusion proof: hash {i} is not {HASH_LEN} bytes")
    fn, sn = index, size - 1
    r = leaf_hash(bytes(leaf))
    for p in proof:
        if sn == 0:
            raise MerkleProofError(
                f"inclusion proof has {len(proof)} hashes, too many for leaf {index} "
                f"of a tree of {size}")
        if fn & 1 or fn == sn:
            r = node_hash(bytes(p), r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, bytes(p))
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise MerkleProofError(
            f"inclusion proof has {len(proof)} hashes, too few for leaf {index} "
            f"of a tree of {size}")
    return r


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes],
                     root: bytes) -> None:
    """Check that ``leaf`` is leaf ``index`` of the tree of ``size`` leaves with ``root``.

    Raises :class:`~tarneeb.audit.errors.MerkleProofError` when it is not.
    """
    if not isinstance(root, bytes | bytearray) or len(root) != HASH_LEN:
        raise AuditInputError(f"Merkle root must be {HASH_LEN} bytes")
    got = root_from_proof(leaf, index, size, proof)
    if not hmac.compare_digest(got, bytes(root)):
        raise MerkleProofError(
            f"inclusion proof does not lead to the root: leaf {index} of {size} with this proof "
            f"gives {got.hex()[:16]}…, the published root is {bytes(root).hex()[:16]}…")


__all__ = [
    "MerkleTree", "inclusion_proof", "leaf_hash", "merkle_root", "node_hash",
    "root_from_proof", "split_point", "verify_inclusion",
]
