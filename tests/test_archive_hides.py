"""What an archive could hide from ``tarneeb audit``: special files, directories that
cannot be listed, files gone mid-run, two matches on one season leaf or under one match
id, two outcomes of one match."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from cli_runner import run

from tarneeb.audit import Season
from tarneeb.audit.signing import private_key_from_raw, public_key_pem
from tarneeb.replay.archive import paths as archive_paths
from tarneeb.replay.log import Abandonment, BatchProof, EndRecord, parse_log
from tarneeb.replay.rules.scoring import team_totals
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.testing.alterations import EditableLog, rewrite


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


def tarneeb(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, stopped after 60 s (a hang fails the test)."""
    return subprocess.run([sys.executable, "-m", "tarneeb.cli.entry", *argv],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def logs() -> list[bytes]:
    """Three matches; the first alone shows no evidence of bias (exit 0, not 3)."""
    return [play_logged_match("qahwa41", seed=b"hides %d" % i) for i in (1, 0, 2)]


def test_a_fifo_is_refused_unopened_by_verify_and_audit(
        tmp_path: Path, logs: list[bytes], capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.tlog").write_bytes(logs[0])
    fifo = tmp_path / "b.tlog"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading would wait forever
    done = tarneeb("verify", str(fifo))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{fifo}: cannot read: a FIFO (named pipe), not a regular file" in done.stderr
    done = tarneeb("audit", "-j", "1", "--json", str(tmp_path))
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["logs"], doc["clean"], doc["unreadable"], doc["not_read"]) == (2, 1, 1, 1)
    assert any(f"{fifo}: cannot read: a FIFO" in e for e in doc["first_unreadable"])
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(tmp_path))
    assert code == 0 and f"unreadable: {fifo}: cannot read: a FIFO" in out  # skipped, named
    assert not out.startswith("All")


def test_a_fifo_named_by_url_is_refused_unopened(tmp_path: Path, logs: list[bytes]) -> None:
    """A FIFO reached by a ``file://`` URL, alone or in a directory listed by URL, is not
    opened (it would be waited on for ever): the log is unreadable, named."""
    (tmp_path / "a.tlog").write_bytes(logs[0])
    os.mkfifo(tmp_path / "b.tlog")
    for url in (f"file://{tmp_path}", f"file://{tmp_path}/b.tlog"):
        done = tarneeb("audit", "-j", "1", "--json", "--no-stats", url)
        assert done.returncode == 2, done.stderr
        doc = json.loads(done.stdout)
        assert doc["unreadable"] == 1 and "not a regular file" in doc["first_unreadable"][0]


@pytest.mark.parametrize("url", ["reference://a.tlog", "cached::file://{}/a.tlog"])
def test_a_url_fsspec_takes_and_fails_on_gives_one_line(
        tmp_path: Path, logs: list[bytes], url: str) -> None:
    """A store that fails with an error of its own (not an OSError) as it lists: one line,
    exit 2; a chained URL reads the log."""
    (tmp_path / "a.tlog").write_bytes(logs[0])
    done = tarneeb("audit", "-j", "1", "--no-stats", url.format(tmp_path))
    assert "Traceback" not in done.stderr
    if url.startswith("reference"):
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert "cannot list: TypeError" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


def test_a_run_stopped_before_any_log_came_back_says_incomplete() -> None:
    """Not "no logs were found": the logs listed were not read."""
    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.replay.archive.words import verdict_lines

    summary = ArchiveSummary()
    summary.stopped = "a local worker process died (out of memory, or killed)."
    assert verdict_lines(summary) == ["INCOMPLETE: a local worker process died (out of "
                                      "memory, or killed). No log was read before it stopped."]
    assert verdict_lines(ArchiveSummary()) == ["No logs were found."]


