"""tarneeb: verifiable deals and replay audits for the Tarneeb family of card games.

For a platform, the API is here: :class:`MatchRecorder` writes a match's signed log
move by move from plain values, with the :class:`Durability` the server chooses, and
:func:`verify_file` / :func:`verify_bytes` judge a log (``docs/PLATFORM.md`` walks
through a whole match). The rest of the library is in :mod:`tarneeb.audit` (seeds,
commitments, deal derivation, signatures), :mod:`tarneeb.replay` (rule sets, the
engine, the log format, the replayer) and :mod:`tarneeb.testing` (tools for other
engines' tests); the ``tarneeb`` command is :mod:`tarneeb.cli`.

>>> import tarneeb
>>> tarneeb.__version__
'0.1.0'
>>> tarneeb.Durability.parse("group:5")
Durability(mode='group', interval_ms=5.0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:  # loaded when first used: ``import tarneeb.audit`` stays light
    from tarneeb.replay.findings import Verdict
    from tarneeb.replay.logwriter import Durability
    from tarneeb.replay.recorder import MatchRecorder, RecorderError
    from tarneeb.replay.replayer import verify_bytes, verify_file

_LAZY = {
    "MatchRecorder": "tarneeb.replay.recorder",
    "RecorderError": "tarneeb.replay.recorder",
    "Durability": "tarneeb.replay.logwriter",
    "Verdict": "tarneeb.replay.findings",
    "verify_bytes": "tarneeb.replay.replayer",
    "verify_file": "tarneeb.replay.replayer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tarneeb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["Durability", "MatchRecorder", "RecorderError", "Verdict", "__version__",
           "verify_bytes", "verify_file"]
