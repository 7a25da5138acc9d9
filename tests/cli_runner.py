"""Running the ``tarneeb`` command in the test's own process, as the CLI tests do."""

from __future__ import annotations

import pytest

from tarneeb.cli.entry import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``tarneeb ARGV…``."""
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err
