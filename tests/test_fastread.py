"""The reader's fast path reads exactly what the careful reader reads.

:func:`~tarneeb.replay.log.fastread.fast_parse` takes a log in the common form in one
pass; anything else goes to the careful reader. On the corpus, the altered logs,
generated, edited, altered, cut and zero-filled matches, whatever the fast path
returns must equal the careful reader's log, and where the careful reader refuses
the bytes the fast path must have given them up.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb.replay.log import (
    DEFAULT_LIMITS,
    CapExceeded,
    Limits,
    LogError,
    _parse_carefully,
    parse_log,
    read_log,
)
from tarneeb.replay.log.fastread import fast_parse
from tarneeb.replay.rules.ruleset import PRESETS, preset
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.testing.alterations import REGISTRY, alter
from tarneeb.testing.alterations.base import NotApplicable
from tarneeb.testing.strategies import edited_logs, logs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CORPUS = [*sorted((FIXTURES / "matches").glob("*.tlog")),
          *sorted((FIXTURES / "altered").glob("*.tlog"))]


def same_read(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """Whether the fast path took ``data``; fails when it read anything else than the
    careful reader."""
    fast = fast_parse(data, limits)
    try:
        careful = _parse_carefully(data, limits)
    except LogError:
        assert fast is None
        return False
    if fast is None:
        return False
    assert fast == careful
    return True


def test_corpus_and_altered_fixtures() -> None:
    taken = [path.name for path in CORPUS if same_read(path.read_bytes())]
    # the plain matches of every rule set go the fast way; timer moves, recorded
    # deals and cut logs the careful way
    for name in PRESETS:
        assert any(t.startswith(f"{name}-") for t in taken), name
    assert "eram41-timer.tlog" not in taken and "cut-short-eram41.tlog" not in taken


def test_read_log_takes_the_fast_path_and_gives_the_same_log(tmp_path: Path) -> None:
    data = play_logged_match("sahrat400", seed=b"fastread file")  # reproducible: not secret
    path = tmp_path / "m.tlog"
    path.write_bytes(data)
    assert fast_parse(data, DEFAULT_LIMITS) is not None
    assert read_log(str(path)) == _parse_carefully(data, DEFAULT_LIMITS)


def test_caps_still_hold() -> None:
    data = play_logged_match("classic", seed=b"fastread caps")  # reproducible: not secret
    hands = len(parse_log(data).hands)
    assert hands > 2
    for limits in (Limits(max_hands=hands - 1), Limits(max_records=2 * hands)):
        assert fast_parse(data, limits) is None
        try:
            parse_log(data, limits=limits)
        except CapExceeded:
            continue
        raise AssertionError(f"{limits} was not enforced")
    assert same_read(data, Limits(max_hands=hands))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs())
def test_generated_matches(data: bytes) -> None:
    same_read(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_logs())
def test_edited_matches(data: bytes) -> None:
    same_read(data)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**16), st.sampled_from(sorted(REGISTRY)),
       st.integers(0, 10**6))
def test_altered_matches(rules: str, seed: int, name: str, choice: int) -> None:
    log = play_logged_match(rules, seed=b"fastread %d" % seed)  # reproducible: not secret
    assume(REGISTRY[name].applies(preset(rules)))
    try:
        out, _ = alter(name, log, choice=choice)
    except NotApplicable:
        assume(False)
    same_read(out)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**16), st.floats(0, 1),
       st.integers(0, 3), st.sampled_from([0, 1, 7, 4096]), st.integers(0, 255))
def test_cut_torn_and_damaged_matches(rules: str, seed: int, where: float, how: int,
                                      zeros: int, byte: int) -> None:
    """Cut anywhere, cut then zero-filled, a byte changed or a byte added."""
    data = play_logged_match(rules, seed=b"fastread cut %d" % seed)  # reproducible
    at = int(where * len(data))
    if how == 0:
        out = data[:at]
    elif how == 1:
        out = data[:at] + bytes(zeros)
    elif how == 2:
        out = data[:at] + bytes((byte,)) + data[at + 1:]
    else:
        out = data[:at] + bytes((byte,)) + data[at:]
    assume(out)
    same_read(out)


def test_a_flood_of_hands_stops_the_fast_reader_at_the_cap(monkeypatch):
    """A log of more dealing attempts than max_hands is not read on to its end by the
    fast reader: it hands over to the careful reader (which names the cap) at the cap."""
    from tarneeb.replay.log import HandRecord, encode_record, fastread
    from tarneeb.replay.log.stream import DEFAULT_LIMITS
    from tarneeb.replay.verify.replayer import verify_bytes

    log = play_logged_match("eram41", seed=b"flood")
    header = log[:parse_log(log).offsets[0]]
    flood = header + b"".join(encode_record(HandRecord(deal_number=n, dealer=n % 4))
                              for n in range(3 * DEFAULT_LIMITS.max_hands))
    built = []
    real = fastread.HandRecord
    monkeypatch.setattr(fastread, "HandRecord", lambda *a: built.append(1) or real(*a))
    assert fast_parse(flood, DEFAULT_LIMITS) is None
    assert len(built) <= DEFAULT_LIMITS.max_hands + 1
    assert "max_hands" in (verify_bytes(flood).error or "")


def test_every_record_a_writer_writes_has_the_shape_both_readers_take_from_one_table() -> None:
    """The careful reader, the fast one and the torn-tail rule take a record's shape from
    records.RECORD_FIELDS: every record of the corpus (blind logs included) begins with
    the fixarray of that many fields, then its type."""
    import msgpack

    from tarneeb.replay.log.records import HEADER, RECORD_FIELDS

    seen: set[int] = set()
    for path in sorted((FIXTURES / "matches").glob("*.tlog")):
        data = path.read_bytes()
        unpacker = msgpack.Unpacker(raw=True)
        unpacker.feed(data)
        at = 0
        for value in unpacker:
            end = unpacker.tell()
            if isinstance(value, list):
                kind = value[0]
                fields = RECORD_FIELDS[kind] + (kind == HEADER and len(value) == 13)
                assert data[at:at + 2] == bytes([0x90 | fields, kind]), (path.name, at)
                seen.add(kind)
            at = end
    assert seen == set(RECORD_FIELDS)
