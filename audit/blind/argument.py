"""The compact shuffle argument of ``tarneeb-blind-v3``: a proof of a pass in 66 values.

A pass of blind dealing (``docs/PROTOCOL.md`` §13.2) publishes
``out[j] = x·in[π(j)]``: the deck before it, permuted and raised to the seat's
secret ``x`` (its public key ``Y = x·B``). :func:`prove_shuffle` proves it in
zero knowledge, in 22 elements and 44 scalars (2,112 bytes for the 52 cards,
against 6,816 for the linear proof of ``tarneeb-blind-v2``), and
:func:`verify_shuffle` checks it with one multi-scalar multiplication. It is
specified to the byte in §13.9:

* a **permutation argument** (Bayer–Groth): the seat commits to ``a = π``, then
  to ``b_j = e^π(j)`` for a challenge ``e``; ``∏(y·a_j + b_j − z) = ∏(y·i + e^i − z)``
  for challenges ``y, z`` shows ``(a, b)`` is a permutation of ``(i, e^i)``;
* the **product** is proven by its partial products ``u``, whose relations
  ``u_k·d_k = u_{k+1}`` and ``u_0 = 1`` a challenge ``w`` folds into one inner
  product ``⟨u, v⟩ = t``, proven as a Bulletproofs range proof proves its own:
  blinded, then by an inner-product argument that halves the vectors while their
  length is even (52, 26, then 13 sent); the commitment to ``u`` comes in at another
  power of the last challenge than those to ``a`` and ``b``, so that no part of one
  can stand in for the other;
* an **exponent argument**: ``Σ (b_j + γ·a_j)·out_j = x·Σ (e^i + γ·i)·in_i`` and
  ``Y = x·B``, a Σ-protocol whose response vector is compressed by folding
  (Attema–Cramer) as far; it also opens ``C_b + γ·C_a`` under the ``H_k`` alone,
  which the product needs.

Every equation is then checked at once, each weighted by a hash of the whole
proof. It knows no game rules.

>>> from tarneeb.audit.blind import BlindSeat, card_points, fixed_rng
>>> seat = BlindSeat.new(0, b"doc", 0, rng=fixed_rng(b"doc", 0))
>>> deck = card_points()
>>> out = seat.shuffle(deck)
>>> ctx = b"a context"
>>> proof = prove_shuffle(seat.scalar, seat.permutation, deck, out, ctx)
>>> len(proof), verify_shuffle(seat.public, deck, out, proof, ctx)
(2112, True)
>>> verify_shuffle(seat.public, deck, out[1:] + out[:1], proof, ctx)
False
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache

import tarneeb.audit.blind.group as group

from ..encoding import tag
from .deal import DECK, ELEMENT_LEN, L, coefficients, scalar_from_int

BLIND_PROTOCOL_V3 = "tarneeb-blind-v3"
MAX_CARDS = 64
"""The longest deck an argument takes (the generators are made for 64)."""


def shape(n: int) -> tuple[int, int, int, int]:
    """``(rounds, rest, elements, scalars)`` of the argument for ``n`` cards: the vectors
    are halved ``rounds`` times, while their length is even, down to ``rest`` entries
    (``n = rest·2^rounds``); the proof holds ``10 + 6·rounds`` elements and
    ``5 + 3·rest`` scalars.

    >>> shape(52)
    (2, 13, 22, 44)
    """
    rounds, rest = 0, n
    while rest % 2 == 0 and rest > 1:
        rounds, rest = rounds + 1, rest // 2
    return rounds, rest, 10 + 6 * rounds, 5 + 3 * rest


def argument_len(n: int) -> int:
    """The argument's bytes for ``n`` cards: 2,112 for the 52."""
    _, _, elements, scalars = shape(n)
    return 32 * (elements + scalars)


SHUFFLE_ARGUMENT_LEN = argument_len(DECK)
"""2,112 bytes: 22 elements, then 44 scalars."""


def v3_tag(purpose: str) -> bytes:
    """``b"tarneeb-blind-v3/" + purpose + b"\\x00"``."""
    return tag(purpose, BLIND_PROTOCOL_V3)


GENERATOR_TAG = v3_tag("generator")
STATEMENT_TAG = v3_tag("shuffle-statement")
ABSORB_TAG = v3_tag("shuffle-transcript")
CHALLENGE_TAG = v3_tag("shuffle-challenge")
NONCE_TAG = v3_tag("shuffle-nonce")


