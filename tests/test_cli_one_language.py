"""The two CLIs speak one language: ``tarneeb verify`` and ``tarneeb-js verify`` print the
same first line (file, verdict, hands, who signed), the same line of what the signature
proves and the same notes, hands counted from 1, on every log of the fixture corpus. (The
lines that name a seat still differ: the TypeScript CLI names seats by number, not by
player.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cli_runner import run
from js_build import DIST, built

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _lines(out: str) -> list[str]:
    """The lines the two CLIs share: all but the findings and the deals line."""
    first, _deals, *rest = out.splitlines()
    return [first, *(line for line in rest if line.startswith(("  signed by", "  signature ",
                                                                 "  not signed", "  note: "))
                     and not re.search(r"\b(seat|team) \d", line))]


def test_both_clis_say_the_same_verdict_lines_on_the_corpus(
        capsys: pytest.CaptureFixture[str]) -> None:
    node = built("cli.js")
    logs = sorted(str(p) for p in [*FIXTURES.glob("matches/*.tlog"),
                                   *FIXTURES.glob("altered/*.tlog")])
    js = subprocess.run([node, str(DIST / "cli.js"), "verify", *logs], capture_output=True,
                        text=True, timeout=300)
    said = js.stdout.split("\n" + FIXTURES.as_posix())  # one block per log
    blocks = [said[0], *(FIXTURES.as_posix() + b for b in said[1:])]
    by_log = {b.split(":", 1)[0]: b for b in blocks if not b.split(":", 1)[1].startswith(" byte")}
    compared = 0
    for log in logs:
        code, out, _ = run(capsys, "verify", log)
        if code == 2 or log not in by_log:
            continue
        assert _lines(by_log[log]) == _lines(out), log
        compared += 1
    assert compared > 60