@pytest.fixture
def hidden(tmp_path: Path, logs: list[bytes], monkeypatch: pytest.MonkeyPatch) -> Path:
    """An archive with a subdirectory that cannot be listed (os.scandir refuses it, as
    it would a user without the right: root may list anything) and a log removed between
    the listing and the reading."""
    top = tmp_path / "archive"
    for name, data in (("a.tlog", logs[0]), ("closed/b.tlog", logs[1]),
                       ("gone.tlog", logs[2])):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_bytes(data)
    real_scandir, real_logs_under = os.scandir, archive_paths.logs_under

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if Path(path) == top / "closed":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def logs_under(*args: object, **kw: object) -> Iterator[str]:
        for p in real_logs_under(*args, **kw):  # type: ignore[arg-type]
            yield p
            if p.endswith("gone.tlog"):  # listed, then removed before it is read
                os.remove(p)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(archive_paths, "logs_under", logs_under)
    return top


def test_an_unlisted_directory_and_a_vanished_file_are_named(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "audit", "-j", "1", "--json", str(hidden))
    doc = json.loads(out)
    assert code == 2 and doc["exit_code"] == 2 and err == ""
    assert (doc["logs"], doc["clean"], doc["not_read"], doc["unlisted"]) == (2, 1, 1, 1)
    assert doc["first_unlisted"] == [f"{hidden / 'closed'}: cannot list: Permission denied"]
    assert any(f"{hidden / 'gone.tlog'}: cannot read: No such file" in e
               for e in doc["first_unreadable"])


def test_skip_unreadable_leaves_the_exit_code_to_the_rest_and_names_them(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (hidden / "gone.tlog").write_bytes((hidden / "a.tlog").read_bytes())  # a copy, then gone
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(hidden))
    assert code == 0
    first = out.splitlines()[0]
    assert not first.startswith("All") and "1 directory could not be listed" in first
    assert f"not listed: {hidden / 'closed'}: cannot list: Permission denied" in out
    assert f"unreadable: {hidden / 'gone.tlog'}: cannot read" in out
    assert "--skip-unreadable: the exit code is what the rest makes it" in out


def test_bytes_that_are_not_a_log_are_never_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], logs: list[bytes]) -> None:
    (tmp_path / "a.tlog").write_bytes(logs[0])
    (tmp_path / "b.tlog").write_bytes(b"not a log")
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(tmp_path))
    assert code == 2 and "b.tlog" in out


def test_verify_ends_on_a_directory_it_cannot_list(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "verify", str(hidden))
    assert code == 2 and err == f"tarneeb: error: {hidden / 'closed'}: cannot list: " \
        "Permission denied\n"


# ------------------------------------------------------------------ what matches share --

KEY = private_key_from_raw(hashlib.sha256(b"hides test platform key").digest())
SEASON = Season.from_seeds([hashlib.sha256(b"hides test season %d" % i).digest()
                            for i in range(8)])


def season_log(match: bytes, leaf: int) -> bytes:
    """A match (``match`` makes its id) played at leaf ``leaf`` of the season."""
    proof = BatchProof(leaf, SEASON.size, SEASON.proof(leaf), SEASON.root,
                       SEASON.head.sign(KEY))
    return play_logged_match("eram41", seed=match, key=KEY, server_seed=SEASON.seeds[leaf],
                             batch=proof)


@pytest.fixture
def pinned(tmp_path: Path) -> Path:
    """The platform's public key, as a PEM file to pin."""
    pem = tmp_path / "platform.pem"
    pem.write_bytes(public_key_pem(KEY.public_key()))
    return pem


def audit_doc(capsys: pytest.CaptureFixture[str], pem: Path,
              *argv: str) -> tuple[int, dict[str, Any]]:
    """``audit --json`` with the key and the season root pinned."""
    code, out, err = run(capsys, "audit", "-j", "1", "--json", "--root", SEASON.root.hex(),
                         "--key", str(pem), *argv)
    assert err == "", err
    return code, json.loads(out)


def kinds_by_log(tables: Path) -> dict[str, list[str]]:
    rows = pq.read_table(tables / "findings.parquet").to_pylist()
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(Path(r["path"]).name, []).append(r["kind"])
    return out


