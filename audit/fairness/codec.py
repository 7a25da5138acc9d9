"""Tallies and their keys as bytes: msgpack, with the exact distributions as an extension.

A tally's keys are tuples of labels, integers and the frozen references of
:mod:`~tarneeb.audit.fairness.exact` (a :class:`DrawSum`, a :class:`Uniform`, …). Any
reference that module lists is written as its class name and its fields, and read
back only if the name is one of those classes: nothing else is ever built from the
bytes (no pickle), so a state file altered by anyone gives an error, never code. A new
reference added to that module travels with no change here.

>>> from tarneeb.audit.fairness.exact import DrawSum
>>> key = ("fit+mean", ("high-card points", "seat", "dealer"), DrawSum(((4, 4), (0, 48)), 13), 8)
>>> unpack_value(pack_value(key)) == key
True
>>> t = Tally(); t.mean(("x",), DrawSum(((1, 1), (0, 1)), 1), 1)
>>> back = unpack_tally(pack_tally(t))
>>> dict(back.counts) == dict(t.counts), dict(back.sums) == dict(t.sums)
(True, True)
"""

from __future__ import annotations

import dataclasses
from typing import Any

import msgpack

from tarneeb.audit.fairness import exact
from tarneeb.audit.fairness.tally import Tally

_REF = 1  # msgpack extension type of a reference: [class name, field values...]
_CLASSES: dict[str, type] = {
    name: obj for name in exact.__all__
    if isinstance(obj := getattr(exact, name), type) and dataclasses.is_dataclass(obj)}


class CodecError(ValueError):
    """Bytes that are not a value this codec wrote."""


def _default(obj: Any) -> Any:
    cls = type(obj)
    if _CLASSES.get(cls.__name__) is cls:
        fields = [getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init]
        return msgpack.ExtType(_REF, pack_value([cls.__name__, *fields]))
    raise TypeError(f"cannot pack a {cls.__name__}")


def _ext(code: int, data: bytes) -> Any:
    if code != _REF:
        raise CodecError(f"unknown extension type {code}")
    name, *args = unpack_value(data)
    cls = _CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise CodecError(f"unknown reference {name!r}")
    try:
        return cls(*args)
    except (TypeError, ValueError) as e:
        raise CodecError(f"reference {name} with bad fields: {e}") from None


def pack_value(value: Any) -> bytes:
    """``value`` (tuples, lists, str, bytes, ints, floats, None and references) as msgpack;
    tuples come back as tuples (lists too: keep to tuples)."""
    return msgpack.packb(value, default=_default, use_bin_type=True)


def unpack_value(data: bytes) -> Any:
    """What :func:`pack_value` wrote; :class:`CodecError` for anything else."""
    try:
        return msgpack.unpackb(data, ext_hook=_ext, use_list=False, raw=False,
                               strict_map_key=False)
    except CodecError:
        raise
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise CodecError(f"not a packed value: {e}") from None


def pack_tally(tally: Tally) -> bytes:
    """A tally as bytes (its keys in full: for a few tallies; a state of many tallies
    writes each key once, see :mod:`tarneeb.replay.archive.state`)."""
    return pack_value((tuple(tally.counts.items()), tuple(tally.sums.items())))


def unpack_tally(data: bytes) -> Tally:
    counts, sums = unpack_value(data)
    t = Tally()
    t.counts.update(dict(counts))
    t.sums.update(dict(sums))
    return t


__all__ = ["CodecError", "pack_tally", "pack_value", "unpack_tally", "unpack_value"]
