"""``tarneeb audit --state FILE``: a log the state judged that cannot be read any more is
lost, as one gone is; ``--removed`` naming a path the state knows forgets that log alone."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from cli_runner import run
from test_archive_incremental import audit, own_config_dir  # noqa: F401 (a fixture)
from test_archive_state import renamed, reseal

from tarneeb.testing.archive import archive_log

SEED = b"test state lost logs"


def archive(directory: Path, n: int, names: dict[int, str] | None = None) -> list[Path]:
    directory.mkdir()
    paths = []
    for i in range(n):
        name, data = archive_log(i, SEED)
        p = directory / (names or {}).get(i, name)
        p.write_bytes(data)
        paths.append(p)
    return paths


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_judged_log_that_cannot_be_read_any_more_is_lost_even_skipping_unreadable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    paths[0].unlink()
    os.mkfifo(paths[0])  # the judged log's bytes hidden behind a file no run reads
    for extra in ((), ("--skip-unreadable",)):
        code, doc = audit(capsys, str(logs), "--state", state, *extra)
        assert doc["state"]["lost"] == [str(paths[0])]
        assert doc["findings_by_kind"] == {"lost-log": 1}
        assert code == (2 if not extra else 1)
    code, doc = audit(capsys, str(logs), "--state", state, "--skip-unreadable",
                      "--removed", str(paths[0]))
    assert (code, doc["state"]["removed"], doc["lost"]) == (0, [str(paths[0])], 0)


def test_removed_naming_a_known_path_with_glob_characters_forgets_that_log_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 4, {0: "*.tlog"})
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    for p in paths[:3]:
        p.unlink()
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(paths[0]))
    assert doc["state"]["removed"] == [str(paths[0])]
    assert sorted(doc["state"]["lost"]) == sorted(map(str, paths[1:3]))
    assert code == 1
    # a glob that is no path the state knows is a glob still
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(logs / "m*"))
    assert (code, sorted(doc["state"]["removed"]), doc["lost"]) == (
        0, sorted(map(str, paths[1:3])), 0)


def test_removed_naming_a_known_log_relative_with_glob_characters_forgets_that_log_alone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The log named ``*.tlog`` removed on purpose, named as typed from the archive's
    directory: the pattern as typed (whose ``*`` matches every path) is that log's name
    too, and no other lost log is forgotten with it."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 4, {0: "*.tlog"})
    monkeypatch.chdir(logs)
    assert audit(capsys, ".", "--state", state)[0] == 0
    for p in paths[:2]:
        p.unlink()
    code, doc = audit(capsys, ".", "--state", state, "--removed", "*.tlog")
    assert doc["state"]["removed"] == [str(paths[0])]
    assert doc["state"]["lost"] == [str(paths[1])] and code == 1


def test_a_match_rewritten_under_another_path_after_its_log_was_removed_is_changed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A month pruned (``--removed``) while another version of one of its matches (the
    same match, other bytes, signed again) comes in under another path: the history keeps
    each match's first version, so the rewrite is a changed-log finding at every run (it
    was a new log, clean: the change hidden by the move); a copy of the same bytes moved
    is not; nor is a later version while the first is still listed (a conflicting pair,
    as a full audit says), until the first goes."""
    old, new = tmp_path / "2025-12", tmp_path / "2026-01"
    paths = archive(old, 4)
    new.mkdir()
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(tmp_path), "--state", state)[0] == 0
    moved, rewritten = new / "moved.tlog", new / "rewritten.tlog"
    moved.write_bytes(paths[0].read_bytes())
    rewritten.write_bytes(renamed(paths[1].read_bytes(), SEED))
    for p in paths[:2]:  # (the rewrite in before the original is removed: lost, then removed)
        p.unlink()
    code, doc = audit(capsys, str(tmp_path), "--state", state)
    assert doc["state"]["lost"] == sorted(map(str, paths[:2])) and code == 1
    assert doc["state"]["rewritten"] == 1 and doc["first_with_findings"] == [str(rewritten)]
    code, doc = audit(capsys, str(tmp_path), "--state", state, "--removed", f"{old}/*")
    assert doc["state"]["removed_count"] == 2 and doc["state"]["rewritten"] == 1
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 1}
    assert audit(capsys, str(tmp_path), "--no-stats")[0] == 0  # (a full audit: one log a match)
    # a conflicting pair: the second version flagged once the first is removed on purpose;
    # the first's copy, once the second is, not
    third = new / "third.tlog"
    third.write_bytes(renamed(paths[2].read_bytes(), SEED))
    code, doc = audit(capsys, str(tmp_path), "--state", state)
    assert doc["findings_by_kind"] == {"changed-log": 1, "conflicting-log": 2} and code == 1
    backup = new / "backup.tlog"
    backup.write_bytes(paths[3].read_bytes())
    fourth = new / "fourth.tlog"
    fourth.write_bytes(renamed(paths[3].read_bytes(), SEED))
    paths[2].unlink()
    fourth.unlink()  # (the rewrite removed: the backup of the first version stays clean)
    code, doc = audit(capsys, str(tmp_path), "--state", state, "--removed", str(paths[2]),
                      "--removed", str(fourth))
    assert doc["state"]["rewritten"] == 2 and code == 1
    assert sorted(doc["first_with_findings"]) == sorted(map(str, (rewritten, third)))
    with sqlite3.connect(state) as db:
        # (each match's first version: by its identity, its match id under its key and
        # its server seed)
        assert db.execute("SELECT count(*) FROM versions").fetchone() == (12,)