def test_one_leaf_used_by_two_matches_is_a_finding_on_both(
        tmp_path: Path, pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "a.tlog").write_bytes(season_log(b"hides match one", 3))
    (archive / "b.tlog").write_bytes(season_log(b"hides match two", 3))  # the same seed again
    (archive / "c.tlog").write_bytes(season_log(b"hides match three", 4))
    code, doc = audit_doc(capsys, pinned, str(archive / "c.tlog"))
    assert code == 0 and doc["clean"] == 1  # each alone is clean, pinned key and root
    code, doc = audit_doc(capsys, pinned, "--tables", str(tmp_path / "t"), str(archive))
    assert code == 1 and doc["clean"] == 1 and doc["findings"] == 2
    assert doc["findings_by_kind"] == {"reused-leaf": 2}
    assert kinds_by_log(tmp_path / "t") == {"a.tlog": ["reused-leaf"], "b.tlog": ["reused-leaf"]}
    verdicts = {Path(r["path"]).name: r["verdict"]
                for r in pq.read_table(tmp_path / "t" / "matches.parquet").to_pylist()}
    assert verdicts == {"a.tlog": "findings", "b.tlog": "findings", "c.tlog": "clean"}


def test_one_seed_at_two_leaves_or_in_two_seasons_is_a_finding_on_both(
        tmp_path: Path, pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A season may hold one seed twice (at two leaves), and a seed may stand in two
    seasons or in one and alone: the two matches share every deal, and the first's end
    reveals the seed. Known by the season leaf alone, they were two clean matches."""
    seed = SEASON.seeds[5]
    twice = Season.from_seeds([seed, seed, SEASON.seeds[6]])

    def at(season: Season, leaf: int, match: bytes) -> bytes:
        proof = BatchProof(leaf, season.size, season.proof(leaf), season.root,
                           season.head.sign(KEY))
        return play_logged_match("eram41", seed=match, key=KEY, server_seed=season.seeds[leaf],
                                 batch=proof)

    cases = {"two leaves": (at(twice, 0, b"hides twice 1"), at(twice, 1, b"hides twice 2")),
             "two seasons": (at(twice, 0, b"hides twice 1"), season_log(b"hides twice 3", 5)),
             "a season and alone": (season_log(b"hides twice 3", 5), play_logged_match(
                 "eram41", seed=b"hides twice 4", key=KEY, server_seed=seed))}
    for name, (first, second) in cases.items():
        archive = tmp_path / name
        archive.mkdir()
        (archive / "a.tlog").write_bytes(first)
        (archive / "b.tlog").write_bytes(second)
        code, out, err = run(capsys, "audit", "-j", "1", "--json", "--no-stats", "--key",
                             str(pinned), str(archive))
        doc = json.loads(out)
        assert code == 1 and doc["findings_by_kind"] == {"reused-leaf": 2}, (name, err)


def test_one_match_id_at_two_leaves_and_two_outcomes_are_findings(
        tmp_path: Path, pinned: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    first, second = season_log(b"hides same id", 1), season_log(b"hides same id", 2)
    assert parse_log(first).hands[-1].totals != parse_log(second).hands[-1].totals
    (archive / "a.tlog").write_bytes(first)
    (archive / "b.tlog").write_bytes(second)
    shutil.copy(archive / "a.tlog", archive / "c-copy.tlog")  # read after the finding
    code, doc = audit_doc(capsys, pinned, "--tables", str(tmp_path / "t"), str(archive))
    assert code == 1 and doc["clean"] == 0 and doc["copies"] == 1
    both = ["reused-match-id", "conflicting-outcome"]
    assert kinds_by_log(tmp_path / "t") == {"a.tlog": both, "b.tlog": both, "c-copy.tlog": both}
    assert doc["findings_by_kind"] == {k: 3 for k in both}
    # the statistics count two matches: they are two seeds, two sequences of deals
    assert doc["matches_by_deals"]["proven"] == 2


# ------------------------------------------------------------------ abandoned matches --

def abandoned(data: bytes, after: int, cause: str, behind: bool | None) -> bytes:
    """The match stopped after the first hand from hand ``after`` (from 0) whose totals
    are not level: a seat of the team then behind (``behind``) or ahead left, or the
    server failed (``behind`` None)."""
    def change(log: EditableLog) -> None:
        def teams(n: int) -> tuple[int, int]:
            return team_totals(log.rules, list(log.hands[n].totals or [0] * 4))

        stop = next(n for n in range(after, len(log.hands) - 1) if len(set(teams(n))) == 2)
        ours, theirs = teams(stop)
        log.hands = log.hands[:stop + 1]
        seat = None if behind is None else (0 if (ours < theirs) == behind else 1)
        assert log.end is not None
        log.end = EndRecord(None, log.end.server_seed, Abandonment(cause, seat, "gone"))

    return rewrite(data, change, resign=KEY)


def test_abandoned_matches_are_counted_with_the_score_and_tested(
        tmp_path: Path, pinned: Path, capsys: pytest.CaptureFixture[str],
        chromium: Any) -> None:
    plays = [play_logged_match("eram41", seed=b"hides left %d" % i, key=KEY) for i in range(5)]
    for i, (cause, behind) in enumerate([("disconnect", True), ("resignation", True),
                                         ("disconnect", True), ("disconnect", False),
                                         ("server-fault", None)]):
        (tmp_path / f"m{i}.tlog").write_bytes(abandoned(plays[i], 2, cause, behind))
    shutil.copy(tmp_path / "m0.tlog", tmp_path / "m9-copy.tlog")  # counted once
    code, out, _ = run(capsys, "audit", "-j", "1", "--json", "--key", str(pinned),
                       str(tmp_path))
    doc = json.loads(out)
    assert doc["clean"] == 6 and code in (0, 3), doc  # an abandonment is no finding
    a = doc["abandoned"]
    assert a["matches"] == 5
    assert a["by_cause"] == {"disconnect": 3, "resignation": 1, "server-fault": 1}
    assert (a["leaver_behind"], a["leaver_ahead"], a["level"]) == (3, 1, 0)
    assert sum(a["by_seat"].values()) == sum(a["by_label"].values()) == 4
    assert sum(a["score_differences"].values()) == 4
    assert sum(n for d, n in a["score_differences"].items() if int(d) > 0) == 1
    assert a["behind_test"]["p_value"] == 5 / 16  # P(X >= 3), X ~ B(4, 1/2): exact
    page_file = tmp_path / "audit.html"
    code, out, _ = run(capsys, "audit", "-j", "1", "--report", str(page_file), str(tmp_path))
    assert "5 matches were abandoned (disconnect 3, resignation 1, server-fault 1)" in out
    assert "behind 3, ahead 1, level 0: no evidence that the side behind leaves more " \
        "often (exact binomial p = 0.312)" in out
    # the report, on a phone: the key not pinned this time, so the verdict is not green
    with chromium.open(page_file, width=390, height=800) as page:
        assert page.errors == [] and page.requests == []
        assert page.page.get_attribute("#verdict", "class") == "verdict notice"
        assert "signed by a key not pinned" in page.text("#verdict .headline")
        assert page.texts("#signing-keys tbody td:nth-child(3)") == [
            "NOT PINNED: anyone could have signed"]
        assert "behind 3, ahead 1, level 0" in page.text("#abandoned-table")
        results = page.texts("table.tests tbody td:last-child")
        assert "fair" not in results and "no evidence of bias" in results
        # every plot is drawn 36rem wide, scrolled sideways in its own box: text of 9
        # units of its drawing (points) at 9 CSS pixels or more
        scale = page.page.eval_on_selector_all("figure.plot svg", """svgs => svgs.map(s =>
            s.getBoundingClientRect().width / s.viewBox.baseVal.width)""")
        assert scale and min(scale) >= 0.99, scale
        assert page.page.eval_on_selector("figure.plot", "f => getComputedStyle(f).overflowX"
                                          ) == "auto"


# ------------------------------------------------------------------ faults --

def _dies(marker: str, real: Any, paths: list[str], *args: Any, **kw: Any) -> Any:
    """On a Dask worker: kill the worker process running a chunk with a ``die-always`` log,
    and the first time one with a ``die-once`` log (``marker`` remembers it)."""
    if any("die-always" in p for p in paths) or (
            any("die-once" in p for p in paths) and not os.path.exists(marker)):
        Path(marker).touch()
        os._exit(1)
    return real(paths, *args, **kw)


def test_a_lost_dask_worker_is_retried_then_ends_in_one_line_and_a_partial_summary(
        tmp_path: Path, logs: list[bytes], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import cloudpickle
    import dask
    import distributed

    from tarneeb.replay.archive import audit
    from tarneeb.replay.archive import run as running

    archive = tmp_path / "archive"
    archive.mkdir()
    # three chunks of 2 logs: the second's worker dies once, the third's every time
    for i, what in enumerate(["", "", "-die-once", "", "-die-always", ""]):
        (archive / f"{i:03d}{what}.tlog").write_bytes(logs[0])
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    monkeypatch.setattr(audit, "audit_chunk",
                        functools.partial(_dies, str(tmp_path / "died"), audit.audit_chunk))
    monkeypatch.setattr(audit, "run_chunks", functools.partial(audit.run_chunks, chunk_size=2))
    # one chunk in flight at a time: a worker that dies takes every chunk it holds with it,
    # and which chunks it holds besides the dying one would depend on timing
    real_windowed = running.windowed
    monkeypatch.setattr(running, "windowed", lambda submit, result, chunks, window:
                        real_windowed(submit, result, chunks, 1))
    # the scheduler reports a worker lost at once (it retries 3 times by default)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1,
                                     dashboard_address=None) as cluster:
        code, out, err = run(capsys, "audit", "--json", "--scheduler",
                             cluster.scheduler_address, "--tables", str(tmp_path / "t"),
                             str(archive))
        # the nanny restarts the worker that died last; closing the cluster while that
        # process is still starting fails inside Dask's teardown, so wait for it first
        with distributed.Client(cluster) as client:
            client.wait_for_workers(1, timeout=60)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "Dask workers were lost 2 times running the logs" in err
    assert f"{archive / '004-die-always.tlog'} to {archive / '005.tlog'}" in err
    doc = json.loads(out)  # the two chunks before it, the second retried
    assert doc["logs"] == 4 and doc["copies"] == 3 and doc["stopped"] in err
    assert pq.read_table(tmp_path / "t" / "matches.parquet").num_rows == 4


def test_a_full_disk_ends_in_one_line_and_the_summary_is_kept(
        tmp_path: Path, logs: list[bytes], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables and the page written to /dev/full, where every write fails with ENOSPC."""
    (tmp_path / "a.tlog").write_bytes(logs[0])
    tables = tmp_path / "t"
    tables.mkdir()
    for name in ("matches", "findings"):  # the temporary files the tables are written to
        (tables / f".{name}.parquet.{os.getpid()}.tmp").symlink_to("/dev/full")
    code, out, err = run(capsys, "audit", "-j", "1", "--tables", str(tables),
                         str(tmp_path / "a.tlog"))  # full from the start: nothing audited
    assert code == 2 and out == "" and err == \
        f"tarneeb: error: {tables / 'matches.parquet'}: cannot write: No space left on device\n"
    for link in tables.iterdir():
        link.unlink()

    def full(*args: Any, **kw: Any) -> None:  # as pyarrow raises it when a row group fails
        raise OSError(28, "Error writing bytes to file. Detail: [errno 28] No space left on "
                      "device")

    with monkeypatch.context() as m:  # full part way: the audit goes on, without tables
        m.setattr(pq.ParquetWriter, "write_table", full)
        code, out, err = run(capsys, "audit", "-j", "1", "--tables", str(tables),
                             str(tmp_path / "a.tlog"))
    assert code == 2 and out.startswith("The log is clean")
    assert err == f"tarneeb: error: {tables}: cannot write the tables: No space left on " \
        "device (no tables written)\n"
    assert list(tables.iterdir()) == []  # no half table left behind

    # the page written where every write fails (a link to /dev/full: written through)
    (tmp_path / "r.html").symlink_to("/dev/full")
    code, out, err = run(capsys, "audit", "-j", "1", "--report", str(tmp_path / "r.html"),
                         str(tmp_path / "a.tlog"))
    assert code == 2 and out.startswith("The log is clean")
    assert err == f"tarneeb: error: {tmp_path / 'r.html'}: cannot write: No space left on " \
        "device\n"
