"""``tarneeb audit --state FILE``: an archive audited as it grows, the same verdict as a full
audit, changed and lost logs, a state that survives kill -9 and a second audit at once."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

from tarneeb.audit.seal import Sealer, state_key
from tarneeb.replay.archive import state as state_module
from tarneeb.replay.verify.trust import NOTHING
from tarneeb.testing.alterations import EditableLog, rewrite
from tarneeb.testing.archive import archive_log, platform_key, write_archive

SEED = b"test archive state"
RECORDED = b"test archive state, recorded"


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


def audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run(capsys, "audit", "--json", "-j", "1", *argv)
    return code, json.loads(out) if out else {}, err


def reseal(db: sqlite3.Connection) -> None:
    """The state's seal made again with the user's state key, and its last run noted so,
    after a change made here to test what a run checks once the seal holds (a state
    damaged by tarneeb itself, say)."""
    st = object.__new__(state_module.State)
    st.db, st._key = db, state_key()
    db.execute("INSERT OR REPLACE INTO meta VALUES ('seal', ?)", (sealed := st.seal(),))
    db.commit()
    path = next(f for _, name, f in db.execute("PRAGMA database_list") if name == "main")
    Sealer.of(path).note(db.execute("SELECT max(run) FROM runs").fetchone()[0], sealed)


def before_seals(db: sqlite3.Connection) -> None:
    """The state as a release before sealed states left it: no seal, and no run of it
    noted (a state with a seal, or a noted run, that says it is of such a format had
    its format set back)."""
    db.execute("DELETE FROM meta WHERE key = 'seal'")
    db.commit()
    path = next(f for _, name, f in db.execute("PRAGMA database_list") if name == "main")
    Sealer.of(path).record.unlink(missing_ok=True)


BATTERY = ("fairness", "families", "not_covered", "not_tested_apart", "fixed_sample_flagged")


def without_state(doc: dict[str, Any], *also: str) -> dict[str, Any]:
    """What a full audit without a state says too (the state's own parts left out, and
    the fixed-sample battery's, which a run with a state gives with --fixed-sample; and
    ``also``)."""
    return {k: v for k, v in doc.items() if k not in (
        "state", "evidence", "lost", "exit_code", "bias_flagged", *BATTERY, *also)}


def _figures(group: dict[str, Any]) -> dict[str, Any]:
    """A fair-play group's figures, whichever test held them to a bar."""
    return {k: v for k, v in group.items()
            if k not in ("p_adjusted", "flagged", "significant", "partner_of", "log_e")}


def add_logs(directory: Path, first: int, n: int, seed: bytes = SEED) -> None:
    for i in range(first, first + n):
        name, data = archive_log(i, seed)
        (directory / name).write_bytes(data)


def renamed(data: bytes, seed: bytes = SEED) -> bytes:
    """The same match in other bytes, signed again by the platform (of the archive made
    with ``seed``): a conflicting log."""
    from dataclasses import replace

    def change(log: EditableLog) -> None:
        seats = list(log.header.seats)
        seats[0] = replace(seats[0], name="Someone Else")
        log.header = replace(log.header, seats=seats)

    return rewrite(data, change, resign=platform_key(seed))


def test_a_run_reads_only_new_logs_and_says_what_a_full_audit_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    write_archive(logs, 8, seed=SEED)
    state = str(tmp_path / "audit.state")
    code, first, _ = audit(capsys, str(logs), "--state", state)
    assert code == 0 and first["state"]["audited"] == 8 and first["state"]["kept"] == 0
    add_logs(logs, 8, 4)
    shutil.copy(logs / "m00000-eram41.tlog", logs / "zz-copy-of-first.tlog")  # a copy
    (logs / "zz-second-log.tlog").write_bytes(renamed((logs / "m00001-qahwa41.tlog").read_bytes()))
    code, second, _ = audit(capsys, str(logs), "--state", state, "--fixed-sample")
    assert second["state"]["audited"] == 6 and second["state"]["kept"] == 8  # read only the new
    full_code, full, _ = audit(capsys, str(logs))
    assert code == full_code == 1  # the second log of a match: a finding on both logs
    assert without_state(second) == without_state(full)
    assert all(second[k] == full[k] for k in BATTERY if k != "fixed_sample_flagged")
    assert second["fixed_sample_flagged"] == full["bias_flagged"]
    assert second["copies"] == 1 and second["conflicting"] == 1 and second["logs"] == 14
    # and a state made now in one run of every log says the same, evidence included
    code, fresh, _ = audit(capsys, str(logs), "--state", str(tmp_path / "fresh.state"),
                           "--fixed-sample")
    assert fresh["evidence"] == second["evidence"]
    assert {k: v for k, v in fresh.items() if k != "state"} == \
        {k: v for k, v in second.items() if k != "state"}
    # every test of the battery is in the evidence (a test it has none of would be named
    # as fixed-sample only): the joint voids and long suits of the seats and teams too
    battery = {tuple(r["test"]) for rs in second["fairness"].values() for r in rs}
    assert {t[0] for t in battery} >= {"card position", "repeated deals", "deck order",
                                       "voids", "long suits"}
    assert second["evidence"]["fixed_sample_only"] == []
    # a third run reads nothing, and the match seen again adds no evidence
    code, third, _ = audit(capsys, str(logs), "--state", state, "--fixed-sample")
    assert third["state"]["audited"] == 0
    assert {k: v for k, v in third.items() if k != "state"} == \
        {k: v for k, v in second.items() if k != "state"}
    # without --fixed-sample the battery is not run: the rest, verdict and evidence
    # included, is the same, and the evidence says the battery was not run
    code, fourth, _ = audit(capsys, str(logs), "--state", state)
    assert not set(BATTERY) & set(fourth) and fourth["evidence"]["fixed_sample_only"] is None
    assert fourth["bias_flagged"] == second["bias_flagged"]
    assert {k: v for k, v in fourth.items() if k not in ("state", "evidence")} == \
        {k: v for k, v in second.items() if k not in ("state", "evidence", *BATTERY)}
    assert {k: v for k, v in fourth["evidence"].items() if k != "fixed_sample_only"} == \
        {k: v for k, v in second["evidence"].items() if k != "fixed_sample_only"}
    assert third["evidence"]["matches"] == 12  # each match once, the copy's nothing
    db = sqlite3.connect(state)  # the pages a run freed are given back
    assert db.execute("PRAGMA freelist_count").fetchone() == (0,)
    db.close()


