"""The msgpack corners of a log, read alike by the two verifiers: a float (a whole one too)
where a record or a field is expected, an ext value of no data, a header torn at an ext
byte, map keys of bytes or named ``__proto__``, a rules name that is not text, and the like.

Each case is a log both CLIs verify (``tarneeb verify --json``, the Python one with its
compiled core and in pure Python): the same exit code, the same verdict JSON, every field,
and the words FORMAT.md's reading gives it."""

from __future__ import annotations

import functools
import json
import struct
import subprocess
import sys
from typing import Any

import msgpack
import pytest
from test_js_conformance import (  # noqa: F401 (fixtures)
    CLI,
    ROOT,
    _pack,
    _result,
    _values,
    _with,
    home,
    node,
)

EXT0 = msgpack.ExtType(1, b"")  # packed c7 00 01: an ext value of no data


class _Raw(bytes):
    """Bytes written as they are inside a packed value (a float 32, an odd key, an ext)."""


def _packed(value: Any) -> bytes:
    """``value`` packed as msgpack packs it, but a :class:`_Raw` as its own bytes."""
    if isinstance(value, _Raw):
        return bytes(value)
    if isinstance(value, list):
        head = bytes([0x90 | len(value)]) if len(value) < 16 else \
            b"\xdc" + len(value).to_bytes(2, "big")
        return head + b"".join(map(_packed, value))
    if isinstance(value, dict):
        head = bytes([0x80 | len(value)]) if len(value) < 16 else \
            b"\xde" + len(value).to_bytes(2, "big")
        return head + b"".join(_packed(k) + _packed(v) for k, v in value.items())
    return msgpack.packb(value, use_bin_type=True)


def _f64(x: float) -> _Raw:
    return _Raw(b"\xcb" + struct.pack(">d", x))


def _first(kind: int, values: list[Any]) -> int:
    return next(i for i, v in enumerate(values) if isinstance(v, list) and v[0] == kind)


def _inserted(name: str, raw: bytes, after: int = 4, cut: bool = False) -> bytes:
    """A corpus log with ``raw`` written after its first record of type ``after`` (and
    nothing after it when ``cut``)."""
    values = _values(name)
    at = _first(after, values) + 1
    return _pack(values[:at]) + raw + (b"" if cut else _pack(values[at:]))


def _edited(name: str, kind: int, edit: Any) -> bytes:
    """A corpus log with its first record of type ``kind`` given by ``edit(record)``, packed
    by :func:`_packed`."""
    values = _values(name)
    at = _first(kind, values)
    return _pack(values[:at]) + _packed(edit(values[at])) + _pack(values[at + 1:])


def _set(i: int, value: Any) -> Any:
    return lambda rec: [*rec[:i], value, *rec[i + 1:]]


def _rules(**fields: Any) -> Any:
    return lambda h: [*h[:3], {**h[3], **fields}, *h[4:]]


