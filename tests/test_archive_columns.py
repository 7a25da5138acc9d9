"""The deal measures tallied a chunk at a time with numpy (replay/archive/battery/columns.py) are
the per-match tallies (replay/archive/battery/measures.py), key for key, with the same snapshot
after each match."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.battery.columns import DealColumns
from tarneeb.replay.archive.battery.measures import tally_match
from tarneeb.replay.archive.records import share_of
from tarneeb.replay.archive.seen import snapshot
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.ruleset import PRESETS

NAMES = ("Rami", "Lina", "Omar", "Hala", "Sami", "Dina")


def _match(rng: random.Random, deals: int) -> list[SimpleNamespace]:
    """Deals as the engine's Hand records give them, with the odd broken deal, a deal
    without a revealed card or without totals, and a stopped one."""
    first, totals, out = rng.randrange(4), [0, 0], []
    for k in range(deals):
        dealer = (first + k) % 4
        deck = list(range(52))
        rng.shuffle(deck)
        hands = deal_hands(deck, dealer)
        if rng.random() < 0.05:  # not a deal: the replayer could not deal it
            hands = (hands[0], hands[0], hands[2], hands[3])
        totals[rng.randrange(2)] += rng.randrange(14)
        rec = SimpleNamespace(hands=hands, dealer=dealer,
                              thirteenth=None if rng.random() < 0.05 else deck[51],
                              declarer=rng.choice((None, 0, 1, 2, 3)), trump=rng.randrange(4),
                              cancelled=rng.random() < 0.1)
        if rng.random() < 0.9:
            rec.totals = [totals[0], totals[1], totals[0] + rng.randrange(3), totals[1]]
        out.append(rec)
    return out


def _archive(seed: int, matches: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    out = []
    for i in range(matches):
        rules = PRESETS[rng.choice(sorted(PRESETS))]
        if rng.random() < 0.2:
            rules = replace(rules, target=rng.choice((31, 41, 61)))
        if rules.trump == "revealed_mate" and rng.random() < 0.2:  # the shown card's own suit
            rules = replace(rules, name=f"{rules.name}-own", trump="revealed")
        computer = tuple(rng.random() < 0.5 for _ in range(rng.choice((4, 4, 4, 0))))
        key = rng.choice((None, "k1", "k2"))
        names = tuple(rng.sample(NAMES, 4)) if rng.random() < 0.8 else None
        leaf = (bytes([seed % 256]) * 32, i) if rng.random() < 0.7 else None
        out.append((rules, computer, key, _match(rng, rng.choice((0, 1, 5, 12, 20))), names,
                    leaf))
    return out


def test_columns_tally_equals_the_per_match_tally() -> None:
    for seed in range(3):
        archive = _archive(seed, 40)
        slow, slow_shares = Tally(), []
        cols = DealColumns()
        for m in archive:
            if tally_match(slow, *m):
                slow_shares.append(snapshot(slow))
            cols.add_match(*m)
        fast, shares = cols.finish()
        assert fast.counts == slow.counts
        assert fast.sums == slow.sums
        assert len(fast.counts) > 500
        # the snapshots give each match's own share, as the per-match ones do
        assert len(shares) == len(slow_shares)
        keys = (list(fast.counts), list(fast.sums))
        slow_keys = (list(slow.counts), list(slow.sums))
        before = slow_before = None
        for after, slow_after in zip(shares, slow_shares, strict=True):
            mine, theirs = share_of(keys, after, before), share_of(slow_keys, slow_after,
                                                                   slow_before)
            assert mine.counts == theirs.counts and mine.sums == theirs.sums
            before, slow_before = after, slow_after


def test_columns_of_no_deals() -> None:
    cols = DealColumns()
    assert cols.add_match(PRESETS["eram41"], (True,) * 4, None, []) == 0
    tally, shares = cols.finish()
    assert not tally and shares == []


def test_a_lazy_history_of_known_size_is_not_made_to_say_it_has_hands() -> None:
    """An audit without statistics asks only whether a log has hands: the core's history
    is not built for that (replay/verify/compiled.py), and is built whole when read."""
    from tarneeb.replay.verify.compiled import LazyHistory

    made: list[int] = []

    def make() -> list[Any]:
        made.append(1)
        return ["hand 0", "hand 1"]

    h = LazyHistory(make, 2)
    assert h and not made
    assert list(h) == ["hand 0", "hand 1"] and made == [1] and h and len(h) == 2
    assert not LazyHistory(lambda: [])


def test_repeats_kept_apart_give_the_same_results(tmp_path: Any) -> None:
    """The summary moves the repeat tests' values out of its tallies into compact arrays
    (replay/archive/battery/repeats.py): every result is the same as with them in the tallies,
    and a value drawn twice counts as a pair."""
    from tarneeb.replay.archive.audit import ArchiveSummary, expand_paths, run_chunks
    from tarneeb.replay.archive.battery.repeats import Repeats
    from tarneeb.testing.archive import write_archive

    write_archive(tmp_path / "p", 4, seed=b"columns repeats")
    write_archive(tmp_path / "r", 4, seed=b"columns repeats r", recorded=True)
    docs = []
    for compact in (True, False):
        summary = ArchiveSummary(compact_repeats=compact)
        for chunk in run_chunks(expand_paths([str(tmp_path)]), jobs=1):
            summary.add(chunk)
        assert bool(summary.repeats) == compact
        assert any(k[0] == "repeat" for t in summary.tallies.values()
                   for k in t.counts) != compact
        docs.append({o: [r.to_json() for r in rs] for o, rs in summary.fairness().items()})
    assert docs[0] == docs[1] and docs[0]["recorded"]
    t, store = Tally(), Repeats()
    for v in (5, 7, 5, 5):
        t.drawn(("repeated hands", "all", "x"), v, 1e9, 1)
        store.add(("repeated hands", "all", "x"), 1e9, 1, v, 1)
    (mine,) = Tally().results(detectable=False, repeats=store.totals())
    (theirs,) = t.results(detectable=False)
    assert mine.to_json() == theirs.to_json() and mine.statistic == 3.0


def test_deals_and_rows_on_disk_give_the_same_results(tmp_path: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Past a bound, the deals the repeat tests keep and the matches' rows go to temporary
    files (replay/archive/battery/repeats.py), read back a piece at a time: every result is the
    same as with everything in memory, and the files have no name (nothing is left behind
    however the audit ends)."""
    import os

    from tarneeb.replay.archive.audit import ArchiveSummary, expand_paths, run_chunks
    from tarneeb.replay.archive.battery import repeats
    from tarneeb.testing.archive import write_archive

    write_archive(tmp_path / "p", 4, seed=b"columns spill")
    write_archive(tmp_path / "r", 4, seed=b"columns spill r", recorded=True)

    def audit() -> tuple[ArchiveSummary, dict[str, Any]]:
        summary = ArchiveSummary()
        for chunk in run_chunks(expand_paths([str(tmp_path)]), jobs=1):
            summary.add(chunk)
        return summary, {o: [r.to_json() for r in rs]
                         for o, rs in summary.fairness().items()}

    _, whole = audit()
    for name, bound in (("BATCH", 5), ("SPILL", 7), ("AT_ONCE", 11), ("ROWS_HELD", 2)):
        monkeypatch.setattr(repeats, name, bound)
    summary, spilled = audit()
    store = summary.repeats["recorded"]
    values = next(v for v in store.tests.values() if v.dtype.itemsize == 20)
    rows = next(iter(store.rows.values()))
    assert values.spill.items > 7 and rows.disk is not None
    assert os.fstat(values.spill.file.fileno()).st_nlink == 0
    assert spilled == whole and whole["recorded"]