@lru_cache(maxsize=1)
def generator_bytes() -> tuple[tuple[bytes, ...], tuple[bytes, ...], bytes, bytes]:
    """``G_k``, ``H_k`` (``k < 64``), ``Q`` and ``h``: each
    ``from_hash(SHA-512(GENERATOR_TAG ‖ name))``, with the names
    ``"G" ‖ u8(k)``, ``"H" ‖ u8(k)``, ``"Q"`` and ``"h"``."""
    def one(name: bytes) -> bytes:
        return group.encode(group.from_hash(hashlib.sha512(GENERATOR_TAG + name).digest()))
    return (tuple(one(b"G" + bytes([k])) for k in range(MAX_CARDS)),
            tuple(one(b"H" + bytes([k])) for k in range(MAX_CARDS)), one(b"Q"), one(b"h"))


@lru_cache(maxsize=1)
def _generators() -> tuple[list[group.Point], list[group.Point], group.Point, group.Point]:
    gs, hs, q, h = generator_bytes()
    return [group.decode(g) for g in gs], [group.decode(g) for g in hs], group.decode(q), \
        group.decode(h)


_s = scalar_from_int


def _ip(a: Sequence[int], b: Sequence[int]) -> int:
    return sum(x * y for x, y in zip(a, b, strict=True)) % L


class _Transcript:
    """The Fiat–Shamir state: ``SHA-512`` chained over the statement and every message."""

    def __init__(self, ctx: bytes, y: bytes, deck_in: Sequence[bytes],
                 deck_out: Sequence[bytes]) -> None:
        self.state = hashlib.sha512(STATEMENT_TAG + ctx + y + bytes([len(deck_in)])
                                    + b"".join(deck_in) + b"".join(deck_out)).digest()

    def absorb(self, *values: bytes) -> None:
        self.state = hashlib.sha512(ABSORB_TAG + self.state + b"".join(values)).digest()

    def challenge(self, i: int = 0) -> int:
        return int.from_bytes(hashlib.sha512(CHALLENGE_TAG + self.state + bytes([i])).digest(),
                              "little") % L

    def short_challenge(self) -> int:
        """A folding round's challenge: 128 bits (the first 16 bytes), half the work of
        folding the generators by it, and soundness to 2^-128 a round."""
        return int.from_bytes(hashlib.sha512(CHALLENGE_TAG + self.state + b"\x00").digest()[:16],
                              "little")


def _powers(base: int, n: int) -> list[int]:
    out, acc = [], 1
    for _ in range(n):
        out.append(acc)
        acc = acc * base % L
    return out


def _target(e_pow: Sequence[int], y: int, z: int, w: int, n: int) -> int:
    """``t = w^(n−1)·∏(y·i + e^i − z) + w^n``: what ``⟨u, v⟩`` must be."""
    delta = 1
    for i in range(n):
        delta = delta * (y * i + e_pow[i] - z) % L
    return (pow(w, n - 1, L) * delta + pow(w, n, L)) % L