@functools.cache
def _cases() -> dict[str, tuple[bytes, str]]:
    log = "eram41-01.tlog"
    header = msgpack.packb(_values(log)[0], use_bin_type=True)
    rules_at = len(b"\x9c\x00" + msgpack.packb("tarneeb-log")) + 1  # where the rules map starts
    return {
        # a float is canonical msgpack (float 64 is what a packer writes for one) and never
        # a move: the reader says what it found, as Python shows it
        "whole-float-between-records": (_inserted(log, _f64(20.0)),
                                        "expected a record (a msgpack array) or a move, found "
                                        "20.0"),
        "large-float-between-records": (_inserted(log, _f64(1e16)), "found 1e+16"),
        "negative-zero-between-records": (_inserted(log, _f64(-0.0)), "found -0.0"),
        "float-32-between-records": (_inserted(log, _Raw(b"\xca" + struct.pack(">f", 20.0))),
                                     "record is not in canonical msgpack form"),
        "whole-float-dealer": (_edited(log, 1, _set(2, _f64(2.0))),
                               "dealer must be a whole number 0-3, not 2.0"),
        "whole-float-record-type": (_edited(log, 4, _set(0, _f64(4.0))),
                                    "unknown record type 4.0"),
        "whole-float-totals": (_edited(log, 4, _set(4, [_f64(1.0)] * 4)),
                               "totals must be a whole number -2147483648-2147483648, not 1.0"),
        "float-rules": (_edited(log, 0, _set(3, _f64(1.0))), "rules must be a map of fields"),
        # an ext value of no data is an ext value: refused where it stands, as any other
        "zero-length-ext-in-claims": (_edited(log, 4, _set(1, _Raw(b"\xc7\x00\x01"))),
                                      "not valid msgpack: 1 exceeds max_ext_len(0)"),
        "zero-length-ext32-between-records": (_inserted(log, b"\xc9\x00\x00\x00\x00\x05"),
                                              "not valid msgpack: 1 exceeds max_ext_len(0)"),
        "zero-length-ext-of-type-minus-1": (_inserted(log, b"\xc7\x00\xff"),
                                            "not valid msgpack: 1 exceeds max_ext_len(0)"),
        "zero-length-ext-first": (b"\xc7\x00\x01" + header,
                                  "byte 0: not a tarneeb log (not msgpack: 1 exceeds "
                                  "max_ext_len(0))"),
        # a header torn at an ext byte is no header a writer was writing, zeros after it or not
        "header-cut-at-ext32-then-zeros": (header[:rules_at] + b"\xc9" + bytes(3),
                                           f"byte {rules_at}: byte 0xc9 is not msgpack a log "
                                           "may hold"),
        "header-cut-at-ext32": (header[:rules_at] + b"\xc9",
                                f"byte {rules_at}: byte 0xc9 is not msgpack a log may hold"),
        "header-cut-at-ext32-of-no-data-then-zeros": (header[:rules_at] + b"\xc9" + bytes(5),
                                                      "byte 0: not a tarneeb log (not msgpack: "
                                                      "1 exceeds max_ext_len(0))"),
        "header-cut-at-bin-length-then-zeros": (header[:rules_at] + b"\xc6\xff\xff" + bytes(40),
                                                "a length prefix claims"),
        # a record torn at a fixext byte: unreadable from it, as one torn at any ext byte
        "record-cut-at-a-fixext": (_inserted(log, b"\x95\x04\xd4", cut=True),
                                   "byte 0xd4 is not msgpack a log may hold"),
        # map keys of bytes, or named __proto__: a map like any other
        "map-with-a-bytes-key-between-records": (_inserted(log, b"\x81\xc4\x01a\x02"),
                                                 "found a map"),
        "map-with-a-proto-key-between-records": (_inserted(log, _packed({"__proto__": 1})),
                                                 "found a map"),
        "rules-with-a-bytes-key": (_edited(log, 0, lambda h: [*h[:3], {**h[3], b"x": 1, "y": 2},
                                                              *h[4:]]),
                                   "unknown rule field(s): b'x', y"),
        "rules-with-a-proto-key": (_edited(log, 0, _rules(__proto__=1)), "unknown rule field"),
        # a rules name that is not text, shown as Python shows it
        "rules-name-a-map": (_edited(log, 0, _rules(name={})),
                             "rule set {}: name must be 1-64 characters"),
        "rules-name-bytes": (_edited(log, 0, _rules(name=b"ab")),
                             "rule set b'ab': name must be 1-64 characters"),
        "rules-name-true": (_edited(log, 0, _rules(name=True)), "rule set True: name must"),
        "rules-name-a-list": (_edited(log, 0, _rules(name=[None, "a", 1.5])),
                              "rule set [None, 'a', 1.5]: name must"),
        "rules-name-a-float": (_edited(log, 0, _rules(name=_f64(2.0))),
                               "rule set 2.0: name must"),
        "rules-values-nil": (_edited(log, 0, _rules(values=None)),
                             "rules: values must be a list of 12 numbers (bids 2 to 13)"),
        # a header whose type is no int: no header
        "header-type-false": (_edited(log, 0, _set(0, False)),
                              "byte 0: not a tarneeb log (the first record is not a "
                              "tarneeb-log header)"),
        "header-type-a-float": (_edited(log, 0, _set(0, _f64(0.0))), "not a tarneeb log"),
        # a value past a cap on one value: refused where it starts, in the same words,
        # whatever follows it (zeros that complete it, or the end of the file)
        "header-nested-too-deep-then-zeros": (header[:-34] + b"\x91" * 20 + bytes(40),
                                              "byte 0: arrays or maps nested deeper: over the "
                                              "max_depth cap of 8"),
        "record-past-the-cap-cut-short": (_inserted(log, _packed([4, [b"x" * 4000] * 17])[:-10],
                                                    cut=True),
                                          "a record of more than 65,536 bytes: over the "
                                          "max_record_bytes cap of 65,536"),
        "record-past-the-cap": (_inserted(log, _packed([4, [b"x" * 4000] * 17, None])),
                                "a record of 68,"),
        "run-of-moves-past-the-cap": (_inserted(log, b"\x01" * 70000, after=1),
                                      "a run of moves of more than 65,536 bytes"),
        # names past the max_name cap, said with their length
        "seat-name-past-the-cap": (_edited(log, 0, lambda h: [*h[:4], [["x" * 300, False]] * 4,
                                                            *h[5:]]),
                                   "a seat name of 300 bytes: over the max_name cap of 256"),
        "rules-name-past-the-cap": (_edited(log, 0, _rules(name="é" * 300)),
                                    "a rules name of 300 characters: over the max_name cap "
                                    "of 256"),
        # a text may start with U+FEFF (a BOM is a character): read as written, a long text
        # (over 200 bytes) and a short one alike (the JS reader once dropped it, and called
        # the record not canonical)
        "seat-name-starting-with-a-bom": (_edited(log, 0, lambda h: [
            *h[:4], [["\ufeffbot " + "x" * 200, False], *h[4][1:]], *h[5:]]), "\ufeffbot x"),
        "short-seat-name-starting-with-a-bom": (_edited(log, 0, lambda h: [
            *h[:4], [["\ufeffNorth", False], *h[4][1:]], *h[5:]]), "\ufeffNorth"),
        "long-seat-name-not-utf-8": (_edited(log, 0, lambda h: [
            *h[:4], [[_Raw(b"\xda\x00\xd2" + b"x" * 200 + b"\xff\xfe" + b"y" * 8), False],
                     *h[4][1:]], *h[5:]]), "a text field is not valid UTF-8"),
        # house rules under a name that looks like a preset's: said, in both verifiers'
        # words (a Cyrillic е; a capital name; an l for a 1)
        "rules-name-a-look-alike-of-a-preset": (
            _edited(log, 0, _rules(name="\u0435ram41")),
            "house rules 'еram41' (a name that looks like eram41's, which they are not)"),
        "rules-name-eram41-in-capitals": (_edited(log, 0, _rules(name="ERAM41")),
                                          "(a name that looks like eram41's"),
        "rules-name-with-an-l-for-a-1": (_edited(log, 0, _rules(name="eram4l")),
                                         "(a name that looks like eram41's"),
        "rules-name-of-its-own": (_edited(log, 0, _rules(name="club41")),
                                  "house rules 'club41', recorded in full in the log"),
        "header-version-past-2^63": (_with(log, 0, _set(2, 2**63)),
                                     "format version 9223372036854775808 is newer than this "
                                     "tool reads (3); upgrade tarneeb"),
    }