def test_rows_kept_apart_read_as_the_tally_reads_them() -> None:
    """The matches' rows moved out of the summary's tally into flat arrays give the row
    tests the same rows, in the same order (ties of matches with no place broken as the
    tally breaks them, a row counted twice there twice), as the tally's keys would."""
    import numpy as np

    from tarneeb.audit.fairness import Tally
    from tarneeb.audit.fairness.state import decode
    from tarneeb.replay.archive.battery.repeats import keep_repeats

    test, ref = ("points", "state", "all"), "one hand"
    rows = {(5, 2, ("a", "b", "c", "d"), 3, bytes(range(10))): 1,
            (5, 1, (), -1, bytes(5)): 2,
            (1 << 63, 0, ("b",) * 4, 5, bytes([9] * 5)): 1,
            (0, -1, ("x",) * 4, 5, bytes([1] * 5)): 1,
            (0, -1, ("b",) * 4, 5, bytes([2] * 10)): 1,
            (0, -1, (), -1, bytes(5)): 3}
    tally = Tally()
    for row, n in rows.items():
        tally.counts[("rows", test, ref, row)] += n
    tally.counts[("fit", test, ref, 1)] += 1
    stores: dict[str, object] = {}
    rest = keep_repeats(stores, "recorded", tally)
    assert [k[0] for k in rest.counts] == ["fit"]
    held = stores["recorded"].rows[test]  # type: ignore[attr-defined]
    assert held.counts() == {(ref, row): n for row, n in rows.items()}
    want, got = decode({(ref, row): n for row, n in rows.items()}), held.decoded()
    assert want.keys() == got.keys()
    for key, value in want.items():
        if isinstance(value, np.ndarray):
            assert value.dtype == got[key].dtype and np.array_equal(value, got[key]), key
        else:
            assert value == got[key], key


