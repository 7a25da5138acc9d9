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
