"""The ``tarneeb`` program's entry point (also ``python -m tarneeb``).

A plain ``tarneeb verify LOG...`` runs without loading typer; every other command
line goes to the typer app in :mod:`tarneeb.cli.app`.
"""

from __future__ import annotations

import gc
import sys

# what installs each module an optional part of tarneeb imports (pyproject.toml): a command
# that needs one that is missing ends in one line saying so, not in a traceback
INSTALLS = {
    "rbcl": "pip install rbcl (a dependency of tarneeb: the install is incomplete)",
    "scipy": "pip install 'tarneeb[archive]'", "numpy": "pip install 'tarneeb[archive]'",
    "pyarrow": "pip install 'tarneeb[archive]'", "dask": "pip install 'tarneeb[cluster]'",
    "distributed": "pip install 'tarneeb[cluster]'", "fsspec": "pip install 'tarneeb[cluster]'",
    "matplotlib": "pip install 'tarneeb[report]'", "hypothesis": "pip install 'tarneeb[testing]'",
    "pytest": "pip install 'tarneeb[testing]'", "endplay": "pip install 'tarneeb[play]'",
    "playwright": "pip install playwright, with a chromium from the system's packages",
}


def main(argv: list[str] | None = None) -> None:
    """Run the command line ``argv`` (default: the process's) and exit with its code; a
    missing optional module ends it in one line naming what installs it (exit 2)."""
    try:
        _main(argv)
    except KeyboardInterrupt:  # (Ctrl-C as the command's modules load: nothing begun yet)
        sys.stderr.write("tarneeb: interrupted\n")
        sys.exit(130)
    except ModuleNotFoundError as e:
        top = (e.name or "").split(".")[0]
        if top not in INSTALLS:
            raise
        sys.stdout.flush()
        sys.stderr.write(f"tarneeb: error: this needs the {top} package, which is not "
                         f"installed: {INSTALLS[top]}\n")
        sys.exit(2)


def _main(argv: list[str] | None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if argv is None:  # the program itself (not a caller running a command line in its process)
        _load_quietly(args)
    from .common import guard_std_streams
    from .verify_cmd import fast_path

    guard_std_streams()  # a closed pipe on stdout leaves the exit code the verdict's
    try:
        code = fast_path(args)
        if code is None:
            from .archive_cmd import fast_path as fast_audit

            code = fast_audit(args)
    except KeyboardInterrupt:  # (an audit's state is left as it was before the run)
        sys.stderr.write("tarneeb: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        _quiet_broken_pipe()
        sys.exit(0)
    if code is None:
        from .app import run

        run(args)
    if argv is None:
        # the program ends: the collector's last pass over what the command made (its
        # output written, its files closed) would only free what the exit gives back (a
        # hundredth of an incremental audit's CPU)
        gc.freeze()
    sys.exit(code)


def _load_quietly(args: list[str]) -> None:
    """Load what the command line ``args`` runs with the cyclic collector held off, then
    tell it to leave what the modules made alone (:func:`gc.freeze`).

    The modules make many objects that live as long as the process and no garbage: most of
    the collector's passes at start-up were over them (9 % of a one-log verify's
    instructions). It runs as usual for the command's own work. Only the program's own
    start does this: a process that runs command lines through :func:`main` (a test, a
    platform's tool) keeps its objects collectable.
    """
    gc.disable()
    try:
        from .verify_cmd import load_verifier

        load_verifier(args)
        if args[:1] == ["audit"]:
            from .archive_cmd import load_auditor

            load_auditor(args)
        gc.freeze()
    finally:
        gc.enable()


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
