"""The v3 vectors of ``fixtures/vectors/blind.json`` re-checked from libsodium's primitives alone.

A reader of ``docs/PROTOCOL.md`` §13.9 re-implements the check of the compact shuffle
argument with ``rbcl`` (libsodium) and ``hashlib``, nothing of tarneeb's: the
generators from their hash, the transcript's challenges, then each of the five
equations on its own (no weights), the generators folded round by round as the
prover folds them (where tarneeb's verifier takes one weighted multi-scalar
multiplication). The vector deal's four arguments pass; a changed byte fails.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import rbcl

VECTORS = Path(__file__).resolve().parent.parent / "fixtures" / "vectors" / "blind.json"
L = 2**252 + 27742317777372353535851937790883648493
ZERO = bytes(32)  # the identity's encoding


def _tag(p: str) -> bytes:
    return b"tarneeb-blind-v3/" + p.encode() + b"\x00"


def _sc(n: int) -> bytes:
    return (n % L).to_bytes(32, "little")


def _add(p: bytes, q: bytes) -> bytes:
    if p == ZERO:
        return q
    if q == ZERO:
        return p
    return rbcl.crypto_core_ristretto255_add(p, q)


def _neg(p: bytes) -> bytes:
    return p if p == ZERO else _mul(L - 1, p)


def _mul(n: int, p: bytes) -> bytes:
    n %= L
    if n == 0 or p == ZERO:
        return ZERO
    return rbcl.crypto_scalarmult_ristretto255(_sc(n), p)


def _msm(ns: list[int], ps: list[bytes]) -> bytes:
    acc = ZERO
    for n, p in zip(ns, ps, strict=True):
        acc = _add(acc, _mul(n, p))
    return acc


def _eq(p: bytes, q: bytes) -> bool:
    return _add(p, _neg(q)) == ZERO


def _ip(a: list[int], b: list[int]) -> int:
    return sum(x * y for x, y in zip(a, b, strict=True)) % L


def check_argument(y: bytes, deck_in: list[bytes], deck_out: list[bytes], proof: bytes,
                   ctx: bytes) -> bool:
    """§13.9's verification, each equation separately, for a deck of 52: two folding
    rounds, then vectors of 13."""
    n, rounds, rest = len(deck_in), 2, 13
    assert n == 52
    if len(proof) != (22 + 44) * 32:
        return False
    vals = [proof[i:i + 32] for i in range(0, len(proof), 32)]
    el, sc = vals[:22], [int.from_bytes(v, "little") for v in vals[22:]]
    if any(s >= L for s in sc) or any(e[31] & 0x80 for e in el):
        return False
    for e in el:
        if e != ZERO and not rbcl.crypto_core_ristretto255_is_valid_point(e):
            return False
    t_hat, tau, mu = sc[:3]
    l_end, r_end = sc[3:3 + rest], sc[3 + rest:3 + 2 * rest]
    z_beta, z_x = sc[3 + 2 * rest:5 + 2 * rest]
    z_end = sc[5 + 2 * rest:]

    def gen(name: bytes) -> bytes:
        return rbcl.crypto_core_ristretto255_from_hash(
            hashlib.sha512(_tag("generator") + name).digest())
    g = [gen(b"G" + bytes([k])) for k in range(n)]
    h_ = [gen(b"H" + bytes([k])) for k in range(n)]
    q_gen, h_gen = gen(b"Q"), gen(b"h")
    base = rbcl.crypto_scalarmult_ristretto255_base(_sc(1))

    st = [hashlib.sha512(_tag("shuffle-statement") + ctx + y + bytes([n]) + b"".join(deck_in)
                         + b"".join(deck_out)).digest()]

    def absorb(*m: bytes) -> None:
        st[0] = hashlib.sha512(_tag("shuffle-transcript") + st[0] + b"".join(m)).digest()

    def ch(i: int = 0) -> int:
        return int.from_bytes(hashlib.sha512(_tag("shuffle-challenge") + st[0] + bytes([i]))
                              .digest(), "little") % L

    def ch128() -> int:  # a folding round's challenge: the first 16 bytes
        return int.from_bytes(hashlib.sha512(_tag("shuffle-challenge") + st[0] + b"\x00")
                              .digest()[:16], "little")

    c_a, c_b, c_p, s_, t2, t3, t4 = el[:7]
    absorb(c_a)
    e = ch()
    absorb(c_b)
    yc, zc = ch(0), ch(1)
    absorb(c_p)
    w = ch()
    absorb(s_, t2, t3, t4)
    xi = ch()
    absorb(_sc(t_hat), _sc(tau), _sc(mu))
    q = ch()
    e_pow = [pow(e, i, L) for i in range(n)]
    delta = 1
    for i in range(n):
        delta = delta * (yc * i + e_pow[i] - zc) % L
    t = (pow(w, n - 1, L) * delta + pow(w, n, L)) % L
    # equation 1
    ok = _eq(_msm([t_hat, tau], [q_gen, h_gen]),
             _msm([xi * t, xi**2, xi**3, xi**4], [q_gen, t2, t3, t4]))
    # equation 2: fold as the prover does
    w_inv = pow(w, -1, L)
    q_ip = _mul(q, q_gen)
    hp = [_mul(pow(w_inv, k, L), h_[k]) for k in range(n)]
    p = _msm([xi, yc, 1, xi * xi, L - mu, t_hat], [c_p, c_a, c_b, s_, h_gen, q_ip])
    p = _add(p, _msm([(-zc - (w_inv if k else 0)) % L for k in range(n)], h_))
    p = _add(p, _mul(pow(w, n, L), h_[0]))
    gs, hs = g, hp
    for j in range(rounds):
        lj, rj = el[7 + 2 * j], el[8 + 2 * j]
        absorb(lj, rj)
        c = ch128()
        p = _add(_add(lj, _mul(c, p)), _mul(c * c, rj))
        m = len(gs) // 2
        gs = [_add(_mul(c, gs[i]), gs[m + i]) for i in range(m)]
        hs = [_add(hs[i], _mul(c, hs[m + i])) for i in range(m)]
    ok = ok and _eq(p, _msm([*l_end, *r_end, _ip(l_end, r_end)], [*gs, *hs, q_ip]))
    absorb(*map(_sc, l_end + r_end))
    gamma = ch()
    k1, k2, k3 = el[11:14]
    absorb(k1, k2, k3)
    c = ch()
    absorb(_sc(z_beta), _sc(z_x))
    # equation 3
    ok = ok and _eq(_mul(z_x, base), _add(k3, _mul(c, y)))
    # equations 4 and 5
    a_sum = _msm([(e_pow[i] + gamma * i) % L for i in range(n)], deck_in)
    p1 = _add(_add(k1, _msm([c, c * gamma], [c_b, c_a])), _neg(_mul(z_beta, h_gen)))
    p2 = _add(k2, _mul(z_x, a_sum))
    g1, g2 = list(h_), list(deck_out)
    for j in range(rounds):
        a1, a2, b1, b2 = el[14 + 4 * j:18 + 4 * j]
        absorb(a1, a2, b1, b2)
        c = ch128()
        p1 = _add(_add(a1, _mul(c, p1)), _mul(c * c, b1))
        p2 = _add(_add(a2, _mul(c, p2)), _mul(c * c, b2))
        m = len(g1) // 2
        g1 = [_add(_mul(c, g1[i]), g1[m + i]) for i in range(m)]
        g2 = [_add(_mul(c, g2[i]), g2[m + i]) for i in range(m)]
    return ok and _eq(p1, _msm(z_end, g1)) and _eq(p2, _msm(z_end, g2))


def _split(hexes: str) -> list[bytes]:
    raw = bytes.fromhex(hexes)
    return [raw[i:i + 32] for i in range(0, len(raw), 32)]


def test_the_v3_vectors_check_from_the_text_and_a_changed_byte_fails() -> None:
    data = json.loads(VECTORS.read_text())
    v3, deal = data["v3"], data["deal"]
    assert v3["protocol"] == "tarneeb-blind-v3"
    assert len(v3["shuffle_arguments"]) == 4
    gen = rbcl.crypto_core_ristretto255_from_hash(
        hashlib.sha512(_tag("generator") + b"G\x07").digest())
    assert v3["generators"]["G"][7] == gen.hex()
    deck = [bytes.fromhex(p) for p in data["card_points"]]
    for s in range(4):
        out = [bytes.fromhex(p) for p in deal["passes"][s]]
        y = bytes.fromhex(deal["seats"][s]["public"])
        proof = bytes.fromhex(v3["shuffle_arguments"][s])
        ctx = bytes.fromhex(v3["shuffle_contexts"][s])
        assert check_argument(y, deck, out, proof, ctx), s
        if s == 1:
            for i in (0, 700, 1500, 2111):
                bad = bytearray(proof)
                bad[i] ^= 4
                assert not check_argument(y, deck, out, bytes(bad), ctx), i
            assert not check_argument(y, deck, out[1:] + out[:1], proof, ctx)
        deck = out
