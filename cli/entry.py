"""The ``tarneeb`` program's entry point (also ``python -m tarneeb``).

A plain ``tarneeb verify LOG...`` runs without loading typer; every other command
line goes to the typer app in :mod:`tarneeb.cli.app`.
"""

from __future__ import annotations

import sys
import types


def main(argv: list[str] | None = None) -> None:
    """Run the command line ``argv`` (default: the process's) and exit with its code."""
    args = sys.argv[1:] if argv is None else list(argv)
    _defer("inspect")
    from .common import guard_std_streams

    guard_std_streams()  # a closed pipe on stdout leaves the exit code the verdict's
    try:
        from .verify_cmd import fast_path

        code = fast_path(args)
    except KeyboardInterrupt:
        sys.stderr.write("tarneeb: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        _quiet_broken_pipe()
        sys.exit(0)
    if code is None:
        from .app import run

        run(args)
    sys.exit(code)


def _defer(name: str) -> None:
    """Put off loading the standard module ``name`` until one of its names is used.

    :mod:`dataclasses` imports :mod:`inspect` (and with it ast, dis, tokenize…) for one
    rare case, a class without a docstring, which no dataclass of tarneeb is: in a
    ``tarneeb`` command's process that import is most of what :mod:`dataclasses` costs,
    and a plain verify (run once per log over an archive) would pay it for nothing.
    Until then ``sys.modules[name]`` is a :class:`_Deferred` stand-in. (The standard
    library's :class:`importlib.util.LazyLoader` does the same, but importing
    :mod:`importlib.util` costs more CPU than the import it would put off: measured
    152 against 182 ms for a one-log verify.)
    """
    if name in sys.modules:
        return
    from importlib.machinery import ModuleSpec

    stand_in = _Deferred(name)
    stand_in.__spec__ = ModuleSpec(name, None)
    sys.modules[name] = stand_in


class _Deferred(types.ModuleType):
    """A module's stand-in in ``sys.modules``: the first name asked of it imports the
    module, which takes its place there, and the stand-in takes on its names."""

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("__"):  # what the import system asks of any module
            raise AttributeError(attr)
        import importlib

        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


def _quiet_broken_pipe() -> None:
    """The reader of our output went away (``| head``): stop without a second error."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    main()
