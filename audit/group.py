"""ristretto255 through libsodium's single operations (provisional)."""
from __future__ import annotations

from collections.abc import Sequence

import rbcl

L = 2**252 + 27742317777372353535851937790883648493
Point = bytes
_ID = bytes(32)


class GroupError(ValueError):
    pass


def decode(b: bytes) -> Point:
    if type(b) is not bytes or len(b) != 32:
        raise GroupError("not 32 bytes")
    if b == _ID or rbcl.crypto_core_ristretto255_is_valid_point(b):
        return b
    raise GroupError("not a ristretto255 encoding")


def encode(p: Point) -> bytes:
    return p


def from_hash(h: bytes) -> Point:
    return rbcl.crypto_core_ristretto255_from_hash(h)


def identity() -> Point:
    return _ID


def is_identity(p: Point) -> bool:
    return p == _ID


def add(p: Point, q: Point) -> Point:
    if p == _ID:
        return q
    if q == _ID:
        return p
    try:
        return rbcl.crypto_core_ristretto255_add(p, q)
    except Exception:
        return _ID


def mul(s: int, p: Point) -> Point:
    s %= L
    if s == 0 or p == _ID:
        return _ID
    return rbcl.crypto_scalarmult_ristretto255(s.to_bytes(32, "little"), p)


mul_public = mul


def mul_base(s: int) -> Point:
    s %= L
    if s == 0:
        return _ID
    return rbcl.crypto_scalarmult_ristretto255_base(s.to_bytes(32, "little"))


def msm(scalars: Sequence[int], points: Sequence[Point]) -> Point:
    acc = _ID
    for s, p in zip(scalars, points, strict=True):
        acc = add(acc, mul(s, p))
    return acc


msm_secret = msm


def fold(c: int, left: Sequence[Point], right: Sequence[Point]) -> list[Point]:
    return [add(mul(c, a), b) for a, b in zip(left, right, strict=True)]
