"""What keeps an incremental ``tarneeb audit --state`` run cheap gives what the whole
work gave: the totals made from the state's table and what changed, the deals read
alone, the plain command line parsed without typer."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run
from test_archive_state import rows

from tarneeb.audit.seal import state_key
from tarneeb.replay.archive import state as state_module
from tarneeb.replay.verify.trust import NOTHING
from tarneeb.testing.archive import archive_log, write_archive
from tarneeb.testing.dealsim import random_deal_value

SEED = b"test archive incremental"


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


def audit(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(capsys, "audit", "--json", "-j", "1", *argv)
    return code, json.loads(out) if out else {}


def tables(path: Path) -> dict[str, list[Any]]:
    """The state's tables a run's work is in (not ``runs``, which has its time, nor the
    logs' change times, which depend on how soon after a log was written a run read it)."""
    db = sqlite3.connect(path)
    try:
        return {t: rows(db, t) for t in ("meta", "keys", "logs", "totals", "history", "evidence")}
    finally:
        db.close()


def test_the_totals_without_the_battery_are_those_made_from_every_share(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Runs without --fixed-sample keep the totals from the state's table and what
    changed (new logs, a log rewritten, one removed, a copy), and the deals the evidence
    leaves out from the shares' deals alone: the state is byte for byte the one runs
    that made the archive's whole tallies each time (--fixed-sample) leave, and a last
    run's battery is the full audit's."""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 5, seed=SEED)
    light, whole = tmp_path / "light.state", tmp_path / "whole.state"

    def both(*extra: str) -> None:
        a = audit(capsys, str(logs), "--state", str(light), *extra)
        b = audit(capsys, str(logs), "--state", str(whole), "--fixed-sample", *extra)
        assert a[0] == b[0] and a[1]["evidence"]["matches"] == b[1]["evidence"]["matches"]
        assert tables(light) == tables(whole)

    both()
    for i in (5, 6):
        name, data = archive_log(i, SEED)
        (logs / name).write_bytes(data)
    shutil.copy(paths[0], logs / "zz-copy.tlog")
    both()
    name, data = archive_log(1, SEED + b" again")  # a log rewritten as another match
    paths[1].write_bytes(data)
    paths[2].unlink()
    both("--removed", str(paths[2]))
    (logs / "zz-copy.tlog").unlink()  # the copy gone: nothing it counted changes
    both("--removed", str(logs / "zz-*"))
    code, doc = audit(capsys, str(logs), "--state", str(light), "--fixed-sample")
    full_code, full = audit(capsys, str(logs))
    assert doc["fairness"] == full["fairness"] and doc["logs"] == full["logs"] == 6
    assert (code, full_code) == (1, 0)  # the log rewritten: a changed-log finding


def test_the_deals_of_the_counted_shares_are_read_alone(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """State.counted_deals gives the deals the whole totals hold (each once), read from
    the shares' bytes without making them, and the same again from the deals it kept of
    each share; bit planes made deals at once give what one at a time gives."""
    from tarneeb.replay.archive.shares import deal_of_planes, deal_planes, deals_of_planes
    logs = tmp_path / "logs"
    write_archive(logs, 4, seed=SEED)
    state = tmp_path / "audit.state"
    assert audit(capsys, str(logs), "--state", str(state))[0] == 0
    st = state_module.State(str(state), 0.05, NOTHING, state_key())
    try:
        deals = list(st.counted_deals())
        assert list(st.counted_deals()) == list(st.counted_deals(began=False)) == deals
        whole = {k[4] for t in st.totals().values() for k in t.counts
                 if k[0] == "repeat" and k[3] == 1 and isinstance(k[4], bytes)
                 and len(k[4]) == 20}
    finally:
        st.close()
    assert len(deals) == len(set(deals)) == len(whole) > 10 and set(deals) == whole
    rng = random.Random(33)  # NOT secret: the test's deals
    many = [random_deal_value(rng) for _ in range(300)]
    planes = b"".join(deal_planes(d) or b"" for d in many)
    assert deals_of_planes(planes) == [deal_of_planes(planes[j:j + 13])
                                       for j in range(0, len(planes), 13)] == many


def test_a_plain_run_with_a_state_skips_typer_with_the_same_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``audit [-j N] [--json] [--no-stats] --state FILE PATH...`` is parsed without typer,
    with typer's output, exit code and state; the program itself does not load typer (nor
    scipy: the battery is not run) for it."""
    from tarneeb.cli import archive_cmd
    from tarneeb.cli.app import run as typer_run

    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    state = tmp_path / "audit.state"
    assert archive_cmd.parse_fast(["audit", "--state", str(state), str(logs)])
    assert archive_cmd.parse_fast(["audit", "--state", str(state), "--state", "x", "l"]) is None
    assert archive_cmd.parse_fast(["audit", "--state"]) is None
    argv = ["audit", "-j", "1", "--json", "--state", str(state), str(logs)]
    fast = run(capsys, *argv)
    first = tables(state)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{state}{suffix}").unlink(missing_ok=True)
    # (its run's note too: else the new state is said to be one deleted)
    shutil.rmtree(tmp_path / "empty-config" / "tarneeb" / "state-runs")
    with pytest.raises(SystemExit) as e:
        typer_run(argv)
    assert fast == (int(e.value.code or 0), *capsys.readouterr())
    assert tables(state) == first and fast[0] == 0
    probe = ("import sys; from tarneeb.cli.entry import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write(' '.join(m for m in ('typer', 'pydantic', 'scipy') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True,
                          text=True, check=False, stdin=subprocess.DEVNULL)
    assert json.loads(done.stdout)["state"]["kept"] == 3 and done.stderr == ""


def test_the_chunks_a_run_folds_in_do_not_change_what_it_says_or_keeps(
        tmp_path: Path) -> None:
    """A run folds its logs in chunks (128 when left to it); read and folded two logs at a
    time instead, the first run and the incremental one after it say the same and keep
    the same evidence and totals (the keys' numbers follow the order the chunks give)."""
    from tarneeb.replay.archive.audit import ArchiveSummary, expand_paths
    from tarneeb.replay.archive.monitor import Monitor

    logs = tmp_path / "logs"
    write_archive(logs, 5, seed=SEED)

    def once(state: Path, chunk_size: int | None) -> dict[str, Any]:
        summary = ArchiveSummary()
        monitor = Monitor(str(state), 0.05, tallies=False)
        try:
            sizes = {} if chunk_size is None else {"chunk_size": chunk_size}
            for chunk in monitor.chunks(expand_paths([str(logs)]), jobs=1, **sizes):
                monitor.fold(summary, chunk)
            monitor.finish(summary)
        finally:
            monitor.close()
        doc = summary.to_json(None)
        doc["evidence"], doc["audited"] = summary.evidence, monitor.audited
        return doc

    runs: dict[int | None, list[Any]] = {}
    for size in (None, 2):
        for i in range(5, 8):
            (logs / archive_log(i, SEED)[0]).unlink(missing_ok=True)
        state = tmp_path / f"{size}.state"
        first = once(state, size)
        for i in range(5, 8):
            name, data = archive_log(i, SEED)
            (logs / name).write_bytes(data)
        st = state_module.State(str(state), 0.05, NOTHING, state_key())
        try:
            totals = {o: (dict(t.counts), dict(t.sums)) for o, t in st.totals().items()}
        finally:
            st.close()
        runs[size] = [first, once(state, size), tables(state)["evidence"], totals]
    assert runs[None] == runs[2] and runs[2][1]["audited"] == 3
