"""The documented JSON outputs and the emitted ones have the same fields.

A platform in another language parses ``tarneeb verify --json``, ``tarneeb audit --json``
(with and without ``--state``) and the fair-play block of ``--play``. The field lists here
are read from the docs' tables, so a field added, removed or renamed on either side
fails here until the other side says the same:

- ``verify --json``: docs/VERDICTS.md, the table after "`--json` gives the same";
  a finding's fields: docs/FORMAT.md, "Where a finding is (the `--json` verdict)";
- ``audit --json``: docs/ARCHIVE.md, "The JSON" (its four tables);
- ``audit --play --json``: docs/FAIRPLAY.md, "The JSON" (its two tables).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import run

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MATCHES = ROOT / "fixtures" / "matches"
ALTERED = ROOT / "fixtures" / "altered"


def table_after(doc: str, marker: str) -> dict[str, str]:
    """The first table after the line holding ``marker`` in ``docs/<doc>``: each field named
    in backticks in its first column (a row may name several), with its type column."""
    lines = (DOCS / doc).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if marker in line)
    rows: dict[str, str] = {}
    i = start + 1
    while i < len(lines) and not lines[i].startswith("|"):
        i += 1
    for line in lines[i + 2:]:  # after the header and the separator
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        for name in re.findall(r"`([^`]+)`", cells[0]):
            rows[name] = cells[1] if len(cells) > 2 else ""
    assert rows, f"no table after {marker!r} in docs/{doc}"
    return rows


def json_type_ok(value: Any, documented: str) -> bool:
    """Whether ``value`` has one of the JSON types the docs' type column names."""
    kinds = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
             "object": dict, "array": list, "arrays": list}
    if value is None:
        return "null" in documented
    if isinstance(value, bool):
        return "boolean" in documented
    return any(word in documented and isinstance(value, t) for word, t in kinds.items()
               if word != "boolean")


def verify_json(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[Any]]:
    code, out, _ = run(capsys, "verify", "--json", *map(str, paths))
    return code, json.loads(out)


# docs/VERDICTS.md: the fields of each log's object
VERIFY_FIELDS = table_after("VERDICTS.md", "`--json` gives the same as one JSON array")


def finding_fields() -> set[str]:
    """docs/FORMAT.md, "Where a finding is": the sentence listing a finding's fields."""
    text = (DOCS / "FORMAT.md").read_text(encoding="utf-8")
    sentence = re.search(r"Each finding of `tarneeb verify --json` has (.*?), and no other",
                         text, re.S)
    assert sentence is not None
    return set(re.findall(r"`([^`]+)`", sentence.group(1)))


def test_verify_json_fields_are_the_documented_ones(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    not_a_log = tmp_path / "not-a-log.tlog"
    not_a_log.write_bytes(b"hello\n")
    logs = [MATCHES / "eram41-01.tlog", MATCHES / "qahwa5-blind.tlog",
            ALTERED / "renege-eram41.tlog", ALTERED / "timeout-out-of-turn-eram41.tlog",
            ALTERED / "client-seed-qahwa41.tlog", not_a_log]
    code, verdicts = verify_json(capsys, *logs)
    assert code == 2  # one log not read: the highest code of the logs (docs/VERDICTS.md)
    assert [v["verdict"] for v in verdicts] == ["clean", "clean", "findings", "findings",
                                                "findings", "unreadable"]
    kinds = finding_fields()
    for v in verdicts:
        assert set(v) == set(VERIFY_FIELDS), v["path"]
        for name, documented in VERIFY_FIELDS.items():
            assert json_type_ok(v[name], documented), (v["path"], name, v[name])
        # the `key` row of the table names its four fields
        assert set(v["key"]) == {"id", "pinned", "platform", "scripts"}
        for f in v["findings"]:
            assert set(f) == kinds, (v["path"], f)
        assert len(v["players"]) == (0 if v["verdict"] == "unreadable" else 4)
    assert verdicts[-1]["error"] and verdicts[0]["error"] is None
    assert verdicts[3]["ending"] is not None and verdicts[0]["ending"] is None
    # the exit codes of one log each (docs/VERDICTS.md)
    assert verify_json(capsys, logs[0])[0] == 0
    assert verify_json(capsys, logs[2])[0] == 1
    assert verify_json(capsys, logs[0], logs[2])[0] == 1


# docs/ARCHIVE.md, "The JSON"
AUDIT_ALWAYS = table_after("ARCHIVE.md", "`--json` prints one JSON object. These fields")
AUDIT_STATS = table_after("ARCHIVE.md", "With the statistics (not `--no-stats`")
AUDIT_TEST = table_after("ARCHIVE.md", "Each test of `fairness`:")
AUDIT_STATE = table_after("ARCHIVE.md", "With `--state` (below):")


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "audit", "--json", "-j", "1", *args)
    return code, json.loads(out)


