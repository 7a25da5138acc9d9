"""The test vectors: the files are what the code gives, and a verifier written from
docs/PROTOCOL.md alone (below, with hashlib and hmac only) reproduces them."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit import (
    DealDeriver,
    client_commitment,
    derive_first_dealer,
    inclusion_proof,
    load_private_key,
    load_public_key,
    merkle_root,
    public_key_raw,
    server_commitment,
    sign,
    verify,
    verify_inclusion,
)
from tarneeb.audit.errors import SignatureError
from tarneeb.audit.seeds import SeasonLeaf
from tarneeb.audit.vectors import check_vectors, main, render_vectors

VECTORS = Path(__file__).resolve().parent.parent / "fixtures" / "vectors"


def load(name: str) -> dict:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def test_files_are_what_the_code_gives():
    assert check_vectors(VECTORS) == [], "run: python -m tarneeb.audit.vectors fixtures/vectors"


def test_script_writes_and_checks(tmp_path, capsys, monkeypatch):
    assert main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(render_vectors())
    assert main([str(tmp_path), "--check"]) == 0
    (tmp_path / "deals.json").write_text("{}")
    assert main([str(tmp_path), "--check"]) == 1
    assert "deals.json: differs" in capsys.readouterr().err
    assert main([]) == 2
    # --help is help, not a directory named so
    monkeypatch.chdir(tmp_path)
    assert main(["--help"]) == 0 and main(["-h"]) == 0
    assert main(["--chek", "x"]) == 2
    assert not (tmp_path / "--help").exists() and "DIRECTORY" in capsys.readouterr().out


# ------------------------------------------------ an independent verifier --

def lp16(x: bytes) -> bytes:
    return len(x).to_bytes(2, "big") + x


def ref_stream(key: bytes, msg: bytes):
    i = 0
    while True:
        yield from hmac.new(key, msg + i.to_bytes(4, "big"), hashlib.sha256).digest()
        i += 1


def ref_uniform(m: int, it, log: list) -> int:
    limit = 256 - 256 % m
    while True:
        v = next(it)
        log.append((m, v))
        if v < limit:
            return v % m


def ref_deck(key: bytes, msg: bytes, log: list) -> list[int]:
    it = ref_stream(key, msg)
    order = list(range(52))
    for i in range(51, 0, -1):
        j = ref_uniform(i + 1, it, log)
        order[i], order[j] = order[j], order[i]
    return order


def u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def ref_binding(commitment: bytes, season: dict | None) -> bytes:
    if season is None:
        return hashlib.sha256(b"tarneeb-fair-v2/binding\x00" + b"\x00" + commitment).digest()
    return hashlib.sha256(b"tarneeb-fair-v2/binding\x00" + b"\x01" + u64(season["size"])
                          + bytes.fromhex(season["root"]) + u64(season["index"])
                          + commitment).digest()


def ref_client_commitment(binding: bytes, m: bytes, seat: int, c: bytes) -> str:
    return hashlib.sha256(b"tarneeb-fair-v2/client-commit\x00" + binding + lp16(m)
                          + bytes([seat]) + lp16(c)).hexdigest()


def test_deals_by_the_document():
    data = load("deals.json")
    assert data["protocol"] == "tarneeb-fair-v2" and "TEST VECTORS" in data["warning"]
    total_rejected = 0
    assert {v["season"] is None for v in data["vectors"]} == {True, False}
    for v in data["vectors"]:
        s = bytes.fromhex(v["server_seed"])
        m = bytes.fromhex(v["match_id"])
        seeds = [bytes.fromhex(c) for c in v["client_seeds"]]
        assert all(16 <= len(c) <= 64 for c in seeds)
        commitment = hashlib.sha256(b"tarneeb-fair-v2/server-commit\x00" + s).digest()
        assert commitment.hex() == v["server_commitment"]
        binding = ref_binding(commitment, v["season"])
        assert binding.hex() == v["binding"]
        for seat, c in enumerate(seeds):
            assert ref_client_commitment(binding, m, seat, c) == v["client_commitments"][seat]
        fields = binding + lp16(m) + b"".join(lp16(c) for c in seeds)
        fd_msg = b"tarneeb-fair-v2/first-dealer\x00" + fields
        assert fd_msg.hex() == v["first_dealer"]["message"]
        first = ref_uniform(4, ref_stream(s, fd_msg), [])
        assert first == v["first_dealer"]["first_dealer"]
        for d in v["deals"]:
            k = d["deal_number"]
            msg = b"tarneeb-fair-v2/deal\x00" + fields + k.to_bytes(4, "big")
            assert msg.hex() == d["message"]
            for i, block in enumerate(d["blocks"]):
                assert hmac.new(s, msg + i.to_bytes(4, "big"), hashlib.sha256).hexdigest() == block
            log: list = []
            deck = ref_deck(s, msg, log)
            assert deck == d["deck"]
            assert [(b, val) for _, b, val, _ in d["draws"]] == log
            assert len(d["blocks"]) == (len(log) + 31) // 32 == (d["bytes_used"] + 31) // 32
            rejected = [(b, val) for b, val in log if val >= 256 - 256 % b]
            assert [(r["bound"], r["value"]) for r in d["rejected"]] == rejected
            total_rejected += len(rejected)
            dealer = (first + k) % 4
            assert d["dealer"] == dealer
            hands: list[list[int]] = [[], [], [], []]
            for p, card in enumerate(deck):
                hands[(dealer + 1 + p) % 4].append(card)
            assert [sorted(x) for x in hands] == d["cards_by_seat"]
            assert d["thirteenth"] == deck[51] and deck[51] in hands[dealer]
    assert total_rejected > 0
    third = next(v for v in data["vectors"] if v["name"] == "third-block")["deals"][0]
    assert len(third["blocks"]) == 3 and third["bytes_used"] > 64
    assert {f["first_dealer"] for f in data["first_dealers"]} == {0, 1, 2, 3}


def test_deals_by_the_library():
    data = load("deals.json")
    for v in data["vectors"]:
        s = bytes.fromhex(v["server_seed"])
        m = bytes.fromhex(v["match_id"])
        seeds = [bytes.fromhex(c) for c in v["client_seeds"]]
        season = v["season"]
        leaf = None if season is None else SeasonLeaf(season["index"], season["size"],
                                                      bytes.fromhex(season["root"]))
        d = DealDeriver(s, m, seeds, leaf)
        assert d.binding.hex() == v["binding"]
        assert d.first_dealer() == v["first_dealer"]["first_dealer"]
        for dv in v["deals"]:
            k = dv["deal_number"]
            assert d.blocks(k, len(dv["blocks"])) == [bytes.fromhex(b) for b in dv["blocks"]]
            deal = d.deal(k)
            assert list(deal.deck) == dv["deck"] and deal.dealer == dv["dealer"]
            assert deal.thirteenth == dv["thirteenth"]
            assert [sorted(deal.cards(s)) for s in range(4)] == dv["cards_by_seat"]
    for f in data["first_dealers"]:
        assert derive_first_dealer(bytes.fromhex(f["server_seed"]), bytes.fromhex(f["match_id"]),
                                   [bytes.fromhex(c) for c in f["client_seeds"]]) == \
            f["first_dealer"]


def test_commitments():
    data = load("commitments.json")
    for c in data["server"]:
        seed = bytes.fromhex(c["server_seed"])
        assert server_commitment(seed).hex() == c["commitment"]
        assert hashlib.sha256(b"tarneeb-fair-v2/server-commit\x00" + seed).hexdigest() == \
            c["commitment"]
    for b in data["bindings"]:
        commitment = bytes.fromhex(b["server_commitment"])
        assert ref_binding(commitment, b["season"]).hex() == b["binding"]
    assert len({b["binding"] for b in data["bindings"]}) == len(data["bindings"])
    for c in data["client"]:
        binding, m = bytes.fromhex(c["binding"]), bytes.fromhex(c["match_id"])
        seed = bytes.fromhex(c["client_seed"])
        assert client_commitment(m, c["seat"], seed, binding).hex() == c["commitment"]
        assert ref_client_commitment(binding, m, c["seat"], seed) == c["commitment"]
    assert len({c["commitment"] for c in data["client"]}) == len(data["client"])


def ref_verify(leaf: bytes, index: int, size: int, proof: list[bytes], root: bytes) -> bool:
    """RFC 9162 §2.1.3.2, as docs/PROTOCOL.md §4.2 gives it."""
    if index >= size:
        return False
    fn, sn = index, size - 1
    r = hashlib.sha256(b"\x00" + leaf).digest()
    for p in proof:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            if fn % 2 == 0:
                while fn != 0 and fn % 2 == 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def test_merkle():
    data = load("merkle.json")
    leaves = [bytes.fromhex(x) for x in data["leaves"]]
    assert [server_commitment(bytes.fromhex(s)).hex() for s in data["server_seeds"]] == \
        data["leaves"]
    assert data["empty_root"] == hashlib.sha256(b"").hexdigest()
    sizes = [t["size"] for t in data["trees"]]
    assert any(n & (n - 1) for n in sizes) and {1, 2, 4, 8, 16} <= set(sizes)
    for t in data["trees"]:
        n = t["size"]
        root = bytes.fromhex(t["root"])
        assert merkle_root(leaves[:n]) == root
        for i, proof_hex in enumerate(t["proofs"]):
            proof = [bytes.fromhex(p) for p in proof_hex]
            assert inclusion_proof(leaves[:n], i) == proof
            assert ref_verify(leaves[i], i, n, proof, root)
            verify_inclusion(leaves[i], i, n, proof, root)
        assert t["head_message"] == (b"tarneeb-fair-v2/season-head\x00" + u64(n) + root).hex()


def test_signature():
    data = load("signature.json")
    raw = bytes.fromhex(data["private_key_raw"])
    key = Ed25519PrivateKey.from_private_bytes(raw)
    assert load_private_key(data["private_key_pem"].encode()).private_bytes_raw() == raw
    pub = load_public_key(data["public_key_pem"].encode())
    assert public_key_raw(pub).hex() == data["public_key_raw"] == key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    assert hashlib.sha256(bytes.fromhex(data["public_key_raw"])).hexdigest()[:16] == \
        data["key_id"]
    for s in data["signatures"]:
        msg = bytes.fromhex(s["message"])
        assert sign(key, msg).hex() == s["signature"]
        verify(pub, msg, bytes.fromhex(s["signature"]))
    head = data["season_head"]
    msg = b"tarneeb-fair-v2/season-head\x00" + u64(head["size"]) + bytes.fromhex(head["root"])
    assert msg.hex() == head["message"]
    verify(pub, msg, bytes.fromhex(head["signature"]))
    r = data["receipt"]
    binding = ref_binding(bytes.fromhex(r["server_commitment"]), r["season"])
    assert binding.hex() == r["binding"]
    msg = (b"tarneeb-fair-v2/receipt\x00" + binding + lp16(bytes.fromhex(r["match_id"]))
           + lp16(bytes.fromhex(r["rules"])) + b"".join(lp16(bytes.fromhex(x)) for x in r["seats"])
           + b"".join(bytes.fromhex(c) for c in r["client_commitments"]))
    assert msg.hex() == r["message"]
    verify(pub, msg, bytes.fromhex(r["signature"]))
    # the dealing protocol promised ends the message; without it, the receipt is an old one
    bound = msg + lp16(r["dealing"].encode())
    assert r["dealing"] == "tarneeb-blind-v3" and bound.hex() == r["dealing_message"]
    verify(pub, bound, bytes.fromhex(r["dealing_signature"]))
    with pytest.raises(SignatureError):
        verify(pub, msg, bytes.fromhex(r["dealing_signature"]))


@pytest.mark.parametrize("name", ["deals.json", "commitments.json", "merkle.json",
                                  "signature.json"])
def test_vector_files_are_labelled(name):
    assert "never use them for real play" in load(name)["warning"]
