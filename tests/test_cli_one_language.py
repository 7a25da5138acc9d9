"""The two CLIs speak one language: ``tarneeb verify`` and ``tarneeb-js verify`` print the
same first line (file, verdict, hands, who signed), the same line of what the signature
proves and the same notes, hands counted from 1, on every log of the fixture corpus. (The
lines that name a seat still differ: the TypeScript CLI names seats by number, not by
player.)"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from cli_runner import run
from js_build import DIST, built, js_verdict_lines

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _lines(out: str) -> list[str]:
    """The lines the two CLIs share: all but the findings and the deals line."""
    first, _deals, *rest = out.splitlines()
    return [first, *(line for line in rest if line.startswith(("  signed by", "  signature ",
                                                                 "  not signed", "  note: "))
                     and not re.search(r"\b(seat|team) \d", line))]


def test_both_clis_say_the_same_verdict_lines_on_the_corpus(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    node = built("cli.js")
    logs = sorted(str(p) for p in [*FIXTURES.glob("matches/*.tlog"),
                                   *FIXTURES.glob("altered/*.tlog")])
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    # every log at once: a short line each, the notes they share and the count, alike
    js = subprocess.run([node, str(DIST / "cli.js"), "verify", *logs], capture_output=True,
                        text=True, timeout=300, env=env)
    code, out, _ = run(capsys, "verify", *logs)
    assert js.returncode == code and js.stdout == out, js.stderr
    # each log alone: its verdict in full (one node run over them all)
    said = js_verdict_lines(node, logs, env)
    compared = 0
    for log, (lines, _) in zip(logs, said, strict=True):
        code, out, _ = run(capsys, "verify", log)
        if code == 2:
            continue
        assert _lines("\n".join(lines)) == _lines(out), log
        compared += 1
    assert compared > 60
