"""The proofs of blind dealing v2: a proof with every shuffle pass, one proof per batch.

``tarneeb-blind-v2`` (``docs/PROTOCOL.md`` §13.6) adds two proofs to the
transcript of :mod:`tarneeb.audit.blind`, so that every step of a deal is
proven from the transcript alone, without any revealed key:

* **A shuffle proof with every pass** (:func:`prove_shuffle`,
  :func:`verify_shuffle`): a non-interactive proof that the output deck is
  ``out[j] = x·in[π(j)]`` for some permutation ``π`` and the scalar ``x`` of the
  seat's public key ``Y = x·B``. It is the Terelius–Wikström proof of a shuffle
  (the one Verificatum implements), its re-encryption equation replaced by an
  exponentiation with the common exponent ``x``, made non-interactive by
  Fiat–Shamir over the whole statement.
* **A batched Chaum–Pedersen proof** (:func:`prove_batch`, :func:`verify_batch`):
  one proof that ``in_p = x·out_p`` for every position ``p`` a seat decrypts in
  one round, by a random linear combination whose coefficients are a hash of
  every input and output.

It knows no game rules.

>>> from tarneeb.audit.blind import BlindSeat, card_points, fixed_rng
>>> seat = BlindSeat.new(0, b"doc", 0, rng=fixed_rng(b"doc", 0))
>>> deck = card_points()
>>> out = seat.shuffle(deck)
>>> ctx = shuffle_context(b"doc", 0, 0)
>>> proof = prove_shuffle(seat.scalar, seat.permutation, deck, out, ctx)
>>> len(proof) == SHUFFLE_PROOF_LEN, verify_shuffle(seat.public, deck, out, proof, ctx)
(True, True)
>>> verify_shuffle(seat.public, deck, out[1:] + out[:1], proof, ctx)
False
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from functools import lru_cache

import rbcl

from ..encoding import lp16, tag, u32be
from .deal import (
    DECK,
    ELEMENT_LEN,
    PROOF_LEN,
    SCALAR_LEN,
    SEATS,
    BlindDeal,
    BlindError,
    BlindFault,
    BlindSeat,
    L,
    Partial,
    RevealedKey,
    _check_element,
    card_points,
    check_opening,
    check_revealed,
    coefficients,
    decrypt_order,
    invert,
    mul,
    mul_base,
    owner,
    prove_dleq,
    public_key_faults,
    reduce64,
    scalar_from_int,
    scalar_to_int,
    verify_deal,
    verify_dleq,
)

BLIND_PROTOCOL_V2 = "tarneeb-blind-v2"
SHUFFLE_PROOF_LEN = SCALAR_LEN * (4 * DECK + 5)
"""``u ‖ ĉ ‖ c ‖ s1 ‖ s2 ‖ s3 ‖ s4 ‖ ŝ ‖ s'``: 213 values of 32 bytes, 6,816 bytes."""
BATCH_PROOF_LEN = PROOF_LEN


def v2_tag(purpose: str) -> bytes:
    """``b"tarneeb-blind-v2/" + purpose + b"\\x00"``."""
    return tag(purpose, BLIND_PROTOCOL_V2)


GENERATOR_TAG = v2_tag("generator")
SHUFFLE_E_TAG = v2_tag("shuffle-e")
SHUFFLE_C_TAG = v2_tag("shuffle-c")
SHUFFLE_NONCE_TAG = v2_tag("shuffle-nonce")
BATCH_TAG = v2_tag("batch")

_BASE = mul_base(scalar_from_int(1))


@lru_cache(maxsize=1)
def generators() -> tuple[bytes, ...]:
    """``H_k = from_hash(SHA-512(GENERATOR_TAG ‖ u8(k)))`` for ``k = 0 … 52`` (``h = H_52``).

    Hashed to the group, so nobody knows a relation between them or with ``B``.
    """
    return tuple(rbcl.crypto_core_ristretto255_from_hash(
        hashlib.sha512(GENERATOR_TAG + bytes([k])).digest()) for k in range(DECK + 1))


