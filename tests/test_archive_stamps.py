"""What an audit with a state trusts of a log it judged before: its size and its times, the
change time (``st_ctime``) among them, which no program sets back; and its bytes, checked
again when those times moved, were too recent to tell by, or with ``--checksum``."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_runner import run
from test_archive_incremental import audit, own_config_dir  # noqa: F401 (autouse fixture)
from test_archive_state import before_seals, renamed, reseal

from tarneeb.replay.archive import monitor as monitor_module
from tarneeb.replay.archive import state as state_module
from tarneeb.testing.archive import archive_log, write_archive

SEED = b"test archive stamps"


def judged(tmp_path: Path, capsys: pytest.CaptureFixture[str], n: int
           ) -> tuple[list[Path], Path]:
    """``n`` logs, and a state that judged them (clean) and keeps their change times."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, n, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    return paths, state


def rewrite_keeping_times(path: Path) -> None:
    """The log's bytes changed (one bit of its last bytes), its size the same and its
    access and modification times set back as they were: what ``touch -r`` does after."""
    st = os.stat(path)
    data = bytearray(path.read_bytes())
    data[-10] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_a_log_rewritten_with_its_times_set_back_is_judged_again_and_a_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same size and modification time do not make the same bytes: the change time
    moved, so the log is read, its bytes differ, and the run says what a full audit says
    (the log's findings) with a changed-log finding; the logs only touched are read to
    check their bytes and kept, not judged again."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)  # (the logs were written just now)
    logs = tmp_path / "logs"
    paths = write_archive(logs, 5, seed=SEED)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["audited"] == 0 and doc["state"]["checked"] == 0
    rewrite_keeping_times(paths[1])
    os.utime(paths[3], ns=(5, 5))  # touched only
    code, doc = audit(capsys, str(logs), "--state", state)
    full_code, full = audit(capsys, str(logs))
    assert full_code == 1 and str(paths[1]) in full["first_with_findings"]
    assert code == 1 and doc["state"]["changed"] == [str(paths[1])]
    assert doc["state"]["audited"] == 1 and doc["state"]["checked"] == 1
    assert doc["findings_by_kind"] == {**full["findings_by_kind"], "changed-log": 1}
    assert doc["logs"] == full["logs"] and doc["clean"] == full["clean"]
    # both kept with their times now: the next run reads nothing
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["state"]["audited"] == 0 and doc["state"]["checked"] == 0


def test_a_log_judged_as_it_changed_is_checked_by_the_next_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log whose times are within RACY_NS of the run that read it could change again in
    the same tick of the file system's clock and keep them: the state keeps no change
    time for it (NULL), and the next run checks its bytes; once its times are old enough,
    a run keeps them and the runs after read nothing."""
    logs = tmp_path / "logs"
    write_archive(logs, 4, seed=SEED)
    state = tmp_path / "audit.state"
    monkeypatch.setattr(monitor_module, "RACY_NS", 10**15)  # every log: too recent
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    db = sqlite3.connect(state)
    assert db.execute("SELECT count(*) FROM logs WHERE ctime IS NULL").fetchone() == (4,)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["checked"] == 4 and doc["state"]["audited"] == 0
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["checked"] == 4
    assert db.execute("SELECT count(*) FROM logs WHERE ctime IS NULL").fetchone() == (0,)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["checked"] == 0 and doc["state"]["kept"] == 4
    db.close()


def test_checksum_reads_every_log_whatever_its_times_say(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A state that judged other bytes than a log has now, its size and times the same
    (here the state's digest is changed, as no program can set a change time back):
    a plain run trusts the times; --checksum reads every log and finds it changed."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)
    paths, state = judged(tmp_path, capsys, 4)
    logs = tmp_path / "logs"
    db = sqlite3.connect(state)
    db.execute("UPDATE logs SET digest = ? WHERE path = ?", (bytes(32), str(paths[2])))
    db.execute("DELETE FROM versions")  # (its match's first version not known)
    reseal(db)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 0 and doc["state"]["audited"] == 0
    code, doc = audit(capsys, str(logs), "--state", str(state), "--checksum")
    assert code == 1 and doc["state"]["changed"] == [str(paths[2])]
    assert doc["state"]["checked"] == 3 and doc["state"]["audited"] == 1
    db.close()
    code, out, err = run(capsys, "audit", str(logs), "--checksum")
    assert code == 2 and not out and err.strip().endswith("--checksum goes with --state")


def test_a_state_of_format_5_is_taken_up_and_a_log_rewritten_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Format 5 kept no change time (nor a seal): taken up, every log is judged again, and
    a log rewritten with its times set back is found then."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)
    paths, state = judged(tmp_path, capsys, 3)
    logs = tmp_path / "logs"
    db = sqlite3.connect(state)
    db.execute("ALTER TABLE logs DROP COLUMN ctime")
    db.execute("ALTER TABLE logs DROP COLUMN inode")
    db.execute("UPDATE meta SET value = '5' WHERE key = 'format'")
    db.commit()
    before_seals(db)
    rewrite_keeping_times(paths[0])
    code, after = audit(capsys, str(logs), "--state", str(state))
    assert code == 1 and after["state"]["changed"] == [str(paths[0])]
    assert after["state"]["checked"] == 0 and after["state"]["audited"] == 3
    assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == \
        (str(state_module.FORMAT),) == ("11",)
    assert db.execute("SELECT count(*) FROM logs WHERE ctime > 0").fetchone() == (3,)
    db.close()


def test_another_release_judges_every_log_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A verdict kept is the verdict of the release that runs: another version's first
    run judges every log again (its verifier may judge otherwise), the runs after none."""
    import tarneeb

    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state = str(tmp_path / "audit.state")
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    assert audit(capsys, str(logs), "--state", state)[1]["state"]["audited"] == 0
    monkeypatch.setattr(tarneeb, "__version__", "99.0.0")
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["audited"] == 3 and doc["state"]["kept"] == 0
    assert doc["state"]["judged_again"] == "another trust or release"
    assert audit(capsys, str(logs), "--state", state)[1]["state"]["audited"] == 0


def test_require_proof_after_a_state_made_without_it_judges_every_log_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A deal only recorded is a finding under --require-proof and not without: a state
    whose verdicts were made without it keeps none of them for a run with it (which
    says what a full audit with it says), nor the other way round."""
    logs = tmp_path / "logs"
    write_archive(logs, 4, seed=SEED, recorded=True)
    state = str(tmp_path / "audit.state")
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["deals"]["recorded"] > 0
    code, doc = audit(capsys, str(logs), "--state", state, "--require-proof")
    full_code, full = audit(capsys, str(logs), "--require-proof")
    assert code == full_code == 1 and doc["state"]["audited"] == 4
    assert doc["findings_by_kind"] == full["findings_by_kind"] and doc["clean"] == full["clean"]
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["audited"] == 4


def test_a_log_still_being_written_grows_and_a_rewritten_start_is_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log read while its match was being played (not signed yet: a finding) and
    finished since has grown: the bytes judged then begin the bytes now, so it is judged
    again with no changed-log finding. A log whose start differs from the bytes judged is
    changed, however long it grew; so is a log signed when judged that grew (no log grows
    past its signature)."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 3, seed=SEED)
    whole = [p.read_bytes() for p in paths]
    for p, data in zip(paths[:2], whole[:2], strict=True):
        p.write_bytes(data[:len(data) * 2 // 3])  # cut where the match was
    state = str(tmp_path / "audit.state")
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["clean"] == 1 and doc["findings_by_kind"]["cut-short"] == 2
    paths[0].write_bytes(whole[0])  # finished
    paths[1].write_bytes(renamed(whole[1], SEED))  # finished, but its start not the bytes judged
    paths[2].write_bytes(whole[2] + bytes(3))  # signed when judged, grown since
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["grown"] == [str(paths[0])] and doc["state"]["grown_count"] == 1
    assert doc["state"]["changed"] == [str(paths[1]), str(paths[2])] and code != 0
    assert doc["findings_by_kind"]["changed-log"] == 2
    paths[2].write_bytes(whole[2])
    code, doc = audit(capsys, str(logs), "--state", state)  # the changes stay said
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 3}  # (one twice)
    assert doc["first_with_findings"] == [str(paths[1]), str(paths[2])]
    assert not doc["state"]["grown"]
    full_code, full = audit(capsys, str(logs))
    assert full_code == 0 and full["clean"] == 3 and doc["clean"] == 1


def test_a_log_read_empty_or_in_its_header_has_grown_when_it_is_finished(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log a run found just created by its recorder (empty, or its header half
    written: unreadable) and finished since has grown, as a cut-short one has: no
    changed-log finding; one whose bytes then are not the start of its bytes now is
    changed."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 4, seed=SEED)
    whole = [p.read_bytes() for p in paths]
    paths[0].write_bytes(b"")
    paths[1].write_bytes(whole[1][:40])
    paths[2].write_bytes(whole[3][:40])  # another log's start
    state = str(tmp_path / "audit.state")
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 2 and doc["unreadable"] == 3
    for p, data in zip(paths[:3], whole[:3], strict=True):
        p.write_bytes(data)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert sorted(doc["state"]["grown"]) == sorted(map(str, paths[:2]))
    assert doc["state"]["changed"] == [str(paths[2])]
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 1}


def test_a_log_that_grows_while_a_run_reads_it_has_grown_when_it_is_finished(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log appended to after the run listed it (its size taken) and before it read it:
    the state keeps the size of the bytes judged, which its digest is of, so a later run
    that finds the log finished finds it grown, not changed (it was a changed-log finding
    for ever after: the digest was of more bytes than the size kept)."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 3, seed=SEED)
    whole = paths[-1].read_bytes()
    third = len(whole) // 3
    paths[-1].write_bytes(whole[:third])
    stat_of = monitor_module.stat_of

    def listed_then_written(path: str) -> object:
        st = stat_of(path)
        if path == str(paths[-1]):  # the match goes on: its server writes more
            with open(path, "ab") as f:
                f.write(whole[third:2 * third])
        return st

    with monkeypatch.context() as m:
        m.setattr(monitor_module, "stat_of", listed_then_written)
        state = str(tmp_path / "audit.state")
        code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"]["cut-short"] == 1
    kept = sqlite3.connect(state).execute("SELECT size FROM logs WHERE path = ?",
                                          (str(paths[-1]),)).fetchone()
    assert kept == (2 * third,)  # the bytes judged, not the size listed
    paths[-1].write_bytes(whole)  # finished
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["grown"] == [str(paths[-1])]
    assert not doc["state"]["changed"] and "changed-log" not in doc["findings_by_kind"]
    _, fresh = audit(capsys, str(logs), "--state", str(tmp_path / "fresh.state"))
    assert doc["evidence"] == fresh["evidence"] and doc["clean"] == fresh["clean"] == 3


def test_a_match_still_being_played_joins_the_evidence_whole_when_its_log_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log that stops before its end record may grow: its match is not in the evidence
    (said, and counted in ``state.waiting``) until a run finds the log whole; then it
    advances the evidence once, with every deal, as a state made on the finished archive
    does. Before, it advanced with the deals first seen, and those it gained were in no
    e-process. A log of deals proven by seeds proves none before its end record reveals
    the seed (nothing tallied yet): its match waits all the same."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 4, seed=SEED, recorded=True)
    whole = paths[-1].read_bytes()
    paths[-1].write_bytes(whole[:len(whole) * 2 // 3])  # the last match still being played
    state = str(tmp_path / "audit.state")
    for _ in range(2):  # read, then kept as it was: waiting both times
        code, doc = audit(capsys, str(logs), "--state", state)
        assert code == 1 and doc["findings_by_kind"]["cut-short"] == 1
        assert doc["evidence"]["matches"] == 3 and doc["state"]["waiting"] == 1
    code, out, _ = run(capsys, "audit", str(logs), "--state", state)
    assert "1 match not in the evidence yet: its log stops before the end record" in out
    paths[-1].write_bytes(whole)  # finished
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 0 and doc["state"]["grown"] == [str(paths[-1])]
    assert doc["state"]["waiting"] == 0 and doc["evidence"]["matches"] == 4
    _, fresh = audit(capsys, str(logs), "--state", str(tmp_path / "fresh.state"))
    assert doc["evidence"] == fresh["evidence"]
    code, doc = audit(capsys, str(logs), "--state", state)  # advanced once only
    assert code == 0 and doc["evidence"] == fresh["evidence"] and not doc["state"]["grown"]
    # one still being played, then rewritten whole: a change, and in the evidence once
    cut = paths[0].read_bytes()
    paths[0].write_bytes(cut[:len(cut) // 2])
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["changed"] == [str(paths[0])] and doc["state"]["waiting"] == 0
    assert doc["evidence"]["matches"] == 4  # (its match was in the evidence already)
    other = tmp_path / "other"  # (its deals proven by seeds: none tallied before the end)
    later = write_archive(other, 6, seed=SEED)[5]
    whole = later.read_bytes()
    later.write_bytes(whole[:len(whole) // 2])
    shutil.copy(later, logs / later.name)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["waiting"] == 1 and doc["evidence"]["matches"] == 4
    (logs / later.name).write_bytes(renamed(whole, SEED))
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["changed"] == [str(logs / later.name)] and code == 1
    assert doc["state"]["waiting"] == 0 and doc["evidence"]["matches"] == 5


def test_an_object_rewritten_with_its_times_set_back_is_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Over a URL (fsspec) the stamp is made from all the store says of the object's
    version: a local file's URL rewritten with its modification time set back still has
    a new change time (``created``), so it is judged again and is a finding."""
    paths, _ = judged(tmp_path, capsys, 3)
    url, state = f"file://{tmp_path / 'logs'}", str(tmp_path / "url.state")
    assert audit(capsys, url, "--state", state)[0] == 0
    assert audit(capsys, url, "--state", state)[1]["state"]["kept"] == 3
    rewrite_keeping_times(paths[1])
    code, doc = audit(capsys, url, "--state", state)
    assert code == 1 and doc["state"]["changed"] == [f"file://{paths[1]}"]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_changes_between_runs_say_what_a_full_audit_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int) -> None:
    """Between runs, logs are added, deleted, copied, swapped, touched, cut, rewritten
    (a bit flipped; re-signed as another match's log; their times set back): each run
    says what a full audit of the archive as it is says, but for the monitor's own
    findings, and it names as changed exactly the logs whose bytes differ from those it
    judged before."""
    rng = random.Random(seed)
    logs = tmp_path / "logs"
    write_archive(logs, 6, seed=SEED)
    state = str(tmp_path / "audit.state")
    audit(capsys, str(logs), "--state", state)
    judged_bytes = {str(p): p.read_bytes() for p in logs.iterdir()}
    made = 6
    for step in range(8):
        files = sorted(logs.iterdir())
        f = rng.choice(files)
        op = rng.choice(["add", "delete", "copy", "swap", "touch", "cut", "flip", "resign",
                         "set back"])
        if op == "add":
            made += 1
            name, data = archive_log(made, SEED)
            (logs / name).write_bytes(data)
        elif op == "delete":
            f.unlink()
        elif op == "copy":
            shutil.copy(f, logs / f"copy{step}-{f.name}")
        elif op == "swap":
            g = rng.choice(files)
            f.rename(tmp_path / "aside")
            g.rename(f)
            (tmp_path / "aside").rename(g)
        elif op == "touch":
            os.utime(f, ns=(rng.randrange(1, 10**18), rng.randrange(1, 10**18)))
        elif op == "cut":
            data = f.read_bytes()
            f.write_bytes(data[:rng.randrange(1, len(data))])
        elif op == "flip":
            data = bytearray(f.read_bytes())
            data[rng.randrange(max(0, len(data) - 80), len(data))] ^= 1
            f.write_bytes(bytes(data))
        elif op == "resign":
            f.write_bytes(renamed(rng.choice(files).read_bytes(), SEED))
        else:
            rewrite_keeping_times(f)
        code, doc = audit(capsys, str(logs), "--state", state)
        full_code, full = audit(capsys, str(logs))
        now = {str(p): p.read_bytes() for p in logs.iterdir()}
        changed = sorted(p for p in now if p in judged_bytes and now[p] != judged_bytes[p])
        assert sorted(doc["state"]["changed"]) == changed, (step, op)
        assert doc["lost"] == len(set(judged_bytes) - set(now)), (step, op)
        ours = dict(doc["findings_by_kind"])
        assert ours.pop("lost-log", 0) == doc["lost"]
        assert ours.pop("changed-log", 0) >= len(changed)
        assert ours == full["findings_by_kind"], (step, op)
        for key in ("logs", "matches", "deals", "unreadable", "signing_keys", "duplicates"):
            assert doc.get(key) == full.get(key), (step, op, key)
        assert code == full_code or (code == 1 and full_code == 0), (step, op)
        judged_bytes.update(now)


