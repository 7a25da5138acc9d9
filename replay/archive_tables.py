"""The archive audit's tables in Parquet: one row per log, one per finding.

Parquet is what pandas (``read_parquet``), Polars (``read_parquet``/``scan_parquet``)
and DuckDB (``SELECT * FROM 'matches.parquet'``) read directly, with column types
kept. Rows are written in row groups as the audit goes, so a large archive needs
no more memory than a small one. Needs pyarrow (``pip install 'tarneeb[archive]'``).
"""

from __future__ import annotations

import os
from dataclasses import astuple, fields
from pathlib import Path
from typing import Any

from .archive import ArchiveError, Chunk, FindingRow, MatchRow

ROW_GROUP = 10_000

_TYPES = {"str": "string", "str | None": "string", "int": "int64", "int | None": "int64",
          "bool": "bool"}


def _schema(cls: type) -> Any:
    import pyarrow as pa

    kinds = {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_()}
    return pa.schema([pa.field(f.name, kinds[_TYPES[str(f.type)]],
                               nullable="None" in str(f.type)) for f in fields(cls)])


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
        self._tables["matches"].extend(astuple(r) for r in chunk.matches)
        self._tables["findings"].extend(astuple(r) for r in chunk.findings)

    def close(self) -> list[Path]:
        return [t.close() for t in self._tables.values()]

    def abort(self) -> None:
        for t in self._tables.values():
            t.abort()


class _Table:
    def __init__(self, path: Path, schema: Any) -> None:
        import pyarrow.parquet as pq

        self.path, self.schema = path, schema
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            self.writer = pq.ParquetWriter(self.tmp, schema)
        except OSError as e:
            raise ArchiveError(f"{path}: cannot write: {e.strerror or e}") from None
        self.rows: list[tuple[Any, ...]] = []

    def extend(self, rows: Any) -> None:
        self.rows.extend(rows)
        if len(self.rows) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        columns = list(zip(*self.rows, strict=True)) if self.rows else \
            [[] for _ in self.schema.names]
        self.writer.write_table(pa.Table.from_arrays(
            [pa.array(c, type=f.type) for c, f in zip(columns, self.schema, strict=True)],
            schema=self.schema))
        self.rows = []

    def close(self) -> Path:
        if self.rows:
            self._flush()
        self.writer.close()
        os.replace(self.tmp, self.path)
        return self.path

    def abort(self) -> None:
        try:
            self.writer.close()
        finally:
            self.tmp.unlink(missing_ok=True)


__all__ = ["TableWriter"]
