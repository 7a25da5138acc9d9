"""Logs are untrusted input: any damage gives a verdict or a LogError, never a crash.

Two kinds of damage: bytes changed at random, and structure-aware mutations of the
decoded records (types swapped, huge and negative integers, deep nesting, huge
containers), in the msgpack log and in its JSON form. Each case goes through the
library and through the command line, where it must end in a verdict or one error
line with exit code 2, never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.cli.entry import main
from tarneeb.replay.log import LogError
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log.annotate import annotate
from tarneeb.replay.rules.compiled import pure_python
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.replayer import verify_bytes

LOGS = [play_logged_match(name, seed=f"untrusted/{name}".encode()) for name in PRESETS] + [
    play_logged_match("eram41", seed=b"untrusted/recorded", seeded=False)]


def cli(*argv: str) -> tuple[int, str, str]:
    """Run the command in this process; its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as e:
            code = e.code
        else:
            code = 0
    return int(code or 0), out.getvalue(), err.getvalue()


def assert_one_ending(code: int, err: str, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    """A verdict (exit 0/1) or one error line and exit 2; never a traceback."""
    assert code in codes, (code, err)
    assert "Traceback" not in err
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("tarneeb: error: "), err


def check_everywhere(data: bytes) -> Verdict:
    """The library and the command line on one damaged log."""
    v = verify_bytes(data, "damaged.tlog")
    assert isinstance(v, Verdict)
    assert v.exit_code in (0, 1, 2)
    if v.exit_code == 2:
        assert v.error and v.error.startswith("damaged.tlog") and "\n" not in v.error
    with contextlib.suppress(LogError):  # unreadable: the error is one LogError
        logjson.dumps(data)
    with contextlib.suppress(LogError):  # a cap passed ends the dump with one LogError
        assert all(isinstance(line, str) for line in annotate(data))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.tlog"
        path.write_bytes(data)
        code, _, err = cli("verify", str(path))
        assert_one_ending(code, err)
        assert code == v.exit_code
        for command in ("dump", "export"):
            code, _, err = cli(command, str(path))
            assert_one_ending(code, err, (0, 2))
        code, _, err = cli("show", str(path))  # (its exit code the verdict's, as verify's)
        assert_one_ending(code, err, (0, 1, 2))
        assert code == v.exit_code
    return v


# ------------------------------------------------------------------ bytes at random
@st.composite
def damaged_logs(draw: st.DrawFn) -> bytes:
    log = bytearray(draw(st.sampled_from(LOGS)))
    for _ in range(draw(st.integers(1, 4))):
        k = draw(st.integers(0, len(log) - 1))
        op = draw(st.sampled_from(["set", "delete", "insert", "cut"]))
        if op == "set":
            log[k] = draw(st.integers(0, 255))
        elif op == "delete":
            del log[k]
        elif op == "insert":
            log.insert(k, draw(st.integers(0, 255)))
        else:
            del log[k:]
        if not log:
            break
    return bytes(log)


# each of these runs on both paths: the compiled core (when it is built) and pure Python
PATHS = pytest.mark.parametrize("path", ["compiled", "pure"])


def on(path: str) -> contextlib.AbstractContextManager[None]:
    """Verify on ``path``: the compiled core where it is built, or pure Python."""
    return pure_python() if path == "pure" else contextlib.nullcontext()


@PATHS
@settings(max_examples=120, deadline=None)
@given(damaged_logs())
def test_damaged_logs_get_a_verdict_never_a_crash(path: str, data: bytes) -> None:
    with on(path):
        check_everywhere(data)


# ------------------------------------------------------------------ structure-aware
SWAPS: list[Any] = [None, True, False, 0, -1, 1.5, float("nan"), "", "x", "[/green]", b"",
                    b"\x00", [], {}, [None] * 4, {"a": 1}, [[0]], "é" * 10]
INTS = [2**64 - 1, 2**63, -(2**63), -1, -(2**31) - 1, 2**31 + 1, 1_000_001, 52, 256, 65_536]
HUGE: list[Any] = [[0] * 4097, [0] * 70_000, b"x" * 4097, b"x" * 70_000, "y" * 5000,
                   {str(i): i for i in range(300)}, [b"z" * 4000] * 20, "n" * 300]
DEPTHS = [9, 64, 600, 1000, 1023, 1100]
PLACEHOLDER = b"\x00placeholder\x00"


def _walk(draw: st.DrawFn, record: Any) -> list[Any]:
    """A path to a field of ``record`` (an index or key at each level)."""
    path: list[Any] = []
    node = record
    while True:
        keys = list(range(len(node))) if isinstance(node, list) else list(node)
        key = draw(st.sampled_from(keys))
        path.append(key)
        child = node[key]
        if isinstance(child, list | dict) and child and draw(st.booleans()):
            node = child
            continue
        return path


def _mutate(draw: st.DrawFn, doc: Any) -> tuple[Any, Any, int]:
    """Change one field somewhere in ``doc``: (the old value, the new, the nesting depth
    to wrap the old value in when the new one is the placeholder)."""
    path = _walk(draw, doc)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    old = parent[path[-1]]
    kind = draw(st.sampled_from(["type", "int", "huge", "deep"]))
    depth = 0
    if kind == "type":
        new = draw(st.sampled_from(SWAPS))
    elif kind == "int":
        new = draw(st.sampled_from(INTS))
    elif kind == "huge":
        new = draw(st.sampled_from(HUGE))
    else:
        new, depth = PLACEHOLDER, draw(st.sampled_from(DEPTHS))
    parent[path[-1]] = new
    return old, new, depth


@st.composite
def mutated_logs(draw: st.DrawFn) -> bytes:
    data = draw(st.sampled_from(LOGS))
    records = list(msgpack.Unpacker(io.BytesIO(data), raw=False))
    # a record (a move is a bare integer: the byte mutations above reach those)
    i = draw(st.sampled_from([k for k, r in enumerate(records) if isinstance(r, list)]))
    old, _, depth = _mutate(draw, records[i])
    out = b"".join(msgpack.packb(r, use_bin_type=True) for r in records)
    if depth:  # deeper than a packer nests: spliced in as bytes
        out = out.replace(msgpack.packb(PLACEHOLDER), b"\x91" * depth
                          + msgpack.packb(old, use_bin_type=True), 1)
    return out


@PATHS
@settings(max_examples=200, deadline=None)
@given(mutated_logs())
def test_structure_mutations_get_a_verdict_never_a_crash(path: str, data: bytes) -> None:
    with on(path):
        check_everywhere(data)


@st.composite
def mutated_json(draw: st.DrawFn) -> str:
    doc = json.loads(logjson.dumps(draw(st.sampled_from(LOGS))))
    records = doc["records"]
    i = draw(st.integers(0, len(records) - 1))
    old, _, depth = _mutate(draw, records[i])
    text = json.dumps(doc, ensure_ascii=False, default=bytes.hex)  # bytes as JSON has them
    if depth:
        text = text.replace(json.dumps(PLACEHOLDER.hex()),
                            "[" * depth + json.dumps(old) + "]" * depth, 1)
    if draw(st.booleans()):  # a number past any a log holds, in digits
        text = text.replace('"deal_number": 0', '"deal_number": ' + "9" * 5000, 1)
    return text


@settings(max_examples=120, deadline=None)
@given(mutated_json())
def test_json_mutations_import_or_one_error(text: str) -> None:
    try:
        data = logjson.loads(text)
    except LogError as e:
        assert "\n" not in str(e)
    else:  # what import accepts, verify can read
        assert verify_bytes(data).error is None
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "m.json", Path(tmp) / "m.tlog"
        src.write_text(text, encoding="utf-8")
        code, _, err = cli("import", str(src), "-o", str(dst))
        assert_one_ending(code, err, (0, 2))
        assert (code == 0) == dst.exists()


@pytest.mark.parametrize("data", [b"", b"\x00", b"\xff" * 100, b"\x9c" + b"\xc0" * 11,
                                  b"\x91" * 1000 + b"\x00", b"\x91" * 2000 + b"\x00",
                                  b"\xdd" + (10**6).to_bytes(4, "big") + bytes(10**6),
                                  b"\xdb\xff\xff\xff\xff" + bytes(100)])
@PATHS
def test_tiny_and_hostile_inputs(path: str, data: bytes) -> None:
    with on(path):
        assert check_everywhere(data).exit_code == 2
