"""The v2 vectors of ``fixtures/vectors/blind.json`` re-checked from libsodium's primitives alone.

A reader of ``docs/PROTOCOL.md`` §13.6 re-implements the verification of the shuffle
proofs and of the batched proofs with ``rbcl`` (libsodium) and ``hashlib``, nothing of
tarneeb's, and checks the vector deal with it; then checks that a changed byte fails.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import rbcl

VECTORS = Path(__file__).resolve().parent.parent / "fixtures" / "vectors" / "blind.json"
L = 2**252 + 27742317777372353535851937790883648493
V2 = b"tarneeb-blind-v2/"


def _sc(n: int) -> bytes:
    return (n % L).to_bytes(32, "little")


def _int(b: bytes) -> int:
    return int.from_bytes(b, "little")


def _red(data: bytes) -> int:
    return _int(rbcl.crypto_core_ristretto255_scalar_reduce(hashlib.sha512(data).digest()))


def _mul(n: int, p: bytes) -> bytes:
    return rbcl.crypto_scalarmult_ristretto255(_sc(n), p)


def _base(n: int) -> bytes:
    return rbcl.crypto_scalarmult_ristretto255_base(_sc(n))


def _sum(points: list[bytes]) -> bytes:
    acc = points[0]
    for p in points[1:]:
        acc = rbcl.crypto_core_ristretto255_add(acc, p)
    return acc


def _msm(ns: list[int], ps: list[bytes]) -> bytes:
    return _sum([_mul(n, p) for n, p in zip(ns, ps, strict=True)])


def _coefs(seed: bytes, n: int) -> list[int]:
    return [_red(seed + bytes([i])) for i in range(n)]


def check_shuffle(y: bytes, deck_in: list[bytes], deck_out: list[bytes], proof: bytes,
                  ctx: bytes, gens: list[bytes]) -> bool:
    """§13.6's verification equations, written from the text (an element that does not
    decode, or a product that is the identity, refuses the proof)."""
    try:
        return _check_shuffle(y, deck_in, deck_out, proof, ctx, gens)
    except RuntimeError:
        return False


def _check_shuffle(y: bytes, deck_in: list[bytes], deck_out: list[bytes], proof: bytes,
                   ctx: bytes, gens: list[bytes]) -> bool:
    n = len(deck_in)
    v = [proof[i:i + 32] for i in range(0, len(proof), 32)]
    u, chain = v[:n], v[n:2 * n]
    c, s1, s2, s3, s4 = (_int(b) for b in v[2 * n:2 * n + 5])
    s_hat = [_int(b) for b in v[2 * n + 5:3 * n + 5]]
    s_p = [_int(b) for b in v[3 * n + 5:]]
    hs, h = gens[:n], gens[52]
    seed = hashlib.sha512(V2 + b"shuffle-e\x00" + ctx + y + b"".join(deck_in)
                          + b"".join(deck_out) + b"".join(u)).digest()
    e = _coefs(seed, n)
    prod = 1
    for a in e:
        prod = prod * a % L
    sub = rbcl.crypto_core_ristretto255_sub
    add = rbcl.crypto_core_ristretto255_add
    t1 = sub(_base(s1), _mul(c, sub(_sum(u), _sum(hs))))
    t2 = sub(_base(s2), _mul(c, sub(chain[-1], _mul(prod, h))))
    t3 = sub(add(_base(s3), _msm(s_p, hs)), _mul(c, _msm(e, u)))
    t4 = sub(_msm(s_p, deck_out), _mul(s4, _msm(e, deck_in)))
    t5 = sub(_base(s4), _mul(c, y))
    prev = [h, *chain[:-1]]
    t_hat = [sub(add(_base(s_hat[k]), _mul(s_p[k], prev[k])), _mul(c, chain[k]))
             for k in range(n)]
    again = _red(V2 + b"shuffle-c\x00" + seed + b"".join(chain) + t1 + t2 + t3 + t4 + t5
                 + b"".join(t_hat))
    return again == c


def check_batch(y: bytes, positions: list[int], ins: list[bytes], outs: list[bytes],
                proof: bytes, ctx: bytes) -> bool:
    seed = hashlib.sha512(V2 + b"batch\x00" + ctx + y + b"".join(
        bytes([p]) + i + o for p, i, o in zip(positions, ins, outs, strict=True))).digest()
    z = _coefs(seed, len(ins))
    h, zz = _msm(z, outs), _msm(z, ins)
    c, s = _int(proof[:32]), _int(proof[32:])
    a = rbcl.crypto_core_ristretto255_sub(_base(s), _mul(c, y))
    b = rbcl.crypto_core_ristretto255_sub(_mul(s, h), _mul(c, zz))
    full = ctx + seed
    return _red(b"tarneeb-blind-v1/dleq\x00" + full + _base(1) + y + h + zz + a + b) == c


def _load() -> tuple[dict, list[list[bytes]], list[bytes]]:
    v = json.loads(VECTORS.read_text(encoding="utf-8"))
    passes = [[bytes.fromhex(e) for e in d] for d in v["deal"]["passes"]]
    return v, passes, [bytes.fromhex(p) for p in v["card_points"]]


def test_the_generators_are_hashed_to_the_group_with_their_own_tag() -> None:
    v, _, _ = _load()
    assert v["v2"]["generators"] == [rbcl.crypto_core_ristretto255_from_hash(hashlib.sha512(
        V2 + b"generator\x00" + bytes([k])).digest()).hex() for k in range(53)]


def test_every_shuffle_proof_of_the_vector_deal_checks_from_the_primitives() -> None:
    v, passes, points = _load()
    gens = [bytes.fromhex(g) for g in v["v2"]["generators"]]
    seats = v["deal"]["seats"]
    deck = points
    for s in range(4):
        y = bytes.fromhex(seats[s]["public"])
        proof = bytes.fromhex(v["v2"]["shuffle_proofs"][s])
        ctx = bytes.fromhex(v["v2"]["shuffle_contexts"][s])
        assert check_shuffle(y, deck, passes[s], proof, ctx, gens), s
        bad = bytearray(proof)
        bad[40 * 32] ^= 1  # one byte of the chain changed
        assert not check_shuffle(y, deck, passes[s], bytes(bad), ctx, gens)
        deck = passes[s]


def test_every_batched_proof_of_the_vector_deal_checks_from_the_primitives() -> None:
    v, passes, _ = _load()
    d = v["deal"]
    dealer = d["dealer"]
    rows = [passes[3]] + [[bytes.fromhex(d["partials"][p][r]["element"]) for p in range(52)]
                          for r in range(3)]
    for r in range(3):
        for k in range(4):
            positions = [p for p in range(52) if (dealer + 1 + p + 1 + r) % 4 == k]
            assert len(positions) == 13
            y = bytes.fromhex(d["seats"][k]["public"])
            proof = bytes.fromhex(v["v2"]["batch_proofs"][4 * r + k])
            ctx = bytes.fromhex(v["v2"]["batch_contexts"][4 * r + k])
            ins = [rows[r][p] for p in positions]
            outs = [rows[r + 1][p] for p in positions]
            assert check_batch(y, positions, ins, outs, proof, ctx), (r, k)
            swapped = [outs[1], outs[0], *outs[2:]]
            assert not check_batch(y, positions, ins, swapped, proof, ctx)
