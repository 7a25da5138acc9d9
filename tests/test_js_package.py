"""The npm package as a user gets it: ``npm pack`` in ``js/``, the tarball installed into a
fresh project (js/README.md, "Installing it outside this repository"), its command run and
its module imported there, away from this repository's ``node_modules``.

npm takes the four dependencies from its cache (``npm ci`` in ``js/`` fills it:
``--prefer-offline``); when they are not there it needs the registry, and a machine that
cannot reach it fails this test saying so, never skips it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from test_js_conformance import JS, ROOT, node  # noqa: F401 (a fixture: js/ built)

CLEAN = ROOT / "fixtures" / "matches" / "eram41-01.tlog"
ALTERED = ROOT / "fixtures" / "altered" / "renege-classic.tlog"
OFFLINE = ("ENOTCACHED", "ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET",
           "network")


def _npm(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: the package cannot be packed")
    return subprocess.run([npm, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=180)


def test_the_packed_tarball_installs_and_verifies_in_a_fresh_project(
        node: str, tmp_path: Path) -> None:  # noqa: F811
    # npm's cache (and the user's npm settings) as they are; no retries waited out
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false",
           "npm_config_audit": "false", "npm_config_fetch_retries": "1",
           "npm_config_fetch_retry_mintimeout": "2000",
           "npm_config_fetch_retry_maxtimeout": "5000", "npm_config_fetch_timeout": "60000"}
    packed = _npm(["pack", "--json", "--pack-destination", str(tmp_path)], JS, env)
    assert packed.returncode == 0, packed.stderr
    tarball = tmp_path / json.loads(packed.stdout)[0]["filename"]
    with tarfile.open(tarball) as tar:
        files = set(tar.getnames())
    # what js/README.md says the tarball holds, and no test or source of this repository
    assert {"package/dist/src/cli.js", "package/dist/src/index.d.ts", "package/dist/verify.html",
            "package/LICENSE", "package/README.md", "package/examples/whole-match.mjs"} <= files
    assert not any(f.startswith(("package/dist/test/", "package/src/", "package/node_modules/"))
                   for f in files)

    project = tmp_path / "project"
    project.mkdir()
    assert _npm(["init", "-y"], project, env).returncode == 0
    installed = _npm(["install", "--prefer-offline", "--no-audit", "--no-fund", str(tarball)],
                     project, env)
    if installed.returncode != 0 and any(w in installed.stderr for w in OFFLINE):
        pytest.fail("npm could not install tarneeb-js's dependencies: they are not in npm's "
                    "cache and the registry cannot be reached (run 'npm ci' in js/ once with "
                    "the network, which fills the cache):\n" + installed.stderr[-800:])
    assert installed.returncode == 0, installed.stderr
    assert (project / "node_modules" / "tarneeb-js" / "dist" / "verify.html").is_file()

    # the command, as js/README.md runs it: its own bin, not this repository's build
    npx = shutil.which("npx")
    assert npx is not None
    verdicts = subprocess.run([npx, "--no", "tarneeb-js", "verify", "--json", str(CLEAN),
                               str(ALTERED)], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120)
    assert verdicts.returncode == 1, verdicts.stderr  # one log has findings
    got = json.loads(verdicts.stdout)
    assert [v["verdict"] for v in got] == ["clean", "findings"]
    assert {f["kind"] for f in got[1]["findings"]} == {"renege"}

    # the module, from an ES module script of the project, and its server entry point
    (project / "check.mjs").write_text(
        "import { readFileSync } from 'node:fs';\n"
        "import { verifyBytes } from 'tarneeb-js';\n"
        "import * as server from 'tarneeb-js/server';\n"
        "const v = await verifyBytes(new Uint8Array(readFileSync(process.argv[2])), 'm.tlog');\n"
        "console.log(JSON.stringify({ verdict: v.verdict, hands: v.hands,\n"
        "  where: import.meta.resolve('tarneeb-js'), server: typeof server.MatchRecorder }));\n")
    out = subprocess.run([node, "check.mjs", str(CLEAN)], cwd=project, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["verdict"] == "clean" and seen["hands"] > 0 and seen["server"] == "function"
    assert "/project/node_modules/tarneeb-js/" in seen["where"]  # the installed copy
