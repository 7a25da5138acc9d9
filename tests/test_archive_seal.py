"""The archive state's seal: a run trusts nothing in a state file that is not its user's own
as the last run left it (a verdict set to clean, a state handed over by someone else)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from cli_runner import run
from test_archive_incremental import audit, own_config_dir  # noqa: F401 (autouse fixture)
from test_archive_state import reseal, state_tables

from tarneeb.audit.seal import SealKeyError, state_key
from tarneeb.replay.archive import monitor as monitor_module
from tarneeb.replay.archive import state as state_module
from tarneeb.replay.verify.trust import NOTHING
from tarneeb.testing.archive import write_archive

SEED = b"test archive seal"


def with_a_bad_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                   ) -> tuple[Path, Path, Path]:
    """Four logs, one with a broken signature, and a state that judged them (exit 1)."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 4, seed=SEED)
    data = bytearray(paths[2].read_bytes())
    data[-10] ^= 1
    paths[2].write_bytes(bytes(data))
    state = tmp_path / "audit.state"
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 1 and doc["clean"] == 3
    return logs, state, paths[2]


def made_clean(state: Path, path: Path) -> None:
    """The state's verdict on ``path`` rewritten as clean, its record and all (with
    tarneeb's own code, as anyone can), its bytes, size and times untouched: what a
    platform that can write the state would do to hide a log's findings."""
    st = state_module.State(str(state), 0.05, NOTHING, state_key())
    try:
        record = st.load(str(path))
        record.row.verdict, record.row.findings = "clean", 0
        forged = dataclasses.replace(record, findings=[])
        assert st.db.execute(
            "UPDATE logs SET verdict = 'clean', findings = 0, record = ? WHERE path = ?",
            (state_module.pack_record(forged, str(path), st.key_id), str(path))).rowcount == 1
        st.db.execute("COMMIT")  # (not sealed again: that takes the user's key)
    finally:
        st.close()


def test_a_verdict_rewritten_in_the_state_is_refused_not_trusted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log's verdict set to clean in the state (its bytes, size and times untouched, so
    the log is not read again): the seal no longer matches, and the run refuses the
    state in one line, exit 2, leaving it as it was. (Without the seal: "All 4 logs are
    clean", exit 0.)"""
    logs, state, bad = with_a_bad_log(tmp_path, capsys)
    made_clean(state, bad)
    before = state_tables(str(state))
    code, out, err = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 2 and not out and err.count("\n") == 1
    assert "its seal does not match its content" in err and "--state-key" in err
    assert state_tables(str(state)) == before


def test_a_state_sealed_with_another_key_is_refused_and_taken_with_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The state key is the user's (made in the config directory when missing, 64 hex
    digits, readable by its owner alone): another user's run refuses the state; given the
    key it was sealed with (``--state-key``) it goes on."""
    logs = tmp_path / "logs"
    write_archive(logs, 2, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    mine = tmp_path / "empty-config" / "tarneeb" / "state.key"
    assert stat.S_IMODE(os.stat(mine).st_mode) == 0o600
    assert len(bytes.fromhex(mine.read_text())) == 32
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "another-user"))
    code, _, err = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 2 and "its seal does not match its content" in err
    code, doc = audit(capsys, str(logs), "--state", str(state), "--state-key", str(mine))
    assert code == 0 and doc["state"]["kept"] == 2 and doc["state"]["audited"] == 0
    # a key file that is not one: one line
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    code, _, err = run(capsys, "audit", str(logs), "--state", str(state), "--state-key",
                         str(bad))
    assert code == 2 and err.count("\n") == 1 and "not a state key (64 hex digits)" in err
    code, _, err = run(capsys, "audit", str(logs), "--state-key", str(mine))
    assert code == 2 and err.strip().endswith("--state-key goes with --state")


def test_a_state_without_a_seal_is_taken_up_and_every_log_judged_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A state of format 6 or older has no seal: its verdicts cannot be told from a
    forgery, so it is taken up with every log judged again (a verdict rewritten in it
    does not hold), and sealed; the run after trusts it."""
    logs, state, bad = with_a_bad_log(tmp_path, capsys)
    made_clean(state, bad)
    with sqlite3.connect(state) as db:
        db.execute("DELETE FROM meta WHERE key = 'seal'")
        db.execute("UPDATE meta SET value = '6' WHERE key = 'format'")
    shutil.rmtree(tmp_path / "empty-config" / "tarneeb" / "state-runs")  # (none: made before)
    code, out, _ = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 1 and "3 of 4 logs are clean" in out and "4 logs read" in out
    assert "The state had no seal" in out and "every log it knew was judged again" in out
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 1 and doc["clean"] == 3 and doc["state"]["audited"] == 0
    assert doc["state"]["judged_again"] is None
    # a sealed format with its seal taken away is not an unsealed format
    with sqlite3.connect(state) as db:
        db.execute("DELETE FROM meta WHERE key = 'seal'")
    code, _, err = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 2 and "its seal does not match its content" in err