@lru_cache(maxsize=DECK)
def _generator_sum(n: int) -> bytes:
    """``H_0 + … + H_{n-1}``, the same in every pass's first equation."""
    return _sum(generators()[:n])


def shuffle_context(match_id: bytes, deal_number: int, seat: int) -> bytes:
    """``lp16(match_id) ‖ u32(deal) ‖ lp16("shuffle") ‖ u8(seat) ‖ u8(pass)``; pass = seat."""
    return lp16(match_id) + u32be(deal_number) + lp16(b"shuffle") + bytes([seat, seat])


def batch_context(match_id: bytes, deal_number: int, seat: int, round_: int) -> bytes:
    """``lp16(match_id) ‖ u32(deal) ‖ lp16("decrypt-batch") ‖ u8(seat) ‖ u8(round)``."""
    return lp16(match_id) + u32be(deal_number) + lp16(b"decrypt-batch") + bytes([seat, round_])


# ----------------------------------------------------------------- helpers --

def _i(s: bytes) -> int:
    return scalar_to_int(s)


def _s(n: int) -> bytes:
    return scalar_from_int(n)


def _add(a: bytes, b: bytes) -> bytes:
    return rbcl.crypto_core_ristretto255_add(a, b)


def _sub(a: bytes, b: bytes) -> bytes:
    return rbcl.crypto_core_ristretto255_sub(a, b)


def _sum(points: Sequence[bytes]) -> bytes:
    acc = points[0]
    for p in points[1:]:
        acc = _add(acc, p)
    return acc


def _msm(scalars: Sequence[int], points: Sequence[bytes], secret: bool = False) -> bytes:
    """``Σ scalars[i]·points[i]``, by the group layer's multi-scalar multiplication
    (constant time for ``secret`` scalars); a term that is the identity (a zero scalar, or
    the identity as a point) is refused, as libsodium's one-by-one products refuse it."""
    import tarneeb.audit.blind.group as group

    ks = [a % L for a in scalars]
    try:
        pts = [group.decode(p) for p in points]
    except group.GroupError as exc:
        raise BlindError("not a ristretto255 element") from exc
    if len(ks) != len(pts) or 0 in ks or any(group.is_identity(p) for p in pts):
        raise BlindError("scalar multiplication gave the identity")
    return group.encode((group.msm_secret if secret else group.msm)(ks, pts))


def pass_of(seat: BlindSeat, deck: Sequence[bytes]) -> tuple[bytes, ...]:
    """Seat ``seat``'s pass over ``deck``: :meth:`BlindSeat.shuffle`'s elements, made by the
    group layer (in constant time) as v2 and v3 deal."""
    return tuple(_mul_all(seat.scalar, [deck[i] for i in seat.permutation]))


def _mul_all(scalar: bytes, elements: Sequence[bytes]) -> list[bytes]:
    """``scalar·e`` for each element (a seat's layer stripped), in constant time."""
    import tarneeb.audit.blind.group as group

    k = _i(scalar)
    return [group.encode(group.mul(k, group.decode(e))) for e in elements]




def _valid(elements: Sequence[bytes]) -> bool:
    return all(type(e) is bytes and len(e) == ELEMENT_LEN and not e[31] & 0x80
               and rbcl.crypto_core_ristretto255_is_valid_point(e) for e in elements)


# ------------------------------------------------------------ shuffle proof --

def _seed_e(ctx: bytes, y: bytes, deck_in: Sequence[bytes], deck_out: Sequence[bytes],
            u: Sequence[bytes]) -> bytes:
    return hashlib.sha512(SHUFFLE_E_TAG + ctx + y + b"".join(deck_in) + b"".join(deck_out)
                          + b"".join(u)).digest()


def _challenge(seed_e: bytes, chain: Sequence[bytes], t: Sequence[bytes],
               t_hat: Sequence[bytes]) -> bytes:
    return reduce64(hashlib.sha512(SHUFFLE_C_TAG + seed_e + b"".join(chain) + b"".join(t)
                                   + b"".join(t_hat)).digest())


