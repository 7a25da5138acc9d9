"""The group layer (tarneeb.audit.blind.group): both backends give libsodium's results.

Every backend the installation has (``"libsodium"`` always, ``"c"`` when the extension
is built) is held to libsodium called directly through rbcl, on random and edge-case
scalars and points, and to RFC 9496's test vectors (Appendix A): the encodings of
``0·B … 15·B``, the encodings a decoder must refuse, and the elements derived from the
SHA-512 of the RFC's labels.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import rbcl

from tarneeb.audit.blind import group
from tarneeb.audit.blind.group import GroupError, L

BACKENDS = group.available()
ZERO = bytes(32)

# RFC 9496 Appendix A.1: the encodings of 0·B, 1·B, ..., 15·B
MULTIPLES = [bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
    "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
    "94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
    "da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
    "e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
    "f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403",
    "44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d",
    "903293d8f2287ebe10e2374dc1a53e0bc887e592699f02d077d5263cdd55601c",
    "02622ace8f7303a31cafc63f8fc48fdc16e1c8c8d234b2f0d6685282a9076031",
    "20706fd788b2720a1ed2a5dad4952b01f413bcf0e7564de8cdc816689e2db95f",
    "bce83f8ba5dd2fa572864c24ba1810f9522bc6004afe95877ac73241cafdab42",
    "e4549ee16b9aa03099ca208c67adafcafa4c3f3e4e5303de6026e3ca8ff84460",
    "aa52e000df2e16f55fb1032fc33bc42742dad6bd5a8fc0be0167436c5948501f",
    "46376b80f409b29dc2b5f6f0c52591990896e5716f41477cd30085ab7f10301e",
    "e0c418f7c8d9c4cdd7395b93ea124f3ad99021bb681dfc3302a9d99a2e53e64e",
)]

# RFC 9496 Appendix A.2: encodings that must be refused
INVALID = [bytes.fromhex(h) for h in (
    # non-canonical field encodings
    "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    # negative field elements
    "0100000000000000000000000000000000000000000000000000000000000000",
    "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
    "c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
    "c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
    "47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
    "f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
    "87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
    # non-square x^2
    "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
    "4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
    "de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
    "bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
    "2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
    "f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
    "8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
    "2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
    # negative xy value
    "3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
    "a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
    "d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
    "8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
    "32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
    "227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
    "5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
    "445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
    # s = -1, which makes y = 0
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
)]

# RFC 9496 Appendix A.3: the element derived from SHA-512 of each label
DERIVED = [
    ("Ristretto is traditionally a short shot of espresso coffee",
     "3066f82a1a747d45120d1740f14358531a8f04bbffe6a819f86dfe50f44a0a46"),
    ("made with the normal amount of ground coffee but extracted with",
     "f26e5b6f7d362d2d2a94c5d0e7602cb4773c95a2e5c31a64f133189fa76ed61b"),
    ("about half the amount of water in the same amount of time",
     "006ccd2a9e6867e6a2c5cea83d3302cc9de128dd2a9a57dd8ee7b9d7ffe02826"),
    ("by using a finer grind.",
     "f8f0c87cf237953c5890aec3998169005dae3eca1fbb04548c635953c817f92a"),
    ("This produces a concentrated shot of coffee per volume.",
     "ae81e7dedf20a497e10c304a765c1767a42d6e06029758d2d7e8ef7cc4c41179"),
    ("Just pulling a normal shot short will produce a weaker shot",
     "e2705652ff9f5e44d3e841bf1c251cf7dddb77d140870d1ab2ed64f1a9ce8628"),
    ("and is not a Ristretto as some believe.",
     "80bd07262511cdde4863f8a7434cef696750681cb9510eea557088f76d9e5065"),
]

# edge cases, and the digit patterns of the recodings: all nibbles 8 (each signed 4-bit
# digit at its bound), all 7 or all f (carries all the way), runs of ones (NAF carries)
EDGE_SCALARS = [0, 1, 2, 3, 8, 15, 16, 17, 255, 256, 2**64 - 1, 2**128, 2**252,
                2**252 - 1, L // 2, L - 16, L - 2, L - 1, int("8" * 63, 16),
                int("7" * 63, 16), int("f" * 63, 16), int("78" * 31, 16), 2**200 - 1,
                L - 2**128, (2**253 - 1) % L]


@pytest.fixture(params=sorted(BACKENDS))
def g(request: pytest.FixtureRequest) -> group.Backend:
    return BACKENDS[request.param]


def _sodium_mul(s: int, e: bytes) -> bytes:
    """libsodium's ``s·e``, the identity where libsodium refuses it (s = 0, e = 0)."""
    if s % L == 0 or e == ZERO:
        return ZERO
    return rbcl.crypto_scalarmult_ristretto255((s % L).to_bytes(32, "little"), e)


