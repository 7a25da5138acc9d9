"""Running the ``tarneeb`` command in the test's own process, as the CLI tests do."""

from __future__ import annotations

import signal

import pytest

from tarneeb.cli.entry import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``tarneeb ARGV…``."""
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def as_a_terminal_starts_it() -> None:
    """In a child about to run a command: Ctrl-C as a shell leaves it to a command it
    starts (its default action, not blocked), whatever the test's process had set (a
    test that ran before in the same pytest worker may leave it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