def prove_shuffle(x: bytes, permutation: Sequence[int], deck_in: Sequence[bytes],
                  deck_out: Sequence[bytes], ctx: bytes) -> bytes:
    """The proof that ``deck_out[j] = x·deck_in[permutation[j]]`` (6,816 bytes).

    Its secrets (the commitments' randomness and the nonces) are derived from
    ``x``, the permutation and the statement, as the nonce of a Chaum–Pedersen
    proof is: the proof needs no random source.
    """
    n = len(deck_in)
    gens = generators()
    hs, h = gens[:n], gens[DECK]
    y = mul_base(x)
    key = hashlib.sha512(SHUFFLE_NONCE_TAG + x + bytes(permutation) + ctx
                         + hashlib.sha512(b"".join(deck_in) + b"".join(deck_out)).digest()
                         ).digest()
    rand = coefficients(key + b"r", n)  # the commitments' randomness
    tau = [0] * n  # tau[i]: the output position of input i
    for j, i in enumerate(permutation):
        tau[i] = j
    u = [_add(mul_base(_s(rand[i])), hs[tau[i]]) for i in range(n)]
    seed = _seed_e(ctx, y, deck_in, deck_out, u)
    e = coefficients(seed, n)
    e1 = [e[permutation[k]] for k in range(n)]  # e'_k = e_{π(k)}
    r_hat = coefficients(key + b"c" + seed, n)
    chain, prev = [], h
    for k in range(n):
        prev = _add(mul_base(_s(r_hat[k])), mul(_s(e1[k]), prev))
        chain.append(prev)
    r_bar = sum(rand) % L
    r_tilde = sum(r * a for r, a in zip(rand, e, strict=True)) % L
    r_prod = 0
    for k in range(n):
        r_prod = (r_prod * e1[k] + r_hat[k]) % L
    w = coefficients(key + b"w" + seed, 4)
    w_hat = coefficients(key + b"v" + seed, n)
    w1 = coefficients(key + b"p" + seed, n)
    # t3 = Σ w1_j·out_j − w3·Σ e_i·in_i, and out_j = x·in_π(j): one sum over the inputs,
    # Σ_i (x·w1_τ(i) − w3·e_i)·in_i, half the scalar multiplications of the two sums.
    xi = _i(x)
    t = [mul_base(_s(w[0])), mul_base(_s(w[1])),
         _add(mul_base(_s(w[2])), _msm(w1, hs, secret=True)),
         _msm([(xi * w1[tau[i]] - w[3] * e[i]) % L for i in range(n)], deck_in, secret=True),
         mul_base(_s(w[3]))]
    previous = [h, *chain[:-1]]
    t_hat = [_add(mul_base(_s(w_hat[k])), mul(_s(w1[k]), previous[k])) for k in range(n)]
    c = _i(_challenge(seed, chain, t, t_hat))
    s = [(w[0] + c * r_bar) % L, (w[1] + c * r_prod) % L, (w[2] + c * r_tilde) % L,
         (w[3] + c * xi) % L]
    s_hat = [(w_hat[k] + c * r_hat[k]) % L for k in range(n)]
    s1 = [(w1[k] + c * e1[k]) % L for k in range(n)]
    return (b"".join(u) + b"".join(chain) + _s(c) + b"".join(map(_s, s))
            + b"".join(map(_s, s_hat)) + b"".join(map(_s, s1)))


