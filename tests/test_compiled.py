"""The compiled core and the pure-Python path give the same verdict on every log.

The core (:mod:`tarneeb.replay.verify.compiled`) only ever confirms a clean log; every
other log goes to the Python replayer. Here both paths verify the corpus, the altered
corpus, the vectors' logs and thousands of generated and mutated logs, and must give
the same verdict JSON and the same history. When the core is not built the compiled
path is the Python one and these tests compare it with itself; ``tarneeb --version``
says which path is in use.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings

from tarneeb.replay.log import LogError, jsonform, parse_log
from tarneeb.replay.log.records import SignatureRecord, encode_record
from tarneeb.replay.rules import compiled as core_switch
from tarneeb.replay.rules.ruleset import PRESETS, load_rules_file
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.compiled import rules_params, verify_data
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.replayer import verify_bytes, verify_file
from tarneeb.testing.alterations import NotApplicable, iter_tampers
from tarneeb.testing.strategies import edited_logs, logs

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = sorted((FIXTURES / "matches").glob("*.tlog"))
ALTERED = sorted((FIXTURES / "altered").glob("*.tlog"))
BUILT = core_switch.CORE is not None  # built, and not turned off (TARNEEB_PURE)


def _importable() -> bool:
    try:
        from tarneeb.replay.rules import _core  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:
        return False
    return True


def pure(data: bytes) -> Verdict:
    """The Python path's verdict on ``data``."""
    with core_switch.pure_python():
        return verify_bytes(data, "m.tlog", count_paths=True)


def assert_same(data: bytes) -> Verdict:
    """Both paths' verdicts on ``data`` are the same JSON and the same history."""
    fast = verify_bytes(data, "m.tlog", count_paths=True)
    slow = pure(data)
    assert json.dumps(fast.to_json(), sort_keys=True, default=str) == \
        json.dumps(slow.to_json(), sort_keys=True, default=str)
    assert list(fast.history) == list(slow.history)
    assert fast.paths == slow.paths
    return fast


