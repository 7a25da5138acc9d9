"""Any Python engine behind the line protocol ``tarneeb-engine``: the server side.

Run as ``python -m tarneeb.testing.engine_server [--factory MODULE:FACTORY]`` (default: this
project's reference engine, ``tarneeb.testing.adapters:reference``): it answers the protocol
of ``docs/ENGINES.md`` ("The line protocol") on its standard input and output, one JSON
object a line, for as many matches as it is given, until ``quit`` or the end of its input.
Whatever the engine prints goes to standard error, so standard output carries the
protocol only. It is the reference an engine in another language is checked against:

.. code-block:: sh

    tarneeb regress --engine-cmd "python -m tarneeb.testing.engine_server"
    tarneeb regress --engine-cmd "python -m tarneeb.testing.engine_server \\
                                  --factory tarneeb.testing.adapters:broken_trump"

>>> import io, json
>>> out = io.StringIO()
>>> serve(io.StringIO('{"id":1,"cmd":"hello","protocol":"tarneeb-engine","versions":[1]}\\n'
...                   '{"id":2,"cmd":"to_move"}\\n{"id":3,"cmd":"bid"}\\n'), out)
0
>>> for line in out.getvalue().splitlines():
...     print(line.replace("tarneeb reference engine (tarneeb.testing.adapters:reference)", "..."))
{"id":1,"protocol":"tarneeb-engine","version":1,"engine":"..."}
{"id":2,"error":"new_match was not called"}
{"id":3,"error":"unknown command 'bid'"}
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import operator
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from tarneeb.replay.rules.ruleset import RulesError, RuleSet
from tarneeb.testing.protocol import Engine, EngineFactory
from tarneeb.testing.regress.command import PROTOCOL, VERSIONS
from tarneeb.testing.regress.pipes import MAX_LINE
from tarneeb.testing.regress.runner import EngineLoadError, load_factory

REFERENCE = "tarneeb.testing.adapters:reference"


class _Refused(Exception):
    """A request the server answers with an error (the engine goes on)."""


def _mask(cards: Any) -> int:
    if not isinstance(cards, list) or len(cards) != 13:
        raise _Refused("a hand is a list of 13 cards")
    mask = 0
    for c in cards:
        if type(c) is not int or not 0 <= c < 52 or (mask >> c) & 1:
            raise _Refused(f"a hand holds 13 distinct cards 0-51, not {cards!r}")
        mask |= 1 << c
    return mask


def _plain(value: Any) -> Any:
    """An engine's answer as JSON data: ints (``__index__``), lists of them, or None."""
    if value is None or type(value) is int:
        return value
    if isinstance(value, bool | str):
        return value  # wrong, and passed on as it is for the driver to say so
    if isinstance(value, bytes | dict):
        return repr(value)
    with contextlib.suppress(TypeError):
        return operator.index(value)
    try:
        return [_plain(v) for v in itertools.islice(iter(value), 100)]
    except TypeError:
        return repr(value)


