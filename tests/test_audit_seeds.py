"""Server and client seeds, commitments, seasons."""

from __future__ import annotations

import hashlib

import pytest

from tarneeb.audit import (
    AuditError,
    AuditInputError,
    ClientCommitmentError,
    CommitmentError,
    MerkleProofError,
    Season,
    ServerCommitmentError,
    client_commitment,
    client_commitments,
    new_client_seed,
    new_server_seed,
    server_commitment,
    verify_client_seed,
    verify_client_seeds,
    verify_inclusion,
    verify_season_seed,
    verify_server_seed,
)
from tarneeb.audit.errors import SignatureError
from tarneeb.audit.seeds import SeasonLeaf, match_binding
from tarneeb.audit.signing import private_key_from_raw

SEEDS = [b"north seat: seed", b"east seat: seed!", b"south seat: seed", b"west seat: seed!"]
B = match_binding(server_commitment(bytes(32)))  # a match committed alone
X = b"a client seed of 16+ bytes"


def test_server_seeds_are_fresh_and_32_bytes():
    seeds = {new_server_seed() for _ in range(50)}
    assert len(seeds) == 50 and all(len(s) == 32 for s in seeds)
    assert len(new_client_seed()) == 32 and len(new_client_seed(16)) == 16
    for n in (15, 1, 65):
        with pytest.raises(AuditInputError, match="it must be 16-64 bytes"):
            new_client_seed(n)


def test_server_commitment_encoding():
    seed = bytes(range(32))
    assert server_commitment(seed) == hashlib.sha256(
        b"tarneeb-fair-v2/server-commit\x00" + seed).digest()
    verify_server_seed(seed, server_commitment(seed))


def test_wrong_server_seed():
    seed = new_server_seed()
    other = bytearray(seed)
    other[0] ^= 1
    with pytest.raises(ServerCommitmentError, match="server seed does not match its commitment"):
        verify_server_seed(bytes(other), server_commitment(seed))
    assert issubclass(ServerCommitmentError, CommitmentError)
    assert issubclass(CommitmentError, AuditError) and issubclass(AuditError, ValueError)


@pytest.mark.parametrize("seed, commitment, message", [
    (bytes(31), bytes(32), "server seed: 31 bytes"),
    (bytes(32), bytes(31), "server commitment: 31 bytes; it must be 32 bytes"),
    ("00" * 32, bytes(32), "server seed must be bytes"),
])
def test_server_seed_lengths(seed, commitment, message):
    with pytest.raises(AuditInputError, match=message):
        verify_server_seed(seed, commitment)


def test_client_commitment_encoding():
    got = client_commitment(b"m-1", 2, X, B)
    assert got == hashlib.sha256(b"tarneeb-fair-v2/client-commit\x00" + B + b"\x00\x03m-1"
                                 + b"\x02" + len(X).to_bytes(2, "big") + X).digest()
    assert client_commitment("m-1", 2, X, B) == got


def test_binding_encoding():
    c = server_commitment(bytes(32))
    assert hashlib.sha256(b"tarneeb-fair-v2/binding\x00\x00" + c).digest() == B
    leaf = SeasonLeaf(3, 5, bytes(range(32)))
    assert match_binding(c, leaf) == hashlib.sha256(
        b"tarneeb-fair-v2/binding\x00\x01" + (5).to_bytes(8, "big") + bytes(range(32))
        + (3).to_bytes(8, "big") + c).digest()


def test_client_commitment_is_bound_to_match_seat_and_binding():
    c = client_commitment("m-1", 0, X, B)
    season = match_binding(server_commitment(bytes(32)), SeasonLeaf(0, 1, bytes(32)))
    others = {client_commitment("m-1", 1, X, B), client_commitment("m-2", 0, X, B),
              client_commitment("m-1", 0, X, match_binding(server_commitment(bytes([1]) * 32))),
              client_commitment("m-1", 0, X, season)}
    assert len(others | {c}) == 5
    verify_client_seed("m-1", 0, X, c, B)
    with pytest.raises(ClientCommitmentError, match="client seed of seat 1 does not match") as e:
        verify_client_seed("m-1", 1, X, c, B)
    assert e.value.seat == 1
    with pytest.raises(ClientCommitmentError):
        verify_client_seed("m-2", 0, X, c, B)
    with pytest.raises(ClientCommitmentError):  # the same seed under another promise
        verify_client_seed("m-1", 0, X, c, season)


def test_all_four_client_seeds():
    commitments = client_commitments("m", SEEDS, B)
    verify_client_seeds("m", SEEDS, commitments, B)
    bad = list(SEEDS)
    bad[3] = b"cheat cheat cheat"
    with pytest.raises(ClientCommitmentError, match="seat 3") as e:
        verify_client_seeds("m", bad, commitments, B)
    assert e.value.seat == 3
    with pytest.raises(AuditInputError, match="there must be 4"):
        verify_client_seeds("m", SEEDS, commitments[:3], B)


@pytest.mark.parametrize("args, message", [
    (("m", 4, X, B), "seat: 4; seats are 0-3"),
    (("m", True, X, B), "seat: True"),
    (("m", 0, b"", B), "client seed of seat 0: 0 bytes; it must be 16-64 bytes"),
    (("m", 0, b"xy", B), "client seed of seat 0: 2 bytes; it must be 16-64 bytes \\(a shorter "
                         "seed can be found from its commitment\\)"),
    (("m", 0, bytes(15), B), "15 bytes"),
    (("m", 0, bytes(65), B), "65 bytes"),
    ((b"", 0, X, B), "match id: 0 bytes"),
    (("m", 0, X, bytes(31)), "match binding: 31 bytes"),
])
def test_client_commitment_inputs(args, message):
    with pytest.raises(AuditInputError, match=message):
        client_commitment(*args)


def test_season():
    season = Season.new(5)
    assert season.size == 5 and len(set(season.seeds)) == 5
    for i, seed in enumerate(season.seeds):
        proof = season.proof(i)
        verify_inclusion(season.commitments[i], i, 5, proof, season.root)
        verify_season_seed(seed, season.leaf(i), proof)
    with pytest.raises(MerkleProofError):
        verify_season_seed(season.seeds[0], season.leaf(1), season.proof(1))
    with pytest.raises(AuditInputError, match="leaf index: 5"):
        season.leaf(5)


def test_season_head_binds_the_size():
    """RFC 9162 lets a proof of leaf 3 of 5 also fit trees of 6, 7 and 8 leaves with the
    same root; in v2 the size is bound: the signed head names it, and the binding (hence
    every client commitment and deal) changes with it."""
    season = Season.from_seeds([bytes([i]) * 32 for i in range(5)])
    proof = season.proof(3)
    key = private_key_from_raw(bytes(32))
    signature = season.head.sign(key)
    season.head.verify(key.public_key(), signature)
    bindings = {match_binding(season.commitments[3], season.leaf(3))}
    for size in (6, 7, 8):
        verify_inclusion(season.commitments[3], 3, size, proof, season.root)  # RFC: it fits
        other = SeasonLeaf(3, size, season.root)
        with pytest.raises(SignatureError):
            other.head.verify(key.public_key(), signature)
        bindings.add(match_binding(season.commitments[3], other))
    assert len(bindings) == 4
    with pytest.raises(AuditInputError, match="at least 1"):
        Season.new(0)
    with pytest.raises(AuditInputError):
        Season.from_seeds([])
