"""Logs are untrusted input: any damage gives a verdict or a LogError, never a crash."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.replay import logjson
from tarneeb.replay.annotate import annotate
from tarneeb.replay.findings import Verdict
from tarneeb.replay.logformat import LogError
from tarneeb.replay.replayer import verify_bytes
from tarneeb.replay.rules import PRESETS
from tarneeb.replay.simulate import play_logged_match

LOGS = [play_logged_match(name, seed=f"untrusted/{name}".encode()) for name in PRESETS] + [
    play_logged_match("eram41", seed=b"untrusted/recorded", seeded=False)]


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


@settings(max_examples=300, deadline=None)
@given(damaged_logs())
def test_damaged_logs_get_a_verdict_never_a_crash(data: bytes) -> None:
    v = verify_bytes(data, "damaged.tlog")
    assert isinstance(v, Verdict)
    assert v.exit_code in (0, 1, 2)
    if v.exit_code == 2:
        assert v.error and v.error.startswith("damaged.tlog")
    with contextlib.suppress(LogError):  # unreadable: the error is one LogError
        logjson.dumps(data)
    assert all(isinstance(line, str) for line in annotate(data))


@pytest.mark.parametrize("data", [b"", b"\x00", b"\xff" * 100, b"\x9c" + b"\xc0" * 11])
def test_tiny_inputs(data: bytes) -> None:
    assert verify_bytes(data).exit_code == 2
    assert all(isinstance(line, str) for line in annotate(data))
