"""The js package's writer for Node servers (``MatchRecorder`` of ``tarneeb-js/server``),
driven by a small Node script (``tests/node/record_match.mjs``) as a server would: a whole
match on fresh seeds in every rule set verifies clean with the key pinned; for the same
seeds, moves and key it writes byte for byte what the Python recorder writes (the format is
deterministic given them: Ed25519 signatures are too); and a server killed with SIGKILL
mid-match leaves a log that verifies up to its last whole value, every acknowledged value
in it, with one clear verdict and exit code 1."""

from __future__ import annotations

import contextlib
import io
import json
import random
import signal
import subprocess
from pathlib import Path

import pytest
from js_build import built

from tarneeb.audit.signing import (
    generate_private_key,
    load_private_key,
    load_public_key_file,
    private_key_pem,
    public_key_pem,
    public_key_raw,
)
from tarneeb.cli.entry import main
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.recorder import record_json
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import receipt_json
from tarneeb.replay.verify.replayer import verify_file
from tarneeb.replay.verify.trust import Trust

SCRIPT = Path(__file__).resolve().parent / "node" / "record_match.mjs"
RULE_SETS = ["eram41", "qahwa41", "sahrat41", "sahrat400", "classic"]


@pytest.fixture(scope="module")
def node() -> str:
    return built("server.js")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_node_server_plays_a_match_verify_finds_clean(node: str, tmp_path: Path,
                                                         rules: str) -> None:
    out, public = tmp_path / "node.tlog", tmp_path / "node.pub.pem"
    done = subprocess.run([node, str(SCRIPT), "play", rules, str(out), str(public), "group:5"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    server_seed = bytes.fromhex(done.stdout.split()[0])
    key = public_key_raw(load_public_key_file(public))
    v = verify_file(str(out), trust=Trust(public_key=key))
    assert v.clean, [str(f) for f in v.findings]
    assert v.key_pinned and v.deals_proven
    log = parse_log(out.read_bytes())
    assert log.header.rules.name == rules and log.end is not None
    assert log.end.server_seed == server_seed
    code, said, err = run_cli(["verify", "--key", str(public), "--receipt",
                               f"{out}.receipt.json", str(out)])
    assert code == 0 and "clean" in said and "pinned" in said, said + err
    assert "not compared with a seat's pre-play receipt" not in said  # it was, and matched


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``tarneeb ARGV…``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            pytest.raises(SystemExit) as e:
        main(argv)
    return int(e.value.code or 0), out.getvalue(), err.getvalue()


def _python_log(rules: str, label: bytes, seeded: bool = True) -> tuple[bytes, bytes]:
    """A match the Python side plays and records: its log and the platform key's PEM."""
    secrets = MatchSecrets(label)
    log = play_logged_match(rules, seed=label, seeded=seeded)
    return log, private_key_pem(secrets.key)


def _replay(node: str, tmp_path: Path, log: bytes, pem: bytes, durability: str) -> bytes:
    match, key, out = tmp_path / "match.json", tmp_path / "key.pem", tmp_path / "node.tlog"
    match.write_text(logjson.dumps(log), encoding="utf-8")
    key.write_bytes(pem)
    done = subprocess.run([node, str(SCRIPT), "replay", str(match), str(out), str(key),
                           durability], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


CASES = [(r, True, d) for r, d in zip(RULE_SETS, ["flush", "fsync", "group:5", "flush",
                                                   "group:2"], strict=True)] + [
    ("eram41", False, "flush"), ("classic", False, "fsync")]


@pytest.mark.parametrize("rules, seeded, durability", CASES,
                         ids=[f"{r}-{'seeds' if s else 'recorded'}-{d}" for r, s, d in CASES])
def test_the_node_recorder_writes_the_python_recorders_bytes(node: str, tmp_path: Path,
                                                             rules: str, seeded: bool,
                                                             durability: str) -> None:
    log, pem = _python_log(rules, f"js recorder {rules}".encode(), seeded)
    mine = _replay(node, tmp_path, log, pem, durability)
    python = io.BytesIO()
    record_json(logjson.to_json(log), python, key=load_private_key(pem))
    assert python.getvalue() == log  # the Python recorder's bytes, for the same calls
    assert mine == log  # byte for byte: header, every move, claims, end, signature
    if seeded:  # and the seats' receipt is the Python one, byte for byte
        receipt = (tmp_path / "node.tlog.receipt.json").read_text(encoding="utf-8")
        assert receipt == receipt_json(parse_log(log).header, load_private_key(pem))
    v = verify_file(str(tmp_path / "node.tlog"),
                    trust=Trust(public_key=parse_log(log).header.public_key))
    assert v.clean and v.key_pinned


def test_an_abandoned_match_with_timer_moves(node: str, tmp_path: Path) -> None:
    """Every value kind: timer moves (two bytes), the abandonment record."""
    vector = json.loads((Path(__file__).resolve().parent.parent / "fixtures" / "vectors"
                         / "log-abandoned.json").read_text(encoding="utf-8"))
    log = bytes.fromhex(vector["log"])
    doc = logjson.to_json(log)
    assert doc["records"][-2]["abandoned"] is not None
    key = generate_private_key()
    python = io.BytesIO()
    doc["records"][0]["public_key"] = public_key_raw(key.public_key()).hex()
    record_json(doc, python, key=key)
    mine = _replay(node, tmp_path, python.getvalue(), private_key_pem(key), "fsync")
    assert mine == python.getvalue()


def test_a_node_server_killed_mid_match_leaves_a_log_that_verifies_to_its_last_value(
        node: str, tmp_path: Path) -> None:
    rng = random.Random(20)
    log, pem = _python_log("sahrat41", b"js recorder killed")
    server_seed = parse_log(log).end.server_seed
    match, key = tmp_path / "match.json", tmp_path / "key.pem"
    match.write_text(logjson.dumps(log), encoding="utf-8")
    key.write_bytes(pem)
    public = tmp_path / "key.pub.pem"
    public.write_bytes(public_key_pem(load_private_key(pem).public_key()))
    for attempt in range(3):
        out = tmp_path / f"killed-{attempt}.tlog"
        proc = subprocess.Popen([node, str(SCRIPT), "replay", str(match), str(out), str(key),
                                 "group:5", "1"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        acked = 0
        for _ in range(rng.randrange(20, 600)):
            line = proc.stdout.readline()
            assert line.startswith("ack "), line
            acked = int(line.split()[2])
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        data = out.read_bytes()
        assert len(data) >= acked  # every acknowledged value is in the file
        assert data[:acked] == log[:acked]  # and is what the whole match has there
        code, said, err = run_cli(["verify", "--key", str(public), "--server-seed",
                                   server_seed.hex(), str(out)])
        assert code == 1, said + err
        assert "Traceback" not in said + err
        assert "not signed yet" in said and "crashed" in said and "cut at byte" in said, said
        v = verify_file(str(out), trust=Trust(public_key=public_key_raw(
            load_public_key_file(public)), server_seed=server_seed))
        assert [f.kind for f in v.findings] == ["cut-short"], [str(f) for f in v.findings]


def test_both_recorders_read_a_group_interval_alike() -> None:
    """Decimal milliseconds, or refused, in both (Node took group:0x10 and group:0b11,
    Python group:1_000)."""
    from js_build import JS

    from tarneeb.replay.log.writer import Durability

    node = built("log/writer.js")
    texts = ["group:5", "group: 5 ", "group:2.5", "group:0x10", "group:0b11", "group:1_000",
             "group:1e3", "group:", "group:-1", "group:60001", "group:inf", "group:nan",
             "group:٣", "flush", "fsync"]
    script = ("import { parseDurability } from './dist/src/log/writer.js';"
              "const out = JSON.parse(process.argv[1]).map((t) => {"
              "  try { return parseDurability(t).intervalMs; } catch { return null; } });"
              "process.stdout.write(JSON.stringify(out));")
    done = subprocess.run([node, "--input-type=module", "-e", script, json.dumps(texts)],
                          capture_output=True, text=True, cwd=JS, check=True, timeout=60)
    py = []
    for t in texts:
        try:
            py.append(Durability.parse(t).interval_ms)
        except ValueError:
            py.append(None)
    assert json.loads(done.stdout) == py
    assert py[:3] == [5, 5, 2.5] and py[3:7] == [None] * 4