def test_changed_and_lost_logs_are_findings_and_removed_ones_are_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    paths = write_archive(logs, 6, seed=SEED)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    os.utime(paths[2], ns=(1, 1))  # touched only: its bytes read, the same: kept
    paths[3].write_bytes(renamed(paths[3].read_bytes()))  # history rewritten
    paths[4].unlink()
    code, doc, _ = audit(capsys, str(logs), "--state", state, "--fixed-sample")
    assert code == 1
    assert doc["state"]["audited"] == 1 and doc["state"]["changed"] == [str(paths[3])]
    assert doc["state"]["checked"] >= 1
    assert doc["findings_by_kind"]["changed-log"] == 1
    assert doc["lost"] == 1 and doc["state"]["lost"] == [str(paths[4])]
    assert doc["findings_by_kind"]["lost-log"] == 1
    assert str(paths[3]) in doc["first_with_findings"]
    full = audit(capsys, str(logs))[1]  # the statistics of the logs as they are now
    assert doc["fairness"] == full["fairness"] and doc["logs"] == full["logs"] == 5
    # the rewritten log stays flagged; the lost one, said to be removed on purpose, is
    # reported as removed, and then forgotten
    code, doc, _ = audit(capsys, str(logs), "--state", state, "--removed", str(logs / "m00004*"))
    assert doc["state"]["removed"] == [str(paths[4])] and doc["lost"] == 0
    assert doc["findings_by_kind"]["changed-log"] == 1 and code == 1
    paths[3].unlink()
    code, doc, _ = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["state"]["removed"] == [] and doc["lost"] == 1
    assert "changed-log" not in doc["findings_by_kind"]
    code, doc, _ = audit(capsys, str(logs), "--state", state, "--removed", str(paths[3]))
    assert code == 0 and doc["lost"] == 0 and doc["logs"] == 4
    # an archive that lists nothing (not mounted) removes nothing, whatever --removed says
    (tmp_path / "empty").mkdir()
    assert audit(capsys, str(tmp_path / "empty"), "--state", state, "--removed", "*")[0] == 2
    code, doc, _ = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["kept"] == 4 and doc["state"]["audited"] == 0


def test_a_run_that_changes_nothing_leaves_the_evidence_as_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No match advanced and no log counted otherwise: the evidence's bytes are not
    written again; a log removed on purpose writes them (the deals it leaves out change),
    and the runs after go on from the bytes left as they were."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 5, seed=SEED)
    state = str(tmp_path / "audit.state")
    first = audit(capsys, str(logs), "--state", state)[1]
    written: list[bytes] = []
    original = state_module.State.set_evidence
    monkeypatch.setattr(state_module.State, "set_evidence",
                        lambda self, blob: (written.append(blob), original(self, blob))[1])
    code, again, _ = audit(capsys, str(logs), "--state", state)
    assert code == 0 and again["state"]["audited"] == 0 and not written
    assert again["evidence"] == first["evidence"]
    paths[1].unlink()
    code, doc, _ = audit(capsys, str(logs), "--state", state, "--removed", str(paths[1]))
    assert doc["state"]["removed"] == [str(paths[1])] and len(written) == 1
    add_logs(logs, 5, 2)
    code, doc, _ = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["audited"] == 2 and len(written) == 2
    assert not audit(capsys, str(logs), "--state", state)[1]["state"]["audited"]
    assert len(written) == 2
    # the evidence goes on from the bytes left as they were (the deals they leave out
    # made again from the state and checked: not damaged)
    add_logs(logs, 7, 1)
    code, doc, err = audit(capsys, str(logs), "--state", state)
    assert code == 0 and not err and doc["evidence"]["matches"] == 8 and len(written) == 3


def test_a_state_refuses_what_it_cannot_use_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(state_module, "BUSY_WAIT", 0.5)
    logs = tmp_path / "logs"
    write_archive(logs, 2, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    db = sqlite3.connect(state)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'format'")
    db.commit()
    code, _, err = audit(capsys, str(logs), "--state", str(state))
    assert code == 2 and err.count("\n") == 1 and "format 99 is newer" in err
    code, _, err = audit(capsys, str(logs), "--state", str(logs / "m00000-eram41.tlog"))
    assert code == 2 and err.count("\n") == 1 and "not an audit state" in err
    db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(state_module.FORMAT),))
    db.execute("ALTER TABLE logs RENAME COLUMN figures TO something_else")
    db.commit()
    code, _, err = audit(capsys, str(logs), "--state", str(state))
    assert code == 2 and err.count("\n") == 1 and "its seal does not match its content" in err
    reseal(db)
    code, _, err = audit(capsys, str(logs), "--state", str(state))
    assert code == 2 and err.count("\n") == 1 and "not an audit state of this version" in err
    db.execute("ALTER TABLE logs RENAME COLUMN something_else TO figures")
    reseal(db)
    code, _, err = audit(capsys, str(logs), "--state", str(state), "--alpha", "0.01")
    assert code == 2 and err.count("\n") == 1 and "--alpha 0.05" in err
    code, _, err = audit(capsys, str(logs), "--removed", "x")
    assert code == 2 and "--removed goes with --state" in err
    db.execute("BEGIN IMMEDIATE")  # another audit at work
    try:
        t = time.monotonic()
        code, _, err = audit(capsys, str(logs), "--state", str(state))
        assert code == 2 and err.count("\n") == 1 and "another audit is using this state" in err
        assert time.monotonic() - t >= 0.5  # it waited for it first
    finally:
        db.rollback()
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    # each damage alone, to a copy of the sound state: one line naming it, never a traceback
    for damage, what in (("UPDATE totals SET tally = x'00ff'", "its totals are damaged"),
                         ("UPDATE logs SET record = x'c1'", "is damaged"),
                         ("UPDATE history SET log_e = 'abc'", "its history is damaged"),
                         ("UPDATE evidence SET state = x'00ff'", "its evidence is damaged")):
        copy = tmp_path / "damaged.state"
        copy.unlink(missing_ok=True)
        with sqlite3.connect(copy) as damaged:
            db.backup(damaged)
            damaged.execute(damage)
        code, _, err = audit(capsys, str(logs), "--state", str(copy))
        assert code == 2 and err.count("\n") == 1 and "its seal does not match" in err, damage
        with sqlite3.connect(copy) as damaged:
            reseal(damaged)
        code, _, err = audit(capsys, str(logs), "--state", str(copy))
        assert code == 2 and err.count("\n") == 1 and what in err, (damage, err)
    db.close()


