"""``tarneeb audit --state FILE``: each match's first version (the ``versions`` table). The
state keeps the bytes of the first log of every match it judged, whole or not yet, damaged
or not, and by its match id under its key too; once no log with those bytes is listed,
any other log of the match is a ``changed-log`` finding, whatever its path, however the
match came in."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_archive_incremental import audit, own_config_dir  # noqa: F401 (a fixture)
from test_archive_state import renamed
from test_state_lost_logs import SEED, archive

from tarneeb.replay.log.parse import parse_log
from tarneeb.testing import alterations
from tarneeb.testing.alterations.end import abandon_in_hand
from tarneeb.testing.archive import NAMES, archive_log, labels_for, platform_key


def pruned_and_rewritten(capsys: pytest.CaptureFixture[str], logs: Path, state: str,
                         log: Path, rewrite: bytes) -> tuple[int, dict[str, int]]:
    """The log of a match removed on purpose, and another log of it put elsewhere: the
    exit code and the findings by kind."""
    log.unlink()
    (logs / "zz-another.tlog").write_bytes(rewrite)
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(log))
    return code, doc["findings_by_kind"]


@pytest.mark.parametrize("cut", ["unsigned", "inside-its-signature"])
def test_a_match_first_read_while_signed_under_a_temporary_name_keeps_its_first_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: str) -> None:
    """Read before its signature was written whole, under a temporary name, then finished
    under its final name (the temporary one removed): the finished log is the match's
    first version, and a rewrite once it is pruned is found."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    signed = len(parse_log(data).signed_bytes) + (7 if cut != "unsigned" else 0)
    paths[1].unlink()
    temporary = logs / "tmp-1.tlog"
    temporary.write_bytes(data[:signed])
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    temporary.unlink()
    paths[1].write_bytes(data)
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(temporary))
    assert (code, doc["findings_by_kind"]) == (0, {})
    assert pruned_and_rewritten(capsys, logs, state, paths[1], renamed(data, SEED)) == \
        (1, {"changed-log": 1})


def test_a_log_read_twice_while_signed_then_renamed_is_not_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Unsigned, then cut inside its signature (it grew), then finished under its final
    name: an honest log, clean at every run after."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    signed = len(parse_log(data).signed_bytes)
    paths[1].unlink()
    temporary = logs / "tmp-1.tlog"
    for end in (signed, signed + 20):
        temporary.write_bytes(data[:end])
        assert audit(capsys, str(logs), "--state", state)[0] == 1
    temporary.unlink()
    paths[1].write_bytes(data)
    for removed in (("--removed", str(temporary)), ()):
        code, doc = audit(capsys, str(logs), "--state", state, *removed)
        assert (code, doc["findings_by_kind"], doc["state"]["rewritten"]) == (0, {}, 0)


def test_a_match_seen_cut_short_keeps_the_bytes_it_was_seen_with(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seen stopping before its end record (waiting), then finished in the run that a
    rewrite comes in: the rewrite does not begin with the bytes first seen, so it is
    the changed one, then and once the finished log is pruned."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].write_bytes(data[:parse_log(data).end_offset - 40])
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["state"]["waiting"] == 1
    paths[1].write_bytes(data)
    (logs / "a-rewrite.tlog").write_bytes(renamed(data, SEED))
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"] == {"changed-log": 1, "conflicting-log": 2}
    assert doc["state"]["grown"] == [str(paths[1])]
    paths[1].unlink()
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(paths[1]))
    assert (code, doc["findings_by_kind"]) == (1, {"changed-log": 1})


def named(data: bytes, name: str) -> bytes:
    """The same match with its first player named ``name``, signed again by the platform."""
    from dataclasses import replace

    def change(log: alterations.EditableLog) -> None:
        log.header = replace(log.header, seats=[replace(log.header.seats[0], name=name),
                                                *log.header.seats[1:]])

    return alterations.rewrite(data, change, resign=platform_key(SEED))


def redealt(i: int, server_seed: bytes = b"\x01" * 32, seed: bytes | None = None) -> bytes:
    """Match ``i`` of the archive dealt again: the same match id, key and players, another
    server seed (another commitment); with ``seed``, another match (another match id) of
    the same key dealt from ``server_seed``."""
    from tarneeb.replay.rules.ruleset import PRESETS
    from tarneeb.replay.server.simulate import play_logged_match

    seed = seed if seed is not None else SEED + b"/%d" % i
    computer = labels_for(random.Random(seed))
    return play_logged_match(list(PRESETS)[i % len(PRESETS)], seed=seed,
                             names=[f"{n} {'bot' if c else 'player'}"
                                    for n, c in zip(NAMES, computer, strict=True)],
                             computer=computer, key=platform_key(SEED),
                             server_seed=server_seed)