def verify_shuffle(y: bytes, deck_in: Sequence[bytes], deck_out: Sequence[bytes],
                   proof: bytes, ctx: bytes) -> bool:
    """Whether ``proof`` shows ``deck_out`` is a permutation of ``deck_in`` times ``log_B(y)``."""
    n = len(deck_in)
    if (type(proof) is not bytes or len(proof) != SCALAR_LEN * (4 * n + 5)
            or len(deck_out) != n or n == 0 or n > DECK):
        return False
    v = [proof[i:i + 32] for i in range(0, len(proof), 32)]
    u, chain = v[:n], v[n:2 * n]
    scalars = [_i(b) for b in v[2 * n:]]
    if any(k >= L for k in scalars) or not _valid([y, *deck_in, *deck_out, *u, *chain]):
        return False
    c, s = scalars[0], scalars[1:5]
    s_hat, s1 = scalars[5:5 + n], scalars[5 + n:]
    gens = generators()
    hs, h = gens[:n], gens[DECK]
    seed = _seed_e(ctx, y, deck_in, deck_out, u)
    e = coefficients(seed, n)
    prod = 1
    for a in e:
        prod = prod * a % L
    neg_c = _s(-c)
    try:
        a_in = _msm(e, deck_in)  # refused as the JS twin refuses it when the identity
        t = [_add(mul_base(_s(s[0])), mul(neg_c, _sub(_sum(u), _generator_sum(n)))),
             _add(mul_base(_s(s[1])), mul(neg_c, _sub(chain[-1], mul(_s(prod), h)))),
             _add(_add(mul_base(_s(s[2])), _msm(s1, hs)), mul(neg_c, _msm(e, u))),
             _sub(_msm(s1, deck_out), mul(_s(s[3]), a_in)),
             _add(mul_base(_s(s[3])), mul(neg_c, y))]
        previous = [h, *chain[:-1]]
        t_hat = [_add(_add(mul_base(_s(s_hat[k])), mul(_s(s1[k]), previous[k])),
                      mul(neg_c, chain[k])) for k in range(n)]
    except (BlindError, RuntimeError, ValueError):  # an identity on the way: not a proof
        return False
    return secrets.compare_digest(_challenge(seed, chain, t, t_hat), _s(c))


# ------------------------------------------------------------ batched DLEQ --

def batch_seed(ctx: bytes, y: bytes, positions: Sequence[int], ins: Sequence[bytes],
               outs: Sequence[bytes]) -> bytes:
    """``SHA-512(BATCH_TAG ‖ ctx ‖ Y ‖ (u8(p) ‖ in_p ‖ out_p for each p))``."""
    body = b"".join(bytes([p]) + i + o for p, i, o in zip(positions, ins, outs, strict=True))
    return hashlib.sha512(BATCH_TAG + ctx + y + body).digest()


def _combined(seed: bytes, ins: Sequence[bytes], outs: Sequence[bytes]) -> tuple[bytes, bytes]:
    z = coefficients(seed, len(ins))
    return _msm(z, outs), _msm(z, ins)


def prove_batch(x: bytes, positions: Sequence[int], ins: Sequence[bytes],
                outs: Sequence[bytes], ctx: bytes) -> bytes:
    """One proof (64 bytes) that ``ins[i] = x·outs[i]`` for every ``i``.

    With ``z_i`` the coefficients of :func:`batch_seed`, it is the Chaum–Pedersen
    proof of §13.3 that ``log_B(Y) = log_H(Z)`` for ``H = Σ z_i·outs[i]``,
    ``Z = Σ z_i·ins[i]``, under the context ``ctx ‖ seed``.
    """
    seed = batch_seed(ctx, mul_base(x), positions, ins, outs)
    h = _msm(coefficients(seed, len(ins)), outs)  # Z = x·H: the prover does not need it
    return prove_dleq(x, h, ctx + seed)


def verify_batch(y: bytes, positions: Sequence[int], ins: Sequence[bytes],
                 outs: Sequence[bytes], proof: bytes, ctx: bytes) -> bool:
    """Whether ``proof`` shows ``ins[i] = log_B(y)·outs[i]`` for every ``i``."""
    if not ins or len(ins) != len(outs) or not _valid([y, *ins, *outs]):
        return False
    seed = batch_seed(ctx, y, positions, ins, outs)
    try:
        h, z = _combined(seed, ins, outs)
    except (BlindError, RuntimeError, ValueError):
        return False
    return verify_dleq(y, h, z, proof, ctx + seed)