def test_a_link_pointed_at_another_file_of_the_same_times_is_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log that is a symbolic link, pointed at another file of the same size and times
    (two files made in one tick of the file system's clock share a change time; here the
    state is given the other file's), is another inode: read, and a change."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)
    paths, state = judged(tmp_path, capsys, 2)
    logs = tmp_path / "logs"
    target = tmp_path / "judged.tlog"
    paths[0].rename(target)
    paths[0].symlink_to(target)
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    other = tmp_path / "other.tlog"
    data = bytearray(target.read_bytes())
    data[-10] ^= 1
    other.write_bytes(bytes(data))
    st = os.stat(target)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    db = sqlite3.connect(state)
    db.execute("UPDATE logs SET ctime = ? WHERE path = ?",
               (os.stat(other).st_ctime_ns, str(paths[0])))
    reseal(db)
    db.close()
    paths[0].unlink()
    paths[0].symlink_to(other)
    code, doc = audit(capsys, str(logs), "--state", str(state))
    assert code == 1 and doc["state"]["changed"] == [str(paths[0])]


def test_a_store_whose_tags_do_not_change_with_the_bytes_has_them_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store that says only times of an object (here fsspec's store in memory: the time
    it was made; SFTP's and FTP's, in seconds) cannot tell a log rewritten from the one
    judged: every run checks the bytes of its logs (kept when they are the same), and a
    log rewritten with its time set back is judged again and is a finding. (It was kept
    as clean.)"""
    import fsspec

    fs = fsspec.filesystem("memory")
    paths = write_archive(tmp_path / "logs", 3, seed=SEED)
    root = f"/stamps-{tmp_path.name}"
    for p in paths:
        fs.pipe(f"{root}/{p.name}", p.read_bytes())
    state = str(tmp_path / "memory.state")
    try:
        assert audit(capsys, f"memory://{root}", "--state", state)[0] == 0
        code, doc = audit(capsys, f"memory://{root}", "--state", state)
        assert code == 0 and doc["state"]["kept"] == 3 and doc["state"]["checked"] == 3
        name = f"{root}/{paths[1].name}"
        made = fs.store[name].created
        data = bytearray(fs.cat(name))
        data[-10] ^= 1
        fs.pipe(name, bytes(data))
        fs.store[name].created = made
        code, doc = audit(capsys, f"memory://{root}", "--state", state)
        assert code == 1 and doc["state"]["changed"] == [f"memory://{name}"]
        assert doc["state"]["audited"] == 1 and doc["state"]["checked"] == 2
    finally:
        fs.rm(root, recursive=True)


def test_file_names_that_are_not_utf8_are_kept_found_changed_and_lost(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log whose file name is not valid UTF-8 (bytes any file system allows, which anyone
    who can write to the archive may use) is judged and kept like any other: the run says
    what a full audit says, the next run takes it from the state, and its name, shown
    escaped, is that of its changed-log, lost-log and removed findings."""
    monkeypatch.setattr(monitor_module, "RACY_NS", 0)  # (the logs were written just now)
    logs = tmp_path / "logs"
    paths = write_archive(logs, 4, seed=SEED)
    odd = logs / os.fsdecode(b"odd \xff name.tlog")
    paths[1].rename(odd)
    copy = logs / os.fsdecode(b"copy \xfe.tlog")  # another log's copy: a finding naming both
    copy.write_bytes(paths[2].read_bytes())
    state = str(tmp_path / "audit.state")
    full_code, full = audit(capsys, str(logs))
    for audited in (5, 0):
        code, doc = audit(capsys, str(logs), "--state", state)
        assert code == full_code and doc["state"]["audited"] == audited
        assert {k: doc[k] for k in full if k not in ("evidence",) and k in doc} == \
            {k: full[k] for k in full if k not in ("evidence",) and k in doc}
    rewrite_keeping_times(odd)
    copy.unlink()
    code, out, _ = run(capsys, "audit", str(logs), "--state", state)
    assert code == 1 and "changed since the state judged them" in out
    assert "odd \\xff name.tlog" in out and "copy \\xfe.tlog" in out and "\xff" not in out
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(copy))
    assert doc["state"]["changed"] == [] and doc["state"]["removed"] == [str(copy)]
    assert doc["findings_by_kind"]["changed-log"] == 1 and "lost-log" not in doc["findings_by_kind"]
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["audited"] == 0 and doc["state"]["lost"] == []
