"""``tarneeb audit --state FILE``: a log the state judged that cannot be read any more is
lost, as one gone is; ``--removed`` naming a path the state knows forgets that log alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_runner import run
from test_archive_incremental import audit, own_config_dir  # noqa: F401 (a fixture)

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
