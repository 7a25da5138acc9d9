"""``tarneeb audit --state FILE`` with a state of format 6 or older: it has no
seal, so its content is untrusted input (a damaged file, or one anyone wrote). What a run
reads from it before it judges every log again must end in one line and exit code 2,
never a traceback (nor a huge allocation) and never a silent fresh start."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cli_runner import run
from test_archive_state import before_seals

from tarneeb.testing.archive import write_archive

SEED = b"test monitor examined"


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("archive") / "logs"
    write_archive(logs, 3, seed=SEED)
    return logs


def unsealed_state(tmp_path: Path, capsys: pytest.CaptureFixture[str], logs: Path,
                   *damage: tuple[str, tuple[object, ...]]) -> Path:
    """A state made by a run, written back as format 6 (before the seal) with ``damage``
    (SQL statements and their parameters) done to it."""
    state = tmp_path / "audit.state"
    code, _, err = run(capsys, "audit", "-j", "1", str(logs), "--state", str(state))
    assert code == 0, err
    db = sqlite3.connect(state)
    db.execute("UPDATE meta SET value = '6' WHERE key = 'format'")
    before_seals(db)
    for sql, parameters in damage:
        db.execute(sql, parameters)
    db.commit()
    db.close()
    return state


@pytest.mark.parametrize("damage", [
    ("DELETE FROM meta WHERE key = 'alpha'", ()),
    ("UPDATE meta SET value = 'x' WHERE key = 'alpha'", ()),
    ("UPDATE evidence SET state = ?", (5_000_000_000_000_000_000,)),  # an integer
    ("UPDATE evidence SET state = ?", (-1,)),
    ("UPDATE evidence SET state = ?", ("text",)),
    ("UPDATE logs SET digest = ? WHERE rowid = 1", ("text",)),
    ("UPDATE logs SET path = ? WHERE rowid = 1", (b"\xf8\x91 not UTF-8",)),
], ids=["no alpha", "alpha not a number", "evidence a huge integer", "evidence -1",
        "evidence text", "digest text", "path not UTF-8"])
def test_an_unsealed_state_damaged_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], archive: Path,
        damage: tuple[str, tuple[object, ...]]) -> None:
    state = unsealed_state(tmp_path, capsys, archive, damage)
    code, out, err = run(capsys, "audit", "-j", "1", str(archive), "--state", str(state))
    assert code == 2 and out == ""
    assert err.startswith("tarneeb: error: ") and err.count("\n") == 1, err
    assert "damaged" in err or "not an audit state" in err