def test_matches_read_long_ago_are_still_known() -> None:
    """Past the matches the dicts hold (they move into tables of SQLite's temporary
    database, on disk), a copy, a conflicting log and a reused leaf or match id of an
    early match are still found, with the first log's path, its copies and its clean
    state."""
    import contextlib
    import hashlib
    import os
    import tempfile

    from tarneeb.replay.archive.claims import FREEZE, REUSED_ID, REUSED_LEAF, Claim, Claims
    from tarneeb.replay.archive.seen import CONFLICTING, COPY, Seen

    def h(*parts: object) -> bytes:
        return hashlib.sha256(repr(parts).encode()).digest()

    seen, claims = Seen(), Claims()
    n = 3 * FREEZE
    for i in range(n):
        assert seen.check(h("match", i), h("log", i), f"/logs/é{i}.tlog", clean=i % 2 == 0) \
            is None
        assert claims.check(h("match", i), Claim(h("leaf", i)[:16], h("id", i)[:16],
                                                 h("won", i)[:16])) == []
    assert len(seen) == n
    assert seen.check(h("match", 4), h("log", 4), "copy.tlog") == (COPY, "/logs/é4.tlog", 0,
                                                                   False)
    assert seen.check(h("match", 4), h("other"), "x.tlog") == (CONFLICTING, "/logs/é4.tlog",
                                                               1, True)
    assert seen.check(h("match", 4), h("other"), "y.tlog")[3] is False  # flagged once
    assert seen.flag(h("match", 6)) == ("/logs/é6.tlog", 0, True)
    assert seen.flag(h("match", 6)) == ("/logs/é6.tlog", 0, False)
    assert seen.flag(h("match", 7)) == ("/logs/é7.tlog", 0, False)  # read with findings
    found = claims.check(h("new"), Claim(h("leaf", 5)[:16], h("id", 8)[:16], h("won", 8)[:16]))
    assert found == [(REUSED_LEAF, h("match", 5)), (REUSED_ID, h("match", 8))]
    assert len(seen) == n
    assert len(seen._old) >= 2 * FREEZE and len(claims._old_ids) >= FREEZE  # on disk
    if os.path.isdir("/proc/self/fd"):  # SQLite's temporary files: no name once open
        ours = []
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # the listing's own descriptor, closed
                if os.path.basename(f := os.readlink(f"/proc/self/fd/{fd}")).startswith(
                        "etilqs_"):
                    ours.append(f)
        assert ours and all(f.startswith(tempfile.gettempdir()) and f.endswith(" (deleted)")
                            for f in ours)
    seen.close()
    claims.close()


