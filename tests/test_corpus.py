"""The fixture corpus: every clean log verifies clean, together they cover every rule
path of every preset, and every altered log gives the finding its manifest names.

The corpus is read from ``fixtures/``, not regenerated (one log of each sort is, to
check that regeneration gives the same bytes).
"""

from __future__ import annotations

import doctest
import functools
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.house import nearest_preset, rule_set
from tarneeb.replay.rules.paths import all_paths
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.verify.findings import KINDS, Verdict
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing import corpus

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MATCHES = FIXTURES / "matches"
ALTERED = FIXTURES / "altered"
CLEAN_FILES = sorted(p.name for p in MATCHES.glob("*.tlog"))
MANIFEST = json.loads((ALTERED / "manifest.json").read_text(encoding="utf-8"))


@functools.cache
def verdict(name: str) -> Verdict:
    return verify_bytes((MATCHES / name).read_bytes(), name, count_paths=True)


def test_the_corpus_is_the_one_the_module_describes() -> None:
    assert sorted(m.file for m in corpus.MATCHES) == CLEAN_FILES
    assert sorted(e["file"] for e in MANIFEST) == sorted(p.name for p in ALTERED.glob("*.tlog"))
    assert sorted(e["file"] for e in MANIFEST) == sorted(a.file for a in corpus.ALTERED)


@pytest.mark.parametrize("name", CLEAN_FILES)
def test_clean_log_verifies_clean(name: str) -> None:
    v = verdict(name)
    assert v.clean, [str(f) for f in v.findings] + [v.error or ""]
    assert v.paths["match-won"] == 1
    assert name.startswith(parse_log((MATCHES / name).read_bytes()).header.rules.name + "-")


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_every_path_of_every_preset_has_a_log(rules: str) -> None:
    seen: set[str] = set()
    for name in CLEAN_FILES:
        if name.startswith(f"{rules}-"):
            seen |= set(verdict(name).paths)
    missing = all_paths(PRESETS[rules]) - seen
    assert not missing, f"{rules}: no log goes through {', '.join(sorted(missing))}"


# The paths that a shipped variant's own fields add, beyond its nearest preset's; and the
# paths where the fields it changes score (the defenders' values of house-classic31).
VARIANT_EXTRA = {"house400": set(),
                 "house-classic31": {"kaboot-failed", "declarers-no-trick",
                                     "kaboot-failed-no-trick"}}


@pytest.mark.parametrize("rules", sorted(VARIANT_EXTRA))
def test_every_path_a_shipped_variant_adds_has_a_log(rules: str) -> None:
    variant = rule_set(rules)
    wanted = all_paths(variant) - all_paths(nearest_preset(variant)) | VARIANT_EXTRA[rules]
    assert "made-13-wins" in wanted or variant.scoring == "team"
    seen: set[str] = set()
    for name in CLEAN_FILES:
        if name.startswith(f"{rules}-"):
            seen |= set(verdict(name).paths)
    missing = wanted - seen
    assert not missing, f"{rules}: no log goes through {', '.join(sorted(missing))}"


def test_a_missing_path_fails_the_coverage() -> None:
    """The coverage check sees a gap: without the kaboot logs, classic lacks kaboot-made."""
    seen: set[str] = set()
    for name in CLEAN_FILES:
        if name.startswith("classic-") and "kaboot" not in name:
            seen |= set(verdict(name).paths)
    assert "kaboot-made" in all_paths(PRESETS["classic"]) - seen


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_altered_log_gives_its_finding(entry: dict[str, object]) -> None:
    data = (ALTERED / str(entry["file"])).read_bytes()
    key = bytes.fromhex(str(entry["public_key"])) if entry.get("public_key") else None
    v = verify_bytes(data, str(entry["file"]), Trust(public_key=key))
    found = [(f.kind, f.hand, f.trick, f.seat) for f in v.findings]
    want = (entry["kind"], entry["hand"], entry["trick"], entry["seat"])
    assert want in found, f"{entry['file']}: wanted {want}, found {found}"
    base = (MATCHES / str(entry["base"])).read_bytes()
    assert data != base


def test_every_finding_kind_has_an_altered_log() -> None:
    covered = {e["kind"] for e in MANIFEST}
    assert covered <= set(KINDS)
    assert covered | set(corpus.NOT_PRODUCIBLE) == set(KINDS)
    assert not covered & set(corpus.NOT_PRODUCIBLE)


