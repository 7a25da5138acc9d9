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

SEEDS = [b"north", b"east", b"south", b"west"]


def test_server_seeds_are_fresh_and_32_bytes():
    seeds = {new_server_seed() for _ in range(50)}
    assert len(seeds) == 50 and all(len(s) == 32 for s in seeds)
    assert len(new_client_seed()) == 32 and len(new_client_seed(1)) == 1
    with pytest.raises(AuditInputError):
        new_client_seed(65)


def test_server_commitment_encoding():
    seed = bytes(range(32))
    assert server_commitment(seed) == hashlib.sha256(
        b"tarneeb-fair-v1/server-commit\x00" + seed).digest()
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
    got = client_commitment(b"m-1", 2, b"seed")
    assert got == hashlib.sha256(b"tarneeb-fair-v1/client-commit\x00" + b"\x00\x03m-1" + b"\x02"
                                 + b"\x00\x04seed").digest()
    assert client_commitment("m-1", 2, b"seed") == got


def test_client_commitment_is_bound_to_match_and_seat():
    c = client_commitment("m-1", 0, b"x")
    assert len({c, client_commitment("m-1", 1, b"x"), client_commitment("m-2", 0, b"x")}) == 3
    verify_client_seed("m-1", 0, b"x", c)
    with pytest.raises(ClientCommitmentError, match="client seed of seat 1 does not match") as e:
        verify_client_seed("m-1", 1, b"x", c)
    assert e.value.seat == 1
    with pytest.raises(ClientCommitmentError):
        verify_client_seed("m-2", 0, b"x", c)


def test_all_four_client_seeds():
    commitments = client_commitments("m", SEEDS)
    verify_client_seeds("m", SEEDS, commitments)
    bad = list(SEEDS)
    bad[3] = b"cheat"
    with pytest.raises(ClientCommitmentError, match="seat 3") as e:
        verify_client_seeds("m", bad, commitments)
    assert e.value.seat == 3
    with pytest.raises(AuditInputError, match="there must be 4"):
        verify_client_seeds("m", SEEDS, commitments[:3])


@pytest.mark.parametrize("args, message", [
    (("m", 4, b"x"), "seat: 4; seats are 0-3"),
    (("m", True, b"x"), "seat: True"),
    (("m", 0, b""), "client seed of seat 0: 0 bytes; it must be 1-64 bytes"),
    (("m", 0, bytes(65)), "65 bytes"),
    ((b"", 0, b"x"), "match id: 0 bytes"),
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
        verify_season_seed(seed, i, 5, proof, season.root)
    with pytest.raises(MerkleProofError):
        verify_season_seed(season.seeds[0], 1, 5, season.proof(1), season.root)
    with pytest.raises(AuditInputError, match="at least 1"):
        Season.new(0)
    with pytest.raises(AuditInputError):
        Season.from_seeds([])
