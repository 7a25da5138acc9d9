"""A generated example kept as a log: a failing hypothesis example joins the corpus.

:func:`match_log` turns a :class:`~tarneeb.testing.regress.scripts.MatchScript` (what
:func:`~tarneeb.testing.strategies.matches` generates) into a signed log whose deals
are recorded in it; :func:`save_example` writes that (or the bytes that
:func:`~tarneeb.testing.strategies.logs` generates) to a ``.tlog`` file, which
``tarneeb verify``, ``tarneeb regress`` and the pytest plugin then take like any
recorded match. Call it where the test fails: hypothesis runs the shrunk example
last, so the file left behind is the minimal one (docs/ENGINES.md shows the recipe).

>>> from hypothesis import Phase, find, settings
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> from tarneeb.testing.strategies import matches
>>> first = settings(phases=[Phase.generate])  # the first match found, not shrunk
>>> log = match_log(find(matches("sahrat41"), lambda m: m.hands >= 2, settings=first))
>>> v = verify_bytes(log)
>>> v.clean, v.recorded == v.hands >= 2
(True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from tarneeb.replay.rules.engine import MatchState
from tarneeb.replay.rules.players import Move, play_match
from tarneeb.replay.server.simulate import DEFAULT_NAMES, MatchSecrets, write_log
from tarneeb.testing.regress.scripts import MatchScript

EXAMPLE_SEED = b"tarneeb.testing example"  # the signing key of example logs: NOT secret


class _Replay:
    """A player that makes the script's moves in order (one shared by the four seats)."""

    def __init__(self, match: MatchScript) -> None:
        self._moves = iter([a for d in match.deals for a in d.actions])

    def choose(self, state: MatchState) -> Move:
        return Move(next(self._moves))


def match_log(match: MatchScript) -> bytes:
    """The signed log of ``match``: its deals recorded in the log (they come from the
    example, not from seeds), signed with a key derived from :data:`EXAMPLE_SEED`.

    Raises ``ValueError`` for a match that has not ended (a log needs its winner).
    """
    deals = match.deals

    def deal(n: int, dealer: int) -> tuple[tuple[int, int, int, int], int | None]:
        if n >= len(deals):
            raise ValueError(f"{match.name}: the match has not ended after {len(deals)} "
                             "dealing attempts; a log needs its winner")
        return deals[n].hands, deals[n].thirteenth

    state, flags = play_match(match.rules, match.first_dealer, deal,
                              [_Replay(match)] * 4, max_hands=len(deals) + 1)
    return write_log(match.rules, state, flags, MatchSecrets(EXAMPLE_SEED), DEFAULT_NAMES,
                     (True, True, True, True), seeded=False)


def save_example(example: MatchScript | bytes, path: str | os.PathLike[str]) -> Path:
    """Write a generated match (a ``MatchScript``, or log bytes from ``logs()``) to
    ``path`` as a ``.tlog`` file, replacing the file there; returns the path."""
    data = example if isinstance(example, bytes) else match_log(example)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return out


__all__ = ["EXAMPLE_SEED", "match_log", "save_example"]