class Server:
    """Answers requests for one engine factory: a fresh engine for every ``new_match``."""

    def __init__(self, factory: EngineFactory, name: str) -> None:
        self.factory, self.name = factory, name
        self.engine: Engine | None = None

    def answer(self, request: Any) -> dict[str, Any] | None:
        """The answer to one request (None for ``quit``: no answer, the server stops)."""
        if not isinstance(request, dict):
            return {"id": None, "error": "a request is a JSON object"}
        rid, cmd = request.get("id"), request.get("cmd")
        try:
            if cmd == "quit":
                return None
            return {"id": rid, **self._do(cmd, request)}
        except _Refused as e:
            return {"id": rid, "error": str(e)}
        except (Exception, SystemExit) as e:
            return {"id": rid, "error": f"{type(e).__name__}: {e}"}

    def _do(self, cmd: Any, r: dict[str, Any]) -> dict[str, Any]:
        if cmd == "hello":
            offered = r.get("versions")
            if r.get("protocol") != PROTOCOL or not isinstance(offered, list):
                raise _Refused(f"this engine speaks {PROTOCOL!r}")
            both = [v for v in VERSIONS if v in offered]
            if not both:
                raise _Refused(f"this engine speaks {PROTOCOL!r} version "
                               f"{' or '.join(map(str, VERSIONS))}, not {offered!r}")
            return {"protocol": PROTOCOL, "version": max(both), "engine": self.name}
        if cmd == "new_match":
            try:
                doc: Any = r.get("rules")  # a map, or from_dict refuses it (TypeError)
                rules = RuleSet.from_dict(doc)
            except (RulesError, TypeError) as e:
                raise _Refused(f"rules this engine cannot play: {e}") from None
            dealer = r.get("first_dealer")
            if type(dealer) is not int or not 0 <= dealer <= 3:
                raise _Refused("first_dealer is a seat 0-3")
            self.engine = self.factory()
            self.engine.new_match(rules, dealer)
            return {"ok": True}
        if cmd not in ("deal", "to_move", "legal_actions", "apply", "tricks", "hand_scores",
                       "totals", "winner"):
            raise _Refused(f"unknown command {cmd!r}")
        engine = self.engine
        if engine is None:
            raise _Refused("new_match was not called")
        if cmd == "deal":
            hands = r.get("hands")
            if not isinstance(hands, list) or len(hands) != 4:
                raise _Refused("hands is a list of four hands")
            thirteenth = r.get("thirteenth")
            if thirteenth is not None and (type(thirteenth) is not int
                                           or not 0 <= thirteenth < 52):
                raise _Refused("thirteenth is a card 0-51 or null")
            masks = [_mask(h) for h in hands]
            engine.deal((masks[0], masks[1], masks[2], masks[3]), thirteenth)
            return {"ok": True}
        if cmd == "apply":
            action = r.get("action")
            if type(action) is not int:
                raise _Refused("action is an integer")
            engine.apply(action)
            return {"ok": True}
        field = {"to_move": "seat", "legal_actions": "actions", "tricks": "tricks",
                 "hand_scores": "scores", "totals": "totals", "winner": "team"}[cmd]
        return {field: _plain(getattr(engine, cmd)())}


def serve(stdin: IO[str], stdout: IO[str], factory: EngineFactory | None = None,
          name: str | None = None) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until ``quit`` or its end; the exit code."""
    server = Server(factory or load_factory(REFERENCE),
                    name or f"tarneeb reference engine ({REFERENCE})")
    while line := stdin.readline(MAX_LINE + 1):
        answer: dict[str, Any] | None
        if len(line) > MAX_LINE and not line.endswith("\n"):  # read no more of it than that
            while (rest := stdin.readline(MAX_LINE)) and not rest.endswith("\n"):
                pass
            answer = {"id": None, "error": f"a request line is longer than {MAX_LINE:,} "
                                           "characters"}
        elif not line.strip():
            continue
        else:
            try:
                request = json.loads(line)
            except (ValueError, RecursionError):  # (JSON nested deeper than Python goes)
                answer = {"id": None, "error": "a request is one JSON object on one line"}
            else:
                answer = server.answer(request)
        if answer is None:
            break
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tarneeb.testing.engine_server",
        description="Answer the tarneeb-engine line protocol (docs/ENGINES.md) for a Python "
                    "engine, on standard input and output.")
    parser.add_argument("--factory", default=REFERENCE, metavar="MODULE:FACTORY",
                        help=f"the engine's factory (default {REFERENCE})")
    args = parser.parse_args(argv)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # MODULE may be a file in the current directory
    # The protocol has standard output to itself: the engine's prints go to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    with contextlib.suppress(OSError):
        sys.stdout.flush()
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        factory: Callable[[], Engine] = load_factory(args.factory)
    except EngineLoadError as e:
        print(f"engine_server: {e}", file=sys.stderr)
        return 2
    name = (f"tarneeb reference engine ({args.factory})" if args.factory == REFERENCE
            else args.factory)
    return serve(sys.stdin, out, factory, name)


if __name__ == "__main__":
    sys.exit(main())