def test_a_match_id_dealt_again_after_its_log_was_pruned_is_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A platform that prunes a match's log and deals the match again under its id and key
    (new seeds, so another commitment): beside the first, ``reused-match-id``; after it,
    a ``changed-log`` finding (not a new match)."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    again = redealt(1)
    assert parse_log(again).header.match_id == parse_log(paths[1].read_bytes()).header.match_id
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    assert pruned_and_rewritten(capsys, logs, state, paths[1], again) == \
        (1, {"changed-log": 1})


@pytest.mark.parametrize("damage", ["hide-server-seed", "corrupt-server-seed"])
def test_a_match_first_seen_in_a_log_whose_deals_were_not_replayed_keeps_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    """A first version with findings, its deals not replayed (so in no e-process), is the
    first version all the same."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = archive_log(1, SEED)[1]
    paths[1].write_bytes(alterations.alter(damage, data, resign=platform_key(SEED))[0])
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["evidence"]["matches"] == 2
    assert pruned_and_rewritten(capsys, logs, state, paths[1], renamed(data, SEED)) == \
        (1, {"changed-log": 1})


def test_a_run_without_the_statistics_keeps_first_versions_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    assert audit(capsys, str(logs), "--state", state, "--no-stats")[0] == 0
    data = paths[2].read_bytes()
    assert pruned_and_rewritten(capsys, logs, state, paths[2], renamed(data, SEED)) == \
        (1, {"changed-log": 1})


@pytest.mark.parametrize("beside", ["whole", "cut-short", "dealt-again"])
def test_two_versions_in_the_first_run_leave_a_third_one_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], beside: str) -> None:
    """A match that came in two versions in the run that first saw it (a rewrite, a log
    cut short that is not its start, or the match dealt again under its id, listed first):
    both are its first versions, and a third, once the two are pruned, is a change."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    other = {"whole": renamed(data, SEED), "dealt-again": redealt(1),
             "cut-short": renamed(data, SEED)[:len(data) // 2]}[beside]
    second = logs / "a-second.tlog"
    second.write_bytes(other)
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    second.unlink()
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(second))
    assert (code, doc["findings_by_kind"]) == (0, {})
    third = redealt(1, b"\x02" * 32) if beside == "dealt-again" else named(data, "A Third")
    assert pruned_and_rewritten(capsys, logs, state, paths[1], third) == \
        (1, {"changed-log": 1})


def test_a_server_seed_used_again_after_its_match_was_pruned_is_a_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another match id dealt from a pruned match's server seed: beside it, ``reused-leaf``
    (one seed, one sequence of deals, for two matches); after it, a ``changed-log``."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    first = parse_log(paths[1].read_bytes())
    assert first.end is not None and first.end.server_seed is not None
    again = redealt(1, first.end.server_seed, seed=b"another match")
    assert parse_log(again).header.server_commitment == first.header.server_commitment
    assert parse_log(again).header.match_id != first.header.match_id
    assert audit(capsys, str(logs), "--state", state)[0] == 0
    assert pruned_and_rewritten(capsys, logs, state, paths[1], again) == \
        (1, {"changed-log": 1})


@pytest.mark.parametrize("tail", [bytes(512), b"\xc1" * 200, b""])
def test_a_log_resumed_after_a_power_loss_the_run_saw_has_grown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tail: bytes) -> None:
    """A run reads a log a power loss left (its last whole record, then zeros or bytes
    that are no record, or nothing); the recorder's resume cuts that tail off and the match
    is finished: the same bytes as a match never interrupted, grown, clean."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].write_bytes(data[:900] + tail)
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    paths[1].write_bytes(data)
    for grown in ([str(paths[1])], []):
        code, doc = audit(capsys, str(logs), "--state", state)
        assert (code, doc["findings_by_kind"], doc["state"]["grown"]) == (0, {}, grown)


def test_a_log_appended_to_while_the_run_reads_it_has_grown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorder writes more of a log between the run's reading it and its checking
    that the log only grew: the bytes judged are still its start, so it grew."""
    from tarneeb.replay.archive import monitor

    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].write_bytes(data[:1000])
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    paths[1].write_bytes(data[:1100])
    judged = monitor.Monitor._judged

    def appending(self: monitor.Monitor, path: str, *args: Any) -> None:
        if path == str(paths[1]):
            with open(path, "ab") as f:
                f.write(data[1100:1116])
        judged(self, path, *args)

    monkeypatch.setattr(monitor.Monitor, "_judged", appending)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["grown"] == [str(paths[1])] and "changed-log" not in \
        doc["findings_by_kind"]
    monkeypatch.setattr(monitor.Monitor, "_judged", judged)
    paths[1].write_bytes(data)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert (code, doc["findings_by_kind"]) == (0, {})