def test_every_rule_set_has_logs_of_each_sort() -> None:
    sorts: dict[str, set[str]] = defaultdict(set)
    for name in CLEAN_FILES:
        rules, _, label = name.removesuffix(".tlog").partition("-")
        sorts[rules].add(label)
    for rules in PRESETS:
        assert {"01", "timer", "cancelled-in-a-row"} <= sorts[rules], rules


def test_the_corpus_is_small() -> None:
    total = sum((MATCHES / n).stat().st_size for n in CLEAN_FILES)
    total += sum(p.stat().st_size for p in ALTERED.glob("*.tlog"))
    assert len(CLEAN_FILES) <= 60 and total < 1_000_000


@pytest.mark.parametrize("label", ["eram41-01.tlog", "sahrat400-min-steps.tlog",
                                   "classic-kaboot-made.tlog", "qahwa41-timer.tlog"])
def test_regenerating_a_log_gives_the_same_bytes(label: str) -> None:
    spec = next(m for m in corpus.MATCHES if m.file == label)
    assert corpus.make_match(spec) == (MATCHES / label).read_bytes()


def test_regenerating_an_altered_log_gives_the_same_bytes() -> None:
    spec = next(a for a in corpus.ALTERED if a.kind == "renege")
    base = next(m for m in corpus.MATCHES if m.file == f"{spec.base}.tlog")
    clean = {spec.base: (MATCHES / base.file).read_bytes()}
    data, alt = corpus.make_altered(spec, clean, {spec.base: corpus.platform_key(base)})
    assert data == (ALTERED / spec.file).read_bytes()
    entry = next(e for e in MANIFEST if e["file"] == spec.file)
    assert (entry["hand"], entry["trick"], entry["seat"]) == (alt.hand, alt.trick, alt.seat)


def test_readme_names_the_regenerate_command_and_every_file() -> None:
    text = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert corpus.REGENERATE in text
    for name in CLEAN_FILES + [e["file"] for e in MANIFEST]:
        assert f"`{name}`" in text


def test_doctests() -> None:
    assert doctest.testmod(corpus, optionflags=doctest.ELLIPSIS).failed == 0


ROOT = FIXTURES.parent
# how the docs state the corpus's counts: "44 matches, 1,113 hands", "44 recorded
# matches (1,113 hands", "the 44 matches of `fixtures/matches`", "67 logs altered",
# "44 recorded matches"
COUNTS = re.compile(r"\b(\d[\d,]*)\s+(?:recorded\s+)?matches(?:,\s+|\s+\()(\d[\d,]*)\s+hands\b"
                    r"|\bthe\s+(\d+)\s+matches\s+of\s+`fixtures/matches`"
                    r"|\b(\d+)\s+(?:logs\s+altered|altered\s+logs)\b"
                    r"|\b(\d+)\s+recorded\s+matches\b")


def test_every_doc_gives_the_corpus_counts_of_today() -> None:
    """fixtures/README.md's summary line is the corpus counted (it is what the writer
    writes from these logs), and every doc that gives the corpus's counts agrees with it."""
    from tarneeb.testing.corpus.writer import summary

    clean = {p.name: p.read_bytes() for p in sorted(MATCHES.glob("*.tlog"))}
    hands = sum(len(parse_log(data).hands) for data in clean.values())
    line = summary(clean)
    assert line.startswith(f"{len(clean)} matches, {hands:,} hands ")
    assert f"\n{line}\n" in (FIXTURES / "README.md").read_text(encoding="utf-8")
    altered = len(list(ALTERED.glob("*.tlog")))
    found: dict[str, int] = defaultdict(int)
    for doc in [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for m in COUNTS.finditer(text):
            where = f"{doc.name}: {m.group(0)!r}"
            if m.group(4) is not None:
                assert int(m.group(4)) == altered, where
            else:
                n = m.group(1) or m.group(3) or m.group(5)
                assert int(n.replace(",", "")) == len(clean), where
                if m.group(2) is not None:
                    assert int(m.group(2).replace(",", "")) == hands, where
            found[doc.name] += 1
    assert found["README.md"] >= 2 and found["ENGINES.md"] >= 4, dict(found)
    assert found["CHANGELOG.md"] >= 1, dict(found)