def prove_shuffle(x: bytes, permutation: Sequence[int], deck_in: Sequence[bytes],
                  deck_out: Sequence[bytes], ctx: bytes) -> bytes:
    """The argument (2,112 bytes for 52 cards) that ``deck_out[j] = x·deck_in[permutation[j]]``.

    Its secrets are derived from ``x``, the permutation and the statement, as the
    nonce of a Chaum–Pedersen proof is (§13.3): it needs no random source.
    """
    n = len(deck_in)
    if not 2 <= n <= MAX_CARDS or len(deck_out) != n or sorted(permutation) != list(range(n)):
        raise ValueError("a shuffle argument takes two decks of 2 to 64 elements and a "
                         "permutation of them")
    gs, hs, q_gen, h_gen = _generators()
    gs, hs = gs[:n], hs[:n]
    xi = int.from_bytes(x, "little")
    y_pub = group.encode(group.mul_base(xi))
    tr = _Transcript(ctx, y_pub, deck_in, deck_out)
    key = hashlib.sha512(NONCE_TAG + x + bytes(permutation) + ctx + hashlib.sha512(
        b"".join(deck_in) + b"".join(deck_out)).digest()).digest()
    alpha, beta, sigma, rho, tau2, tau3, tau4, m_beta, m_x = coefficients(key + b"k", 9)
    elements: list[group.Point] = []

    def send(*points: group.Point) -> None:
        elements.extend(points)
        tr.absorb(*map(group.encode, points))

    # the permutation, then its challenge powers
    a = list(permutation)
    send(group.msm_secret([*a, alpha], [*hs, h_gen]))
    e_pow = _powers(tr.challenge(), n)
    b = [e_pow[i] for i in a]
    send(group.msm_secret([*b, beta], [*hs, h_gen]))
    y, z = tr.challenge(0), tr.challenge(1)
    d = [(y * ai + bi - z) % L for ai, bi in zip(a, b, strict=True)]
    u = [1]
    for k in range(n - 1):
        u.append(u[-1] * d[k] % L)
    send(group.msm_secret([*u, sigma], [*gs, h_gen]))
    w = tr.challenge()
    w_inv = pow(w, -1, L)
    w_pow = _powers(w, n)
    v = [(w_pow[k] * d[k] - (w_pow[k - 1] if k else 0)) % L for k in range(n)]
    v[0] = (v[0] + pow(w, n, L)) % L
    # blinded, as a range proof's vectors are: l(X) = u·X + s_L·X², r(X) = v + s_R·X², so
    # that C_p (at X) and the commitments to a and b (at 1) open apart
    s_l, s_r = coefficients(key + b"l", n), coefficients(key + b"r", n)
    w_inv_pow = _powers(w_inv, n)
    t_2, t_3, t_4 = _ip(s_l, v), _ip(u, s_r), _ip(s_l, s_r)
    send(group.msm_secret([*s_l, *(s * wi % L for s, wi in zip(s_r, w_inv_pow, strict=True)),
                           rho], [*gs, *hs, h_gen]),
         group.msm_secret([t_2, tau2], [q_gen, h_gen]),
         group.msm_secret([t_3, tau3], [q_gen, h_gen]),
         group.msm_secret([t_4, tau4], [q_gen, h_gen]))
    xc = tr.challenge()
    x2 = xc * xc % L
    lv = [(xc * uk + x2 * sk) % L for uk, sk in zip(u, s_l, strict=True)]
    rv = [(vk + x2 * sk) % L for vk, sk in zip(v, s_r, strict=True)]
    t_hat = _ip(lv, rv)
    scalars = [t_hat, (tau2 * x2 + tau3 * x2 * xc + tau4 * x2 * x2) % L,
               (y * alpha + beta + xc * sigma + x2 * rho) % L]
    tr.absorb(*map(_s, scalars))
    q_ip = group.mul_public(tr.challenge(), q_gen)
    # H'_k = w^-k·H_k is kept as w^-k times h_cur[k]: folding H'_lo + c·H'_hi is then folding
    # h_cur by c·w^-m, and no H'_k is ever computed
    g_cur, h_cur = gs, list(hs)
    while len(lv) % 2 == 0 and len(lv) > 1:
        m = len(lv) // 2
        l_lo, l_hi, r_lo, r_hi = lv[:m], lv[m:], rv[:m], rv[m:]
        send(group.msm([*l_lo, *(r * f % L for r, f in zip(r_hi, w_inv_pow, strict=False)),
                        _ip(l_lo, r_hi)], [*g_cur[m:], *h_cur[:m], q_ip]),
             group.msm([*l_hi, *(r * f % L for r, f in zip(r_lo, w_inv_pow[m:], strict=False)),
                        _ip(l_hi, r_lo)], [*g_cur[:m], *h_cur[m:], q_ip]))
        c = tr.short_challenge()
        lv = [(lo + c * hi) % L for lo, hi in zip(l_lo, l_hi, strict=True)]
        rv = [(c * lo + hi) % L for lo, hi in zip(r_lo, r_hi, strict=True)]
        g_cur = group.fold(c, g_cur[:m], g_cur[m:])
        h_cur = group.fold(c * w_inv_pow[m] % L, h_cur[m:], h_cur[:m])
    scalars += lv + rv
    tr.absorb(*map(_s, lv + rv))
    # the exponent: Σ (b_j + γ·a_j)·out_j = x·Σ (e^i + γ·i)·in_i, and Y = x·B; with C_b + γ·C_a
    # opened under H alone
    gamma = tr.challenge()
    ins = [group.decode(p) for p in deck_in]
    tau = [0] * n
    for j, i in enumerate(a):
        tau[i] = j
    m_b = coefficients(key + b"m", n)
    send(group.msm_secret([*m_b, m_beta], [*hs, h_gen]),
         group.msm_secret([(xi * m_b[tau[i]] - m_x * (e_pow[i] + gamma * i)) % L
                           for i in range(n)], ins),
         group.mul_base(m_x))
    c = tr.challenge()
    z_beta, z_x = (m_beta + c * (beta + gamma * alpha)) % L, (m_x + c * xi) % L
    scalars += [z_beta, z_x]
    tr.absorb(_s(z_beta), _s(z_x))
    zv = [(mk + c * (bk + gamma * ak)) % L for mk, bk, ak in zip(m_b, b, a, strict=True)]
    g1: list[group.Point] = list(hs)
    g2 = [group.decode(p) for p in deck_out]
    while len(zv) % 2 == 0 and len(zv) > 1:
        m = len(zv) // 2
        send(group.msm(zv[:m], g1[m:]), group.msm(zv[:m], g2[m:]),
             group.msm(zv[m:], g1[:m]), group.msm(zv[m:], g2[:m]))
        c = tr.short_challenge()
        zv = [(lo + c * hi) % L for lo, hi in zip(zv[:m], zv[m:], strict=True)]
        g1, g2 = group.fold(c, g1[:m], g1[m:]), group.fold(c, g2[:m], g2[m:])
    scalars += zv
    return b"".join(map(group.encode, elements)) + b"".join(map(_s, scalars))