def format_3(db: sqlite3.Connection, share: Any) -> bytes:
    """``share`` (a tally) as state format 3 wrote it: every key but the values drawn
    numbered in ``db``'s keys (a match's own keys too, added), deals in 20 bytes."""
    import zlib

    from tarneeb.audit.fairness.codec import pack_value, unpack_value
    written = dict(db.execute("SELECT id, key FROM keys").fetchall())

    def of(i: int) -> Any:
        key = unpack_value(written[i])
        return (*of(key[1]), key[2]) if key[0] == "@" else key  # its prefix's number, a value

    ids = {of(i): i for i in written}

    def key_id(key: Any) -> int:
        if key not in ids:
            ids[key] = db.execute("INSERT INTO keys (key) VALUES (?)",
                                  (pack_value(key),)).lastrowid or 0
        return ids[key]

    parts = []
    for items in (share.counts, share.sums):
        pairs = sorted((key_id(k), v) for k, v in items.items()
                       if not (k[0] == "repeat" and len(k) == 5))
        deltas = [b - a for a, b in itertools.pairwise([0] + [i for i, _ in pairs])]
        parts.append((tuple(deltas), tuple(v for _, v in pairs)))
    drawn: dict[tuple[int, int], list[Any]] = {}
    for k, n in share.counts.items():
        if k[0] == "repeat" and len(k) == 5:
            width = len(k[4]) if isinstance(k[4], bytes) else 0
            drawn.setdefault((key_id(k[:4]), width), []).append((k[4], n))
    return pack_value((zlib.compress(pack_value(tuple(parts))), tuple(
        (test, width, b"".join(d if width else d.to_bytes(8, "big")
                               for d, n in sorted(values) if n == 1),
         tuple(x for d, n in sorted(values) if n != 1 for x in (d, n)))
        for (test, width), values in sorted(drawn.items()))))


def format_3_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                   ) -> tuple[Path, dict[str, Any], Any]:
    """A state of three logs written as format 3 wrote it (a match's own keys among the
    state's keys, the values drawn and those keys in the totals too, deals in 20 bytes,
    the card positions' cells written), the audit's JSON, its shares and totals as format
    4 writes them (what taking it up must give), and the keys format 3 added."""
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state = tmp_path / "audit.state"
    _, before, _ = audit(capsys, str(logs), "--state", str(state))
    fresh_of = ("SELECT path, figures FROM logs UNION ALL SELECT origin, tally FROM totals "
                "ORDER BY 1")
    db = sqlite3.connect(state)
    fresh = db.execute(fresh_of).fetchall()
    keys = {i for (i,) in db.execute("SELECT id FROM keys")}
    st = state_module.State(str(state), 0.05, NOTHING, state_key())
    totals = st.totals()
    shares = {p: st.share(p) for (p,) in db.execute("SELECT path FROM logs")}
    st.close()
    for path, found in shares.items():
        assert found is not None
        db.execute("UPDATE logs SET figures = ? WHERE path = ?", (format_3(db, found[1]), path))
    for origin, total in totals.items():
        db.execute("UPDATE totals SET tally = ? WHERE origin = ?", (format_3(db, total), origin))
    db.execute("""CREATE TABLE logs3 (path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
                  mtime INTEGER NOT NULL, digest BLOB, verdict TEXT NOT NULL,
                  findings INTEGER NOT NULL, record BLOB NOT NULL, figures BLOB,
                  run INTEGER NOT NULL, counted INTEGER NOT NULL,
                  tallied INTEGER NOT NULL DEFAULT 1, play BLOB)""")  # format 3's logs
    db.execute(f"INSERT INTO logs3 SELECT {state_module._COLUMNS} FROM logs ORDER BY rowid")
    db.execute("DROP TABLE logs")
    db.execute("ALTER TABLE logs3 RENAME TO logs")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'format'")
    before_seals(db)
    db.commit()
    added = {i for (i,) in db.execute("SELECT id FROM keys")} - keys
    assert db.execute(fresh_of).fetchall() != fresh and len(added) >= 3  # a row a match
    db.close()
    return state, before, (fresh, added)


def format_2_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                   ) -> tuple[Path, dict[str, Any], Any]:
    """A state of three logs written as format 2 wrote it (each value drawn kept whole,
    a key of its own), the audit's JSON, its shares and totals as format 4 writes them
    (what taking it up must give), and the keys formats 2 and 3 added."""
    import zlib

    from tarneeb.audit.fairness.codec import pack_value, unpack_value
    state, before, (fresh, added) = format_3_state(tmp_path, capsys)
    db = sqlite3.connect(state)
    v3 = db.execute("SELECT path, figures FROM logs UNION ALL "
                    "SELECT origin, tally FROM totals ORDER BY 1").fetchall()
    ids: dict[Any, int] = {}

    def format_2(blob: bytes) -> bytes:
        packed, drawn = unpack_value(blob)
        counts, sums = unpack_value(zlib.decompress(packed))
        pairs = list(zip(itertools.accumulate(counts[0]), counts[1], strict=True))
        for test, width, once, more in drawn:
            step = width or 8
            values = [(once[j:j + step] if width else int.from_bytes(once[j:j + step], "big"), 1)
                      for j in range(0, len(once), step)]
            for d, n in values + list(zip(more[0::2], more[1::2], strict=True)):
                key = ("@", test, d)
                if key not in ids:
                    ids[key] = db.execute("INSERT INTO keys (key) VALUES (?)",
                                          (pack_value(key),)).lastrowid or 0
                pairs.append((ids[key], n))
        pairs.sort()
        deltas = [b - a for a, b in itertools.pairwise([0] + [i for i, _ in pairs])]
        return zlib.compress(pack_value(((tuple(deltas), tuple(n for _, n in pairs)), sums)))

    for path, blob in v3:
        table, column, where = (("logs", "figures", "path") if path.startswith("/")
                                else ("totals", "tally", "origin"))
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {where} = ?", (format_2(blob), path))
    db.execute("UPDATE meta SET value = '2' WHERE key = 'format'")
    before_seals(db)
    db.commit()
    db.close()
    assert len(ids) > 3  # a key a deal at least
    return state, before, (fresh, added | set(ids.values()))