@pytest.mark.parametrize("path", CORPUS + ALTERED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_and_altered_corpus(path: Path) -> None:
    assert_same(path.read_bytes())


def test_corpus_is_mostly_confirmed_by_the_core() -> None:
    """The core covers the common case: most of the clean corpus never reaches Python."""
    if not BUILT:
        pytest.skip("the compiled core is not built here: the pure path is the only one")
    confirmed = sum(verify_data(p.read_bytes(), p.name) is not None for p in CORPUS)
    assert confirmed >= len(CORPUS) // 2


def test_vectors_logs() -> None:
    for path in sorted((FIXTURES / "vectors").glob("log-*.json")):
        vector = json.loads(path.read_text())
        for item in vector if isinstance(vector, list) else [vector]:
            for text in _hex_values(item):
                assert_same(bytes.fromhex(text))


def _hex_values(obj: object) -> list[str]:
    """Every hex string in a vector that is a log (begins like a msgpack array)."""
    out: list[str] = []
    if isinstance(obj, dict):
        for value in obj.values():
            out += _hex_values(value)
    elif isinstance(obj, list):
        for value in obj:
            out += _hex_values(value)
    elif isinstance(obj, str) and len(obj) > 200 and len(obj) % 2 == 0:
        try:
            data = bytes.fromhex(obj)
        except ValueError:
            return out
        if data[:1] in (b"\x9c", b"\x9d", b"\xdc"):
            out.append(obj)
    return out


def test_every_preset_and_tampering() -> None:
    """Every preset's matches, and every alteration of the catalogue on them."""
    for name, rules in PRESETS.items():
        for i in range(3):
            data = play_logged_match(name, seed=f"compiled/{name}/{i}".encode())
            assert assert_same(data).clean
        for tamper in iter_tampers(rules):
            for choice in range(3):
                try:
                    altered, _ = tamper(data, choice=choice)
                except NotApplicable:
                    continue
                assert_same(altered)


SIGNATURE_RECORD = 68  # fixarray 2, type 3, bin 64: the last record of a signed log


def test_mutated_bytes() -> None:
    """Thousands of logs with bytes flipped, cut, doubled, each signed again under the key
    its header names, so that the signature check passes and the damage reaches the
    replay: the same verdict either way, and most of them get past the signature."""
    rng = random.Random(22)
    key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    bases = [play_logged_match(name, seed=f"mutated/{name}".encode(), key=key)
             for name in PRESETS]
    past_signature = 0
    for k in range(2000):
        base = rng.choice(bases)
        data = bytearray(base[:-SIGNATURE_RECORD])
        how = k % 4
        at = rng.randrange(len(data))
        if how == 0:
            data[at] ^= 1 << rng.randrange(8)
        elif how == 1:
            data[at] = rng.randrange(256)
        elif how == 2:
            del data[at:at + rng.randrange(1, 8)]
        else:
            data[at:at] = data[at:at + rng.randrange(1, 8)]
        body = bytes(data)
        signed = body + encode_record(SignatureRecord(key.sign(body)))
        verdict = assert_same(signed)
        kinds = {f.kind for f in verdict.findings}
        past_signature += not kinds & {"broken-signature", "unsigned", "key-mismatch"}
    assert past_signature > 1000, past_signature


@settings(max_examples=150, deadline=None)
@given(logs())
def test_generated_logs(data: bytes) -> None:
    assert assert_same(data).clean


@settings(max_examples=150, deadline=None)
@given(edited_logs())
def test_edited_logs(data: bytes) -> None:
    assert_same(data)


def test_rules_file_with_target_400(tmp_path: Path) -> None:
    """A rules file's match (eram41 played to 400): the same verdict, confirmed by the core."""
    rules = load_rules_file(FIXTURES.parent / "bench" / "eram400.toml")
    data = play_logged_match(rules, seed=b"compiled/eram400", max_hands=2000)
    assert assert_same(data).clean
    if BUILT:
        assert verify_data(data, "m.tlog") is not None
    log = tmp_path / "m.tlog"
    log.write_bytes(data)
    fast = verify_file(str(log))
    with core_switch.pure_python():
        assert fast.to_json() == verify_file(str(log)).to_json()


def test_a_bad_log_is_passed_to_python() -> None:
    """The core never makes a finding: a wrong claim goes to the Python path, which says it."""
    data = play_logged_match("eram41", seed=b"compiled/bad")
    log = parse_log(data)
    assert log.hands[0].totals is not None
    text = json.loads(jsonform.dumps(data))
    assert text["format"] == "tarneeb-log-json"
    damaged = bytearray(data)
    damaged[-1] ^= 1  # the signature
    assert verify_data(bytes(damaged), "m.tlog") is None
    assert assert_same(bytes(damaged)).findings


def test_unreadable_logs_are_the_same() -> None:
    for data in (b"", b"\x00" * 10, b"\x9c", b"not a log"):
        with pytest.raises(LogError):
            parse_log(data)
        assert assert_same(data).error is not None


def test_version_says_which_path() -> None:
    """``tarneeb --version`` names the path; TARNEEB_PURE=1 turns the core off."""
    env = dict(os.environ, TARNEEB_PURE="1")
    done = subprocess.run([sys.executable, "-m", "tarneeb", "--version"], env=env,
                          capture_output=True, check=True)
    assert done.stdout.decode().strip().endswith("(pure Python, TARNEEB_PURE is set)")
    env.pop("TARNEEB_PURE")
    done = subprocess.run([sys.executable, "-m", "tarneeb", "--version"], env=env,
                          capture_output=True, check=True)
    want = "(compiled core)" if _importable() else "(pure Python)"
    assert done.stdout.decode().strip().endswith(want)


SANITIZED_RUN = """
import importlib.util, random, sys
spec = importlib.util.spec_from_file_location("tarneeb.replay.rules._core", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
from tarneeb.replay.rules import compiled
compiled.CORE = mod
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
rng = random.Random(22)
bases = [play_logged_match(n, seed=n.encode()) for n in PRESETS]
assert all(verify_bytes(b).clean for b in bases)
for k in range(int(sys.argv[2])):
    d = bytearray(rng.choice(bases))
    at = rng.randrange(len(d))
    if k % 3 == 0:
        d[at] ^= 1 << rng.randrange(8)
    elif k % 3 == 1:
        del d[at:]
    else:
        d[at] = rng.randrange(256)
    verify_bytes(bytes(d))
print("sanitized ok")
"""


def test_core_under_address_and_undefined_behaviour_sanitizers(tmp_path: Path) -> None:
    """The C core built with -fsanitize=address,undefined (into a temporary folder), run
    over clean logs and damaged ones (flipped, cut, overwritten bytes) under libasan:
    no out-of-bounds read, no undefined behaviour. Needs gcc and its libasan; more
    cases with TARNEEB_SANITIZE_CASES."""
    import shutil
    import sysconfig

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc here to build the sanitized core")
    libs = [subprocess.run([gcc, f"-print-file-name={lib}"], capture_output=True, text=True,
                           check=False).stdout.strip() for lib in ("libasan.so", "libubsan.so")]
    if not all(Path(lib).is_absolute() and Path(lib).exists() for lib in libs):
        pytest.skip("gcc's libasan or libubsan is not installed")
    so = tmp_path / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}"
    subprocess.run([gcc, "-shared", "-fPIC", "-O1", "-g", "-fno-omit-frame-pointer",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                    "-I", sysconfig.get_paths()["include"], str(ROOT / "replay/rules/_core.c"),
                    "-o", str(so)], check=True)
    env = dict(os.environ, LD_PRELOAD=":".join(libs), ASAN_OPTIONS="detect_leaks=0")
    cases = os.environ.get("TARNEEB_SANITIZE_CASES", "600")
    done = subprocess.run([sys.executable, "-c", SANITIZED_RUN, str(so), cases], env=env,
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0 and "sanitized ok" in done.stdout, done.stderr[-3000:]


def test_archive_audit_is_the_same_on_both_paths() -> None:
    """The archive audit's rows, findings, claims and deal tallies, with the core and
    without it, over the corpus and the altered corpus."""
    from tarneeb.replay.archive.audit import audit_chunk

    paths = [str(p) for p in CORPUS + ALTERED]
    fast = audit_chunk(paths)
    with core_switch.pure_python():
        slow = audit_chunk(paths)
    for name in ("matches", "findings", "unpinned", "identities", "claims", "endings",
                 "not_read", "shares"):
        assert getattr(fast, name) == getattr(slow, name), name
    assert sorted(fast.tallies) == sorted(slow.tallies)
    for kind, tally in fast.tallies.items():
        assert tally.counts == slow.tallies[kind].counts
        assert tally.sums == slow.tallies[kind].sums


def test_core_refuses_arguments_out_of_range() -> None:
    """The C functions check what they are given: a start past the bytes, a count past
    them, a rules tuple out of shape; cut bytes are no hand."""
    core = core_switch.CORE
    if core is None:
        pytest.skip("the compiled core is not built here, or turned off")
    data = play_logged_match("eram41", seed=b"compiled/args")
    assert core.scan(data, len(data) + 1, 10) is None
    assert core.scan(b"", 0, 10) == (0, 0)
    assert core.scan(b"\x95\x01", 0, 10) == (0, 0)  # a deal record cut after its head
    log = parse_log(data)
    params = rules_params(log.header.rules)
    assert params is not None
    with pytest.raises(ValueError):
        core.replay(data, len(data) + 1, 1, params, 0, None, None)
    with pytest.raises(ValueError):
        core.replay(data, 0, 1, params[:-1], 0, None, None)
    with pytest.raises(ValueError):
        core.replay(data, 0, 1, params, 4, None, None)
    deriver_hashes = (None, None)
    for where in (0, 3, len(params) - 1):  # an int field given a value it cannot hold
        for value in (2**31, -2**31, 2**40):
            bad = (*params[:where], value, *params[where + 1:])
            with pytest.raises(ValueError, match=r"out of the range|out of shape"):
                core.replay(data, 0, 1, bad, 0, *deriver_hashes)
    with pytest.raises(OverflowError):  # beyond 64 bits: refused by Python's conversion
        core.replay(data, 0, 1, (2**70, *params[1:]), 0, *deriver_hashes)
    start = log.offsets[0]
    cut = data[:start + 20]  # the first hand cut inside its moves: not confirmed
    assert core.replay(cut, start, 1, params, log.header.first_dealer, None, None) is None