@pytest.mark.parametrize("on_disk", [False, True])
def test_tests_read_the_same_with_their_values_kept_apart(
        on_disk: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary's tally with the repeat tests' deals, the matches' rows and the lag
    test's entries moved into flat arrays (``on_disk``: most of them into temporary files)
    gives every test the result the whole tally gives."""
    from tarneeb.replay.archive.battery import repeats
    from tarneeb.replay.archive.battery.repeats import keep_repeats
    from tarneeb.testing.dealsim import synthetic_match

    if on_disk:
        for name, bound in (("BATCH", 16), ("SPILL", 50), ("ROWS_HELD", 7)):
            monkeypatch.setattr(repeats, name, bound)

    rng = random.Random(6)
    whole = Tally()
    for leaf in range(40):
        synthetic_match(whole, rng, "classic", 6, leaf=leaf)
    stores: dict[str, Any] = {}
    rest = keep_repeats(stores, "recorded", whole)
    store = stores["recorded"]
    assert store.ordered and not any(k[0] == "ordered" and len(k) == 5 for k in rest.sums)
    assert all((held.disk is not None) == on_disk
               for held in (*store.ordered.values(), *store.rows.values()))
    a = {r.test: repr((r.p_value, r.statistic)) for r in whole.results(detectable=False)}
    b = {r.test: repr((r.p_value, r.statistic)) for r in rest.results(
        detectable=False, repeats=store.totals(), rows=store.rows, lags=store.ordered)}
    assert a == b
    assert a[("high-card points", "serial", "consecutive matches")] != repr((None, None))


def test_the_cores_rows_give_the_tally_its_deal_views_give() -> None:
    """A log the compiled core confirmed is recorded from the core's output, decoded with
    its chunk's others at once (replay/verify/coredeals.py): the same tally, key for key
    and in the same order, and the same snapshots, as its deals one by one, among
    matches the Python replayer judged (recorded deals), under every preset."""
    from tarneeb.replay.log import parse_log
    from tarneeb.replay.rules.compiled import CORE
    from tarneeb.replay.verify.compiled import LazyHistory, confirm
    from tarneeb.replay.verify.replayer import verify_log
    from tarneeb.testing.archive import archive_log

    if CORE is None:
        pytest.skip("the compiled core is not built")
    rows, views = DealColumns(), DealColumns()
    from_core = 0
    for i in range(12):
        _, data = archive_log(i, b"core rows", redeal=0.3 if i % 3 == 2 else 0.0,
                              recorded=i % 4 == 3, keys=2)
        confirmed = confirm(data, f"m{i}.tlog")
        if confirmed is None:  # recorded deals: the Python path, as the audit takes them
            v = verify_log(parse_log(data, f"m{i}.tlog"), f"m{i}.tlog")
            assert v.clean
            rows.add_match(v.rules, v.computer, "k", v.history, v.names)
            views.add_match(v.rules, v.computer, "k", v.history, v.names)
            continue
        h = confirmed[0].history
        assert isinstance(h, LazyHistory) and h.rows is not None
        leaf = (bytes([i]) * 32, i) if i % 2 else None
        assert rows.add_core(confirmed[0].rules, confirmed[0].computer,
                             str(i % 2), h.rows, confirmed[0].names, leaf) \
            == views.add_match(confirmed[0].rules, confirmed[0].computer, str(i % 2),
                               h.deals(), confirmed[0].names, leaf) > 0
        from_core += 1
    assert from_core >= 6 and rows.core and not views.core
    (fast, shares), (slow, slow_shares) = rows.finish(), views.finish()
    assert list(fast.counts.items()) == list(slow.counts.items())
    assert list(fast.sums.items()) == list(slow.sums.items())
    assert [(list(a), list(b)) for a, b in shares] == \
        [(list(a), list(b)) for a, b in slow_shares]


def test_a_full_disk_stops_the_audit_and_keeps_what_was_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A temporary file or the temporary database that cannot be written (a full disk)
    stops the audit with one line (AuditFault: a partial summary, exit 2), and what
    was kept stays whole: a file's batch is written all or not at all, and written again;
    a table of the database that failed is not read again (no answer from part of it)."""
    import tempfile

    from tarneeb.replay.archive.battery import repeats
    from tarneeb.replay.archive.claims import Stored
    from tarneeb.replay.archive.paths import AuditFault

    real = tempfile.TemporaryFile

    class Full:  # a temporary file whose disk fills once, half way through a write
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.file, self.full = real(), True

        def write(self, data: bytes) -> int:
            if self.full:
                self.full = False
                self.file.write(data[:len(data) // 2])
                raise OSError(28, "No space left on device")
            return self.file.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.file, name)

    monkeypatch.setattr(repeats.tempfile, "TemporaryFile", Full)
    for name, bound in (("BATCH", 4), ("SPILL", 6)):
        monkeypatch.setattr(repeats, name, bound)
    store, drawn = repeats.Repeats(), [bytes([i % 7]) * 20 for i in range(40)]
    faults = 0
    for v in drawn:
        try:
            store.add(("repeated deals",), 1e28, 1, v, 1)
        except AuditFault as e:
            faults += 1
            assert "No space left on device" in str(e) and "temporary files" in str(e)
    held = store.tests[(("repeated deals",), 1e28, 1)]
    assert faults == 1 and held.spill.items > 0
    assert [v.tobytes() for a in held.chunks(3) for v in a] == drawn  # none lost, none twice

    table = Stored(("value",))
    table.add([(b"k%d" % i, i) for i in range(3000)])
    pages = table._db.execute("PRAGMA page_count").fetchone()[0]
    table._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    with pytest.raises(AuditFault, match="temporary database"):
        table.add([(b"new %d" % i, i) for i in range(3000)])
    for use in (lambda: table.get(b"k7"), lambda: table.add([(b"x", 1)])):
        with pytest.raises(AuditFault, match="temporary database"):  # never part of it
            use()
    table.close()


def test_streams_reuse_a_codes_grouping_only_for_the_same_array() -> None:
    """A count and its sums given one array of codes share its grouping; a new array of
    other codes is grouped anew: the tally and the snapshots are those of arrays apart."""
    import numpy as np

    from tarneeb.audit.fairness.streams import Streams

    match = np.array([0, 0, 1, 2, 2, 2])
    code = np.array([5, 7, 5, 9, 7, 7])
    other = np.array([1, 1, 3, 3, 1, 2])
    values = np.array([2, 3, 4, 5, 6, 7])

    def fill(s: Streams, same: bool) -> None:
        s.count(match, code, lambda k: ("fit", ("x",), k))
        s.total(match, code if same else code.copy(), lambda k: ("sum", ("x",), k), values)
        s.total(match, other, lambda k: ("sum", ("y",), k), values)

    a, b = Streams(3), Streams(3)
    fill(a, True)
    fill(b, False)
    (ta, sa), (tb, sb) = a.tally([0, 1, 2]), b.tally([0, 1, 2])
    assert ta.counts == tb.counts and ta.sums == tb.sums and sa == sb
    assert ta.sums[("sum", ("x",), 7)] == 3 + 6 + 7 and ta.sums[("sum", ("y",), 1)] == 2 + 3 + 6


def test_snapshots_made_when_read_are_the_tallys_as_it_stood_and_travel() -> None:
    """A chunk's snapshot after a match, made only when read, is the running tally's
    snapshot at that match, and the same after pickling (a worker process sends it)."""
    import pickle

    import numpy as np

    from tarneeb.audit.fairness.streams import Streams

    match = np.array([0, 0, 1, 2, 2])
    code = np.array([5, 7, 5, 9, 7])
    s = Streams(3)
    s.count(match, code, lambda k: ("fit", ("x",), k))
    s.total(match, code, lambda k: ("sum", ("x",), k), np.array([2, 3, 4, 5, 6]))
    _, shares = s.tally([0, 2])
    running = Tally()
    expected = []
    for m in range(3):
        for j in np.flatnonzero(match == m).tolist():
            running.counts[("fit", ("x",), int(code[j]))] += 1
            key = ("sum", ("x",), int(code[j]))
            running.sums[key] = running.sums.get(key, 0) + [2, 3, 4, 5, 6][j]
        if m in (0, 2):
            expected.append(snapshot(running))
    assert shares == expected and pickle.loads(pickle.dumps(shares)) == expected
    assert [list(a) for a, _ in shares] == [[1, 1], [2, 2, 1]]