@pytest.mark.parametrize("seal", ["kept", "taken away", "taken away, runs added"])
def test_a_state_whose_format_is_set_back_below_the_seal_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seal: str) -> None:
    """A sealed state forged (a log's bytes changed, and its digest and size in the state
    with them, to hide the change) and its format set back to 6, which had no seal: the
    seal is checked all the same when there is one, and a state with none where a sealed
    run of it is noted is refused; else the forgery was taken up as a state made before
    seals, exit 0 and no changed-log finding."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 3, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    other = write_archive(tmp_path / "other", 3, seed=b"another platform")[1].read_bytes()
    paths[1].write_bytes(other)  # another valid log under its name
    with sqlite3.connect(state) as db:
        db.execute("UPDATE logs SET digest = ?, size = ? WHERE path = ?",
                   (hashlib.sha256(other).digest(), len(other), str(paths[1])))
        db.execute("UPDATE meta SET value = '6' WHERE key = 'format'")
        if seal != "kept":
            db.execute("DELETE FROM meta WHERE key = 'seal'")
        if seal == "taken away, runs added":  # (past the run noted)
            db.execute("INSERT INTO runs SELECT run + 5, at, logs, audited, changed, lost, "
                       "removed, exit_code FROM runs WHERE run = 1")
    code, out, err = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert ("its seal does not match its content" if seal == "kept"
            else "a sealed run of it is noted (run 1") in err
    assert audit(capsys, str(logs), "--state", str(tmp_path / "new.state"))[0] == 0


def test_a_run_that_cannot_be_noted_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The state key in a directory the run cannot write in (a secret mounted read-only):
    the run is not noted, so the next could not tell the state set back, put back or
    deleted; each run says so, in its words and in the JSON (it was silent)."""
    logs = tmp_path / "logs"
    write_archive(logs, 2, seed=SEED)
    secrets_dir = tmp_path / "secrets"
    secrets_dir.mkdir()
    key = secrets_dir / "state.key"
    key.write_text(os.urandom(32).hex() + "\n")
    (secrets_dir / "state-runs").write_text("")  # (no directory can be made there)
    state = str(tmp_path / "audit.state")
    code, doc = audit(capsys, str(logs), "--state", state, "--state-key", str(key))
    assert code == 0 and str(secrets_dir / "state-runs") in doc["state"]["not_noted"]
    code, out, _ = run(capsys, "audit", str(logs), "--state", state, "--state-key", str(key))
    assert code == 0 and "This run could not be noted beside the state key" in out
    (secrets_dir / "state-runs").unlink()
    code, doc = audit(capsys, str(logs), "--state", state, "--state-key", str(key))
    assert code == 0 and doc["state"]["not_noted"] is None
    assert (secrets_dir / "state-runs").is_dir()


def test_the_seal_holds_across_vacuum_and_covers_every_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The state made again by SQLite (``VACUUM`` with another page size, as
    docs/ARCHIVE.md shows: row ids may be numbered anew) keeps its seal; a change to any
    table, to the schema (a trigger added) or to a log's change time breaks it."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    db = sqlite3.connect(state, isolation_level=None)
    for pragma in ("journal_mode=DELETE", "page_size=4096", "auto_vacuum=NONE"):
        db.execute(f"PRAGMA {pragma}")
    db.execute("VACUUM")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["kept"] == 3
    sound = tmp_path / "sound.state"
    with sqlite3.connect(state) as db, sqlite3.connect(sound) as copy:
        db.backup(copy)
    changes = ["UPDATE logs SET ctime = ctime + 1 WHERE rowid = (SELECT min(rowid) FROM logs)",
               "UPDATE history SET log_e = log_e / 2",
               "UPDATE runs SET exit_code = 1",
               "INSERT INTO keys VALUES (NULL, x'00')",
               "UPDATE meta SET value = '0.050' WHERE key = 'alpha'",
               "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM history; END"]
    for change in changes:
        copy = tmp_path / "changed.state"
        copy.unlink(missing_ok=True)
        with sqlite3.connect(sound) as db, sqlite3.connect(copy) as changed:
            db.backup(changed)
            changed.execute(change)
        code, _, err = run(capsys, "audit", str(logs), "--state", str(copy))
        assert code == 2 and "its seal does not match its content" in err, change
    # the same change sealed again with the user's key (what only the user can do) holds
    with sqlite3.connect(copy) as changed:
        changed.execute("DROP TRIGGER t")
        reseal(changed)
    assert audit(capsys, str(logs), "--state", str(copy))[0] == 0


