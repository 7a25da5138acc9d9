"""A platform that edits a blind log after the fact cannot put an honest seat in the findings
(docs/PROTOCOL.md §13.4, "causal order"): one group element of one seat's shuffle pass, or
of one seat's partial decryptions of one round, replaced in a match dealt blind without
revealed keys, the log signed again with the platform's key; both verifiers name that seat
and no other, in the same words (the next seat's pass, made on the deck the changed seat
really published, and the decryptions built on the changed element are not judged, and the
fault's sentence says so). For every seat's pass and every seat's batch of every round,
under ``tarneeb-blind-v3``; the passes and round 1 under v2. The TypeScript verifier takes
~0.6 s a blind log: it is given every pass and, for each seat, its batch of one round (each
round at least once) under v3; all 24 with ``TARNEEB_BLAME_ALL=1``."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from js_build import built

from tarneeb.audit.blind import mul_base, owner, reduce64
from tarneeb.audit.blind.deal import decrypt_order
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations.base import rewrite

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "js" / "dist" / "src" / "cli.js"
KEY = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"blame platform").digest())
OTHER = mul_base(reduce64(hashlib.sha512(b"an element put in after the fact").digest()))
Case = tuple[str, bytes, int]  # what was changed, the log, the seat that made the step


def _changed(log: bytes, step: str, row: int, position: int) -> bytes:
    def change(edit: object) -> None:
        t = edit.hands[0].blind  # type: ignore[attr-defined]
        rows = t.passes if step == "pass" else t.partials
        raw = bytearray(rows[row])
        raw[32 * position:32 * position + 32] = OTHER
        rows[row] = bytes(raw)
    return rewrite(log, change, KEY)


def _cases(version: int, rounds: int) -> list[Case]:
    log = play_blind_match("qahwa41", seed=b"blame %d" % version, target=3, key=KEY,
                           reveal_keys=False, max_hands=1, version=version)
    assert verify_bytes(log).clean
    dealer = parse_log(log).hands[0].dealer
    cases = [(f"v{version} pass of seat {s}", _changed(log, "pass", s, 7), s) for s in range(4)]
    for r in range(rounds):
        for p in range(4):  # positions 0-3 have four owners: each seat decrypts one of them
            seat = decrypt_order(owner(p, dealer))[r]
            cases.append((f"v{version} round {r + 1}, seat {seat}", _changed(log, "round", r, p),
                          seat))
    return cases


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    out = _cases(3, 3) + _cases(2, 1)
    assert {(name.split(",")[0], seat) for name, _, seat in out if "round" in name} >= {
        (f"v3 round {r}", s) for r in (1, 2, 3) for s in range(4)}
    return out


def test_python_names_only_the_changed_seat(cases: list[Case]) -> None:
    for name, log, seat in cases:
        v = verify_bytes(log)
        assert not v.clean, name
        assert {f.seat for f in v.findings if f.seat is not None} == {seat}, (
            name, [str(f) for f in v.findings])
        first = v.findings[0]
        assert first.seat == seat and first.kind in ("wrong-shuffle", "wrong-decryption")
    # the pass of seat 1 changed: seat 2's pass and the decryptions are said not judged
    v = verify_bytes(cases[1][1])
    assert "cannot be judged" in str(v.findings[0]) and "seat 2's pass" in str(v.findings[0])


def test_typescript_names_only_the_changed_seat(cases: list[Case], tmp_path: Path) -> None:
    node = built("cli.js")
    if not os.environ.get("TARNEEB_BLAME_ALL"):  # every pass; each seat in one round
        cases = [c for c in cases if c[0].startswith("v3") and (
            "pass" in c[0] or c[0] in {f"v3 round {s % 3 + 1}, seat {s}" for s in range(4)})]
        assert len(cases) == 8
    paths = []
    for i, (_, log, _) in enumerate(cases):
        paths.append(tmp_path / f"{i:02d}.tlog")
        paths[-1].write_bytes(log)
    run = subprocess.run([node, str(CLI), "verify", "--json", *map(str, paths)],
                         capture_output=True, text=True, timeout=120,
                         env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1, run.stderr
    for (name, _, seat), verdict in zip(cases, json.loads(run.stdout), strict=True):
        assert verdict["verdict"] == "findings", name
        named = {f["seat"] for f in verdict["findings"] if f["seat"] is not None}
        assert named == {seat}, (name, verdict["findings"])
        assert verdict["findings"][0]["kind"] in ("wrong-shuffle", "wrong-decryption"), name
    for (name, log, _), verdict in zip(cases, json.loads(run.stdout), strict=True):
        py = [(f.kind, f.message, f.hand, f.seat) for f in verify_bytes(log).findings]
        assert [(f["kind"], f["message"], f["hand"], f["seat"])
                for f in verdict["findings"]] == py, name  # the same words