def _fold_weights(n: int, challenges: Sequence[int], lower: bool) -> list[int]:
    """The coefficient of each of the ``n`` original generators in its folded one: the
    product of the challenges of the rounds in which it sat in the half multiplied
    (``lower``: the lower half, as in ``c·G_lo + G_hi``; else the upper, as in
    ``H_lo + c·H_hi``). In round ``j`` the vectors are ``n/2^j`` long, and generator ``k``
    sits at ``k mod n/2^j``."""
    weights = [1] * n
    m = n
    for c in challenges:
        half = m // 2
        for k in range(n):
            if ((k % m) < half) == lower:
                weights[k] = weights[k] * c % L
        m = half
    return weights


def _folded_target(start: dict[int, int], challenges: Sequence[int],
                   pairs: Sequence[tuple[int, int]]) -> dict[int, int]:
    """The coefficients of ``P_R``, folded as ``P' = A + c·P + c²·B`` each round, over the
    points indexed in ``start`` (``P_0``) and ``pairs`` (each round's ``A`` and ``B``)."""
    acc = dict(start)
    for c, (lo, hi) in zip(challenges, pairs, strict=True):
        acc = {k: v * c % L for k, v in acc.items()}
        acc[lo] = (acc.get(lo, 0) + 1) % L
        acc[hi] = (acc.get(hi, 0) + c * c) % L
    return acc