def test_a_state_of_format_1_is_taken_up(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A state of format 1 (no ``tallied`` and ``play`` columns) is taken up: every log
    tallied, none analysed for play; it has no seal, so every log is judged again."""
    state, before, _ = format_2_state(tmp_path, capsys)
    db = sqlite3.connect(state)
    db.execute("ALTER TABLE logs DROP COLUMN tallied")
    db.execute("ALTER TABLE logs DROP COLUMN play")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'format'")
    before_seals(db)
    db.commit()
    code, after, _ = audit(capsys, str(tmp_path / "logs"), "--state", str(state))
    assert code == 0 and after["state"]["audited"] == 3 and after["state"]["kept"] == 0
    assert {k: v for k, v in after.items() if k != "state"} == \
        {k: v for k, v in before.items() if k != "state"}
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == \
        (str(state_module.FORMAT),)
    assert db.execute("SELECT count(*) FROM logs WHERE tallied = 1 AND play IS NULL"
                      ).fetchone() == (3,)
    db.close()


def test_a_state_of_format_4_is_taken_up_as_it_is(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Format 4 wrote the suit patterns by position in each share, and its evidence of
    version 2 every deal's digest: read as they are, the run says what it said (every log
    judged again: the file has no seal), and the state is format 7 with evidence of
    version 3 after it."""
    from tarneeb.audit.fairness.anytime.evidence import Evidence
    from tarneeb.audit.fairness.codec import unpack_value
    from tarneeb.replay.archive.shares import dealt, packing
    whole = Evidence.to_bytes
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state = tmp_path / "audit.state"
    with monkeypatch.context() as m:  # as format 4 wrote: points and voids by position only
        m.setattr(dealt, "_MEASURES", (0, 1))  # (written, and read back)
        m.setattr(packing, "_MEASURES", (0, 1))
        m.setattr(Evidence, "to_bytes", lambda self, recoverable=None: whole(self))
        code, before, _ = audit(capsys, str(logs), "--state", str(state))
    db = sqlite3.connect(state)
    db.execute("ALTER TABLE logs DROP COLUMN ctime")  # (format 6's)
    db.execute("ALTER TABLE logs DROP COLUMN inode")
    db.execute("UPDATE meta SET value = '4' WHERE key = 'format'")
    before_seals(db)
    db.commit()
    assert unpack_value(db.execute("SELECT state FROM evidence").fetchone()[0])[0] == 2
    code, after, _ = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and after["state"]["audited"] == 3 and after["state"]["kept"] == 0
    assert {k: v for k, v in after.items() if k != "state"} == \
        {k: v for k, v in before.items() if k != "state"}
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == \
        (str(state_module.FORMAT),) == ("11",)
    assert unpack_value(db.execute("SELECT state FROM evidence").fetchone()[0])[0] == 3
    db.close()


@pytest.mark.parametrize("version", [2, 3])
def test_a_state_of_format_2_or_3_is_taken_up(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              version: int) -> None:
    """A state of format 2 or 3 is taken up in place: its shares and totals become those
    format 4 writes, bytes for bytes, the keys it no longer needs (values drawn, a match's
    own keys) are deleted; it has no seal, so every log is judged again."""
    state, before, (fresh, old_keys) = (format_2_state if version == 2 else
                                        format_3_state)(tmp_path, capsys)
    code, after, _ = audit(capsys, str(tmp_path / "logs"), "--state", str(state))
    assert code == 0 and after["state"]["audited"] == 3 and after["state"]["kept"] == 0
    assert {k: v for k, v in after.items() if k != "state"} == \
        {k: v for k, v in before.items() if k != "state"}
    db = sqlite3.connect(state)
    db.create_function("path_at", 1, state_module.path_at)
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == \
        (str(state_module.FORMAT),)
    assert db.execute("SELECT path, figures FROM logs UNION ALL "
                      "SELECT origin, tally FROM totals ORDER BY 1").fetchall() == fresh
    assert not {i for (i,) in db.execute("SELECT id FROM keys")} & old_keys
    assert db.execute("SELECT count(*) FROM logs INDEXED BY logs_at WHERE at = "
                      "path_at(path)").fetchone() == (3,)  # the paths' index made
    db.close()


def test_kill_9_at_any_moment_leaves_the_state_before_or_after(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "logs"
    write_archive(logs, 10, seed=SEED)
    state = tmp_path / "audit.state"
    command = [sys.executable, "-m", "tarneeb.cli.entry", "audit", "--json", "-j", "1",
               str(logs), "--state", str(state)]
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "empty-config")}
    rng = random.Random(33)
    runs = set()
    next_log = 10
    for i in range(3):
        add_logs(logs, next_log, 3)
        next_log += 3
        # the second run without the statistics: its logs marked untallied, or not at all
        p = subprocess.Popen(command + ["--no-stats"] * (i == 1), env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.4, 1.2))
        p.send_signal(signal.SIGKILL)
        p.wait()
        if state.exists():  # whole runs only: each one's row, and its logs with it
            db = sqlite3.connect(state)
            if not db.execute("SELECT name FROM sqlite_master").fetchall():
                db.close()  # killed before its first run ended: as it was, empty
                runs.add(0)
                continue
            done = db.execute("SELECT run, logs FROM runs").fetchall()
            (kept,) = db.execute("SELECT count(*) FROM logs").fetchone()
            db.close()
            runs.add(len(done))
            assert kept == (done[-1][1] if done else 0)
    assert min(runs, default=0) < 3  # a kill landed before a run's end (a run takes over a second)
    code, after, _ = audit(capsys, str(logs), "--state", str(state))
    full_code, full, _ = audit(capsys, str(logs))
    assert code == full_code == 0 and without_state(after) == without_state(full)
    assert after["evidence"]["matches"] == next_log


def columns(db: sqlite3.Connection, table: str) -> str:
    """A table's columns but a log's change time, kept or not (NULL) by how soon after the
    log was written the run read it (``monitor.RACY_NS``): runs at other times differ."""
    return ", ".join(c for _, c, *_ in db.execute(f"PRAGMA table_info({table})")
                     if (table, c) != ("logs", "ctime"))


def rows(db: sqlite3.Connection, table: str) -> list[Any]:
    """A table's rows (:func:`columns`), in order; the state's seal, made from every table,
    change times included, left out of ``meta``."""
    return db.execute(f"SELECT {columns(db, table)} FROM {table} "
                      + ("WHERE key != 'seal' " if table == "meta" else "")
                      + "ORDER BY 1").fetchall()


def state_tables(path: str) -> dict[str, list[Any]]:
    """Every table of a state file but the runs', the logs' change times and the seal (made
    from them): what a run wrote."""
    db = sqlite3.connect(path)
    try:
        out = {t: rows(db, t)
               for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
               if t != "runs"}
        out["runs"] = db.execute("SELECT run, logs, audited, changed, lost, removed, "
                                 "exit_code FROM runs").fetchall()
    finally:
        db.close()
    return out