CASES = sorted(_cases())


@pytest.fixture(scope="module")
def verdicts(node: str, home: dict[str, str],  # noqa: F811
             tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, Any]]:
    """The exit code and the verdicts of every case from the JS CLI, the Python one and the
    Python one in pure Python: one run of each over all the cases."""
    tmp = tmp_path_factory.mktemp("msgpack-parity")
    paths = []
    for name in CASES:
        path = tmp / f"{name}.tlog"
        path.write_bytes(_cases()[name][0])
        paths.append(str(path))
    runs = {"js": ([node, str(CLI)], home), "python": ([sys.executable, "-m", "tarneeb"], home),
            "pure": ([sys.executable, "-m", "tarneeb"], {**home, "TARNEEB_PURE": "1"})}
    out = {}
    for who, (cmd, env) in runs.items():
        proc = subprocess.Popen([*cmd, "verify", "--json", *paths], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        out[who] = _result(proc)
    return out


def test_every_case_is_read_alike(verdicts: dict[str, tuple[int, Any]]) -> None:
    """The same exit code from the JS CLI, the Python CLI and the Python CLI in pure Python,
    over all the cases."""
    assert verdicts["js"][0] == verdicts["python"][0] == verdicts["pure"][0]
    assert all(isinstance(v[1], list) and len(v[1]) == len(CASES) for v in verdicts.values())


@pytest.mark.parametrize("case", CASES)
def test_both_verifiers_say_it_alike(verdicts: dict[str, tuple[int, Any]], case: str) -> None:
    """The same verdict JSON, every field, from the three; and the words that say it."""
    i = CASES.index(case)
    js, python, pure = (verdicts[who][1][i] for who in ("js", "python", "pure"))
    assert js == python
    assert pure == python
    assert _cases()[case][1] in json.dumps(python, ensure_ascii=False), python


def test_the_cases_differ() -> None:
    """No two cases are the same bytes."""
    data = [d for d, _ in _cases().values()]
    assert len(set(data)) == len(data)
