"""The README's tour runs as written, in order, in an empty directory.

The commands are taken from README.md itself (the first ``sh`` block after the "A tour"
heading), so the tour cannot drift from what the tool does. Other sections may come and
go; the tour block must exist and every line of it must succeed (bash -e, pipefail).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from base_install import clean_env

if TYPE_CHECKING:
    from base_install import BaseInstall

ROOT = Path(__file__).resolve().parent.parent


def tour() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    heading = re.search(r"^## A tour$", text, re.M)
    assert heading, "README.md has no '## A tour' section"
    block = re.search(r"^```sh\n(.*?)^```$", text[heading.end():], re.S | re.M)
    assert block, "the tour has no sh block"
    return block.group(1)


def commands_run(script: str) -> set[str]:
    """The tarneeb subcommands the tour runs (outside the heredoc it writes)."""
    script = re.sub(r"<<'EOF'\n.*?\nEOF\n", "\n", script, flags=re.S)
    found = set()
    for line in script.splitlines():
        for m in re.finditer(r"(?:^|[|;&(]\s*)tarneeb\s+(\S+)", line.split(" #")[0]):
            found.add(m.group(1))
    return found


def test_the_tour_covers_the_commands() -> None:
    run = commands_run(tour())
    assert {"play", "verify", "show", "export", "import", "dump", "keygen", "commit", "deal",
            "verify-seed", "regress"} <= run, run


def test_the_rules_file_of_the_tour_is_the_one_shipped_and_documented() -> None:
    in_tour = re.search(r"<<'EOF'\n(.*?\n)EOF\n", tour(), re.S)
    rules_md = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    documented = re.search(r"^```toml\n(name = \"club400\".*?)^```$", rules_md, re.S | re.M)
    shipped = (ROOT / "docs" / "club400.toml").read_text(encoding="utf-8")
    assert in_tour and documented and in_tour.group(1) == documented.group(1) == shipped


def test_the_tour_runs_as_written(tmp_path: Path, base_install: BaseInstall) -> None:
    """In the environment ``pip install`` of the wheel makes, with the base dependencies
    alone (no extra, no source tree): its blind lines and the regress over the corpus
    installed with tarneeb included."""
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, base_install.bin)
    work = tmp_path / "tour"
    work.mkdir()
    script = tour()
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, (
        f"the tour stopped (exit {done.returncode}):\n{done.stderr[-3000:]}\n"
        f"script: {shlex.quote(script)[:200]}")
    made = {p.name for p in work.iterdir()}
    assert {"match.tlog", "again.tlog", "club.tlog", "m7.tlog", "match.html", "regress.xml",
            "platform.pem", "platform.pub.pem"} <= made
    assert (work / "match.tlog").read_bytes() == (work / "again.tlog").read_bytes()
    assert "signed by cardroom" in done.stdout
    assert "blind.tlog: ok" in done.stdout and "0 disagree" in done.stdout
