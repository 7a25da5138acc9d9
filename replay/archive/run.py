"""Running the archive audit's chunks: in this process, a pool of local processes, or a
Dask cluster, at most a few chunks in flight, results in the order the chunks were sent.

A fault that stops the audit part way is an :class:`~tarneeb.replay.archive.paths.AuditFault`
(one line; the caller keeps the summary of the chunks before it): a local worker
process killed, a Dask worker lost again after the chunk was sent again
(``DASK_RETRIES``; the scheduler retries a lost worker's task as its
``allowed-failures`` says first), the scheduler gone.

``--scheduler local`` (or ``local:N``) starts a Dask cluster of N worker processes on
this machine for the run (:func:`local_cluster`), with the quieter settings of
``QUIET_DASK``: a worker's event loop otherwise wakes every few milliseconds to profile,
watch its memory and tick, which costs an audit whose tasks hold the GIL about a tenth
of its speed on two cores.

>>> list(chunks_of("abcde", 2))
[['a', 'b'], ['c', 'd'], ['e']]
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from tarneeb.replay.archive.paths import ArchiveError, AuditFault

DASK_RETRIES = 1  # a chunk whose Dask worker was lost is sent again this many times
Task = Callable[..., Any]  # audit_chunk: the chunk's paths, then what the user trusts
# Dask settings for workers whose tasks are pure Python holding the GIL for a chunk at a
# time: no statistical profiler (it samples every thread every 10 ms), the system and
# memory monitors and the event loop's tick watchdog woken 10× less often, no work
# stealing (the chunks are alike, so there is nothing to balance). A cluster of one's
# own takes them as a dask config file (docs/ARCHIVE.md).
QUIET_DASK: dict[str, Any] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.tick.interval": "200ms",
    "distributed.scheduler.work-stealing": False,
}


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


def _where(paths: list[str]) -> str:
    """A chunk's logs, as a line that says it failed names them."""
    return f"the logs {paths[0]} to {paths[-1]}" if len(paths) > 1 else paths[0]


def run_pool(task: Task, chunks: Iterator[list[str]], jobs: int,
             args: tuple[Any, ...]) -> Iterator[Any]:
    """``task(chunk, *args)`` for each chunk on ``jobs`` local processes (spawned)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    def result(sent: tuple[list[str], Any]) -> Any:
        paths, f = sent
        try:
            return f.result()
        except BrokenProcessPool as e:
            raise AuditFault(f"a local worker process died (out of memory, or killed): {e}"
                             ) from None
        except Exception as e:  # (a worker's error, as on Dask: one line)
            raise AuditFault(f"a local worker failed running {_where(paths)}: "
                             f"{type(e).__name__}: {e}") from None

    def submit(chunk: list[str]) -> tuple[list[str], Any]:
        with interrupts_ignored():  # a worker it starts is born ignoring Ctrl-C (see there)
            return chunk, pool.submit(task, chunk, *args)

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=watch_parent,
                             initargs=(os.getpid(),)) as pool:
        try:
            yield from windowed(submit, result, chunks, 3 * jobs)
        except BaseException:  # interrupted, or a fault: the chunks not begun are dropped
            pool.shutdown(cancel_futures=True)
            raise


def watch_parent(parent: int, every: float = 0.5) -> None:
    """In a local worker process: end it when the audit that started it (``parent``) is
    gone (killed, even with ``kill -9``, which leaves it no time to stop its workers), so
    that no worker waits for chunks forever holding the audit's output open. A thread
    that looks every ``every`` seconds."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="tarneeb-watch-parent", daemon=True).start()


