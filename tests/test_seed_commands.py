"""verify-seed against a season head, and the binding a deal deriver takes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit import (
    AuditInputError,
    DealDeriver,
    Season,
    SeasonLeaf,
    generate_key_pair,
    match_binding,
    public_key_pem,
    server_commitment,
)
from tarneeb.audit.errors import AuditError

SEEDS = [bytes([s]) * 16 for s in range(4)]


@pytest.fixture(scope="module")
def season() -> Season:
    return Season.from_seeds([bytes([i]) * 32 for i in range(5)])


@pytest.fixture()
def signed(season: Season, tmp_path: Path) -> tuple[str, Path]:
    private, public = generate_key_pair()
    key = tmp_path / "platform.pub.pem"
    key.write_bytes(public_key_pem(public))
    return season.head.sign(private).hex(), key


def _leaf_args(season: Season, index: int, size: int) -> list[str]:
    proof = ",".join(p.hex() for p in season.proof(index))
    return [season.seeds[index].hex(), "--root", season.root.hex(), "--index", str(index),
            "--size", str(size), "--proof", proof]


def test_a_proof_fits_larger_sizes_under_the_same_root(season: Season) -> None:
    """Leaf 3 of 5 also leads to the root as leaf 3 of 6, 7 and 8 (RFC 9162)."""
    leaf = SeasonLeaf(3, 8, season.root)
    leaf.verify(season.commitments[3], season.proof(3))  # no error: the root alone allows it


@pytest.mark.parametrize("size", [5, 8])
def test_without_the_signed_head_the_size_is_not_proven(capsys, season, size) -> None:
    code, out, _ = run(capsys, "verify-seed", *_leaf_args(season, 3, size))
    assert code == 0
    assert f"is leaf 3 of {size}" in out
    assert f"note: the size {size} is NOT proven" in out
    code, out, _ = run(capsys, "verify-seed", "--json", *_leaf_args(season, 3, size))
    check = json.loads(out)["checks"][0]
    assert code == 0 and check["size_proven"] is False


def test_signed_head_proves_the_size(capsys, season, signed) -> None:
    signature, key = signed
    args = ["--head-signature", signature, "--key", str(key)]
    code, out, _ = run(capsys, "verify-seed", *_leaf_args(season, 3, 5), *args)
    assert code == 0 and "NOT proven" not in out and "season head signed by key" in out
    code, out, _ = run(capsys, "verify-seed", "--json", *_leaf_args(season, 3, 5), *args)
    assert code == 0 and json.loads(out)["checks"][0]["size_proven"] is True


def test_a_private_key_given_as_the_head_key_is_said_so(capsys, season, tmp_path) -> None:
    """As verify --key says it (it said only "not a PEM public key")."""
    key = tmp_path / "platform.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    code, out, err = run(capsys, "verify-seed", *_leaf_args(season, 3, 5),
                         "--head-signature", "00" * 64, "--key", str(key))
    assert (code, out) == (2, "") and "a private key; --key pins the platform's public key" in err


@pytest.mark.parametrize("size", [6, 7, 8])
def test_signed_head_refuses_another_size(capsys, season, signed, size) -> None:
    signature, key = signed
    code, out, err = run(capsys, "verify-seed", *_leaf_args(season, 3, size),
                         "--head-signature", signature, "--key", str(key))
    assert code == 1 and "ok:" not in out
    assert f"the season head (size {size}" in err and "is not the one signed" in err
    code, out, _ = run(capsys, "verify-seed", "--json", *_leaf_args(season, 3, size),
                       "--head-signature", signature, "--key", str(key))
    assert code == 1 and json.loads(out)["ok"] is False


def test_signed_head_of_another_key(capsys, season, tmp_path) -> None:
    private, _ = generate_key_pair()
    _, other = generate_key_pair()
    key = tmp_path / "other.pub.pem"
    key.write_bytes(public_key_pem(other))
    code, _, err = run(capsys, "verify-seed", *_leaf_args(season, 2, 5), "--head-signature",
                       season.head.sign(private).hex(), "--key", str(key))
    assert code == 1 and "is not the one signed" in err


@pytest.mark.parametrize("extra, message", [
    (["--head-signature", "00" * 64], "--head-signature and --key go together"),
    (["--head-signature", "00" * 63, "--key", "KEY"], "head signature: 63 bytes"),
    (["--head-signature", "00" * 64, "--key", "nowhere.pem"], "nowhere.pem: cannot read"),
])
def test_head_signature_bad_input(capsys, season, signed, extra, message) -> None:
    _, key = signed
    extra = [str(key) if x == "KEY" else x for x in extra]
    code, out, err = run(capsys, "verify-seed", *_leaf_args(season, 3, 5), *extra)
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_head_signature_needs_a_season(capsys, season, signed) -> None:
    signature, key = signed
    seed = season.seeds[0]
    code, _, err = run(capsys, "verify-seed", seed.hex(), server_commitment(seed).hex(),
                       "--head-signature", signature, "--key", str(key))
    assert code == 2 and "goes with --root" in err


def test_deriver_refuses_a_binding_of_other_terms(season) -> None:
    seed = season.seeds[3]
    leaf = season.leaf(3)
    right = match_binding(server_commitment(seed), leaf)
    deriver = DealDeriver(seed, b"m", SEEDS, leaf, right)
    assert deriver.deck(0) == DealDeriver(seed, b"m", SEEDS, leaf).deck(0)
    for wrong in (b"", bytes(32), match_binding(server_commitment(seed)),
                  match_binding(server_commitment(seed), SeasonLeaf(3, 8, season.root))):
        with pytest.raises(AuditInputError, match="not the binding of this server seed"):
            DealDeriver(seed, b"m", SEEDS, leaf, wrong)
    with pytest.raises(AuditInputError):
        DealDeriver(seed, b"m", SEEDS, leaf, "x" * 32)  # type: ignore[arg-type]


def test_binding_refuses_a_season_that_is_no_leaf() -> None:
    c = server_commitment(bytes(32))
    with pytest.raises(AuditError, match="it must be a SeasonLeaf"):
        match_binding(c, {"index": 0, "size": 1, "root": bytes(32)})  # type: ignore[arg-type]
