"""js/examples/whole-match.mjs: a whole match written by a Node server with the package's
public entry points alone, played to its end, found clean by the Python verifier with the
key pinned and the seat's receipt; and what ``npm pack`` puts in the package (the example,
the license)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from js_build import built

from tarneeb.audit.signing import load_public_key_file, public_key_raw
from tarneeb.replay.log import parse_log
from tarneeb.replay.verify.receipt import read_receipt
from tarneeb.replay.verify.replayer import verify_file
from tarneeb.replay.verify.trust import Trust

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
EXAMPLE = JS / "examples" / "whole-match.mjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on the PATH")


@pytest.mark.parametrize("rules", ["eram41", "classic"])
def test_the_whole_match_example_ends_and_verifies_clean(tmp_path: Path, rules: str) -> None:
    """eram41 shows its dealer's card and takes the trump from it; classic names it."""
    node = built("index.js")
    run = subprocess.run([node, str(EXAMPLE), rules, "m.tlog"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert re.search(rf"^wrote m\.tlog: {rules}, \d+ hands, won by team [12]; check it: "
                     r"tarneeb verify --key m\.pub\.pem --receipt m\.receipt\.json m\.tlog$",
                     run.stdout, re.M), run.stdout
    log = parse_log((tmp_path / "m.tlog").read_bytes())
    assert log.end is not None and log.end.abandoned is None and log.end.winner in (0, 1)
    key = public_key_raw(load_public_key_file(tmp_path / "m.pub.pem"))
    receipt = read_receipt((tmp_path / "m.receipt.json").read_bytes())
    verdict = verify_file(str(tmp_path / "m.tlog"), Trust(public_key=key, receipts=(receipt,)))
    assert verdict.clean and verdict.findings == [], verdict.findings
    # a second run does not write over the log
    again = subprocess.run([node, str(EXAMPLE), rules, "m.tlog"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 2 and again.stderr == (
        "whole-match: m.tlog exists: a recorder never writes over a log (resume a log a crash "
        "cut short with MatchRecorder.resume)\n")
    assert parse_log((tmp_path / "m.tlog").read_bytes()) == log


def test_the_example_imports_the_package_by_its_entry_points() -> None:
    """What a server outside this repository can import: tarneeb-js and tarneeb-js/server."""
    code = EXAMPLE.read_text(encoding="utf-8")
    sources = re.findall(r'^import .*? from "([^"]+)";', code, re.M | re.S)
    assert sorted(set(sources)) == ["node:fs", "tarneeb-js", "tarneeb-js/server"], sources


def test_npm_pack_carries_the_license_and_the_example() -> None:
    npm = shutil.which("npm")
    assert npm is not None, "node is on the PATH but npm is not"
    built("index.js")
    packed = subprocess.run([npm, "pack", "--dry-run", "--json"], cwd=JS, capture_output=True,
                            text=True, timeout=120, check=True)
    files = {f["path"] for f in json.loads(packed.stdout)[0]["files"]}
    assert {"LICENSE", "README.md", "package.json", "dist/verify.html",
            "examples/whole-match.mjs", "dist/src/index.js", "dist/src/server.js"} <= files
    assert (JS / "LICENSE").read_text(encoding="utf-8") == \
        (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert json.loads((JS / "package.json").read_text(encoding="utf-8"))["license"] == "MIT"