def test_the_state_key_is_made_once_and_kept(tmp_path: Path) -> None:
    """Two calls give the same key; the file is made whole or not at all (nothing else
    left beside it), and a path where it cannot be is one error naming it."""
    path = tmp_path / "keys" / "state.key"
    key = state_key(path)
    assert len(key) == 32 and state_key(path) == key
    assert not [p for p in path.parent.iterdir() if p.name != "state.key"]
    (tmp_path / "a-file").write_text("")
    with pytest.raises(SealKeyError, match=r"a-file/state\.key: cannot read the state key"):
        state_key(tmp_path / "a-file" / "state.key")


def test_an_older_copy_of_the_state_put_back_is_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A copy of the state from an earlier run, put back, is validly sealed (it is the
    user's own) but takes the logs judged since as new (one rewritten and re-signed since:
    clean, with no changed-log finding). Each commit notes its run beside the key: the run
    says the state is older than the run noted (a copy restored on purpose, from a backup or
    for a test, is said too; the verdict and exit code are those of a full audit); a state
    made anew at the same path (the state deleted or moved) says so too, once."""
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state, older = tmp_path / "audit.state", tmp_path / "older.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    with sqlite3.connect(state) as db, sqlite3.connect(older) as copy:
        db.backup(copy)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["older_than_run"] is None
    with sqlite3.connect(older) as copy, sqlite3.connect(state) as db:
        copy.backup(db)  # put back
    code, out, _ = run(capsys, "audit", str(logs), "--state", str(state))
    note = tmp_path / "empty-config" / "tarneeb" / "state-runs"
    assert code == 0 and "The state is older than the run noted of it (run 2; it held run 1)" \
        in out and str(note) in out
    code, doc = audit(capsys, str(logs), "--state", str(state))  # (run 2 again, then 3)
    assert code == 0 and doc["state"]["older_than_run"] is None and doc["state"]["run"] == 3
    for f in tmp_path.glob("audit.state*"):  # deleted: its history and evidence with it
        f.unlink()
    code, out, _ = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 0 and "The state is new, but a state at its path had run 3: deleted or " \
        "moved?" in out
    code, doc = audit(capsys, str(logs), "--state", str(state))  # (said once)
    assert code == 0 and doc["state"]["run"] == 2 and doc["state"]["older_than_run"] is None
    fresh = tmp_path / "fresh.state"  # a state at a path of its own says nothing
    code, doc = audit(capsys, str(logs), "--state", str(fresh))
    assert code == 0 and doc["state"]["run"] == 1 and doc["state"]["older_than_run"] is None


def test_an_index_changed_to_miss_a_log_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The seal covers the tables' rows; the index a run finds a log's row by is checked by
    SQLite's integrity check. One byte of a log's entry in that index changed (its row no
    longer found): a rewritten log would be taken as new and clean, with no changed-log
    finding. The run refuses the state in one line, exit 2, run after run."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 6, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    target = paths[3]
    data = bytearray(target.read_bytes())  # rewritten: a change the state would report
    data[-10] ^= 1
    target.write_bytes(bytes(data))
    with sqlite3.connect(state) as db:
        root, size = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'logs_at'"
                                ).fetchone()[0], db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    raw = bytearray(state.read_bytes())
    page = slice((root - 1) * size, root * size)  # (six rows: the index is its root page)
    entry = state_module.path_at(str(target)).to_bytes(4, "big")
    assert raw[page].count(entry) == 1
    raw[(root - 1) * size + raw[page].index(entry) + 3] ^= 1
    state.write_bytes(bytes(raw))
    code, out, err = run(capsys, "audit", str(logs), "--state", str(state))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "integrity check" in err and "logs_at" in err
    assert run(capsys, "audit", str(logs), "--state", str(state))[0] == 2  # (as it was)