def check_types(doc: dict[str, Any], table: dict[str, str]) -> None:
    for name, documented in table.items():
        if name in doc:
            assert json_type_ok(doc[name], documented), (name, doc[name], documented)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tarneeb.testing.archive import write_archive
    where = tmp_path_factory.mktemp("archive")
    write_archive(where, 4)
    return where


def test_audit_json_fields_are_the_documented_ones(capsys: pytest.CaptureFixture[str],
                                                   archive: Path) -> None:
    code, doc = audit_json(capsys, str(archive))
    assert code == 0 and doc["exit_code"] == 0
    assert set(doc) == set(AUDIT_ALWAYS) | set(AUDIT_STATS)
    check_types(doc, AUDIT_ALWAYS)
    check_types(doc, AUDIT_STATS)
    assert set(doc["fairness"]) <= {"proven", "recorded"}
    tests = [t for ts in doc["fairness"].values() for t in ts]
    assert tests
    for t in tests:
        assert set(t) == set(AUDIT_TEST), t["test"]
        check_types(t, AUDIT_TEST)
    # the rows that name their objects' fields
    assert set(doc["deals"]) == set(doc["matches_by_deals"]) == {"proven", "recorded"}
    for key in doc["signing_keys"].values():
        assert set(key) == {"platform", "pinned", "matches"}
    assert set(doc["abandoned"]) == {
        "matches", "by_cause", "by_seat", "by_team", "by_label", "score_differences",
        "leaver_behind", "leaver_ahead", "level", "behind_test"}
    assert set(doc["abandoned"]["behind_test"]) == {"method", "p_value"}
    for family in doc["families"].values():
        assert set(family) == {"tests", "weight"}

    code, plain = audit_json(capsys, "--no-stats", str(archive))
    assert code == 0 and set(plain) == set(AUDIT_ALWAYS)


def test_audit_json_with_a_state_is_documented(capsys: pytest.CaptureFixture[str],
                                               archive: Path, tmp_path: Path) -> None:
    state, key = tmp_path / "audit.state", tmp_path / "state.key"
    runs = [audit_json(capsys, "--state", str(state), "--state-key", str(key), str(archive))
            for _ in range(2)]
    with_state = set(AUDIT_STATE) - {"fixed_sample_flagged"}  # only with --fixed-sample
    for code, doc in runs:
        assert code == 0
        assert set(doc) == set(AUDIT_ALWAYS) | with_state
        check_types(doc, AUDIT_ALWAYS)
        check_types(doc, AUDIT_STATE)
        # the `state` and `evidence` rows of the table name their fields
        assert set(doc["state"]) == {
            "file", "run", "audited", "kept", "checked", "waiting", "changed", "grown", "lost",
            "removed", "changed_count", "grown_count", "removed_count", "judged_again",
            "older_than_run", "not_noted", "rewritten"}
        assert set(doc["evidence"]) == {
            "matches", "e_value_log10", "max_e_value_log10", "threshold_log10", "crossed_at",
            "flagged", "tests", "strongest", "fixed_sample_only"}
        for t in doc["evidence"]["strongest"]:
            assert set(t) == {"test", "e_value_log10"}
    first, again = runs[0][1]["state"], runs[1][1]["state"]
    assert (first["run"], first["audited"], again["run"], again["kept"]) == (1, 4, 2, 4)


# docs/FAIRPLAY.md, "The JSON"
FAIRPLAY = table_after("FAIRPLAY.md", "gives the analysis as the object `fairplay`")
GROUP = table_after("FAIRPLAY.md", "Each group:")


def test_fairplay_json_fields_are_the_documented_ones(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    pytest.importorskip("endplay")
    from tarneeb.testing.fairplay import write_play_archive
    write_play_archive(tmp_path / "logs", "peeker", 2)
    for extra in ([], ["--state", str(tmp_path / "play.state"),
                       "--state-key", str(tmp_path / "state.key")]):
        code, doc = audit_json(capsys, "--play", "--play-sample", "1", *extra,
                               str(tmp_path / "logs"))
        assert code == 0
        play = doc["fairplay"]
        assert set(play) == set(FAIRPLAY)
        check_types(play, FAIRPLAY)
        assert play["test"] == ("anytime" if extra else "holm")
        assert play["groups"]
        for g in play["groups"]:
            assert set(g) == set(GROUP), g
            check_types(g, GROUP)
            assert (g["log_e"] is not None) == bool(extra)
            if g["own"] is not None:
                assert set(g["own"]) == {"z", "decisions"}
            for h in g["hands_that_weigh_most"]:
                assert set(h) == {"path", "hand", "excess", "decisions"}
                assert h["hand"] >= 1  # counted from 1, as `tarneeb show --hand N` takes it