def test_a_signed_log_that_says_its_match_goes_on_does_not_grow(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log signed with an end record that names no winner (a ``cut-short`` finding: the
    match ends unfinished) is whole: the same match with another hand and a winner, at its
    path or another, is a change (no log grows past its signature)."""
    from tarneeb.replay.log import EndRecord

    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()

    def goes_on(log: alterations.EditableLog) -> None:
        assert log.end is not None
        log.hands[:] = log.hands[:2]
        log.end = EndRecord(None, log.end.server_seed)

    paths[1].write_bytes(alterations.rewrite(data, goes_on, resign=platform_key(SEED)))
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"] == {"cut-short": 1}
    paths[1].write_bytes(data)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert doc["state"]["changed"] == [str(paths[1])] and not doc["state"]["grown"]
    assert pruned_and_rewritten(capsys, logs, state, paths[1], data) == (1, {"changed-log": 1})


def test_a_log_of_another_match_at_a_path_has_not_grown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two logs read cut short; then one's path holds the other's match, finished: a change
    (the first match's log gone), not a log that grew from its own match's start."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    first, second = paths[0].read_bytes(), paths[1].read_bytes()
    paths[0].write_bytes(first[:parse_log(first).end_offset - 40])
    paths[1].write_bytes(second[:parse_log(second).end_offset - 40])
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    paths[0].write_bytes(second)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["state"]["changed"] == [str(paths[0])]


@pytest.mark.parametrize("longer_first", [True, False])
def test_a_match_seen_cut_short_twice_keeps_the_longer_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], longer_first: bool) -> None:
    """Two starts of one match in its first run, one the start of the other: a log that
    begins with the shorter but departs from the longer (the match abandoned earlier) is a
    change, whichever is listed first."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].unlink()
    parsed = parse_log(data)
    longer, shorter = data[:parsed.end_offset], data[:parsed.offsets[3]]
    names = ("a.tlog", "b.tlog") if longer_first else ("b.tlog", "a.tlog")
    (logs / names[0]).write_bytes(longer)
    (logs / names[1]).write_bytes(shorter)
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    other = abandon_in_hand(data, 3, 2, resign=platform_key(SEED))[0]
    assert other.startswith(shorter) and not other.startswith(longer)
    for name in names:
        (logs / name).write_bytes(other)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert code == 1 and doc["findings_by_kind"]["changed-log"] >= 1


def test_a_log_changed_as_the_run_reads_it_keeps_the_first_version_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A log read cut short, then renamed and rewritten as another history of its match
    before the run takes its record: the bytes judged are its match's first version all
    the same (made where they were read), and the rewrite is a change."""
    from tarneeb.replay.archive import monitor

    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].unlink()
    temporary = logs / "tmp-1.tlog"
    temporary.write_bytes(data[:parse_log(data).end_offset - 40])
    judged = monitor.Monitor._judged

    def moved(self: monitor.Monitor, path: str, *args: Any) -> None:
        if path == str(temporary):
            paths[1].write_bytes(renamed(data, SEED))
            temporary.unlink()
        judged(self, path, *args)

    monkeypatch.setattr(monitor.Monitor, "_judged", moved)
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    monkeypatch.setattr(monitor.Monitor, "_judged", judged)
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(temporary))
    assert (code, doc["findings_by_kind"]) == (1, {"changed-log": 1})


def test_a_log_resumed_after_a_power_loss_grew_without_its_first_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log read with the zero-filled tail a power loss left, its match's first versions
    not known (a state taken up from format 10 kept none of a match not in the evidence):
    its bytes then, less the zeros, begin its bytes now; it grew."""
    import sqlite3

    from test_archive_state import reseal

    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].write_bytes(data[:900] + bytes(300))
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    with sqlite3.connect(state) as db:
        db.execute("DELETE FROM versions")
        reseal(db)
    paths[1].write_bytes(data)
    code, doc = audit(capsys, str(logs), "--state", state)
    assert (code, doc["findings_by_kind"], doc["state"]["grown"]) == (0, {}, [str(paths[1])])


def test_a_log_grows_only_from_its_own_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log read cut short under one history of its match, then rewritten as another
    that begins with the match's first version seen at another path: a change (it did not
    begin with what was read of it)."""
    logs, state = tmp_path / "logs", str(tmp_path / "audit.state")
    paths = archive(logs, 3)
    data = paths[1].read_bytes()
    paths[1].unlink()
    cut = parse_log(data).end_offset - 40
    first, second = logs / "b.tlog", logs / "a.tlog"
    first.write_bytes(data[:cut])
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    second.write_bytes(renamed(data, SEED)[:cut])
    assert audit(capsys, str(logs), "--state", state)[0] == 1
    second.write_bytes(data)
    first.unlink()
    code, doc = audit(capsys, str(logs), "--state", state, "--removed", str(first))
    assert code == 1 and doc["state"]["changed"] == [str(second)]