def test_jobs_a_dask_cluster_and_urls_give_the_same_run_and_state(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An incremental run with ``-j 2``, with ``--scheduler local:2`` (a real local Dask
    cluster) and over a ``file://`` URL says what a full audit says, and writes the state a
    one-job run writes."""
    logs = tmp_path / "logs"
    write_archive(logs, 6, seed=RECORDED, recorded=True)
    base = str(tmp_path / "base.state")
    audit(capsys, str(logs), "--state", base)
    url = f"file://{logs}"
    audit(capsys, url, "--state", str(tmp_path / "url.state"))
    add_logs(logs, 6, 6, RECORDED)
    shutil.copy(logs / "m00000-eram41.tlog", logs / "zz-copy.tlog")
    states = {}
    for way in ("one", "jobs", "dask"):
        states[way] = str(tmp_path / f"{way}.state")
        shutil.copy(base, states[way])
    _, one, _ = audit(capsys, str(logs), "--state", states["one"])
    code, out, _ = run(capsys, "audit", "--json", "-j", "2", str(logs), "--state", states["jobs"])
    jobs = json.loads(out)
    code_dask, out, _ = run(capsys, "audit", "--json", "--scheduler", "local:2", str(logs),
                            "--state", states["dask"])
    dask = json.loads(out)
    full_code, full, _ = audit(capsys, str(logs))
    assert code == code_dask == full_code == 0
    assert one["state"]["audited"] == jobs["state"]["audited"] == dask["state"]["audited"] == 7
    assert without_state(jobs) == without_state(dask) == without_state(full)
    assert {k: v for k, v in jobs.items() if k != "state"} == \
        {k: v for k, v in dask.items() if k != "state"} == \
        {k: v for k, v in one.items() if k != "state"}
    assert state_tables(states["jobs"]) == state_tables(states["dask"]) == \
        state_tables(states["one"])
    code, by_url, _ = audit(capsys, url, "--state", str(tmp_path / "url.state"))
    _, full_url, _ = audit(capsys, url)
    assert code == 0 and by_url["state"]["audited"] == 7 and by_url["state"]["kept"] == 6
    assert without_state(by_url) == without_state(full_url)
    assert by_url["evidence"] == one["evidence"]


def test_no_stats_keeps_verdicts_and_a_run_with_statistics_reads_those_logs_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--no-stats --state``: verdicts, findings and counts kept as a full ``--no-stats``
    audit gives them, no evidence; a later run with the statistics tallies the logs read
    without them, and says what a full audit and a state made in one run say."""
    logs = tmp_path / "logs"
    write_archive(logs, 4, seed=SEED)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[1]["evidence"]["matches"] == 4
    add_logs(logs, 4, 3)
    (logs / "zz-second-log.tlog").write_bytes(renamed((logs / "m00001-qahwa41.tlog").read_bytes()))
    code, quick, _ = audit(capsys, str(logs), "--state", state, "--no-stats")
    full_code, full, _ = audit(capsys, str(logs), "--no-stats")
    assert code == full_code == 1 and quick["state"]["audited"] == 4
    assert quick["evidence"] is None and "fairness" not in quick
    assert without_state(quick) == without_state(full)
    code, again, _ = audit(capsys, str(logs), "--state", state, "--no-stats")
    assert again["state"]["audited"] == 0 and without_state(again) == without_state(full)
    code, stats, _ = audit(capsys, str(logs), "--state", state)
    assert stats["state"]["audited"] == 4 and stats["state"]["kept"] == 4  # those not tallied
    _, fresh, _ = audit(capsys, str(logs), "--state", str(tmp_path / "fresh.state"))
    assert {k: v for k, v in stats.items() if k != "state"} == \
        {k: v for k, v in fresh.items() if k != "state"}
    assert stats["evidence"]["matches"] == 7  # the second log of a match adds nothing
    assert without_state(stats) == without_state(audit(capsys, str(logs))[1])


def test_play_is_kept_a_log_and_a_run_analyses_only_new_logs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--play --state``: each log's fair-play record is kept, a run analyses only the logs
    new or not analysed alike before, and says what a full ``--play`` audit says (drawing
    the same layouts: the Monte Carlo seed is fixed here)."""
    pytest.importorskip("endplay")
    import secrets

    from tarneeb.testing.fairplay import write_play_archive

    monkeypatch.setattr(secrets, "token_bytes", lambda n: b"\x07" * n)
    logs = tmp_path / "logs"
    paths = write_play_archive(logs, "peeker", 2, seed=b"test state play")
    aside = tmp_path / paths[1].name
    paths[1].rename(aside)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[1]["state"]["audited"] == 1
    code, first, _ = audit(capsys, str(logs), "--state", state, "--play-sample", "1")
    assert first["state"]["audited"] == 1  # read before, not analysed: read again
    aside.rename(paths[1])
    code, second, _ = audit(capsys, str(logs), "--state", state, "--play-sample", "1")
    full_code, full, _ = audit(capsys, str(logs), "--play-sample", "1")
    assert second["state"]["audited"] == 1 and second["state"]["kept"] == 1
    # (a hand a player with --play-sample 1: the second match's hands are past the cap, so
    # one match is analysed, in both)
    assert second["fairplay"]["matches"] == full["fairplay"]["matches"] == 1
    assert second["fairplay"]["decisions"] > 0
    # the same figures; a state's archive is looked at again and again, so its groups are
    # held to the anytime bar (each with its e-value), a single look's to Holm's
    assert (second["fairplay"]["test"], full["fairplay"]["test"]) == ("anytime", "holm")
    assert [_figures(g) for g in second["fairplay"]["groups"]] == [
        _figures(g) for g in full["fairplay"]["groups"]]
    assert all(g["log_e"] is not None for g in second["fairplay"]["groups"])
    assert all(g["log_e"] is None for g in full["fairplay"]["groups"])
    assert not second["fairplay"]["flagged"] and not full["fairplay"]["flagged"]
    assert code == full_code
    assert without_state(second, "fairplay") == without_state(full, "fairplay")
    # other options analyse again; without --play the records stay for the next --play
    two = audit(capsys, str(logs), "--state", state, "--play-sample", "2")[1]
    assert two["state"]["audited"] == 2 and two["fairplay"] != second["fairplay"]
    assert audit(capsys, str(logs), "--state", state)[1]["state"]["audited"] == 0
    again = audit(capsys, str(logs), "--state", state, "--play-sample", "2")[1]
    assert again["state"]["audited"] == 0 and again["fairplay"] == two["fairplay"]
    db = sqlite3.connect(state)
    sizes = [n for (n,) in db.execute("SELECT length(play) FROM logs")]
    db.close()
    assert len(sizes) == 2 and all(0 < n < 1500 for n in sizes)  # two hands a match, compact
    # a record made by another version of the analysis is analysed again
    monkeypatch.setattr("tarneeb.replay.fairplay.ANALYSIS", 1)
    older = audit(capsys, str(logs), "--state", state, "--play-sample", "2")[1]
    assert older["state"]["audited"] == 2


def test_urls_are_kept_by_their_version(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Logs of an object store (here fsspec's file://) are kept by their version tag."""
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    url, state = f"file://{logs}", str(tmp_path / "audit.state")
    assert audit(capsys, url, "--state", state)[1]["state"]["audited"] == 3
    (logs / "m00002-sahrat41.tlog").write_bytes(renamed((logs / "m00002-sahrat41.tlog")
                                                        .read_bytes()))
    code, doc, _ = audit(capsys, url, "--state", state)
    assert code == 1 and doc["state"]["audited"] == 1 and doc["state"]["kept"] == 2
    assert doc["state"]["changed"] == [f"{url}/m00002-sahrat41.tlog"]


def test_the_report_plots_the_evidence_and_where_it_crossed() -> None:
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.report.archive import archive_page

    s = ArchiveSummary(logs=3, clean=3, monitor={"file": "a.state", "run": 2, "audited": 1,
                                                 "kept": 2, "changed": [], "lost": []})
    s.evidence = {"matches": 3, "e_value_log10": 1.5, "max_e_value_log10": 1.6,
                  "threshold_log10": 1.3, "crossed_at": 2, "flagged": True,
                  "fixed_sample_only": [["voids", "team", "seats 1+3|seats 2+4"]],
                  "strongest": [{"test": ["cov", "high-card points", "match state",
                                          "side behind"], "e_value_log10": 1.5}]}
    page = archive_page(s, {}, 0.05, history=[0.1, 3.2, 3.4])
    assert 'id="evidence"' in page and "The evidence of bias against matches" in page
    assert "crossed at match 2" in page and "EVIDENCE OF BIAS" in page
    assert "high-card points, match state side behind (bets on the covariance)" in page
    assert ("Fixed-sample only, not in the continuous evidence (tested at this look alone): "
            "voids, team seats 1+3|seats 2+4.") in page
    assert s.verdict_code(None) == 3


def test_a_share_comes_back_whole_and_what_it_leaves_out_is_checked(tmp_path: Path) -> None:
    """A share (state format 5) leaves out the card positions' cells its deals give (and
    the counts by position of points, void suits and suit patterns) and
    writes deals in 13 bytes, and comes back as it was; cells its deals do not give, and
    bytes that are not three disjoint hands, are written as they are."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.replay.archive.audit import audit_chunk
    from tarneeb.replay.archive.records import records_of
    from tarneeb.replay.archive.shares import pack_share, unpack_share
    write_archive(tmp_path, 2, seed=SEED)
    share = next(r.share for r in records_of(audit_chunk(sorted(map(str, tmp_path.iterdir()))))
                 if r.share is not None)
    keys: list[Any] = []

    def key_id(k: Any) -> int:
        if k not in keys:
            keys.append(k)
        return keys.index(k)

    def back(t: Tally) -> Tally:
        return unpack_share(pack_share(t, key_id), keys.__getitem__)

    def same(a: Tally, b: Tally) -> bool:
        return dict(a.counts) == dict(b.counts) and dict(a.sums) == dict(b.sums)

    assert same(back(share), share)
    cells = [k for k in share.sums if k[0] == "placed"]
    deals = [k for k in share.counts if k[0] == "repeat" and isinstance(k[4], bytes)]
    assert len(cells) > 52 and len(deals) > 3
    assert len(pack_share(share, key_id)) < 1000
    odd = Tally().merge(share)
    odd.sums[cells[0]] += 1  # a cell its deals do not give
    odd.counts[(*deals[0][:4], b"\xff" * 20)] += 1  # not a deal
    assert same(back(odd), odd) and len(pack_share(odd, key_id)) > len(pack_share(share, key_id))
    # what a share leaves out, each spoiled in turn: written as it is, back whole
    row = next(k for k in share.counts if k[0] == "rows")
    by_seat = next(k for k in share.counts if k[0] == "fit" and k[1][1:] == ("seat", "dealer"))
    pattern = next(k for k in share.counts if k[0] == "fit"
                   and k[1] == ("suit pattern", "seat", "dealer+2"))
    from tarneeb.replay.archive.shares.dealt import _by_position
    left = _by_position(share.counts.items(),
                        [(k[4], n) for k, n in share.counts.items() if k in deals])
    assert {(k[1][0], w[0]) for k, w in left.items()} >= {
        ("high-card points", 0), ("voids", 1), ("suit pattern", 2)}
    spoiled = {"a deal twice": lambda t: t.counts.update({deals[1]: 1}),
               "a row's points": lambda t: t.counts.update({
                   row: -1, (*row[:3], (*row[3][:4], bytes([37]) + row[3][4][1:])): 1}),
               "a test by seat": lambda t: t.counts.update({by_seat: 1}),
               "a suit pattern by seat": lambda t: t.counts.update({pattern: 1}),
               "no row": lambda t: t.counts.pop(row)}
    plain = len(pack_share(share, key_id))
    for what, spoil in spoiled.items():
        t = Tally().merge(share)
        spoil(t)
        t.counts = +t.counts
        assert same(back(t), t), what
        assert len(pack_share(t, key_id)) > plain or what == "no row", what
    totals = unpack_share(pack_share(share, key_id, whole=False), keys.__getitem__)
    assert not [k for k in totals.counts if k[0] in ("rows", "repeat")] and totals.sums[cells[0]]


def test_a_share_written_from_its_chunks_columns_is_the_bytes_its_tally_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A share read now is written from its chunk's columns (what is asked of a key, asked
    once a chunk): the bytes its tally gives, its keys numbered in the same order, whether
    the state has numbered its keys (the columns' way) or not yet (the tally's, which
    numbers them)."""
    from tarneeb.replay.archive.audit import audit_chunk
    from tarneeb.replay.archive.records import records_of
    from tarneeb.replay.archive.shares import pack_share, packing, unpack_share
    write_archive(tmp_path, 12, seed=SEED)
    records = [r for r in records_of(audit_chunk(sorted(map(str, tmp_path.iterdir()))))
               if r.share is not None]
    assert len(records) == 12 and all(r.columns is not None for r in records)

    def numbering() -> tuple[dict[Any, int], Any]:
        ids: dict[Any, int] = {}
        return ids, lambda k: ids.setdefault(k, len(ids) + 1)

    (plain, plain_id), (mine, my_id) = numbering(), numbering()
    written = []
    for r in records:  # keys new to the state (in a match of players seen first, many)
        assert r.columns is not None and r.share is not None
        written.append(pack_share(r.share, my_id, ids=mine, columns=r.columns))
        assert written[-1] == pack_share(r.share, plain_id, ids=plain)
    assert mine == plain
    from_tally = packing._numbered
    monkeypatch.setattr(packing, "_numbered", lambda *a: pytest.fail("written from the tally"))
    for r, before in zip(records, written, strict=True):  # every key numbered: the columns'
        assert r.columns is not None and r.share is not None
        assert pack_share(r.share, my_id, ids=mine, columns=r.columns) == before
        back = unpack_share(before, {i: k for k, i in mine.items()}.__getitem__)
        assert dict(back.counts) == dict(r.share.counts) and dict(back.sums) == dict(r.share.sums)
    assert mine == plain and from_tally is not packing._numbered


def test_a_shares_deal_made_parts_are_read_as_the_format_says_of_any_twenty_bytes() -> None:
    """What a share leaves to its deals (a hand's void suits and suit pattern by position,
    the card positions' cells) is what the format's plain reading gives, for deals and
    for 20 bytes that are not three hands alike (a damaged share is written whole)."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.replay.archive.shares import dealt

    rng = random.Random(33)

    def hands(deal: bytes) -> list[int]:
        x = int.from_bytes(deal, "big")
        a, b, c = x & (1 << 52) - 1, x >> 52 & (1 << 52) - 1, x >> 104
        return [((1 << 52) - 1) ^ (a | b | c), a, b, c]

    for _ in range(200):
        deals = []
        for _ in range(rng.randint(1, 12)):
            cards = rng.sample(range(52), 39)
            h = [sum(1 << c for c in cards[13 * i:13 * i + 13]) for i in range(3)]
            deal = (h[0] | h[1] << 52 | h[2] << 104).to_bytes(20, "big")
            deals.append((deal if rng.random() < 0.8 else rng.randbytes(20), rng.randint(1, 3)))
        for (deal, n), (times, _, voids, patterns) in zip(
                deals, dealt._hand_values(deals), strict=True):
            lengths = [sorted((h >> s & 0x1FFF if s < 39 else h >> 39).bit_count()
                              for s in (0, 13, 26, 39))[::-1] for h in hands(deal)]
            assert times == n and patterns == tuple("-".join(map(str, x)) for x in lengths)
            assert voids == sum(x.count(0) << 8 * p for p, x in enumerate(lengths))
        share = Tally()
        share.counts[("placed", ("t",), None, None)] = sum(n for _, n in deals)
        cells: dict[tuple[int, int], int] = {}
        for deal, n in deals:
            for p, h in enumerate(hands(deal)):
                for card in range(56):
                    if h >> card & 1:
                        cells[(p, card)] = cells.get((p, card), 0) + n
        for (p, card), n in cells.items():
            share.sums[("placed", ("t",), p, card)] = n
        # the cells are those the deals give, unless a card is past the deck's 52
        in_deck = all(card < 52 for _, card in cells)
        placed = [(k, n) for k, n in share.counts.items() if k[0] == "placed"]
        assert dealt._derived_positions(placed, share.sums.items(), deals) == (
            ("t",) if in_deck else None)
        share.sums[("placed", ("t",), 0, 0)] = share.sums.get(("placed", ("t",), 0, 0), 0) + 1
        assert dealt._derived_positions(placed, share.sums.items(), deals) is None


def test_a_chunks_deals_made_at_once_give_what_the_formats_functions_give() -> None:
    """What a chunk's deals give, made at once with numpy (``DealFacts``), is what the
    format's own functions give a deal at a time: the points, void suits and suit
    patterns by position, and whether a share's cells are those its deals give (spoiled
    in turn), for deals, for hands that overlap or hold a card past the deck's 52, and for
    any 20 bytes."""
    import numpy as np

    from tarneeb.replay.archive.shares import ChunkKeys, ShareColumns, dealt

    rng = random.Random(34)
    deals = []
    for _ in range(400):
        kind = rng.random()
        if kind < 0.7:  # three hands of a deck
            cards = rng.sample(range(52), 39)
            h = [sum(1 << c for c in cards[13 * i:13 * i + 13]) for i in range(3)]
        elif kind < 0.85:  # hands that overlap
            h = [sum(1 << c for c in rng.sample(range(52), 13)) for _ in range(3)]
        else:  # any bytes: the third "hand" may hold bits past 52
            deals.append(rng.randbytes(20))
            continue
        deals.append((h[0] | h[1] << 52 | h[2] << 104).to_bytes(20, "big"))
    facts = dealt.DealFacts(deals)
    times = [rng.randint(1, 3) for _ in deals]
    assert facts.points == [dealt._deal_points(d) for d in deals]
    assert facts.hand_values(list(range(len(deals))), times) == dealt._hand_values(
        list(zip(deals, times, strict=True)))

    def hands(deal: bytes) -> list[int]:
        x = int.from_bytes(deal, "big")
        a, b, c = x & (1 << 52) - 1, x >> 52 & (1 << 52) - 1, x >> 104
        return [((1 << 52) - 1) ^ (a | b | c), a, b, c]

    spoils = [None, "cell", "test", "past", "position", "zero", "high"]
    high = [i for i, d in enumerate(deals) if hands(d)[3] >> 52]
    seen = dict.fromkeys(spoils, 0)
    for j in range(700):
        spoil = spoils[j % len(spoils)]
        at = rng.sample(range(len(deals)), rng.randint(1, 12))
        if spoil == "high":  # a hand with a card past the deck's 52, its cells left out
            at = [i for i in at if i not in high] + [rng.choice(high)]
        elif j % 2:  # deals of a deck only, so that their cells are often those given
            at = [i for i in at if deals[i] == bytes(20) or (hands(deals[i])[3] >> 52 == 0
                  and not any(hands(deals[i])[p] & hands(deals[i])[q]
                              for p in range(4) for q in range(p + 1, 4)))] or at[:1]
        drawn = [times[i] for i in at]
        cells: dict[tuple[Any, ...], int] = {}
        for i, n in zip(at, drawn, strict=True):
            for p, h in enumerate(hands(deals[i])):
                for card in range(52 if spoil == "high" else 56):
                    if h >> card & 1:
                        key = ("placed", ("t",), p, card)
                        cells[key] = cells.get(key, 0) + n
        if spoil == "cell" and cells:
            key = rng.choice(list(cells))
            cells[key] += 1
        elif spoil == "test":
            cells[("placed", ("u",), 0, 0)] = 1
        elif spoil == "past":
            cells[("placed", ("t",), 3, 53)] = 1
        elif spoil == "position":  # a position not a whole number: read as the format reads
            cells[("placed", ("t",), True, 0)] = cells.pop(("placed", ("t",), 1, 0), 1)
        elif spoil == "zero":
            cells[next(iter(cells))] = 0
        placed = [(("placed", ("t",), None, None), sum(drawn))]
        items = list(cells.items())
        # the cells as a chunk's columns give them (each key's place asked once a chunk)
        share = ShareColumns(ChunkKeys([placed[0][0]], list(cells)),
                             (np.arange(1), np.arange(len(cells))),
                             (np.array([placed[0][1]]), np.array(list(cells.values()))))
        made = share.view({}).cells()
        assert (made is None) == any(type(k[2]) is not int or k[3] >= 52 for k in cells)
        expected = dealt._derived_positions(
            placed, items, [(deals[i], n) for i, n in zip(at, drawn, strict=True)])
        if made is not None:
            assert facts.positions(placed, *made, at, drawn) == expected, spoil
        seen[spoil] += made is not None and expected is not None
    assert seen[None] > 30 and seen["cell"] == seen["test"] == seen["zero"] == seen["high"] == 0


def test_the_new_shares_summed_by_key_object_are_their_merge() -> None:
    """The monitor's sum of the run's new shares (added up per key object, the shares of
    a chunk sharing theirs) adds to a tally what merging them in turn adds: the same
    sums, new keys in the same order, keys equal but not the same object added together."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.replay.archive.shares.columns import ShareSum

    rng = random.Random(11)
    chunks = [[("fit", ("seat", str(i % 4)), f"ref{i % 5}", i) for i in range(30)]
              for _ in range(3)]  # equal keys, a list of objects a chunk
    for _ in range(20):
        shares = []
        for _ in range(rng.randint(1, 12)):
            objects = rng.choice(chunks)
            t = Tally()
            for k in rng.sample(objects, rng.randint(0, 20)):
                t.counts[k] = rng.randint(-2, 6)
                t.sums[k[:3]] += rng.randint(0, 99)
            shares.append(t)
        merged, summed, got = Tally(), ShareSum(), Tally().merge(shares[0])
        for t in shares:
            merged.merge(t)
            summed.add(t)
        merged = Tally().merge(shares[0]).merge(merged)
        summed.add_to(got)  # (onto a tally holding some of the keys already)
        assert list(got.counts.items()) == list(merged.counts.items())
        assert list(got.sums.items()) == list(merged.sums.items())


