"""The TypeScript package in ``js/``, built for a test: ``node`` on the PATH and ``js/dist``
no older than its sources (``npm run build`` otherwise; ``npm ci`` first when its packages
are missing). A machine without Node fails the test that needs it, saying so."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
DIST = JS / "dist" / "src"


def built(stamp: str = "index.js") -> str:
    """The path of ``node``, once ``js/dist`` is up to date (``stamp``: a file it must hold)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (>= 20) is not installed: the js package cannot run (make test "
                    "installs it)")
    out = DIST / stamp
    sources = [*(JS / "src").rglob("*.ts"), JS / "package-lock.json"]
    if not out.exists() or any(p.stat().st_mtime > out.stat().st_mtime for p in sources):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: the js package cannot be built")
        if not (JS / "node_modules").exists():
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
        subprocess.run([npm, "run", "build"], cwd=JS, check=True, capture_output=True)
    return node


# each log's verdict in the TypeScript verifier's words: its lines and its error (or null)
_VERDICT_LINES = ("import { readFileSync } from 'node:fs';"
                  "import { verifyBytes } from './dist/src/verify/verify.js';"
                  "import { verdictLines } from './dist/src/verify/people.js';"
                  "const out = [];"
                  "for (const p of JSON.parse(process.argv[1])) {"
                  "  const v = await verifyBytes(new Uint8Array(readFileSync(p)), p);"
                  "  const { lines, error } = verdictLines(v); out.push([lines, error]); }"
                  "process.stdout.write(JSON.stringify(out));")


def js_verdict_lines(node: str, paths: list[str], env: dict[str, str]
                     ) -> list[tuple[list[str], str | None]]:
    """Per log of ``paths``, the TypeScript verifier's verdict in words (``verdictLines``):
    its lines and its error line (None: none), in one ``node`` run."""
    import json

    done = subprocess.run([node, "--input-type=module", "-e", _VERDICT_LINES,
                           json.dumps(paths)], capture_output=True, text=True, env=env,
                          cwd=JS, timeout=300, check=True)
    return [(lines, error) for lines, error in json.loads(done.stdout)]
