"""The ristretto255 group (RFC 9496) for blind dealing: one API, two backends.

* ``"c"``: the compiled extension ``tarneeb.audit.blind._group`` (built by ``setup.py`` when a
  C compiler is there): field arithmetic in radix 2^51, points kept in extended
  coordinates between operations (a chain of operations never re-encodes), scalar
  multiplication in constant time for secret scalars (:func:`mul`, :func:`mul_base`,
  :func:`msm_secret`) and in variable time for public ones (:func:`mul_public`,
  :func:`msm`: Straus with width-5 NAF, Pippenger's buckets for many points;
  :func:`fold`).
* ``"libsodium"``: rbcl's libsodium, one call per operation, when the extension is not
  built or ``TARNEEB_PURE`` is set (any value but empty or ``0``, the switch of the
  compiled rules core; read once, at import).

Both give the same results on every input (``tests/test_audit_group.py`` holds them to
libsodium's and to RFC 9496's test vectors). A point is an opaque value of its backend
(bytes of 160 for ``"c"``, the 32-byte encoding for ``"libsodium"``): compare points
with :func:`equal`, store or send them as :func:`encode` gives them, and never mix
the two backends' points. Scalars are Python ints in ``[0, L)``; anything else raises
:class:`GroupError` (a ``ValueError``). Every function accepts the identity and the
scalar 0 (libsodium's refusals of them are turned into the identity).

Constant time is the C arithmetic's (and libsodium's scalar multiplication's): the
Python int that holds a secret scalar, its range check and its conversion to 32 bytes
are Python's, as is the protocol's own arithmetic modulo ``L``; the libsodium backend
skips a zero scalar's term.

>>> from tarneeb.audit.blind import group
>>> g = group.mul_base(3)
>>> group.equal(group.add(g, group.mul_base(4)), group.mul_base(7))
True
>>> group.encode(group.msm([2, 5], [g, group.base()])).hex()[:16]
'bce83f8ba5dd2fa5'
>>> group.is_identity(group.sub(g, g)), group.backend() in ("c", "libsodium")
(True, True)
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Sequence
from typing import Protocol, TypeAlias

PURE_VARIABLE = "TARNEEB_PURE"
L = 2**252 + 27742317777372353535851937790883648493
"""The order of the group (of ristretto255's prime-order group)."""
ENCODING_LEN = 32
HASH_LEN = 64

Point: TypeAlias = bytes
"""A group element, opaque: the backend's own representation."""

_ZERO = bytes(ENCODING_LEN)
_BASE_ENCODING = bytes.fromhex(
    "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")


class GroupError(ValueError):
    """Bytes that are not a canonical ristretto255 encoding, or a scalar out of range."""


def _scalar(s: int) -> bytes:
    if isinstance(s, bool) or not isinstance(s, int):
        raise GroupError(f"a scalar is an int, not {type(s).__name__}")
    if not 0 <= s < L:
        raise GroupError("a scalar must be in [0, L)")
    return s.to_bytes(32, "little")


def _encoding(b: bytes, what: str, n: int = ENCODING_LEN) -> bytes:
    if not isinstance(b, bytes | bytearray | memoryview) or len(b) != n:
        raise GroupError(f"{what} is {n} bytes")
    return bytes(b)


class Sodium:
    """The libsodium backend (rbcl): a point is its 32-byte canonical encoding.

    rbcl is imported when this backend is made, not with the module: a process with the
    C backend never loads libsodium for the group."""

    name = "libsodium"

    def __init__(self) -> None:
        import rbcl

        self._r = rbcl

    def decode(self, b: bytes) -> Point:
        e = _encoding(b, "a ristretto255 encoding")
        if e == _ZERO:
            return _ZERO
        # libsodium ignores bit 255 (it accepts s + 2^255 as s); RFC 9496 refuses it
        if e[31] & 0x80 or not self._r.crypto_core_ristretto255_is_valid_point(e):
            raise GroupError("not a canonical ristretto255 encoding")
        return e

    def encode(self, p: Point) -> bytes:
        return p

    def from_hash(self, h64: bytes) -> Point:
        return self._r.crypto_core_ristretto255_from_hash(_encoding(h64, "a hash", HASH_LEN))

    def identity(self) -> Point:
        return _ZERO

    def base(self) -> Point:
        return _BASE_ENCODING

    def is_identity(self, p: Point) -> bool:
        return hmac.compare_digest(p, _ZERO)

    def equal(self, p: Point, q: Point) -> bool:
        return hmac.compare_digest(p, q)

    def add(self, p: Point, q: Point) -> Point:
        return self._r.crypto_core_ristretto255_add(p, q)

    def sub(self, p: Point, q: Point) -> Point:
        return self._r.crypto_core_ristretto255_sub(p, q)

    def neg(self, p: Point) -> Point:
        return self._r.crypto_core_ristretto255_sub(_ZERO, p)

    def mul(self, s: int, p: Point) -> Point:
        b = _scalar(s)
        if s == 0 or p == _ZERO:  # libsodium refuses both (an identity result)
            return _ZERO
        try:
            return self._r.crypto_scalarmult_ristretto255(b, p)
        except RuntimeError:  # the identity: libsodium's only refusal of a valid input
            return _ZERO

    def mul_public(self, s: int, p: Point) -> Point:
        return self.mul(s, p)

    def mul_base(self, s: int) -> Point:
        b = _scalar(s)
        if s == 0:
            return _ZERO
        return self._r.crypto_scalarmult_ristretto255_base(b)

    def msm(self, scalars: Sequence[int], points: Sequence[Point]) -> Point:
        """One multiplication and one addition a term. A zero scalar skips its term:
        the time tells which scalars are zero (a secret scalar is zero with
        probability 1/L)."""
        if len(scalars) != len(points):
            raise GroupError("as many scalars as points are needed")
        for s in scalars:
            _scalar(s)
        add = self._r.crypto_core_ristretto255_add
        acc = _ZERO
        for s, p in zip(scalars, points, strict=True):
            acc = add(acc, self.mul(s, p))
        return acc

    def msm_secret(self, scalars: Sequence[int], points: Sequence[Point]) -> Point:
        return self.msm(scalars, points)

    def fold(self, c: int, left: Sequence[Point], right: Sequence[Point]) -> list[Point]:
        _scalar(c)
        if len(left) != len(right):
            raise GroupError("left and right must have the same length")
        add = self._r.crypto_core_ristretto255_add
        return [add(self.mul(c, p), q) for p, q in zip(left, right, strict=True)]


class _CompiledModule(Protocol):
    """What the C backend needs of the extension (typed in full by ``_group.pyi``)."""

    def decode(self, b32: bytes, /) -> bytes: ...
    def encode(self, point: bytes, /) -> bytes: ...
    def from_hash(self, b64: bytes, /) -> bytes: ...
    def identity(self) -> bytes: ...
    def base(self) -> bytes: ...
    def is_identity(self, point: bytes, /) -> bool: ...
    def equal(self, p: bytes, q: bytes, /) -> bool: ...
    def add(self, p: bytes, q: bytes, /) -> bytes: ...
    def sub(self, p: bytes, q: bytes, /) -> bytes: ...
    def neg(self, p: bytes, /) -> bytes: ...
    def mul(self, s32: bytes, p: bytes, /) -> bytes: ...
    def mul_base(self, s32: bytes, /) -> bytes: ...
    def mul_public(self, s32: bytes, p: bytes, /) -> bytes: ...
    def msm(self, scalars: Sequence[bytes], points: Sequence[bytes], /) -> bytes: ...
    def msm_secret(self, scalars: Sequence[bytes], points: Sequence[bytes], /) -> bytes: ...
    def fold(self, c32: bytes, left: Sequence[bytes], right: Sequence[bytes], /
             ) -> list[bytes]: ...


class Compiled:
    """The C backend (``tarneeb.audit.blind._group``): a point is bytes of 160."""

    name = "c"

    def __init__(self, module: _CompiledModule) -> None:
        self._m = module

    def decode(self, b: bytes) -> Point:
        try:
            return self._m.decode(_encoding(b, "a ristretto255 encoding"))
        except ValueError as exc:
            raise GroupError(str(exc)) from None

    def encode(self, p: Point) -> bytes:
        return self._m.encode(p)

    def from_hash(self, h64: bytes) -> Point:
        return self._m.from_hash(_encoding(h64, "a hash", HASH_LEN))

    def identity(self) -> Point:
        return self._m.identity()

    def base(self) -> Point:
        return self._m.base()

    def is_identity(self, p: Point) -> bool:
        return self._m.is_identity(p)

    def equal(self, p: Point, q: Point) -> bool:
        return self._m.equal(p, q)

    def add(self, p: Point, q: Point) -> Point:
        return self._m.add(p, q)

    def sub(self, p: Point, q: Point) -> Point:
        return self._m.sub(p, q)

    def neg(self, p: Point) -> Point:
        return self._m.neg(p)

    def mul(self, s: int, p: Point) -> Point:
        return self._m.mul(_scalar(s), p)

    def mul_public(self, s: int, p: Point) -> Point:
        return self._m.mul_public(_scalar(s), p)

    def mul_base(self, s: int) -> Point:
        return self._m.mul_base(_scalar(s))

    def msm(self, scalars: Sequence[int], points: Sequence[Point]) -> Point:
        if len(scalars) != len(points):
            raise GroupError("as many scalars as points are needed")
        return self._m.msm([_scalar(s) for s in scalars], points)

    def msm_secret(self, scalars: Sequence[int], points: Sequence[Point]) -> Point:
        if len(scalars) != len(points):
            raise GroupError("as many scalars as points are needed")
        return self._m.msm_secret([_scalar(s) for s in scalars], points)

    def fold(self, c: int, left: Sequence[Point], right: Sequence[Point]) -> list[Point]:
        if len(left) != len(right):
            raise GroupError("left and right must have the same length")
        return self._m.fold(_scalar(c), left, right)


Backend: TypeAlias = Sodium | Compiled


def _compiled_module() -> _CompiledModule | None:
    try:
        import tarneeb.audit.blind._group as _group
    except ImportError:  # not built (no compiler at install time)
        return None
    return _group


def available() -> dict[str, Backend]:
    """Every backend this installation has, by name (``"libsodium"`` always; ``"c"``
    when the extension is built, whatever ``TARNEEB_PURE`` says): for tests of both."""
    out: dict[str, Backend] = {"libsodium": Sodium()}
    module = _compiled_module()
    if module is not None:
        out["c"] = Compiled(module)
    return out


def _choose() -> Backend:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return Sodium()
    module = _compiled_module()
    return Compiled(module) if module is not None else Sodium()


_B = _choose()


def backend() -> str:
    """The backend in use in this process: ``"c"`` or ``"libsodium"``."""
    return _B.name


decode = _B.decode
"""``decode(b) -> Point``: the element of a canonical 32-byte encoding; raises
:class:`GroupError` for anything else. The identity (32 zero bytes) decodes: callers
that must refuse it check :func:`is_identity`."""
encode = _B.encode
"""``encode(p) -> bytes``: the canonical 32-byte encoding of ``p``."""
from_hash = _B.from_hash
"""``from_hash(h64) -> Point``: the element of 64 bytes (RFC 9496 §4.3.4, libsodium's
``crypto_core_ristretto255_from_hash``)."""
identity = _B.identity
base = _B.base
"""``base() -> Point``: the generator ``B`` of RFC 9496."""
is_identity = _B.is_identity
equal = _B.equal
add = _B.add
sub = _B.sub
neg = _B.neg
mul = _B.mul
"""``mul(s, p) -> s·p`` in constant time (``s`` secret)."""
mul_base = _B.mul_base
"""``mul_base(s) -> s·B`` in constant time."""
mul_public = _B.mul_public
"""``mul_public(s, p) -> s·p``, in variable time: ``s`` public."""
msm = _B.msm
"""``msm(scalars, points) -> Σ s_i·p_i``, variable time (public scalars); the identity
for empty lists."""
msm_secret = _B.msm_secret
"""``msm_secret(scalars, points) -> Σ s_i·p_i`` in constant time (secret scalars)."""
fold = _B.fold
"""``fold(c, left, right) -> [c·left[i] + right[i]]``, variable time (``c`` public)."""
