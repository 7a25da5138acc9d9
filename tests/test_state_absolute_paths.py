"""``tarneeb audit --state FILE`` knows each log by its absolute path: a daily run from
cron's directory, a run by hand with the archive named relative to another, ``./logs/``
or ``/srv/logs``, all find the logs the state judged (before, every other spelling made
every log "lost", a finding each, and judged the whole archive again). A state of format
7, which kept the paths as given, is taken up with them made absolute."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_archive_state import audit, own_config_dir, reseal  # noqa: F401 (a fixture)

from tarneeb.replay.archive import state as state_module
from tarneeb.testing.archive import write_archive

SEED = b"test state absolute paths"


def keys(state: Path) -> list[str]:
    db = sqlite3.connect(state)
    try:
        return sorted(p for (p,) in db.execute("SELECT path FROM logs"))
    finally:
        db.close()


def judged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch, n: int) -> tuple[Path, Path, list[Path]]:
    """An archive of ``n`` logs judged by a first run in ``tmp_path``, named ``logs``: its
    directory, the state and the logs' paths."""
    logs, state = tmp_path / "logs", tmp_path / "audit.state"
    paths = write_archive(logs, n, seed=SEED)
    monkeypatch.chdir(tmp_path)
    code, first, _ = audit(capsys, "logs", "--state", "audit.state")
    assert code == 0 and first["state"]["audited"] == n
    return logs, state, paths


def test_the_archive_named_otherwise_or_from_elsewhere_is_the_archive_the_state_knew(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    logs, state, paths = judged(tmp_path, capsys, monkeypatch, 4)
    assert keys(state) == sorted(map(str, paths))  # absolute, as the findings name them
    for where, named in ((tmp_path, str(logs)), (tmp_path, "./logs/"),
                         (tmp_path, "logs//"), (tmp_path.parent, f"{tmp_path.name}/logs"),
                         (logs, ".")):
        monkeypatch.chdir(where)
        code, doc, err = audit(capsys, named, "--state", str(state))
        assert (code, err) == (0, ""), (named, err)
        assert (doc["state"]["audited"], doc["state"]["kept"], doc["lost"]) == (0, 4, 0)
    assert keys(state) == sorted(map(str, paths))
    # a log gone, removed by a pattern relative to the working directory
    monkeypatch.chdir(tmp_path)
    paths[1].unlink()
    code, doc, _ = audit(capsys, "logs", "--state", "audit.state", "--removed", "logs/m00001*")
    assert (code, doc["lost"], doc["state"]["removed"]) == (0, 0, [str(paths[1])])
    paths[2].unlink()
    code, doc, _ = audit(capsys, "logs", "--state", "audit.state")
    assert code == 1 and doc["state"]["lost"] == [str(paths[2])]


def test_a_dot_dot_is_kept_as_it_leads_through_a_link(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``link/../logs`` where ``link`` leads to another directory is not ``logs``: the
    path is not shortened to a file that the run did not read."""
    elsewhere = tmp_path / "far" / "away"
    elsewhere.mkdir(parents=True)
    paths = write_archive(tmp_path / "far" / "logs", 2, seed=SEED)
    (tmp_path / "link").symlink_to(elsewhere)
    monkeypatch.chdir(tmp_path)
    code, doc, _ = audit(capsys, "link/../logs", "--state", "audit.state")
    assert code == 0 and doc["state"]["audited"] == 2
    assert keys(tmp_path / "audit.state") == sorted(
        f"{tmp_path}/link/../logs/{p.name}" for p in paths)


def test_a_state_of_format_7_with_paths_as_given_is_taken_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    logs, state, paths = judged(tmp_path, capsys, monkeypatch, 3)
    db = sqlite3.connect(state)
    db.create_function("path_at", 1, state_module.path_at)
    # as format 7 kept them: relative as given, and one under two names (a run by hand
    # that named the log itself): that one's other name stays, and is lost
    db.execute("UPDATE logs SET path = substr(path, ?), at = path_at(substr(path, ?))",
               (len(str(tmp_path)) + 2,) * 2)
    db.execute("INSERT INTO logs SELECT * FROM logs WHERE path = ?", (f"logs/{paths[0].name}",))
    db.execute("UPDATE logs SET path = ?, at = path_at(?) WHERE rowid = (SELECT max(rowid) "
               "FROM logs)", (f"./logs/{paths[0].name}",) * 2)
    db.execute("UPDATE meta SET value = '7' WHERE key = 'format'")
    reseal(db)
    assert sorted(keys(state)) == sorted([f"./logs/{paths[0].name}",
                                          *(f"logs/{p.name}" for p in paths)])
    code, doc, _ = audit(capsys, str(logs), "--state", "audit.state")
    assert (doc["state"]["audited"], doc["state"]["kept"]) == (0, 3)
    assert code == 1 and doc["state"]["lost"] == [f"./logs/{paths[0].name}"]
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == ("11",)
    code, doc, _ = audit(capsys, str(logs), "--state", "audit.state",
                         "--removed", f"./logs/{paths[0].name}")
    assert (code, doc["state"]["removed"]) == (0, [f"./logs/{paths[0].name}"])
    assert keys(state) == sorted(map(str, paths))
    db.close()