def verify_shuffle(y: bytes, deck_in: Sequence[bytes], deck_out: Sequence[bytes],
                   proof: bytes, ctx: bytes) -> bool:
    """Whether ``proof`` shows ``deck_out`` is a permutation of ``deck_in`` times ``log_B(y)``."""
    n = len(deck_in)
    if len(deck_out) != n or not 2 <= n <= MAX_CARDS:
        return False
    rounds, rest, n_elements, _ = shape(n)
    if type(proof) is not bytes or len(proof) != argument_len(n):
        return False
    values = [proof[i:i + 32] for i in range(0, len(proof), 32)]
    scalars = [int.from_bytes(s, "little") for s in values[n_elements:]]
    if any(s >= L for s in scalars):
        return False
    try:
        statement = [group.decode(p) for p in (y, *deck_in, *deck_out)]
        elements = [group.decode(p) for p in values[:n_elements]]
    except group.GroupError:
        return False
    if any(len(p) != ELEMENT_LEN for p in (y, *deck_in, *deck_out)) \
            or any(group.is_identity(p) for p in statement):
        return False
    t_hat, tau_x, mu = scalars[:3]
    l_end, r_end = scalars[3:3 + rest], scalars[3 + rest:3 + 2 * rest]
    z_beta, z_x = scalars[3 + 2 * rest:5 + 2 * rest]
    z_end = scalars[5 + 2 * rest:]
    tr = _Transcript(ctx, y, deck_in, deck_out)
    enc = values[:n_elements]
    tr.absorb(enc[0])
    e_pow = _powers(tr.challenge(), n)
    tr.absorb(enc[1])
    yc, zc = tr.challenge(0), tr.challenge(1)
    tr.absorb(enc[2])
    w = tr.challenge()
    if w == 0:
        return False
    tr.absorb(*enc[3:7])
    xc = tr.challenge()
    x2 = xc * xc % L
    tr.absorb(_s(t_hat), _s(tau_x), _s(mu))
    q = tr.challenge()
    ipa = []
    for k in range(rounds):
        tr.absorb(*enc[7 + 2 * k:9 + 2 * k])
        ipa.append(tr.short_challenge())
    tr.absorb(*map(_s, l_end + r_end))
    gamma = tr.challenge()
    k0 = 7 + 2 * rounds
    tr.absorb(*enc[k0:k0 + 3])
    c = tr.challenge()
    tr.absorb(_s(z_beta), _s(z_x))
    fold = []
    for k in range(rounds):
        tr.absorb(*enc[k0 + 3 + 4 * k:k0 + 7 + 4 * k])
        fold.append(tr.short_challenge())
    tr.absorb(*map(_s, z_end))
    omega = [tr.challenge(i) for i in range(5)]
    t = _target(e_pow, yc, zc, w, n)
    # the points of the one check: G_0..n-1, H_0..n-1, Q, h, B, Y, in, out, then the proof's
    gs, hs, q_gen, h_gen = _generators()
    ig, ih, iq = 0, n, 2 * n
    ihh, ib, iy = iq + 1, iq + 2, iq + 3
    i_in, i_out = iy + 1, iy + 1 + n
    ie = i_out + n
    points = [*gs[:n], *hs[:n], q_gen, h_gen, group.mul_base(1), *statement, *elements]
    coef: dict[int, int] = {}

    def add(index: int, value: int) -> None:
        coef[index] = (coef.get(index, 0) + value) % L

    # (1) t̂·Q + τ·h = ξ·t·Q + ξ²·T_2 + ξ³·T_3 + ξ⁴·T_4
    add(iq, omega[0] * (t_hat - xc * t))
    add(ihh, omega[0] * tau_x)
    add(ie + 4, -omega[0] * x2)
    add(ie + 5, -omega[0] * x2 * xc)
    add(ie + 6, -omega[0] * x2 * x2)
    # (2) the inner-product argument: P_R = ⟨l, G_f⟩ + ⟨r, H'_f⟩ + ⟨l, r⟩·q·Q, where P_0 =
    # y·C_a + C_b − z·ΣH_k − w⁻¹·Σ_{k≥1}H_k + w^n·H_0 + ξ·C_p + ξ²·S − μ·h + t̂·q·Q
    w_inv = pow(w, -1, L)
    start = {ie + 2: xc, ie: yc, ie + 1: 1, ie + 3: x2, ihh: -mu, iq: t_hat * q}
    for k in range(n):
        start[ih + k] = (-zc - (w_inv if k else 0)) % L
    start[ih] = (start[ih] + pow(w, n, L)) % L
    p_end = _folded_target(start, ipa, [(ie + 7 + 2 * k, ie + 8 + 2 * k) for k in range(rounds)])
    g_w = _fold_weights(n, ipa, lower=True)
    h_w = _fold_weights(n, ipa, lower=False)
    w_inv_pow = _powers(w_inv, n)
    for idx, v in p_end.items():
        add(idx, omega[1] * v)
    for k in range(n):
        add(ig + k, -omega[1] * l_end[k % rest] * g_w[k])
        add(ih + k, -omega[1] * r_end[k % rest] * h_w[k] * w_inv_pow[k])
    add(iq, -omega[1] * _ip(l_end, r_end) * q)
    # (3) z_x·B = K_3 + c·Y
    kk = ie + k0
    add(ib, omega[2] * z_x)
    add(kk + 2, -omega[2])
    add(iy, -omega[2] * c)
    # (4, 5) the folded exponent argument, on H and on the output deck:
    # ⟨ζ, H⟩ = K_1 + c·(C_b + γ·C_a) − z_β·h   and   ⟨ζ, out⟩ = K_2 + z_x·Σ (e^i + γ·i)·in_i
    s_w = _fold_weights(n, fold, lower=True)
    first = {kk: 1, ie + 1: c, ie: c * gamma, ihh: -z_beta}
    second = {kk + 1: 1, **{i_in + i: z_x * (e_pow[i] + gamma * i) for i in range(n)}}
    for weight, begin, offset, base in ((omega[3], first, 0, ih), (omega[4], second, 1, i_out)):
        end = _folded_target(begin, fold, [(kk + 3 + 4 * j + offset, kk + 5 + 4 * j + offset)
                                           for j in range(rounds)])
        for idx, v in end.items():
            add(idx, weight * v)
        for k in range(n):
            add(base + k, -weight * z_end[k % rest] * s_w[k])
    indices = [i for i, v in coef.items() if v]
    return group.is_identity(group.msm([coef[i] for i in indices], [points[i] for i in indices]))


__all__ = [
    "BLIND_PROTOCOL_V3",
    "MAX_CARDS",
    "SHUFFLE_ARGUMENT_LEN",
    "argument_len",
    "generator_bytes",
    "prove_shuffle",
    "shape",
    "verify_shuffle",
]
