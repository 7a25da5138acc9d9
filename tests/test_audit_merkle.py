"""Merkle trees as RFC 6962 / 9162 build them."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.audit import (
    AuditInputError,
    MerkleProofError,
    MerkleTree,
    inclusion_proof,
    merkle_root,
    root_from_proof,
    verify_inclusion,
)
from tarneeb.audit.merkle import split_point


def h(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def rfc_mth(d: list[bytes]) -> bytes:
    """MTH straight from RFC 6962 §2.1."""
    n = len(d)
    if n == 0:
        return h(b"")
    if n == 1:
        return h(b"\x00" + d[0])
    k = 1
    while k * 2 < n:
        k *= 2
    return h(b"\x01" + rfc_mth(d[:k]) + rfc_mth(d[k:]))


def rfc_path(m: int, d: list[bytes]) -> list[bytes]:
    """PATH straight from RFC 6962 §2.1.1."""
    n = len(d)
    if n == 1:
        return []
    k = 1
    while k * 2 < n:
        k *= 2
    if m < k:
        return [*rfc_path(m, d[:k]), rfc_mth(d[k:])]
    return [*rfc_path(m - k, d[k:]), rfc_mth(d[:k])]


def leaves(n: int) -> list[bytes]:
    return [h(b"leaf %d" % i) for i in range(n)]


def test_small_trees_by_hand():
    a, b, c = leaves(3)
    la, lb, lc = (h(b"\x00" + x) for x in (a, b, c))
    assert merkle_root([a]) == la
    assert merkle_root([a, b]) == h(b"\x01" + la + lb)
    assert merkle_root([a, b, c]) == h(b"\x01" + h(b"\x01" + la + lb) + lc)
    assert inclusion_proof([a, b, c], 2) == [h(b"\x01" + la + lb)]
    assert inclusion_proof([a, b, c], 0) == [lb, lc]
    assert merkle_root([]) == h(b"")
    assert [split_point(n) for n in range(2, 10)] == [1, 2, 2, 4, 4, 4, 4, 8]


@pytest.mark.parametrize("n", [*range(1, 34), 64, 100])
def test_against_the_rfc_definitions(n):
    d = leaves(n)
    tree = MerkleTree(d)
    assert tree.root == rfc_mth(d)
    for m in range(n):
        proof = tree.proof(m)
        assert proof == rfc_path(m, d)
        assert root_from_proof(d[m], m, n, proof) == tree.root
        verify_inclusion(d[m], m, n, proof, tree.root)


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=2, max_value=40), st.data())
def test_tampered_proofs_fail(n, data):
    d = leaves(n)
    tree = MerkleTree(d)
    m = data.draw(st.integers(min_value=0, max_value=n - 1))
    proof = tree.proof(m)
    i = data.draw(st.integers(min_value=0, max_value=len(proof) - 1))
    bad = list(proof)
    bad[i] = bytes(x ^ 0xFF for x in bad[i][:1]) + bad[i][1:]
    with pytest.raises(MerkleProofError, match="does not lead to the root"):
        verify_inclusion(d[m], m, n, bad, tree.root)
    other = data.draw(st.integers(min_value=0, max_value=n - 1))
    if other != m:
        with pytest.raises(MerkleProofError):
            verify_inclusion(d[other], m, n, proof, tree.root)
        with pytest.raises(MerkleProofError):
            verify_inclusion(d[m], other, n, proof, tree.root)
    with pytest.raises(MerkleProofError):
        verify_inclusion(d[m], m, n, [*proof, proof[0]], tree.root)
    with pytest.raises(MerkleProofError):
        verify_inclusion(d[m], m, n, proof[:-1], tree.root)


def test_wrong_size_or_root():
    d = leaves(7)
    tree = MerkleTree(d)
    with pytest.raises(MerkleProofError):
        verify_inclusion(d[6], 6, 8, tree.proof(6), tree.root)
    with pytest.raises(MerkleProofError, match="published root is"):
        verify_inclusion(d[6], 6, 7, tree.proof(6), MerkleTree(d[:6]).root)


@pytest.mark.parametrize("index, size, proof, message", [
    (3, 3, [], "leaf index 3 is not in a tree of 3 leaves"),
    (0, 0, [], "tree size 0"),
    (-1, 3, [], "leaf index -1"),
    (0, 2, [b"short"], "hash 0 is not 32 bytes"),
    ("0", 2, [], "tree index must be a whole number"),
])
def test_bad_proof_inputs(index, size, proof, message):
    with pytest.raises(AuditInputError, match=message):
        verify_inclusion(bytes(32), index, size, proof, bytes(32))


def test_bad_index_for_a_proof():
    with pytest.raises(AuditInputError, match="leaf index 5 is not in a tree of 2 leaves"):
        MerkleTree(leaves(2)).proof(5)
    with pytest.raises(AuditInputError, match="root must be 32 bytes"):
        verify_inclusion(bytes(32), 0, 1, [], b"x")