# --------------------------------------------------------------- one deal, v2 --

def round_positions(dealer: int, round_: int, seat: int) -> list[int]:
    """The positions ``seat`` decrypts in round ``round_`` (0-2): those of owner ``seat-1-r``."""
    return [p for p in range(DECK) if decrypt_order(owner(p, dealer))[round_] == seat]


def round_input(deal: BlindDeal, round_: int, p: int) -> bytes:
    """The element a round's partial decryption of position ``p`` starts from."""
    return deal.passes[-1][p] if round_ == 0 else deal.partials[p][round_ - 1].element


def prove_pass(version: int, x: bytes, permutation: Sequence[int], deck_in: Sequence[bytes],
               deck_out: Sequence[bytes], ctx: bytes) -> bytes:
    """A pass's proof: v3's compact argument (2,112 bytes) or v2's linear proof (6,816)."""
    if version == 3:
        from .argument import prove_shuffle as prove_v3
        return prove_v3(x, permutation, deck_in, deck_out, ctx)
    return prove_shuffle(x, permutation, deck_in, deck_out, ctx)


def verify_pass(y: bytes, deck_in: Sequence[bytes], deck_out: Sequence[bytes], proof: bytes,
                ctx: bytes) -> bool:
    """A pass's proof checked by its version, which its length tells (v3 or v2)."""
    from .argument import argument_len
    from .argument import verify_shuffle as verify_v3
    if type(proof) is bytes and len(proof) == argument_len(len(deck_in)):
        return verify_v3(y, deck_in, deck_out, proof, ctx)
    return verify_shuffle(y, deck_in, deck_out, proof, ctx)


def deal_blind_v2(seats: Sequence[BlindSeat], match_id: bytes, deal_number: int,
                  dealer: int, version: int = 3) -> BlindDeal:
    """:func:`~tarneeb.audit.blind.deal_blind` with the proofs of ``tarneeb-blind-v3``
    (``version=2``: of ``tarneeb-blind-v2``).

    Each pass comes with its shuffle proof; in each of the three decryption rounds
    each seat strips its layer from the 13 positions it decrypts and proves them
    all with one batched proof.
    """
    passes, shuffles, rows, batch = deal_until(seats, match_id, deal_number, dealer,
                                               SEATS + 3 * SEATS, version)
    partials = [[Partial(k, rows[r][p], b"")
                 for r, k in enumerate(decrypt_order(owner(p, dealer)))] for p in range(DECK)]
    for p in range(DECK):
        seats[owner(p, dealer)].learn(p, rows[2][p])
    return BlindDeal(match_id, deal_number, dealer, [s.public for s in seats], passes, partials,
                     shuffle_proofs=shuffles, batch_proofs=batch)


_PASS_FAULT = ("its shuffle pass is not proven: its proof does not show the deck it "
               "published is a permutation of the deck before it under its key")


def _unjudged(steps: Sequence[str]) -> str:
    """The sentence a fault ends with when later steps were built on what it published."""
    if not steps:
        return ""
    return ("; what was built on it cannot be judged, and is not held against its seats: "
            + ", ".join(steps))