def local_workers(scheduler: Any) -> int | None:
    """The number of worker processes ``scheduler`` asks for if it names a local cluster
    (``local``: one a core; ``local:N``), else ``None``.

    >>> local_workers("local:3"), local_workers("tcp://scheduler:8786")
    (3, None)
    """
    if not isinstance(scheduler, str) or not (scheduler == "local"
                                              or scheduler.startswith("local:")):
        return None
    count = scheduler.partition(":")[2]
    if count == "":
        return os.cpu_count() or 1
    if not count.isdigit() or int(count) < 1:
        raise ArchiveError(f"--scheduler {scheduler}: local:N takes a number of worker "
                           "processes, 1 or more")
    return int(count)


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """A Dask cluster of ``workers`` local processes, one thread each, with the settings
    of ``QUIET_DASK``, and a client of it (closed, with the cluster, on leaving)."""
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise ArchiveError("--scheduler needs dask.distributed: pip install "
                           "'tarneeb[cluster]'") from None
    with dask.config.set(QUIET_DASK), contextlib.ExitStack() as stack:
        # multiprocessing's resource tracker, which each worker's start needs, started
        # here: started by the cluster's own thread, it would unblock Ctrl-C there (it
        # blocks it while it starts its process, then unblocks it), and a Ctrl-C
        # pressed while the cluster starts would be that thread's, ignored, and lost
        from multiprocessing import resource_tracker
        resource_tracker.ensure_running()
        with interrupts_ignored():  # by the processes it starts (see there)
            # no dashboard; the scheduler's own web server on a port of its own (else
            # 8787, which a second audit at once finds taken, and says so)
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, processes=True, threads_per_worker=1,
                dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                preload=[__name__]))
            client = stack.enter_context(Client(cluster))
        yield client


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Ctrl-C ignored while worker processes are started (a local pool's, as a chunk is
    handed out; a local Dask cluster's, as it starts): they are born ignoring it (an
    ignored signal stays so across their exec, and Python then leaves it so), and a
    Ctrl-C, sent to the whole process group, is then the run's own process's alone, which
    ends the run in one line and lets them go. One pressed meanwhile (a cluster's start
    takes a second or two) is held, not lost: the signal is also blocked, and a blocked
    signal stays pending even while ignored (Linux), to be delivered once the handler is
    back, when the processes are started. Only the main thread can set it: elsewhere,
    nothing is done (a Dask worker restarted later ignores it from its preload,
    :func:`dask_setup`, on)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) \
        if hasattr(signal, "pthread_sigmask") else None
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        if blocked is not None:  # (a Ctrl-C held meanwhile is delivered now)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def dask_setup(worker: Any) -> None:
    """A local cluster's worker process at its start (this module is its preload): Ctrl-C
    is the run's own process's to handle (see :func:`interrupts_ignored`), not the
    worker's; and its Dask log records are held back, as the run's own are
    (:func:`dask_quiet`): the tasks that closing the cluster cancels, a heartbeat to a
    scheduler gone as a Ctrl-C stops the run (a traceback on the terminal, on a loaded
    machine), each was a record; the run reports a lost worker itself."""
    import logging
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    logging.getLogger("distributed.worker").setLevel(logging.CRITICAL)
    logging.getLogger("distributed.core").setLevel(logging.CRITICAL)
    logging.getLogger("distributed.comm").setLevel(logging.CRITICAL)


def run_dask(task: Task, chunks: Iterator[list[str]], scheduler: Any,
             args: tuple[Any, ...], local: bool = False) -> Iterator[Any]:
    """``task(chunk, *args)`` for each chunk on the Dask cluster of ``scheduler`` (an
    address, ``local`` or ``local:N`` for a cluster of this machine's made for the run
    (:func:`local_cluster`), or a ``distributed.Client``). A cluster not made here
    (``local`` False) gets a relative path made absolute: its workers' working directory
    is not this process's, and a file of the same name there is another log."""
    workers = local_workers(scheduler)
    if workers is not None:  # (quiet until it is closed: a run ended early lets go of
        with dask_quiet(), local_cluster(workers) as client:  # tasks in flight)
            yield from run_dask(task, chunks, client, args, local=True)
        return
    if not local:
        from tarneeb.replay.archive.paths import absolute_path

        cwd = os.getcwd()
        chunks = ([absolute_path(p, cwd) for p in chunk] for chunk in chunks)
    try:
        from distributed import Client, KilledWorker
    except ImportError:
        raise ArchiveError("--scheduler needs dask.distributed: pip install "
                           "'tarneeb[cluster]'") from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout="20s") if own else scheduler
    except (OSError, ValueError, TypeError) as e:  # (an address Dask cannot parse)
        raise ArchiveError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None

    def submit(paths: list[str]) -> tuple[list[str], Any]:
        return paths, client.submit(task, paths, *args, pure=False)

    def result(sent: tuple[list[str], Any]) -> Any:
        """The chunk's result; a chunk whose worker was lost (the scheduler has retried
        it already) is sent again ``DASK_RETRIES`` times before the audit stops."""
        paths, future = sent
        where = _where(paths)
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

    with dask_quiet():
        try:
            threads = max(1, sum(client.nthreads().values()))
            yield from windowed(submit, result, chunks, 3 * threads)
        finally:
            if own:
                client.close()


@contextlib.contextmanager
def dask_quiet() -> Iterator[None]:
    """Dask's own log records held back: the audit reports a lost worker or a failed
    cluster itself, in one line, which they would bury (a scheduler or workers in this
    process log to its stderr)."""
    import logging  # (loaded by a run on Dask alone, not by every audit)

    with contextlib.suppress(ImportError):  # (first: it sets its loggers' levels as it
        import distributed  # noqa: F401  (is imported)
    quiet = [logging.getLogger(name) for name in ["distributed", *logging.root.manager.loggerDict]
             if name == "distributed" or name.startswith("distributed.")]
    levels = [logger.level for logger in quiet]
    for logger in quiet:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(quiet, levels, strict=True):
            logger.setLevel(level)


__all__ = ["DASK_RETRIES", "QUIET_DASK", "chunks_of", "local_cluster", "local_workers",
           "run_dask", "run_pool", "watch_parent", "windowed"]
