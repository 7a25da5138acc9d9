"""``tarneeb audit``: an archive to one verdict, fairness statistics, tables, a Dask cluster."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import dask
import distributed  # noqa: F401  (the [cluster] extra, which make test installs)
import pyarrow.parquet as pq
import pytest
from cli_runner import as_a_terminal_starts_it, run
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.audit.signing import key_id, public_key_pem, public_key_raw
from tarneeb.replay.archive.audit import EXIT_BIAS, ArchiveSummary, expand_paths, run_chunks
from tarneeb.replay.archive.run import QUIET_DASK, local_cluster
from tarneeb.replay.archive.tables import TableWriter
from tarneeb.replay.verify.replayer import verify_file
from tarneeb.testing.alterations import EditableLog, rewrite
from tarneeb.testing.archive import platform_key, write_archive

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MATCHES = 30  # about 450 deals: enough to see one high-card point of bias, a second to make


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's config directory (where a default keys file would be), empty."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("archives")
    out = {
        "proven": root / "proven",
        "fair": root / "fair",
        "biased": root / "biased",
    }
    write_archive(out["proven"], MATCHES, seed=b"test proven", keys=2)
    # a fair archive is flagged with probability at most alpha (5 %): these fixed ones are
    # not; test_dealstats checks the rate itself over many fair archives
    write_archive(out["fair"], MATCHES, seed=b"test fair archive", recorded=True)
    write_archive(out["biased"], MATCHES, seed=b"test biased", redeal=0.8)
    return out


def audit_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code, out, err = run(capsys, "audit", "--json", *argv)
    assert err == ""
    return code, json.loads(out)


def test_the_biased_archive_is_flagged_and_the_fair_ones_are_not(
        archives: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, fair = audit_json(capsys, "-j", "1", str(archives["fair"]))
    assert code == 0 and fair["bias_flagged"] == [] and fair["clean"] == MATCHES
    assert fair["deals"]["proven"] == 0 and fair["deals"]["recorded"] > 400
    code, proven = audit_json(capsys, "-j", "1", str(archives["proven"]))
    assert code == 0 and proven["bias_flagged"] == []
    assert proven["deals"]["recorded"] == 0 and proven["deals"]["proven"] > 400
    assert len(proven["matches_by_key"]) == 2  # two signing keys: tested per key as well
    assert any(t["test"][1] == "key" for t in proven["fairness"]["proven"])

    code, biased = audit_json(capsys, "-j", "1", str(archives["biased"]))
    # every log is clean: only the deals lie, and the exit code says so apart from findings
    assert code == EXIT_BIAS == biased["exit_code"] and biased["clean"] == MATCHES
    flagged = {tuple(t["test"]): t for t in biased["fairness"]["recorded"] if t["flagged"]}
    assert ("high-card points", "computer vs human", "per hand") in flagged
    paired = flagged[("high-card points", "computer vs human", "per hand")]
    assert paired["observed"][0] - paired["expected"][0] > 1.4  # about a point more, and less
    # nothing but the labels is flagged (the points, and the honours that make them; the
    # players, whose names here say bot or player; the state test, whose worst cell is
    # then a label's or a player's): the seats, relative to the dealer or at the table,
    # are fair
    assert all(t[1] in ("computer vs human", "label", "player") for t in flagged
               if t[1] != "match state"), sorted(flagged)
    for t in (t for t in flagged if t[1] == "match state"):
        assert flagged[t]["categories"][0].startswith(("computer", "human", "player")), \
            flagged[t]["categories"]
    assert all(t["p_adjusted"] <= 0.05 for t in flagged.values())


def test_every_measure_is_tested_against_its_exact_distribution(
        archives: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, doc = audit_json(capsys, "-j", "1", str(archives["proven"]))
    tests = doc["fairness"]["proven"]
    measures = {t["test"][0] for t in tests}
    assert measures == {"high-card points", "aces", "kings", "trumps", "trump honours",
                        "suit pattern", "voids", "revealed card", "revealed rank",
                        "trump suit", "first dealer", "repeated hands", "card position",
                        "long suits", "repeated deals", "deck order", "near-repeated hands",
                        "suit fit", "honour fit"}
    assert {t["family"] for t in tests} == {"marginals", "match state", "splits", "partners",
                                            "shuffle"} == set(doc["families"])
    assert sum(f["weight"] for f in doc["families"].values()) == pytest.approx(1)
    assert sum(f["tests"] for f in doc["families"].values()) == sum(
        t["p_value"] is not None for ts in doc["fairness"].values() for t in ts)
    assert doc["not_covered"].startswith("No test looks for")
    assert "one player under one key" in doc["not_covered"]  # what its groupings miss
    groups = {tuple(t["test"][1:]) for t in tests}
    assert {("seat", "dealer"), ("seat", "dealer+1"), ("label", "computer"),
            ("label", "human"), ("computer vs human", "per hand"),
            ("seat", "dealer|dealer+1|dealer+2|dealer+3"),
            ("table seat", "seat 1|seat 2|seat 3|seat 4"), ("team", "seats 1+3|seats 2+4"),
            ("player", "by name"), ("match state", "side behind")} <= groups
    for t in tests:
        if t["p_value"] is not None:
            assert t["detectable"] > 0 and t["p_adjusted"] >= t["p_value"]
            assert sum(t["observed"]) == pytest.approx(sum(t["expected"])) \
                or t["method"] != "G-test"


def test_plain_audit_skips_typer_with_the_same_output(
        capsys: pytest.CaptureFixture[str], archives: dict[str, Path]) -> None:
    """A plain audit (-j, --json, --no-stats, paths) is parsed without typer
    (cli/archive_cmd.py's fast path), with typer's output and exit code to the byte."""
    from tarneeb.cli import archive_cmd
    from tarneeb.cli.app import run as typer_run

    assert archive_cmd.parse_fast(["audit", "-j", "1", str(archives["biased"])])
    for argv in (["-j", "1", "--json", "--no-stats", str(archives["biased"])],
                 ["-j", "1", "--no-stats", str(archives["fair"])]):
        fast = run(capsys, "audit", *argv)
        with pytest.raises(SystemExit) as e:
            typer_run(["audit", *argv])
        assert fast == (int(e.value.code or 0), *capsys.readouterr())
    assert fast[0] == 0 and "--no-stats" in fast[1]


def test_the_audit_runs_blas_on_one_thread_unless_told(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        archives: dict[str, Path]) -> None:
    """The audit sets one BLAS thread in its environment (read when numpy is first loaded,
    here and in the local workers, which inherit it), but leaves a number the user set."""
    from tarneeb.cli.archive_cmd import BLAS_THREADS

    for name in BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    assert run(capsys, "audit", "-j", "1", "--no-stats", str(archives["fair"]))[0] == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["MKL_NUM_THREADS"] == "3"


def test_no_stats_verifies_and_counts_but_tests_nothing(
        archives: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """--no-stats: the biased archive's logs are clean, so exit 0 (not 3), the counts
    are there, no test is run, and the summary says the deals were not tested."""
    code, out, _ = run(capsys, "audit", "-j", "1", "--no-stats", str(archives["biased"]))
    assert code == 0 and "logs are clean" in out
    assert "No fairness statistics (--no-stats)" in out and "no evidence of bias" not in out
    _, doc = audit_json(capsys, "-j", "1", "--no-stats", str(archives["biased"]))
    assert "fairness" not in doc and sum(doc["deals"].values()) > 0


def test_text_summary_says_what_the_deals_prove(archives: dict[str, Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "audit", "-j", "1", str(archives["proven"]),
                         str(archives["biased"]))
    assert code == EXIT_BIAS and err == ""  # piped: the result only, no progress bar
    assert out.startswith(f"All {2 * MATCHES} logs are clean")
    assert "proven by seeds or a blind transcript" in out and "only recorded by the platform" in out
    assert "test the implementation" in out and "the only evidence" in out
    assert "EVIDENCE OF BIAS" in out and "no evidence of bias" in out
    assert "would have detected (80% power) a bias of" in out


def test_paths_files_dirs_globs_and_stdin(archives: dict[str, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    logs = sorted(archives["fair"].glob("*.tlog"))
    for p in logs[:3]:
        shutil.copy(p, nested / p.name)
    shutil.copy(logs[3], tmp_path / "top.tlog")
    (tmp_path / "notes.txt").write_text("not a log")
    assert len(list(expand_paths([str(tmp_path)]))) == 4  # recursive, *.tlog only
    assert len(list(expand_paths([str(tmp_path / "**" / "*.tlog")]))) == 4
    listing = io.StringIO("\n".join(str(p) for p in logs[:5]) + "\n\n")
    assert list(expand_paths(["-"], listing)) == [str(p) for p in logs[:5]]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{logs[0]}\n{logs[1]}\n"))
    code, doc = audit_json(capsys, "-j", "1", "-", str(logs[2]))
    assert code == 0 and doc["logs"] == 3


def test_findings_and_unreadable_logs_are_counted(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((FIXTURES / "altered" / "manifest.json").read_text())
    bad = tmp_path / "garbage.tlog"
    bad.write_bytes(b"\x93not a log")
    code, doc = audit_json(capsys, "-j", "1", str(FIXTURES / "altered"), str(bad),
                           str(tmp_path / "missing.tlog"))
    assert code == 2
    assert doc["unreadable"] == 2 and doc["findings"] + doc["clean"] + 2 == doc["logs"]
    assert any("missing.tlog: cannot read" in e for e in doc["first_unreadable"])
    kinds = set(doc["findings_by_kind"])
    assert {"renege", "wrong-deal", "broken-signature", "card-not-held"} <= kinds
    assert doc["logs"] == len(list((FIXTURES / "altered").glob("*.tlog"))) + 2
    assert manifest  # the fixtures the kinds come from


def test_no_logs_and_bad_options_are_one_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "audit", str(tmp_path))
    assert code == 2 and err.strip().startswith("tarneeb: error: no logs found")
    code, _, err = run(capsys, "audit", "--root", "abc", str(tmp_path))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_tables_and_parallel_runs_are_identical(archives: dict[str, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(archives["proven"]), str(archives["biased"]), str(FIXTURES / "altered")]
    _, one = audit_json(capsys, "-j", "1", "--tables", str(tmp_path / "one"), *paths)
    _, two = audit_json(capsys, "-j", "2", "--tables", str(tmp_path / "two"), *paths)
    assert one == two
    for name in ("matches", "findings"):
        a = pq.read_table(tmp_path / "one" / f"{name}.parquet")
        b = pq.read_table(tmp_path / "two" / f"{name}.parquet")
        assert a.equals(b)
    matches = pq.read_table(tmp_path / "one" / "matches.parquet").to_pylist()
    assert len(matches) == one["logs"]
    assert {m["deals"] for m in matches} == {"proven", "recorded"}
    broken = next(m for m in matches if m["path"].endswith("broken-signature-eram41.tlog"))
    assert broken["deals"] == "recorded"  # the seeds check, but nothing ties them to the key
    findings = pq.read_table(tmp_path / "one" / "findings.parquet").to_pylist()
    assert len(findings) == sum(one["findings_by_kind"].values())
    renege = next(f for f in findings if f["kind"] == "renege")
    assert renege["path"].endswith(".tlog") and renege["hand"] is not None \
        and renege["offset"] is not None


def test_the_audit_streams(archives: dict[str, Path]) -> None:
    """Paths are read as the work goes, not all at once: memory stays flat."""
    taken = 0

    def paths():
        nonlocal taken
        for p in itertools.cycle(sorted(archives["fair"].glob("*.tlog"))):
            taken += 1
            yield str(p)

    chunks = run_chunks(paths(), jobs=1, chunk_size=4)
    first = next(chunks)
    assert len(first.matches) == 4 and taken <= 5
    for _ in range(10):
        next(chunks)
    assert taken <= 4 * 11 + 1
    chunks.close()


def test_a_dask_cluster_gives_the_same_result(archives: dict[str, Path], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the proven archive twice: every log of the second pass a copy, counted once, the
    # copies' deals taken out of chunks cut otherwise than the ones they came in
    paths = [str(archives["proven"]), str(archives["biased"]), str(FIXTURES / "altered"),
             str(archives["proven"])]
    local = ArchiveSummary()
    local_rows = []
    for chunk in run_chunks(expand_paths(paths), jobs=1):
        local.add(chunk)
        local_rows.append((chunk.matches, chunk.findings))
    with local_cluster(2) as client:  # the cluster --scheduler local:2 runs on
        assert len(client.nthreads()) == 2
        # the quieter settings reach the workers (a worker profiling every 10 ms costs the
        # audit about a tenth of its speed)
        settings = client.run(lambda: {k: dask.config.get(k) for k in QUIET_DASK})
        assert list(settings.values()) == [QUIET_DASK, QUIET_DASK]
        remote = ArchiveSummary()
        remote_rows = []
        for chunk in run_chunks(expand_paths(paths), scheduler=client.scheduler.address,
                                chunk_size=8):
            remote.add(chunk)
            remote_rows.append((chunk.matches, chunk.findings))
        assert len(set(client.run(os.getpid).values())) == 2  # two worker processes
        # a relative path is the client's: the workers, in another directory holding a
        # clean log of that name, judge the client's log (a byte of it changed)
        for side in ("workers", "client"):
            (tmp_path / side / "logs").mkdir(parents=True)
            shutil.copy(archives["proven"] / "m00000-eram41.tlog", tmp_path / side / "logs")
        changed = tmp_path / "client" / "logs" / "m00000-eram41.tlog"
        data = bytearray(changed.read_bytes())
        data[len(data) // 2] ^= 1
        changed.write_bytes(bytes(data))
        client.run(os.chdir, str(tmp_path / "workers"))
        monkeypatch.chdir(tmp_path / "client")
        relative = ArchiveSummary()
        for chunk in run_chunks(expand_paths(["logs"]), scheduler=client.scheduler.address):
            relative.add(chunk)
        assert relative.logs == 1 and relative.clean == 0
    for i in (0, 1):  # the same match rows and finding rows, in the same order
        assert [r for c in remote_rows for r in c[i]] == [r for c in local_rows for r in c[i]]
    assert len(remote_rows) > len(local_rows)  # cut into other chunks
    assert remote.to_json(remote.fairness()) == local.to_json(local.fairness())
    assert remote.copies == MATCHES and remote.conflicting > 0  # altered: a few matches
    assert remote.conflicts == local.conflicts != {}  # the first logs flagged alike
    once = ArchiveSummary()
    for chunk in run_chunks(expand_paths(paths[:3]), jobs=1):
        once.add(chunk)
    assert remote.to_json(remote.fairness())["fairness"] == \
        once.to_json(once.fairness())["fairness"]


def test_scheduler_local_starts_a_cluster_for_the_run(
        archives: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """``--scheduler local:N``: the same summary as one job, on a cluster made and taken
    down for the run; a count that is not one is refused in one line."""
    paths = [str(archives["proven"]), str(FIXTURES / "altered")]
    code, alone = audit_json(capsys, "-j", "1", *paths)
    code_dask, on_dask = audit_json(capsys, "--scheduler", "local:2", *paths)
    assert code_dask == code == 1 and on_dask == alone
    for bad in ("local:0", "local:two"):
        code, out, err = run(capsys, "audit", "--scheduler", bad, *paths)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"--scheduler {bad}: local:N takes a number of worker processes" in err


def test_the_report_reads_in_a_browser(archives: dict[str, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str], chromium) -> None:
    """The HTML report as a person sees it: the verdict first, the findings, every
    statistic with its plot; no console error, nothing fetched from the network."""
    page_file = tmp_path / "audit.html"
    proven = sorted(archives["proven"].glob("*.tlog"))
    second = tmp_path / "second-log.tlog"  # match 1 of the proven archive, logged again
    second.write_bytes(renamed(proven[1].read_bytes(), platform_key(b"test proven", 1)))
    paths = [str(archives["proven"]), str(archives["biased"]),
             str(FIXTURES / "altered" / "renege-*.tlog"), str(proven[0]), str(second)]
    code, doc = audit_json(capsys, "-j", "1", "--report", str(page_file), *paths)
    assert code == 1 == doc["exit_code"] and doc["bias_flagged"]  # findings come first
    assert (doc["copies"], doc["conflicting"]) == (1, 1)
    figures = sum(len({tuple(t["test"][:2]) for t in tests if t["method"] == "G-test"
                       and t["p_value"] is not None}) + 1 for tests in doc["fairness"].values())
    rows = sum(len(tests) for tests in doc["fairness"].values())
    shot = tmp_path / "audit.png"
    with chromium.open(page_file, screenshot=shot) as page:
        assert page.errors == [] and page.requests == []
        headline = page.text("#verdict .headline")
        assert headline.startswith(f"{doc['logs'] - doc['clean']:,} of {doc['logs']:,} logs")
        assert "the proven and recorded deals show evidence of bias" in headline \
            or "the recorded deals show evidence of bias" in headline
        # the verdict comes before everything else on the page
        assert page.page.eval_on_selector("main", "m => m.previousElementSibling.id") == \
            "verdict"
        assert page.count("#findings-by-kind tbody tr") == len(doc["findings_by_kind"])
        assert page.count("#findings-table tbody tr") == min(
            200, sum(doc["findings_by_kind"].values()))
        assert page.count("figure.plot svg") == figures
        assert page.count("table.tests tbody tr") == rows
        flagged = page.texts("table.tests tr.bad td:first-child")
        assert "high-card points" in flagged
        assert "No evidence of bias" not in page.text("#fairness-recorded-verdict")
        text = page.text("#fairness-recorded")
        assert "the only evidence" in text and "smallest detectable bias" in text
        assert "test the implementation" in page.text("#fairness-proven")
        # the logs counted once, each beside the first log of its match
        assert page.texts("#repeats-table tbody td:first-child") == [str(proven[0]),
                                                                    str(second)]
        assert page.texts("#repeats-table tr.bad td:last-child") == [str(proven[1])]
        # both logs of the conflicting match are findings, each naming the other
        found = [[td.inner_text() for td in tr.query_selector_all("td")]
                 for tr in page.page.query_selector_all("#findings-table tbody tr")]
        conflicts = [(where, what) for where, kind, what in found if kind == "conflicting-log"]
        assert [where for where, _ in conflicts] == [f"{second}: match", f"{proven[1]}: match"]
        assert str(proven[1]) in conflicts[0][1] and str(second) in conflicts[1][1]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_terminal_gets_a_progress_bar(archives: dict[str, Path]) -> None:
    """On a terminal the audit draws a bar on stderr as chunks come back; every chunk
    still reaches the summary."""
    from rich.console import Console

    from tarneeb.cli.archive_cmd import _progress

    screen = io.StringIO()
    term = Console(file=screen, force_terminal=True, width=100)
    paths = [str(archives["fair"])]
    chunks = list(_progress(paths, run_chunks(expand_paths(paths), jobs=1, chunk_size=8), term))
    assert sum(len(c.matches) for c in chunks) == MATCHES
    assert f"{MATCHES}/{MATCHES}" in screen.getvalue() and "auditing" in screen.getvalue()


# ------------------------------------------------------------------ each match once --

def renamed(data: bytes, key: Ed25519PrivateKey) -> bytes:
    """The same match (match id, key, commitment) in other bytes, signed again: a seat
    renamed. It replays clean on its own: only the archive can see it is a second log."""
    def change(log: EditableLog) -> None:
        seats = list(log.header.seats)
        seats[0] = replace(seats[0], name="Someone Else")
        log.header = replace(log.header, seats=seats)

    return rewrite(data, change, resign=key)


@pytest.fixture(scope="module")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Six matches, then a copy of the first under another name, a second log of the
    second match signed again, and two copies of one unreadable file."""
    root = tmp_path_factory.mktemp("repeated")
    seed = b"test repeated"
    originals = write_archive(root / "a", 6, seed=seed)
    again = root / "b"
    again.mkdir()
    shutil.copy(originals[0], again / "copy-of-first.tlog")
    other = renamed(originals[1].read_bytes(), platform_key(seed))
    (again / "second-log-of-second.tlog").write_bytes(other)
    for name in ("garbage.tlog", "garbage-again.tlog"):
        (again / name).write_bytes(b"\x93not a log")
    return {"root": root, "originals": root / "a", "originals_list": originals, "again": again}


def summary_of(*paths: str, **kw: Any) -> tuple[ArchiveSummary, list[Any]]:
    summary, rows = ArchiveSummary(), []
    for chunk in run_chunks(expand_paths(list(paths)), **kw):
        summary.add(chunk)
        rows.extend(chunk.matches)
    return summary, rows


def test_each_match_counts_once(repeated: dict[str, Any]) -> None:
    alone, _ = summary_of(str(repeated["originals"]), jobs=1)
    both, rows = summary_of(str(repeated["originals"]), str(repeated["again"]), jobs=1,
                            chunk_size=4)
    assert both.logs == alone.logs + 4 and (both.copies, both.conflicting) == (2, 1)
    # the statistics and the counts of matches are those of the six matches alone
    assert both.fairness() and both.to_json(both.fairness())["fairness"] == \
        alone.to_json(alone.fairness())["fairness"]
    for name in ("by_rules", "by_key", "deals", "matches_by_origin", "played"):
        assert getattr(both, name) == getattr(alone, name), name
    # the second log of a match is a finding even though it replays clean on its own
    assert verify_file(str(repeated["again"] / "second-log-of-second.tlog")).clean
    first = [str(p) for p in repeated["originals_list"]]
    second = str(repeated["again"] / "second-log-of-second.tlog")
    # ... and so is the first: at most one of the two is the match as played
    assert both.findings_by_kind == {"conflicting-log": 2} and both.exit_code == 2
    assert both.conflicts == {first[1]: [second]}
    assert (both.clean, both.with_findings) == (alone.clean - 1 + 1, 2)  # + the copy
    assert both.first_with_findings == [second, first[1]]
    assert [f.path for f in both.first_findings] == [second, first[1]]
    assert first[1] in both.first_findings[0].message
    assert second in both.first_findings[1].message  # each names the other
    by_path = {Path(r.path).name: r for r in rows}
    assert (by_path["copy-of-first.tlog"].duplicate,
            by_path["copy-of-first.tlog"].duplicate_of) == ("copy", first[0])
    conflict = by_path["second-log-of-second.tlog"]
    assert (conflict.duplicate, conflict.duplicate_of, conflict.verdict) == \
        ("conflicting", first[1], "findings")
    assert (by_path["garbage-again.tlog"].duplicate, by_path["garbage.tlog"].duplicate) == \
        (None, "copy")  # the same bytes, even unreadable (garbage-again is first by name)
    assert [(r.kind, Path(r.path).name) for r in both.first_repeats] == [
        ("copy", "copy-of-first.tlog"), ("copy", "garbage.tlog"),
        ("conflicting", "second-log-of-second.tlog")]
    assert len({r.sha256 for r in rows}) == both.logs - 2  # a digest per content
    # the first in the order of the paths counts: the other way round, the copy does
    flipped, _ = summary_of(str(repeated["again"]), str(repeated["originals"]), jobs=1)

    def deals_only(s: Any) -> dict[str, list[Any]]:  # the conflicting log renames a player
        return {o: [t for t in ts if t["test"][1] != "player"]
                for o, ts in s.to_json(s.fairness())["fairness"].items()}

    assert deals_only(flipped) == deals_only(alone)
    firsts = {Path(r.path).name: Path(r.first).name for r in flipped.first_repeats}
    assert firsts[Path(first[0]).name] == "copy-of-first.tlog"


def test_the_summary_lists_the_repeats(repeated: dict[str, Any], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(repeated["originals"]), str(repeated["again"] / "copy-of-first.tlog"),
             str(repeated["again"] / "second-log-of-second.tlog")]
    code, doc = audit_json(capsys, "-j", "1", "--tables", str(tmp_path), *paths)
    assert code == 1 and (doc["copies"], doc["conflicting"]) == (1, 1)
    # both logs of the conflicting match have the finding; the match counts once
    assert doc["findings_by_kind"] == {"conflicting-log": 2}
    assert (doc["clean"], doc["findings"]) == (6, 2)
    first_of_second = paths[0] + "/" + repeated["originals_list"][1].name
    assert doc["first_with_findings"] == [paths[2], first_of_second]
    assert sum(doc["matches_by_rules"].values()) == 6 and doc["logs"] == 8
    assert [(r["kind"], Path(r["path"]).name, Path(r["first"]).name) for r in
            doc["first_repeats"]] == [
        ("copy", "copy-of-first.tlog", repeated["originals_list"][0].name),
        ("conflicting", "second-log-of-second.tlog", repeated["originals_list"][1].name)]
    matches = pq.read_table(tmp_path / "matches.parquet").to_pylist()
    assert [(m["duplicate"], m["duplicate_of"]) for m in matches][-2:] == [
        ("copy", paths[0] + "/" + repeated["originals_list"][0].name),
        ("conflicting", paths[0] + "/" + repeated["originals_list"][1].name)]
    assert matches[-2]["sha256"] == matches[0]["sha256"] != matches[-1]["sha256"]
    assert matches[-1]["match_id"] == matches[1]["match_id"]
    assert [(m["verdict"], m["findings"]) for m in matches] == \
        [("clean", 0), ("findings", 1)] + [("clean", 0)] * 5 + [("findings", 1)]
    findings = pq.read_table(tmp_path / "findings.parquet").to_pylist()
    assert [(f["path"], f["kind"]) for f in findings] == [
        (first_of_second, "conflicting-log"), (paths[2], "conflicting-log")]
    assert paths[2] in findings[0]["message"] and first_of_second in findings[1]["message"]
    code, out, _ = run(capsys, "audit", "-j", "1", *paths)
    assert code == 1
    assert "1 log is a copy of a log read before it (the same bytes); 1 log is another log " \
        "of a match read before it" in out
    assert f"  {paths[1]}: a copy of {paths[0]}/{repeated['originals_list'][0].name}" in out
    assert "6 of 8 logs are clean; 2 have findings" in out
    assert f"  findings: {first_of_second}\n" in out
    # copies alone are no finding: the archive is clean, each match once
    code, doc = audit_json(capsys, "-j", "1", *paths[:2])
    assert code == 0 and doc["copies"] == 1 and doc["clean"] == doc["logs"] == 7


def resigned(data: bytes) -> bytes:
    """The same match signed again, unchanged, under a key of someone else's: its match
    id and server commitment are the platform's, the key it names is not."""
    return rewrite(data, lambda log: None, resign=Ed25519PrivateKey.generate())


def test_a_match_signed_again_under_another_key_conflicts(
        repeated: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = repeated["originals_list"][1]
    forgery = tmp_path / "resigned.tlog"
    forgery.write_bytes(resigned(first.read_bytes()))
    assert verify_file(str(forgery)).clean  # alone, under the key it names itself
    shutil.copy(first, tmp_path / "z-copy.tlog")
    code, doc = audit_json(capsys, "-j", "1", str(repeated["originals"]), str(forgery),
                           str(tmp_path / "z-copy.tlog"))
    assert code == 1 and (doc["copies"], doc["conflicting"]) == (1, 1)
    assert doc["first_repeats"][0] == {"path": str(forgery), "kind": "conflicting",
                                       "first": str(first)}
    assert doc["first_repeats"][1]["kind"] == "copy"  # the same bytes stay a copy ...
    # ... of a log in conflict: the copy, its first log and the forgery are findings
    assert doc["findings_by_kind"] == {"conflicting-log": 3} and doc["clean"] == 5
    assert doc["first_with_findings"] == [str(forgery), str(first), str(tmp_path / "z-copy.tlog")]
    assert sum(doc["matches_by_key"].values()) == 6  # the match counts once


def test_the_tables_flag_the_first_log_whatever_the_chunks(
        repeated: dict[str, Any], tmp_path: Path) -> None:
    """The first log of a match is written long before a conflict shows: closing the
    tables gives it its findings, and its copies theirs, the same on one process and on
    a pool cut finer."""
    first = repeated["originals_list"][1]
    for d in ("c0", "c"):
        (tmp_path / d).mkdir()
    forgery = tmp_path / "c" / "resigned.tlog"
    forgery.write_bytes(resigned(first.read_bytes()))
    copies = [tmp_path / "c0" / "copy.tlog", tmp_path / "c" / "a-copy.tlog",
              tmp_path / "c" / "z-copy.tlog"]  # before both conflicts, between, after
    for c in copies:
        shutil.copy(first, c)
    paths = [str(repeated["originals"]), str(tmp_path / "c0"), str(repeated["again"]),
             str(tmp_path / "c")]
    out = []
    for name, kw in (("one", {"jobs": 1}), ("pool", {"jobs": 2, "chunk_size": 2})):
        writer, summary = TableWriter(tmp_path / name), ArchiveSummary()
        for chunk in run_chunks(expand_paths(paths), **kw):
            summary.add(chunk)
            writer.add(chunk)
        writer.close(summary.conflicts)
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == [
            "findings.parquet", "matches.parquet"]  # no temporary file left
        out.append((summary.to_json(), *(pq.read_table(tmp_path / name / f"{t}.parquet")
                                         for t in ("matches", "findings"))))
    (doc, matches, findings), pool = out
    assert doc == pool[0] and matches.equals(pool[1]) and findings.equals(pool[2])
    later = [str(repeated["again"] / "second-log-of-second.tlog"), str(forgery)]
    assert summary.conflicts == {str(first): later}
    rows = {m["path"]: m for m in matches.to_pylist()}
    for log in (first, *copies):
        assert (rows[str(log)]["verdict"], rows[str(log)]["findings"]) == ("findings", 2)
        mine = [f for f in findings.to_pylist() if f["path"] == str(log)]
        assert [(f["kind"], p in f["message"]) for f, p in zip(mine, later, strict=True)] == \
            [("conflicting-log", True)] * 2
    # the summary's counts are the tables'
    verdicts = [m["verdict"] for m in matches.to_pylist()]
    assert (doc["clean"], doc["findings"], doc["unreadable"]) == tuple(
        verdicts.count(v) for v in ("clean", "findings", "unreadable")) == (6, 6, 2)
    assert findings.num_rows == sum(doc["findings_by_kind"].values()) == 2 * 4 + 2


# ------------------------------------------------------------------ keys --

def write_keys(path: Path, seed: bytes, names: dict[str, int]) -> Path:
    """A keys file naming the archive's platform keys ``k`` as ``name``."""
    raw = {name: public_key_raw(platform_key(seed, k).public_key()) for name, k in names.items()}
    path.write_text("".join(f'"{name}" = "{key.hex()}"\n' for name, key in raw.items()))
    return path


def test_keys_name_the_platforms_and_the_fairness_groups(
        archives: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    seed = b"test proven"  # the proven archive: two keys, matches signed in turn
    keys = write_keys(tmp_path / "keys.toml", seed, {"card room": 0, "club": 1})
    code, doc = audit_json(capsys, "-j", "1", "--keys", str(keys), str(archives["proven"]))
    assert code == 0 and doc["unpinned"] == 0
    assert sorted((k["platform"], k["pinned"], k["matches"]) for k in
                  doc["signing_keys"].values()) == [("card room", True, MATCHES // 2),
                                                   ("club", True, MATCHES // 2)]
    groups = {t["test"][2] for t in doc["fairness"]["proven"] if t["test"][1] == "key"}
    assert groups == {"card room", "club"}
    code, out, _ = run(capsys, "audit", "-j", "1", "--keys", str(keys), str(archives["proven"]))
    assert "NOT PINNED" not in out
    kid = key_id(public_key_raw(platform_key(seed, 0).public_key()))
    assert f"card room (key {kid}) {MATCHES // 2}" in out
    # the default keys file in the user's config directory does the same
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    (config / "tarneeb").mkdir(parents=True)
    write_keys(config / "tarneeb" / "keys.toml", seed, {"card room": 0})
    # ... and a log signed by a key the keys do not name is a finding, and unpinned
    code, doc = audit_json(capsys, "-j", "1", str(archives["proven"]))
    assert code == 1 and doc["findings_by_kind"] == {"key-mismatch": MATCHES // 2}
    assert doc["unpinned"] == MATCHES // 2
    assert sorted((k["pinned"], k["platform"] or "") for k in doc["signing_keys"].values()) \
        == [(False, ""), (True, "card room")]
    # (signed under a key the keys do not name: its own signature verifies, under that
    # key, but its deals are not shown to be the platform's)
    assert doc["signature_not_verified"]["matches"] == MATCHES // 2
    assert doc["deals"]["proven"] < sum(doc["deals"].values())
    code, out, _ = run(capsys, "audit", "-j", "1", str(archives["proven"]))
    assert f"{MATCHES // 2} logs are signed by a key named in the log itself, NOT PINNED" in out
    assert "(NOT PINNED)" in out and f"card room (key {kid})" in out
    # keys were given (the config directory's): the line does not tell the user to give some
    assert "no key given with --key or --keys" in out and "pin the platform's keys" not in out


def test_one_key_pinned_as_for_verify(archives: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    pem = tmp_path / "platform.pub.pem"
    pem.write_bytes(public_key_pem(platform_key(b"test fair archive").public_key()))
    code, doc = audit_json(capsys, "-j", "1", "--key", str(pem), str(archives["fair"]))
    assert code == 0 and doc["unpinned"] == 0
    assert [(k["platform"], k["pinned"]) for k in doc["signing_keys"].values()] == [
        (None, True)]
    assert doc["signature_not_verified"] == {"deals": 0, "matches": 0}
    code, out, err = run(capsys, "audit", "--keys", str(tmp_path / "missing.toml"),
                         str(archives["fair"]))
    assert code == 2 and out == "" and err.count("\n") == 1 and "missing.toml" in err


def test_a_wrong_key_signs_nothing(archives: dict[str, Path], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    # the platform's logs audited under another key: none is clean, none is counted as
    # signed by the key the user gave, and their deals, proven by seeds or not, are said
    # to be in logs not shown to be the platform's
    pem = tmp_path / "other.pub.pem"
    pem.write_bytes(public_key_pem(platform_key(b"another platform").public_key()))
    code, doc = audit_json(capsys, "-j", "1", "--key", str(pem), str(archives["proven"]))
    assert code == 1 and doc["clean"] == 0
    assert doc["matches_by_key"] == {"no verified signature": MATCHES}
    assert doc["signing_keys"] == {}
    assert doc["signature_not_verified"] == {"deals": sum(doc["deals"].values()),
                                             "matches": MATCHES}
    assert doc["deals"]["proven"] == 0  # (every seed matches its commitment)
    code, out, _ = run(capsys, "audit", "-j", "1", "--key", str(pem), str(archives["proven"]))
    assert "matches by signing key: no verified signature" in out
    assert f"in {MATCHES} matches, in logs with a signature finding" in out


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started, and those they started (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # (a process gone meanwhile)
            continue
        children.setdefault(ppid, []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        found = children.get(todo.pop(), [])
        out += found
        todo += found
    return out


def _workers(pid: int) -> list[int]:
    """The worker processes among them (multiprocessing's, started by "spawn")."""
    out = []
    for d in _descendants(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{d}/cmdline").read_bytes():
                out.append(d)
        except OSError:
            continue
    return out


def _ignores_ctrl_c(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return bool(int(status.split("SigIgn:")[1].split()[0], 16) >> (signal.SIGINT - 1) & 1)


def _ctrl_c(paths: list[str], options: tuple[str, ...], ready: Any) -> tuple[int, str, str]:
    """An audit of ``paths`` read from its standard input (left open: the run waits for
    more), sent Ctrl-C as a terminal sends it (to the whole process group) once
    ``ready(pid)`` holds: its exit code, standard error and output."""
    p = subprocess.Popen([sys.executable, "-m", "tarneeb.cli.entry", "audit", "-", *options],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True, preexec_fn=as_a_terminal_starts_it)
    try:
        assert p.stdin is not None
        p.stdin.write("\n".join(paths) + "\n")
        p.stdin.flush()
        deadline = time.monotonic() + 30
        while not ready(p.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ready(p.pid), "the moment to press Ctrl-C was not caught"
        os.killpg(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, err, out


@pytest.mark.parametrize("workers", [("-j", "2"), ("--scheduler", "local:2")])
def test_ctrl_c_ends_an_audit_in_one_line_and_its_workers_say_nothing(
        archives: dict[str, Path], workers: tuple[str, str]) -> None:
    """Ctrl-C as a terminal sends it (to the whole process group) while the workers are up,
    local processes or a local Dask cluster's: the run ends with exit code 130 and the one
    line "tarneeb: interrupted"; no worker says anything (a traceback of its own)."""
    # three times over (a path listed again is read again): two chunks of 32 for the
    # workers, the third left waiting for more; pressed once the workers are up and the
    # run's own process is past the cluster's start (where it holds Ctrl-C back)
    paths = sorted(str(p) for p in archives["proven"].iterdir()) * 3
    assert _ctrl_c(paths, workers, lambda pid: len(_workers(pid)) >= 2
                   and not _ignores_ctrl_c(pid)) == (130, "tarneeb: interrupted\n", "")


def test_ctrl_c_while_a_local_cluster_starts_is_not_lost(archives: dict[str, Path]) -> None:
    """Ctrl-C pressed while a local Dask cluster starts (its worker processes being born,
    the run's own process ignoring the signal so that they are born ignoring it) is held
    until the cluster is up, then ends the run: exit 130, one line. (It was lost: the run
    went on to its end, exit 0.)"""
    paths = sorted(str(p) for p in archives["proven"].iterdir())
    assert _ctrl_c(paths, ("--scheduler", "local:2"),
                   lambda pid: bool(_workers(pid)) and _ignores_ctrl_c(pid)) == \
        (130, "tarneeb: interrupted\n", "")


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process not ended (a zombie, ended and not reaped, is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_the_audit_that_started_them_is_killed(
        archives: dict[str, Path], how: signal.Signals) -> None:
    """The audit's own process killed while its local workers are up (``kill -9``, or a
    supervisor's SIGTERM, neither of which lets it stop them): the workers end within
    seconds, not wait for chunks forever holding the run's output open."""
    paths = sorted(str(p) for p in archives["proven"].iterdir()) * 3
    p = subprocess.Popen([sys.executable, "-m", "tarneeb.cli.entry", "audit", "-", "-j", "2"],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    workers: list[int] = []
    try:
        assert p.stdin is not None
        p.stdin.write("\n".join(paths) + "\n")  # (left open: the run waits for more)
        p.stdin.flush()
        deadline = time.monotonic() + 30
        while len(workers) < 2 and time.monotonic() < deadline:
            workers = _workers(p.pid)
            time.sleep(0.01)
        assert len(workers) == 2
        p.send_signal(how)
        p.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_running, workers))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()


@pytest.mark.parametrize("url", ["nosuch://bucket/logs", "zip://x",
                                 "a\x1b]0;title\x07://x"])
def test_a_url_no_store_can_list_is_one_line(url: str, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL of a protocol fsspec does not know (or whose package is not installed), or
    that names no listing, is one line saying so, exit 2, its text escaped: it was a
    traceback."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "audit", url)
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot list" in err
    assert "\x1b" not in err and "Traceback" not in err