def _judge_in_order(match_id: bytes, deal_number: int, dealer: int,
                    publics: Sequence[bytes], passes: Sequence[Sequence[bytes]],
                    shuffle_proofs: Sequence[bytes], rounds: Sequence[Sequence[bytes]],
                    batch_proofs: Sequence[bytes]) -> tuple[list[BlindFault], int, set[int]]:
    """The passes, then the decryption rounds, judged in the order they were made.

    A step is judged only when everything it was given is proven: a pass on the deck of
    the pass before it, a seat's batch of a round on the elements of its positions one
    round earlier. The first step whose proof fails is the fault; a step built on what a
    failed or unjudged step published cannot be judged (a change made after the fact to
    one seat's step would otherwise fail the proof of the honest seat that came next), so
    it is named in that fault's sentence, never as a fault of its own seat. Returns the
    faults, how many passes are proven (4: all), and the positions whose elements after
    the last round are not proven.
    """
    faults: list[BlindFault] = []
    deck: Sequence[bytes] = card_points()
    proven_passes = len(passes)
    for s, out in enumerate(passes):
        if not verify_pass(publics[s], deck, out, shuffle_proofs[s],
                           shuffle_context(match_id, deal_number, s)):
            later = [f"seat {t}'s pass" for t in range(s + 1, len(passes))]
            if batch_proofs:
                later.append("every decryption")
            faults.append(BlindFault(s, _PASS_FAULT + _unjudged(later)))
            return faults, s, set(range(DECK))
        deck = out
    tainted: set[int] = set()  # positions whose element is not proven
    cause: dict[int, int] = {}  # a tainted position -> the fault it follows from
    built_on: list[list[str]] = []  # by fault: the steps built on it, not judged
    for i, proof in enumerate(batch_proofs):
        r, k = divmod(i, SEATS)
        positions = round_positions(dealer, r, k)
        from_faults = sorted({cause[p] for p in positions if p in tainted})
        if from_faults:  # built on an unproven element: not judged
            for f in from_faults:
                built_on[f].append(f"seat {k}'s decryptions in round {r + 1}")
            for p in positions:
                cause.setdefault(p, from_faults[0])
                tainted.add(p)
            continue
        ins = [(deck if r == 0 else rounds[r - 1])[p] for p in positions]
        outs = [rounds[r][p] for p in positions]
        if not verify_batch(publics[k], positions, ins, outs, proof,
                            batch_context(match_id, deal_number, k, r)):
            faults.append(BlindFault(k, f"a wrong partial decryption in round {r + 1}: its "
                                        "batched proof fails (one of positions "
                                        f"{', '.join(map(str, positions))})"))
            built_on.append([])
            for p in positions:
                tainted.add(p)
                cause[p] = len(faults) - 1
    faults = [BlindFault(f.seat, f.what + _unjudged(later), f.position)
              for f, later in zip(faults, built_on, strict=True)]
    return faults, proven_passes, tainted


def verify_deal_v2(deal: BlindDeal, keys: Sequence[RevealedKey] = ()) -> list[BlindFault]:
    """Every check of a ``tarneeb-blind-v2`` deal: every pass and every partial decryption
    proven from the transcript alone, each fault on the seat whose proof fails.

    The steps are judged in causal order (:func:`_judge_in_order`): each pass against
    its own input deck, each batch against its own inputs, and a step built on a step
    that is not proven is not judged, so neither what follows from a cheat (the later
    passes and decryptions, made honestly on a changed deck) nor what follows from a
    change made to the log after the fact is blamed on the seat that made it.
    """
    faults = public_key_faults(deal.publics)
    if faults:
        return faults
    if (len(deal.passes) != SEATS or any(len(d) != DECK for d in deal.passes)
            or deal.shuffle_proofs is None or len(deal.shuffle_proofs) != SEATS
            or deal.batch_proofs is None or len(deal.batch_proofs) != 3 * SEATS):
        return [BlindFault(-1, "the transcript does not hold four passes of 52 elements, "
                               "their proofs and twelve batched proofs")]
    for p in range(DECK):
        if [q.seat for q in deal.partials[p]] != list(decrypt_order(owner(p, deal.dealer))):
            return [BlindFault(owner(p, deal.dealer),
                               "partial decryptions missing or out of order", p)]
    rounds = [[deal.partials[p][r].element for p in range(DECK)] for r in range(3)]
    faults, proven_passes, tainted = _judge_in_order(
        deal.match_id, deal.deal_number, deal.dealer, deal.publics, deal.passes,
        deal.shuffle_proofs, rounds, deal.batch_proofs)
    faults.extend(f for o in deal.openings
                  if o.position not in tainted and (f := check_opening(deal, o)) is not None)
    opened = {o.position: o.card for o in deal.openings}
    if len(opened) == DECK and len(set(opened.values())) != DECK:
        faults.append(BlindFault(-1, "the opened cards are not the 52 cards of the deck"))
    for key in keys:  # a key is judged against its seat's pass and the proven deck before it
        if key.seat <= proven_passes:
            faults.extend(check_revealed(deal, key))
    return faults