def test_the_new_shares_summed_from_their_chunks_columns_are_their_merge(
        tmp_path: Path) -> None:
    """Shares read now are summed in their chunk's columns (numpy): the same sums, new keys
    in the same order, as merging them in turn, whether every share comes so or some
    come as tallies between them, some of a chunk's not summed, over two chunks; for the
    totals, but the values drawn and a match's own keys."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.replay.archive.audit import audit_chunk
    from tarneeb.replay.archive.records import records_of
    from tarneeb.replay.archive.shares.columns import ShareSum
    from tarneeb.replay.archive.shares.keys import _drawn, _own
    write_archive(tmp_path, 12, seed=SEED)
    paths = sorted(map(str, tmp_path.iterdir()))
    chunks = [records_of(audit_chunk(paths[:7])), records_of(audit_chunk(paths[7:]))]
    rng = random.Random(13)
    origin = chunks[0][0].row.deals  # (one origin's shares: a sum an origin)
    for totals in (False, True, True):
        for share in (1.0, 0.6):
            merged, summed, got = Tally(), ShareSum(totals=totals), Tally()
            for records in chunks:
                for r in records:
                    # some shares not summed (a match's copy): its keys, first in the
                    # chunk's order, are met later, or never
                    if r.share is not None and r.row.deals == origin and rng.random() < 0.7:
                        merged.merge(r.share)
                        summed.add(r.share, r.columns if rng.random() < share else None)
            summed.add_to(got)
            assert list(got.counts.items()) == [(k, v) for k, v in merged.counts.items()
                                                if not (totals and (_drawn(k) or _own(k, False)))]
            assert list(got.sums.items()) == [(k, v) for k, v in merged.sums.items()
                                              if not (totals and (_drawn(k) or _own(k, True)))]
            assert len(got.counts) > 100


def test_the_new_shares_summed_past_the_bound_are_the_totals_of_their_merge() -> None:
    """Summed for the state's totals, past a bound of key objects let go by key (a first
    run's chunks each bring their own objects): the same sums, new keys in the same order,
    as merging the shares, but the values drawn and a match's own keys, which the totals
    never keep; the totals written the same, below and past the bound."""
    from tarneeb.audit.fairness import Tally
    from tarneeb.replay.archive.shares import pack_share
    from tarneeb.replay.archive.shares.columns import ShareSum

    rng = random.Random(12)
    common = [("fit", ("seat", str(i % 4)), f"ref{i % 5}", i) for i in range(30)]
    chunks = [[tuple(k) for k in common] for _ in range(4)]  # equal keys, new objects
    numbers: dict[Any, int] = {}

    def key_id(k: Any, prefix: bool = False) -> int:
        return numbers.setdefault(k, len(numbers) + 1)

    for bound in (5, 40, 10_000):
        shares = []
        for m in range(25):
            t = Tally()
            for k in rng.sample(rng.choice(chunks), rng.randint(1, 20)):
                t.counts[k] = rng.randint(-2, 6)
                t.sums[k[:3]] += rng.randint(0, 99)
            t.counts[("repeat", ("repeated deals", "all", "every deal"), "deals", 1,
                      rng.randbytes(20))] += 1  # a value drawn: one a deal
            t.counts[("rows", ("state",), "hand", (m, "row"))] += 1  # the match's own
            t.sums[("ordered", ("lag",), "team", m, 1)] += rng.randint(1, 9)
            shares.append(t)
        merged, summed, got = Tally(), ShareSum(totals=True, bound=bound), Tally()
        for t in shares:
            merged.merge(t)
            summed.add(t)
        summed.add_to(got)
        kept = {k for k in merged.counts if k[0] not in ("repeat", "rows")}
        assert list(got.counts.items()) == [(k, v) for k, v in merged.counts.items() if k in kept]
        assert list(got.sums.items()) == [(k, v) for k, v in merged.sums.items()
                                          if k[0] != "ordered"]
        assert pack_share(got, key_id, whole=False) == pack_share(merged, key_id, whole=False)


def test_the_deals_counted_after_a_run_are_those_read_again_from_every_share(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The deals the state counts after a run, which the evidence's bytes are written
    against, are made from those it counted before (read once) less and plus the rows
    changed since: they are those every share read again gives, each as often, with a
    log rewritten, one removed on purpose, one lost and new ones."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 6, seed=SEED)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    checked: list[bool] = []
    original = state_module.State.counted_deals

    def counted_deals(self: state_module.State, began: bool = True) -> Any:
        got = original(self, began)
        if not began:
            kept, self._began = self._began, None
            again = original(self, began=False)  # every share read again
            self._began = kept
            checked.append(kept is not None and not self._unsure)
            assert list(got) == list(again) and len(got) > 10
            assert got.counts.tolist() == again.counts.tolist()
        return got

    monkeypatch.setattr(state_module.State, "counted_deals", counted_deals)
    paths[3].write_bytes(renamed(paths[3].read_bytes()))  # history rewritten
    paths[4].unlink()
    paths[5].unlink()
    add_logs(logs, 6, 3)
    code, doc, _ = audit(capsys, str(logs), "--state", state, "--removed", str(paths[4]))
    assert code == 1 and doc["state"]["audited"] == 4 and doc["lost"] == 1
    assert checked == [True]  # (the lost log and the one rewritten: findings)
