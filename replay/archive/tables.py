"""The archive audit's tables in Parquet: one row per log, one per finding.

Parquet is what pandas (``read_parquet``), Polars (``read_parquet``/``scan_parquet``)
and DuckDB (``SELECT * FROM 'matches.parquet'``) read directly, with column types
kept. Rows are written in row groups as the audit goes, so a large archive needs
no more memory than a small one. Needs pyarrow (``pip install 'tarneeb[archive]'``).

The first log of a match found in conflict with a later one was written before the
conflict was known: :meth:`TableWriter.close` then makes one pass over the tables
written, row group by row group, and gives that log its finding (:func:`amend_rows`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from pathlib import Path
from typing import Any

from tarneeb.replay.archive.audit import (
    ArchiveError,
    Chunk,
    FindingRow,
    MatchRow,
    copied,
    copy_finding,
    first_log_finding,
)
from tarneeb.replay.archive.claims import CLAIM_KINDS
from tarneeb.replay.archive.seen import CONFLICT_KIND, COPY

ROW_GROUP = 10_000

_TYPES = {"str": "string", "str | None": "string", "int": "int64", "int | None": "int64",
          "bool": "bool"}


def _schema(cls: type) -> Any:
    import pyarrow as pa

    kinds = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_()}
    return pa.schema([pa.field(f.name, kinds[_TYPES[str(f.type)]],
                               nullable="None" in str(f.type)) for f in fields(cls)])


# a row's values in the order of its fields, as dataclasses.astuple gives them without the
# deep copy of each value astuple makes (a match row: 13.5 us against 0.3, measured)
_MATCH_VALUES = attrgetter(*(f.name for f in fields(MatchRow)))
_FINDING_VALUES = attrgetter(*(f.name for f in fields(FindingRow)))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c - 0xDC00:02x}" if 0xDC80 <= c <= 0xDCFF else f"\\u{c:04x}"


def utf8_text(value: Any) -> Any:
    """``value`` as a Parquet string can hold it: a lone surrogate (a byte of a file name
    that is not UTF-8, as the listing gives it) written as the terminal and the report
    show it, ``\\xff``; anything else as it is.

    >>> print(utf8_text("bad\\udcff.tlog"), utf8_text("m1.tlog"), utf8_text(None))
    bad\\xff.tlog m1.tlog None
    """
    if isinstance(value, str) and _SURROGATE.search(value) is not None:
        return _SURROGATE.sub(_escaped, value)
    return value


def amend_rows(matches: Iterable[MatchRow], findings: Iterable[FindingRow],
               conflicts: Mapping[str, Sequence[str]],
               amends: Mapping[str, Sequence[FindingRow]] | None = None,
               ) -> Iterator[tuple[MatchRow, list[FindingRow]]]:
    """Each log's row and its finding rows (both in the order of the logs), the first
    log of each conflicting match (``conflicts``: its path -> the later logs', as
    :attr:`~tarneeb.replay.archive.audit.ArchiveSummary.conflicts` has them) and each copy of
    it given a ``conflicting-log`` finding per later log, after its own (a copy read
    after some of them has those already); so too the findings later logs gave an earlier
    log (``amends``: its path -> the rows, as
    :attr:`~tarneeb.replay.archive.audit.ArchiveSummary.amends` has them), and its copies.

    >>> row = MatchRow("a.tlog", "clean", None, "qahwa41", None, None, False, "none",
    ...                1, 1, 0, 0, 4)
    >>> [(m.verdict, m.findings, [f.kind for f in fs])
    ...  for m, fs in amend_rows([row], [], {"a.tlog": ["b.tlog"]})]
    [('findings', 1, ['conflicting-log'])]
    """
    done: set[str] = set()
    amends = amends or {}
    rows = iter(findings)
    for m in matches:
        own = [next(rows) for _ in range(m.findings)]
        n = len(own)
        if m.duplicate is None and m.path not in done:
            done.add(m.path)
            own += [first_log_finding(m.path, p) for p in conflicts.get(m.path, ())]
            own += amends.get(m.path, ())
        elif m.duplicate == COPY and m.duplicate_of is not None:
            first = m.duplicate_of
            had = sum(f.kind == CONFLICT_KIND for f in own)
            own += [copy_finding(m.path, first, p) for p in conflicts.get(first, ())[had:]]
            had = sum(f.kind in CLAIM_KINDS for f in own)
            own += [copied(r, m.path, first) for r in amends.get(first, ())[had:]]
        if len(own) > n:
            m.add_findings(len(own) - n)
        yield m, own


def write_error(e: OSError) -> str:
    """Why a write failed, in the system's words (pyarrow puts its own around them).

    >>> write_error(OSError(28, "Error writing bytes to file. Detail: [errno 28] ..."))
    'No space left on device'
    """
    if e.errno:
        return os.strerror(e.errno)
    return e.strerror or str(e)


class TableWriter:
    """Writes ``matches.parquet`` and ``findings.parquet`` into ``directory``.

    Files appear under their names only when :meth:`close` succeeds (written to a
    temporary name first), so a reader never sees half a table.
    """

    def __init__(self, directory: str | Path) -> None:
        try:
            import pyarrow
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise ArchiveError("--tables needs pyarrow: pip install 'tarneeb[archive]'") \
                from None
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ArchiveError(f"{directory}: cannot create: {e.strerror or e}") from None
        self._tables = {name: _Table(self.directory / f"{name}.parquet", _schema(cls))
                        for name, cls in (("matches", MatchRow), ("findings", FindingRow))}

    def add(self, chunk: Chunk) -> None:
        self._tables["matches"].extend(map(_MATCH_VALUES, chunk.matches))
        self._tables["findings"].extend(map(_FINDING_VALUES, chunk.findings))

    def close(self, conflicts: Mapping[str, Sequence[str]] | None = None,
              amends: Mapping[str, Sequence[FindingRow]] | None = None) -> list[Path]:
        """Finish the tables, giving the first logs of ``conflicts`` and ``amends`` their
        findings (as :func:`amend_rows`; the summary's ``conflicts`` and ``amends``)."""
        if conflicts or amends:
            self._amend(conflicts or {}, amends or {})
        return [t.close() for t in self._tables.values()]

    def _amend(self, conflicts: Mapping[str, Sequence[str]],
               amends: Mapping[str, Sequence[FindingRow]]) -> None:
        import pyarrow.parquet as pq

        written = self._tables
        for t in written.values():
            t.finish()
        try:
            self._tables = {name: _Table(t.path, t.schema, "amended")
                            for name, t in written.items()}
            def read(name: str, cls: Any) -> Iterator[Any]:
                for batch in pq.ParquetFile(written[name].tmp).iter_batches(ROW_GROUP):
                    yield from (cls(**r) for r in batch.to_pylist())

            # the rows hold paths as utf8_text wrote them
            conflicts = {utf8_text(k): v for k, v in conflicts.items()}
            amends = {utf8_text(k): v for k, v in amends.items()}
            for m, own in amend_rows(read("matches", MatchRow), read("findings", FindingRow),
                                     conflicts, amends):
                self._tables["matches"].extend([_MATCH_VALUES(m)])
                self._tables["findings"].extend(map(_FINDING_VALUES, own))
        finally:
            for t in written.values():
                t.tmp.unlink(missing_ok=True)

    def abort(self) -> None:
        for t in self._tables.values():
            t.abort()


class _Table:
    def __init__(self, path: Path, schema: Any, tag: str = "") -> None:
        import pyarrow.parquet as pq

        self.path, self.schema = path, schema
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}{tag}.tmp")
        try:
            self.writer = pq.ParquetWriter(self.tmp, schema)
        except OSError as e:
            raise ArchiveError(f"{path}: cannot write: {write_error(e)}") from None
        self.rows: list[tuple[Any, ...]] = []

    def extend(self, rows: Any) -> None:
        self.rows.extend(rows)
        if len(self.rows) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        columns = list(zip(*self.rows, strict=True))  # never called with no rows
        self.writer.write_table(pa.Table.from_arrays(
            [_array(c, f.type) for c, f in zip(columns, self.schema, strict=True)],
            schema=self.schema))
        self.rows = []

    def finish(self) -> None:
        """Write what is left and close the temporary file."""
        if self.rows:
            self._flush()
        self.writer.close()

    def close(self) -> Path:
        self.finish()
        os.replace(self.tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Close and remove the temporary file; an error closing it (a full disk) is the
        one already said."""
        try:
            self.writer.close()
        except OSError:
            pass
        finally:
            self.tmp.unlink(missing_ok=True)


def _array(values: Sequence[Any], kind: Any) -> Any:
    """A column of a row group; text that is not valid UTF-8 (a file name's bytes, in a
    path or a finding's sentence) as :func:`utf8_text` writes it."""
    import pyarrow as pa

    try:
        return pa.array(values, type=kind)
    except UnicodeEncodeError:
        return pa.array([utf8_text(v) for v in values], type=kind)


__all__ = ["TableWriter", "amend_rows", "utf8_text", "write_error"]