def verify_unfinished(match_id: bytes, deal_number: int, dealer: int, publics: Sequence[bytes],
                      passes: Sequence[Sequence[bytes]], shuffle_proofs: Sequence[bytes],
                      rounds: Sequence[Sequence[bytes]], batch_proofs: Sequence[bytes]
                      ) -> list[BlindFault]:
    """The steps an unfinished v2 deal holds, judged in causal order as in
    :func:`verify_deal_v2`: the passes delivered, and the batches delivered (round ``r``,
    seat ``k`` at ``4r + k``; ``rounds[r]`` the 52 elements of round ``r``, those not
    delivered ignored)."""
    try:
        for s, y in enumerate(publics):
            _check_element(y, f"seat {s}'s public key")
    except BlindError as exc:
        return [BlindFault(-1, str(exc))]
    return _judge_in_order(match_id, deal_number, dealer, publics, passes, shuffle_proofs,
                           rounds, batch_proofs)[0]


def deal_until(seats: Sequence[BlindSeat], match_id: bytes, deal_number: int, dealer: int,
               steps: int, version: int = 3
               ) -> tuple[list[tuple[bytes, ...]], list[bytes], list[list[bytes]], list[bytes]]:
    """The first ``steps`` (0-16) steps of a v2 or v3 deal, as a deal that stops there holds
    them: passes, their proofs, the rounds' elements (zero bytes where not delivered),
    batches. Steps 0-3 are the passes, step ``4 + 4r + k`` seat ``k``'s decryptions of round
    ``r``; all 16 are the whole deal (:func:`deal_blind_v2`)."""
    deck: Sequence[bytes] = card_points()
    passes, proofs = [], []
    for s in seats[:min(steps, SEATS)]:
        out = pass_of(s, deck)
        proofs.append(prove_pass(version, s.scalar, s.permutation, deck, out,
                                 shuffle_context(match_id, deal_number, s.seat)))
        passes.append(out)
        deck = out
    rows: list[list[bytes]] = []
    batch: list[bytes] = []
    for i in range(max(0, steps - SEATS)):
        r, k = divmod(i, SEATS)
        if k == 0:
            rows.append([bytes(ELEMENT_LEN)] * DECK)
        positions = round_positions(dealer, r, k)
        ins = [(deck if r == 0 else rows[r - 1])[p] for p in positions]
        inverse = invert(seats[k].scalar)
        outs = _mul_all(inverse, ins)
        batch.append(prove_batch(seats[k].scalar, positions, ins, outs,
                                 batch_context(match_id, deal_number, k, r)))
        for p, e in zip(positions, outs, strict=True):
            rows[r][p] = e
    return passes, proofs, rows, batch


def verify_any(deal: BlindDeal, keys: Sequence[RevealedKey] = ()) -> list[BlindFault]:
    """:func:`verify_deal_v2` for a v2 deal, :func:`~tarneeb.audit.blind.verify_deal` for v1."""

    return verify_deal(deal, keys) if deal.shuffle_proofs is None else verify_deal_v2(deal, keys)


__all__ = [
    "BATCH_PROOF_LEN",
    "BATCH_TAG",
    "BLIND_PROTOCOL_V2",
    "GENERATOR_TAG",
    "SHUFFLE_C_TAG",
    "SHUFFLE_E_TAG",
    "SHUFFLE_NONCE_TAG",
    "SHUFFLE_PROOF_LEN",
    "batch_context",
    "batch_seed",
    "deal_blind_v2",
    "generators",
    "pass_of",
    "prove_batch",
    "prove_pass",
    "prove_shuffle",
    "round_input",
    "round_positions",
    "shuffle_context",
    "verify_any",
    "verify_batch",
    "verify_deal_v2",
    "verify_pass",
    "verify_shuffle",
]
