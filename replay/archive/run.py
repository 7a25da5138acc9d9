"""Running the archive audit's chunks: in this process, a pool of local processes, or a
Dask cluster, at most a few chunks in flight, results in the order the chunks were sent.

A fault that stops the audit part way is an :class:`~tarneeb.replay.archive.paths.AuditFault`
(one line; the caller keeps the summary of the chunks before it): a local worker
process killed, a Dask worker lost again after the chunk was sent again
(``DASK_RETRIES``; the scheduler retries a lost worker's task as its
``allowed-failures`` says first), the scheduler gone.

>>> list(chunks_of("abcde", 2))
[['a', 'b'], ['c', 'd'], ['e']]
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tarneeb.replay.archive.paths import ArchiveError, AuditFault

DASK_RETRIES = 1  # a chunk whose Dask worker was lost is sent again this many times
Task = Callable[..., Any]  # audit_chunk: the chunk's paths, then what the user trusts


def chunks_of(paths: Iterable[str], size: int) -> Iterator[list[str]]:
    """``paths`` in lists of ``size`` (the last shorter), lazily."""
    batch: list[str] = []
    for p in paths:
        batch.append(p)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def windowed(submit: Callable[[list[str]], Any], result: Callable[[Any], Any],
             chunks: Iterator[list[str]], window: int) -> Iterator[Any]:
    """At most ``window`` chunks in flight; results in submission order."""
    pending: collections.deque[Any] = collections.deque()
    for chunk in chunks:
        pending.append(submit(chunk))
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def run_pool(task: Task, chunks: Iterator[list[str]], jobs: int,
             args: tuple[Any, ...]) -> Iterator[Any]:
    """``task(chunk, *args)`` for each chunk on ``jobs`` local processes (spawned)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    def result(f: Any) -> Any:
        try:
            return f.result()
        except BrokenProcessPool as e:
            raise AuditFault(f"a local worker process died (out of memory, or killed): {e}"
                             ) from None

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        yield from windowed(lambda c: pool.submit(task, c, *args), result, chunks, 3 * jobs)


def run_dask(task: Task, chunks: Iterator[list[str]], scheduler: Any,
             args: tuple[Any, ...]) -> Iterator[Any]:
    """``task(chunk, *args)`` for each chunk on the Dask cluster of ``scheduler`` (an
    address, or a ``distributed.Client``)."""
    try:
        from distributed import Client, KilledWorker
    except ImportError:
        raise ArchiveError("--scheduler needs dask.distributed: pip install "
                           "'tarneeb[cluster]'") from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout="20s") if own else scheduler
    except OSError as e:
        raise ArchiveError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None

    def submit(paths: list[str]) -> tuple[list[str], Any]:
        return paths, client.submit(task, paths, *args, pure=False)

    def result(sent: tuple[list[str], Any]) -> Any:
        """The chunk's result; a chunk whose worker was lost (the scheduler has retried
        it already) is sent again ``DASK_RETRIES`` times before the audit stops."""
        paths, future = sent
        where = f"the logs {paths[0]} to {paths[-1]}" if len(paths) > 1 else paths[0]
        for attempt in range(DASK_RETRIES + 1):
            try:
                return future.result()
            except KilledWorker as e:
                if attempt == DASK_RETRIES:
                    raise AuditFault(f"Dask workers were lost {DASK_RETRIES + 1} times "
                                     f"running {where} ({e}): the audit stopped") from None
                future = client.submit(task, paths, *args, pure=False)
            except Exception as e:  # the scheduler gone, a worker's error: one line
                raise AuditFault(f"the Dask cluster failed running {where}: "
                                 f"{type(e).__name__}: {e}") from None
        raise AssertionError("not reached")

    # the audit reports a lost worker or a failed cluster itself, in one line: Dask's own
    # log records (a scheduler or workers in this process log to its stderr) would bury it
    quiet = [logging.getLogger(name) for name in ["distributed", *logging.root.manager.loggerDict]
             if name == "distributed" or name.startswith("distributed.")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)
    try:
        threads = max(1, sum(client.nthreads().values()))
        yield from windowed(submit, result, chunks, 3 * threads)
    finally:
        if own:
            client.close()
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)


__all__ = ["DASK_RETRIES", "chunks_of", "run_dask", "run_pool", "windowed"]