def test_a_match_first_seen_in_two_versions_has_no_first_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both versions in the run that first sees the match (the rewrite listed first): no
    run can tell which is the match as played, so neither is its first; the one removed
    on purpose leaves the other clean, and its copies (the honest log was a changed-log
    finding for ever, its first version taken from the rewrite listed before it)."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    early = logs / "a-rewrite.tlog"  # (listed before the log it rewrites)
    early.write_bytes(renamed(paths[1].read_bytes(), SEED))
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"] == {"conflicting-log": 2}
    early.unlink()
    (logs / "backup.tlog").write_bytes(paths[1].read_bytes())
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(early))
    assert (code, doc["findings_by_kind"], doc["state"]["rewritten"]) == (0, {}, 0)


def test_a_state_of_format_8_is_taken_up_with_no_log_removed_known(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Format 8 kept no bytes of the logs removed: taken up, it gets the table of first
    versions, which the logs it keeps fill, and the run goes on as the state left it."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    db = sqlite3.connect(state)
    db.execute("DROP TABLE versions")
    db.execute("UPDATE meta SET value = '8' WHERE key = 'format'")
    reseal(db)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert (code, doc["state"]["kept"], doc["state"]["judged_again"]) == (0, 3, None)
    assert db.execute("SELECT count(*) FROM versions WHERE whole").fetchone() == (9,)
    db.close()
    rewrite = renamed(paths[1].read_bytes(), SEED)
    paths[1].unlink()
    (logs / "z.tlog").write_bytes(rewrite)
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(paths[1]))
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 1}


def test_a_state_of_format_10_keeps_its_first_versions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Format 10 kept the first versions of the matches in the evidence in the history:
    taken up, they are the table's, and a rewrite of a match pruned is found."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    db = sqlite3.connect(state)
    db.execute("ALTER TABLE history ADD COLUMN digest BLOB")
    db.execute("UPDATE history SET digest = (SELECT digest FROM versions WHERE match = "
               "history.identity)")
    db.execute("DROP TABLE versions")
    db.execute("UPDATE meta SET value = '10' WHERE key = 'format'")
    reseal(db)
    rewrite = renamed(paths[2].read_bytes(), SEED)
    paths[2].unlink()
    (logs / "z.tlog").write_bytes(rewrite)
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(paths[2]))
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 1}
    assert "digest" not in {r[1] for r in db.execute("PRAGMA table_info(history)")}
    db.close()


def test_a_state_whose_key_went_missing_says_so(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The user's state key deleted after a run: the next run makes a new key, cannot
    check the state's seal with it, and says the key was missing, not only that the
    seal does not match."""
    logs = archive(tmp_path / "logs", 2)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs[0].parent), "--state", state)[0] == 0
    key = tmp_path / "empty-config" / "tarneeb" / "state.key"
    key.unlink()
    code, _, err = run(capsys, "audit", "-j", "1", str(logs[0].parent), "--state", state)
    assert code == 2 and "seal does not match" in err
    assert f"the state key {key} was missing, and a new one was made just now" in err


def test_a_log_read_before_it_was_signed_is_no_first_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log a run read with its end record but not its signature (the run between the
    two writes), signed since: it has grown, and later runs do not call it a rewrite of
    the unsigned bytes (it was a changed-log finding for ever); a rewrite of it then is."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    whole = paths[1].read_bytes()
    paths[1].write_bytes(whole[:-68])  # (its signature record: 68 bytes)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"] == {"unsigned": 1}
    paths[1].write_bytes(whole)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert (code, doc["state"]["grown"]) == (0, [str(paths[1])])
    code, doc = audit(capsys, str(logs), "--state", state)
    assert (code, doc["findings_by_kind"], doc["state"]["rewritten"]) == (0, {}, 0)
    paths[1].unlink()
    rewrite = logs / "z-rewrite.tlog"
    rewrite.write_bytes(renamed(whole, SEED))
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(paths[1]))
    assert (code, doc["state"]["rewritten"]) == (1, 1)


def test_a_match_waiting_beside_its_finished_log_keeps_its_first_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A match's log cut short (waiting), finished under another name while the cut one
    is still listed (a conflicting pair, its start no other version): the finished log is
    its first version, and a rewrite of it later is told (the first version was dropped
    when the cut log sorted after the finished one)."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    whole = paths[1].read_bytes()
    part = logs / "zz-part.tlog"  # (sorts after the finished log)
    paths[1].unlink()
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    part.write_bytes(whole[:len(whole) // 2])  # (both come in one run)
    paths[1].write_bytes(whole)
    assert audit(capsys, str(logs), "--state", state)[0] == 1  # (the pair)
    part.unlink()
    paths[1].unlink()
    (logs / "rewrite.tlog").write_bytes(renamed(whole, SEED))
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(part),
                      "--removed", str(paths[1]))
    assert (code, doc["state"]["rewritten"]) == (1, 1)
