"""examples/node: a server in Node.js writes a log move by move with the js package's
``MatchRecorder`` (``tarneeb-js/server``), and ``tarneeb verify`` finds it clean. Runs
where ``node`` is on the PATH (the project's machines and CI have it); the package is
built and npm installs it into the example."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from js_build import built

from tarneeb.audit.signing import load_public_key_file, public_key_raw
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.verify.replayer import verify_file
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "node"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on the PATH")


@pytest.fixture(scope="module")
def installed() -> Path:
    """The example with its npm package installed (from its lock file: js/, built)."""
    built("server.js")
    if not (EXAMPLE / "node_modules" / "tarneeb-js").exists():
        npm = shutil.which("npm")
        assert npm is not None, "node is on the PATH but npm is not"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                       cwd=EXAMPLE, check=True, capture_output=True, timeout=300)
    return EXAMPLE


def inputs() -> list[tuple[str, bytes]]:
    fixtures = ROOT / "fixtures"
    vector = json.loads((fixtures / "vectors" / "log-abandoned.json").read_text(encoding="utf-8"))
    return [(name, (fixtures / "matches" / f"{name}.tlog").read_bytes())
            for name in ("classic-timer", "eram41-recorded-deals", "sahrat400-01",
                         "house-classic31-01")] + [
        ("abandoned", bytes.fromhex(vector["log"]))]


@pytest.mark.parametrize("name, log", inputs(), ids=[n for n, _ in inputs()])
def test_the_node_server_writes_a_log_verify_finds_clean(installed: Path, tmp_path: Path,
                                                         name: str, log: bytes) -> None:
    match = tmp_path / "match.json"
    match.write_text(logjson.dumps(log), encoding="utf-8")
    out, key = tmp_path / "node.tlog", tmp_path / "node.pub.pem"
    durability = {"abandoned": "fsync", "sahrat400-01": "group:5"}.get(name, "flush")
    run = subprocess.run([NODE, str(installed / "server.mjs"), str(match), str(out), str(key),
                          durability], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"wrote {out}: ")
    public = public_key_raw(load_public_key_file(key))
    v = verify_file(str(out), trust=Trust(public_key=public))
    assert v.clean, [str(f) for f in v.findings]
    assert v.key_pinned
    # byte for byte what tarneeb writes, but for the header's key and the signature
    mine, theirs = parse_log(out.read_bytes()), parse_log(log)
    assert mine.header.public_key == public
    assert out.read_bytes()[mine.offsets[0]:mine.signature_offset] == \
        log[theirs.offsets[0]:theirs.signature_offset]
    if name == "abandoned":
        assert v.ending is not None and v.ending.startswith("abandoned at hand 1")
