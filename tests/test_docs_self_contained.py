"""The docs stand alone: no reference outside the repository, links that resolve, and
docs/RULES.md's value tables are the presets' own values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tarneeb.replay.rules.ruleset import PRESETS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "ARCHITECTURE.md",
        *sorted((ROOT / "docs").glob("*.md")), ROOT / "fixtures" / "README.md"]
RULES_MD = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_no_reference_outside_the_repository(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    assert not re.search(r"\.\./|shared folder|/work/|\bseeds/", text), doc


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_resolve(doc: Path) -> None:
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
        if not re.match(r"[a-z]+:", target):  # not an absolute URL
            assert (doc.parent / target).exists(), f"{doc.name}: link to {target} goes nowhere"


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (cells stripped of backticks)."""
    start = RULES_MD.index(heading)
    rows = []
    for line in RULES_MD[start:].splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip().replace("`", "") for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # below the head and its rule


def test_every_preset_value_table() -> None:
    rows = {r[0]: [int(v) for v in r[1:]] for r in _table("### The value of a bid")}
    for name, rules in PRESETS.items():
        if rules.scoring != "personal":
            continue
        if rules.values_high is None:
            assert rows[name] == [rules.bid_value(b, 0) for b in range(2, 14)], name
        else:
            assert rules.values_high_from == 30
            assert rows[f"{name}, own score below 30"] == [
                rules.bid_value(b, 29) for b in range(2, 14)]
            assert rows[f"{name}, own score 30 or more"] == [
                rules.bid_value(b, 30) for b in range(2, 14)]
    assert {r for r in rows if "," not in r} | {"sahrat400"} == {
        n for n, r in PRESETS.items() if r.scoring == "personal"}


def test_the_400_minimums() -> None:
    bids, totals = _table("### `sahrat400`: the rising minimums")
    r = PRESETS["sahrat400"]
    assert [int(v) for v in bids[1:]] == [r.min_bid, *(m for _, m in r.min_bid_steps)]
    assert [int(v) for v in totals[1:]] == [r.min_total, *(m for _, m in r.min_total_steps)]
    assert [s for s, _ in r.min_bid_steps] == [s for s, _ in r.min_total_steps] == [30, 40, 50]


def test_the_classic_scores() -> None:
    rows = {r[0]: r[1:] for r in _table("| the hand | B | O |")}
    c = PRESETS["classic"]
    assert rows["b < 13, made, all 13 tricks"][0] == f"+ {c.all_tricks_value}"
    assert rows["b = 13 (kaboot), made"][0] == f"+ {c.kaboot_made_value}"
    assert rows["b = 13, failed"][0] == f"− {c.kaboot_failed_value}"
    assert rows["b < 13, failed (t < b)"][1].endswith(f"+ {c.defenders_all_tricks_value} if O "
                                                       "took all 13")
    assert c.kaboot_defenders_factor == 1
    assert rows["b = 13, failed"][1].endswith(f"+ {c.kaboot_defenders_all_tricks_value} if O "
                                              "took all 13")