def _sodium_sum(encodings: list[bytes]) -> bytes:
    acc = ZERO
    for e in encodings:
        acc = rbcl.crypto_core_ristretto255_add(acc, e)
    return acc


def _random_element(rng: random.Random) -> bytes:
    return rbcl.crypto_core_ristretto255_from_hash(rng.randbytes(64))


def test_the_compiled_backend_is_used_when_built() -> None:
    built = importlib.util.find_spec("tarneeb.audit.blind._group") is not None
    pure = os.environ.get("TARNEEB_PURE", "") not in ("", "0")
    assert group.backend() == ("c" if built and not pure else "libsodium")
    assert ("c" in BACKENDS) == built


def _backend_in_a_new_process(pure: str) -> list[str]:
    code = ("import sys; from tarneeb.audit.blind import group; group.mul_base(5); "
            "print(group.backend(), 'rbcl' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "TARNEEB_PURE": pure}, check=True)
    return out.stdout.split()


def test_tarneeb_pure_turns_the_compiled_backend_off() -> None:
    assert _backend_in_a_new_process("1") == ["libsodium", "True"]


def test_the_compiled_backend_does_not_load_libsodium() -> None:
    if "c" not in BACKENDS:
        pytest.skip("the compiled extension is not built")
    assert _backend_in_a_new_process("0") == ["c", "False"]


def test_rfc9496_multiples_of_the_generator(g: group.Backend) -> None:
    acc = g.identity()
    for i, enc in enumerate(MULTIPLES):
        assert g.encode(acc) == enc, i
        assert g.encode(g.mul_base(i)) == enc, i
        assert g.encode(g.mul(i, g.base())) == enc, i
        assert g.encode(g.mul_public(i, g.base())) == enc, i
        p = g.decode(enc)
        assert g.encode(p) == enc and g.equal(p, acc) and g.is_identity(p) == (i == 0)
        acc = g.add(acc, g.base())


def test_rfc9496_invalid_encodings_are_refused(g: group.Backend) -> None:
    for enc in INVALID:
        assert not rbcl.crypto_core_ristretto255_is_valid_point(enc)  # the vector itself
        with pytest.raises(GroupError):
            g.decode(enc)


def test_rfc9496_element_derivation(g: group.Backend) -> None:
    for label, out in DERIVED:
        h = hashlib.sha512(label.encode()).digest()
        assert g.encode(g.from_hash(h)).hex() == out
        assert rbcl.crypto_core_ristretto255_from_hash(h).hex() == out


def test_non_canonical_and_malformed_encodings_are_refused(g: group.Backend) -> None:
    rng = random.Random(5)
    p_field = 2**255 - 19
    for _ in range(20):
        enc = _random_element(rng)
        s = int.from_bytes(enc, "little")
        high_bit = (s | 1 << 255).to_bytes(32, "little")  # bit 255 set
        plus_p = s + p_field  # the same field element, not reduced
        for bad in [high_bit] + ([plus_p.to_bytes(32, "little")] if plus_p < 2**256 else []):
            with pytest.raises(GroupError):
                g.decode(bad)
        assert g.encode(g.decode(enc)) == enc
    for k in range(19):  # p + k: bit 255 clear, the value not reduced
        with pytest.raises(GroupError):
            g.decode((p_field + k).to_bytes(32, "little"))
    for bad in (b"", ZERO[:31], ZERO + b"\0", "00" * 32):
        with pytest.raises(GroupError):
            g.decode(bad)  # type: ignore[arg-type]
    for wrong in (b"", bytes(63), bytes(65)):
        with pytest.raises(GroupError):
            g.from_hash(wrong)


def test_single_operations_equal_libsodium(g: group.Backend) -> None:
    rng = random.Random(1)
    scalars = EDGE_SCALARS + [rng.randrange(L) for _ in range(40)]
    for i, s in enumerate(scalars):
        e = _random_element(rng) if i % 7 else MULTIPLES[1]
        f = _random_element(rng)
        p, q = g.decode(e), g.decode(f)
        want = _sodium_mul(s, e)
        assert g.encode(g.mul(s, p)) == want, s
        assert g.encode(g.mul_public(s, p)) == want, s
        assert g.encode(g.mul_base(s)) == _sodium_mul(s, MULTIPLES[1]), s
        assert g.encode(g.add(p, q)) == rbcl.crypto_core_ristretto255_add(e, f)
        assert g.encode(g.sub(p, q)) == rbcl.crypto_core_ristretto255_sub(e, f)
        assert g.encode(g.neg(p)) == rbcl.crypto_core_ristretto255_sub(ZERO, e)
        h = rng.randbytes(64)
        assert g.encode(g.from_hash(h)) == rbcl.crypto_core_ristretto255_from_hash(h)
        assert g.equal(p, p) and not g.equal(p, q) and not g.is_identity(p)


def test_chains_stay_exact_without_encoding(g: group.Backend) -> None:
    rng = random.Random(2)
    e = _random_element(rng)
    p, acc_e = g.decode(e), ZERO
    acc = g.identity()
    for k in range(1, 40):
        s = rng.randrange(L)
        acc = g.sub(g.add(acc, g.mul(s, p)), g.mul_public(k, g.neg(p)))
        acc_e = rbcl.crypto_core_ristretto255_add(acc_e, _sodium_mul(s + k, e))
    assert g.encode(acc) == acc_e
    twice = g.add(p, p)
    assert g.equal(twice, g.mul(2, p)) and g.encode(twice) == g.encode(g.mul_public(2, p))


def test_the_identity_and_zero_are_accepted(g: group.Backend) -> None:
    o = g.identity()
    p = g.from_hash(bytes(range(64)))
    assert g.is_identity(o) and g.is_identity(g.decode(ZERO)) and g.encode(o) == ZERO
    for s in (0, 1, 5, L - 1):
        assert g.is_identity(g.mul(s, o)) and g.is_identity(g.mul_public(s, o))
    assert g.is_identity(g.mul(0, p)) and g.is_identity(g.mul_public(0, p))
    assert g.is_identity(g.mul_base(0)) and g.is_identity(g.neg(o))
    assert g.equal(g.add(o, p), p) and g.equal(g.sub(p, o), p)
    assert g.is_identity(g.add(g.mul(L - 1, p), p))
    assert g.is_identity(g.msm([], [])) and g.is_identity(g.msm_secret([], []))
    assert g.fold(7, [], []) == []


@pytest.mark.parametrize("n", [0, 1, 2, 7, 52, 64, 200])
def test_msm_equals_the_sum_of_products(g: group.Backend, n: int) -> None:
    rng = random.Random(100 + n)
    encodings = [_random_element(rng) for _ in range(n)]
    scalars = [rng.randrange(L) for _ in range(n)]
    for i in range(0, n, 5):
        encodings[i] = ZERO  # identities mixed in
    for i in range(1, n, 6):
        scalars[i] = 0
    for i in range(2, n, 9):
        scalars[i] = L - 1
    for i in range(3, n, 11):
        scalars[i] = rng.randrange(1, 20)
    want = _sodium_sum([_sodium_mul(s, e) for s, e in zip(scalars, encodings, strict=True)])
    points = [g.decode(e) for e in encodings]
    assert g.encode(g.msm(scalars, points)) == want
    assert g.encode(g.msm_secret(scalars, points)) == want


def test_msm_around_the_switch_to_buckets() -> None:
    if "c" not in BACKENDS:
        pytest.skip("the compiled extension is not built")
    from tarneeb.audit.blind import _group  # type: ignore[attr-defined]

    g = BACKENDS["c"]
    rng = random.Random(7)
    n = _group.PIPPENGER_FROM
    encodings = [_random_element(rng) for _ in range(n + 1)]
    scalars = [rng.randrange(L) for _ in range(n + 1)]
    scalars[0] = L - 1
    points = [g.decode(e) for e in encodings]
    for m in (n - 1, n + 1):
        got = g.encode(g.msm(scalars[:m], points[:m]))
        want = g.encode(g.msm_secret(scalars[:m], points[:m]))
        assert got == want
    more = [g.from_hash(rng.randbytes(64)) for _ in range(450)]
    weights = [rng.randrange(L) for _ in more]
    for m in (200, 450):  # wider windows: 7 and 8 bits
        assert g.equal(g.msm(weights[:m], more[:m]), g.msm_secret(weights[:m], more[:m]))
    products = [_sodium_mul(s, e) for s, e in zip(scalars, encodings, strict=True)]
    assert g.encode(g.msm(scalars, points)) == _sodium_sum(products)


def test_msm_of_equal_and_opposite_points(g: group.Backend) -> None:
    p = g.from_hash(bytes(64))
    s = L - 3
    assert g.is_identity(g.msm([s, s], [p, g.neg(p)]))
    assert g.is_identity(g.msm_secret([1, L - 1], [p, p]))
    assert g.equal(g.msm([3, 4, 5], [p, p, p]), g.mul(12, p))


def test_fold_is_the_elementwise_definition(g: group.Backend) -> None:
    rng = random.Random(3)
    left_e = [_random_element(rng) for _ in range(32)] + [ZERO, MULTIPLES[3]]
    right_e = [_random_element(rng) for _ in range(32)] + [MULTIPLES[2], ZERO]
    left, right = [g.decode(e) for e in left_e], [g.decode(e) for e in right_e]
    for c in (0, 1, L - 1, rng.randrange(L)):
        got = [g.encode(x) for x in g.fold(c, left, right)]
        want = [rbcl.crypto_core_ristretto255_add(_sodium_mul(c, a), b)
                for a, b in zip(left_e, right_e, strict=True)]
        assert got == want
    with pytest.raises(GroupError):
        g.fold(2, left, right[:-1])


@pytest.mark.parametrize("bad", [L, L + 1, 2**255, 2**256, -1, -L])
def test_scalars_out_of_range_are_refused(g: group.Backend, bad: int) -> None:
    p = g.base()
    calls = [lambda: g.mul(bad, p), lambda: g.mul_public(bad, p), lambda: g.mul_base(bad),
             lambda: g.msm([1, bad], [p, p]), lambda: g.msm_secret([bad], [p]),
             lambda: g.fold(bad, [p], [p])]
    for call in calls:
        with pytest.raises(GroupError) as info:
            call()
        assert isinstance(info.value, ValueError)


def test_scalars_must_be_ints(g: group.Backend) -> None:
    p = g.base()
    for bad in (1.0, b"\x01" + bytes(31), True, "1"):
        with pytest.raises(GroupError):
            g.mul(bad, p)  # type: ignore[arg-type]
        with pytest.raises(GroupError):
            g.msm([bad], [p])  # type: ignore[list-item]


def test_mismatched_lengths_are_refused(g: group.Backend) -> None:
    p = g.base()
    for fn in (g.msm, g.msm_secret):
        with pytest.raises(GroupError):
            fn([1, 2], [p])


def test_compiled_points_are_checked() -> None:
    if "c" not in BACKENDS:
        pytest.skip("the compiled extension is not built")
    g = BACKENDS["c"]
    with pytest.raises(TypeError):
        g.add(MULTIPLES[1], g.base())  # an encoding is not a point of this backend
    with pytest.raises(ValueError):
        g.encode(b"\xff" * 160)  # limbs no computation of this module makes


def _limbs(p: bytes) -> list[int]:
    return [int.from_bytes(p[8 * i:8 * i + 8], "little") for i in range(20)]


def _point(limbs: list[int]) -> bytes:
    return b"".join(v.to_bytes(8, "little") for v in limbs)


def test_compiled_points_off_the_curve_are_refused() -> None:
    """Bytes of 160 whose limbs are in range but that are no point of the curve (X, Y, Z,
    T with one limb changed, T not X·Y/Z, Z zero) are refused by every operation, so that
    the formulas never run on them; every point the module makes passes."""
    if "c" not in BACKENDS:
        pytest.skip("the compiled extension is not built")
    g = BACKENDS["c"]
    rng = random.Random(5)
    good = [g.from_hash(rng.randbytes(64)) for _ in range(4)] + [g.base(), g.identity()]
    bad = []
    for p in good:
        for coordinate in range(4):  # X, Y, Z, T: one limb of one of them off by one
            limbs = _limbs(p)
            limbs[5 * coordinate + rng.randrange(5)] ^= 1
            bad.append(_point(limbs))
    limbs = _limbs(good[0])
    limbs[10:15] = [0] * 5  # Z = 0
    bad.append(_point(limbs))
    uses = (lambda q: g.encode(q), lambda q: g.add(q, good[0]), lambda q: g.mul(3, q),
            lambda q: g.mul_public(3, q), lambda q: g.msm([1, 2], [good[0], q]),
            lambda q: g.msm_secret([1, 2], [good[0], q]), lambda q: g.equal(q, q),
            lambda q: g.fold(2, [q], [good[1]]))
    for q in bad:
        for use in uses:
            with pytest.raises(ValueError):
                use(q)
    for p in good:
        assert g.equal(g.add(p, g.identity()), p)


def test_sums_in_threads_agree(g: group.Backend) -> None:
    """The C sums run without the GIL: threads at once each get their own exact sum, on
    both sides of the switch to Pippenger's method (``PIPPENGER_FROM`` points) and for the
    constant-time sum, each held to a sum of single products made in this thread."""
    threshold = 128
    if "c" in BACKENDS:
        from tarneeb.audit.blind import _group  # type: ignore[attr-defined]

        threshold = _group.PIPPENGER_FROM
    rng = random.Random(11)
    jobs = []
    for n in (40, 120, threshold, threshold + 72, 2 * threshold + 45):
        pts = [g.from_hash(rng.randbytes(64)) for _ in range(n)]
        jobs.append(([rng.randrange(L) for _ in pts], pts))
    want = []
    for scalars, pts in jobs:
        total = g.identity()
        for s, p in zip(scalars, pts, strict=True):
            total = g.add(total, g.mul(s, p))
        want.append(g.encode(total))
    k = len(jobs)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda j: (g.encode(g.msm(*jobs[j % k])),
                                       g.encode(g.msm_secret(*jobs[j % k]))), range(2 * k)))
    assert got == [(want[j % k], want[j % k]) for j in range(2 * k)]
