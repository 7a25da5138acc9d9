"""An engine in any language, as a command: the line protocol ``tarneeb-engine``, the client side.

:class:`EngineCommand` is an engine factory over a command line (``"npx tarneeb-engine"``,
``"python -m tarneeb.testing.engine_server"``): it starts the command as a subprocess,
greets it (the handshake names the protocol version and the engine), and each call
returns a :class:`SubprocessEngine`, an :class:`~tarneeb.testing.protocol.Engine` whose
nine methods are requests on the child's standard input, one JSON object a line, each
answered by one JSON object a line on its standard output. ``docs/ENGINES.md`` ("The line
protocol") is the specification; :mod:`tarneeb.testing.engine_server` is its server side
for any Python engine.

The process is reused from match to match (``new_match`` starts afresh) unless
``reuse=False``; after a failure it is killed and the next match gets a fresh one. Every
request has a deadline, the call's time limit from the moment it was sent (and, with
``match_limit``, no later than the end of the match's), so an engine that hangs fails its
match, naming the call, and never hangs the run; one that exits, prints something that is
not a JSON object or breaks the protocol fails it too, and the failure's message ends with
the last lines the engine wrote to its standard error.

>>> import sys
>>> cmd = EngineCommand([sys.executable, "-m", "tarneeb.testing.engine_server"])
>>> cmd.start()
>>> cmd.engine_name.startswith("tarneeb reference engine")
True
>>> from tarneeb.replay.rules.ruleset import preset
>>> e = cmd()
>>> e.new_match(preset("qahwa41"), 3)
>>> e.deal((0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39), 51)
>>> e.to_move(), e.legal_actions()[:3], e.totals()
(0, [54, 55, 56], [0, 0, 0, 0])
>>> cmd.close()
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from tarneeb.audit.encoding import shown
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.testing.protocol import DEFAULT_TIME_LIMIT, EngineFailure
from tarneeb.testing.regress.pipes import MAX_LINE, Lines, StderrTail, clip

PROTOCOL = "tarneeb-engine"
VERSION = 1  # the protocol version this side speaks
VERSIONS = (1,)  # the versions it accepts, offered in the handshake
STARTUP_LIMIT = 60.0  # seconds for the process to start and answer the handshake
MAX_DEPTH = 8  # the deepest nesting of an answer read (every answer is two deep at most)
_STRAY_WAIT = 0.01  # seconds an engine serving on has to write a stray line after a match

# what each request's answer carries, by command
ANSWERS = {"hello": "version", "new_match": "ok", "deal": "ok", "to_move": "seat",
           "legal_actions": "actions", "apply": "ok", "tricks": "tricks",
           "hand_scores": "scores", "totals": "totals", "winner": "team"}


class EngineStartError(ValueError):
    """The engine command cannot be started, or fails its handshake (before any match)."""


def cards_of_mask(mask: int) -> list[int]:
    """The cards of a hand mask, lowest first (how ``deal`` sends a hand).

    >>> cards_of_mask(0b1011)
    [0, 1, 3]
    """
    return [c for c in range(52) if (mask >> c) & 1]


def _shown(value: Any, limit: int = 80) -> str:
    """A value an engine answered, for a message: its repr (every control character
    escaped), clipped.

    >>> _shown("x" * 100)[-6:], _shown(1.0), _shown(None)
    ('xxx...', '1.0', 'None')
    """
    return clip(repr(value), limit)


# a JSON string, escapes and all; one left open runs to the end of the line (which is then
# no JSON), so a search never fails and starts again further on: linear in the line's length
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"?')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _depth(line: bytes) -> int:
    """How deep the brackets of a JSON line nest (outside its strings), read without
    recursion: the answer's depth, if it is JSON.

    >>> _depth(b'{"id":1,"actions":[1,2]}'), _depth(b'[[["]]]]]"]]]'), _depth(b"1")
    (2, 3, 0)
    """
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(1 if b in b"[{" else -1 for b in brackets), default=0)


class _Child:
    """One running engine process: its request counter, its stdout lines, its stderr tail."""

    def __init__(self, argv: Sequence[str], cwd: str | None, env: dict[str, str] | None) -> None:
        # a session of its own: its process group is the engine and all it starts, killed
        # whole on every way out (a failure, the end of the run, Ctrl-C: see kill)
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, cwd=cwd, env=env, start_new_session=sys.platform != "win32")
        self.lines = Lines(self.proc.stdout)
        self.stderr = StderrTail(self.proc.stderr)
        self.next_id = 1
        self.alive = True
        self.matches = 0  # matches this process has served

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        stdin = self.proc.stdin
        assert stdin is not None
        view = memoryview(data)
        while view:
            n = os.write(stdin.fileno(), view)
            view = view[n:]

    def exited(self) -> bool:
        """Whether the engine's own process has exited (what it started may live on)."""
        return self.proc.poll() is not None

    def kill(self) -> None:
        """Stop the process and anything it started (its process group), closing the pipes.

        The group is killed even when the engine itself has exited: a process it started
        (holding its output open, say) is still in it, and the group's number is not
        given to another process while any member lives."""
        self.alive = False
        proc = self.proc
        with contextlib.suppress(OSError):
            if sys.platform != "win32":
                os.killpg(proc.pid, signal.SIGKILL)
            elif proc.poll() is None:
                proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5.0)
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        self.lines.close()

    def ask_to_quit(self) -> None:
        """Send ``quit``, then end of input (a pipe already gone: nothing to ask)."""
        with contextlib.suppress(OSError, ValueError):
            self.send({"id": self.next_id, "cmd": "quit"})
            if self.proc.stdin is not None:
                self.proc.stdin.close()

    def drain(self) -> bytes:
        """Ask the engine to exit and read all it still writes (within a second; then it
        is killed, with all it started): the bytes it wrote unasked, if any."""
        lines, end = self.lines, time.monotonic() + 1.0
        self.ask_to_quit()
        while not lines.eof and len(lines.buf) <= MAX_LINE \
                and lines._more(max(0.0, end - time.monotonic())):
            pass
        if not lines.eof:
            self.kill()  # it did not quit within the second
        return bytes(lines.buf)

    def quit(self) -> None:
        """Ask the engine to exit (``quit``, then end of input); kill it if it lingers."""
        if self.alive:
            self.ask_to_quit()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(1.0)
        self.kill()
        if self.proc.stderr is not None:
            with contextlib.suppress(OSError):
                self.proc.stderr.close()


class _TwiceError(ValueError):
    """A JSON object with a field twice (the field's name)."""


def _one_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's fields, each once (:class:`_TwiceError` names one given twice)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _TwiceError(key)
            seen.add(key)
    return out


def stray_words(extra: bytes) -> str:
    """What an engine wrote unasked after an answer, in words."""
    shown = clip(extra.decode("utf-8", "replace"), 80)
    return f"the engine wrote more after its answer, unasked: {shown!r} (one answer a request)"


class EngineCommand:
    """An engine factory over a command: each call is a :class:`SubprocessEngine` for one match.

    ``command`` is a command line (split as a POSIX shell would, no shell run) or the
    list of its words. ``time_limit`` bounds each call (seconds from sending a request to
    reading its answer; ``None``: no limit), ``match_limit`` a whole match as a guard
    (seconds from the factory call to the last answer; ``None``, the default: no guard
    beyond the calls'), ``startup_limit`` the start and the handshake.
    ``reuse=False`` starts a fresh process for every match.
    """

    def __init__(self, command: str | Sequence[str], time_limit: float | None = DEFAULT_TIME_LIMIT,
                 startup_limit: float = STARTUP_LIMIT, reuse: bool = True,
                 cwd: str | None = None, env: dict[str, str] | None = None,
                 match_limit: float | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise EngineStartError("the engine command is empty")
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.time_limit = time_limit
        self.match_limit = match_limit
        self.startup_limit = startup_limit
        self.reuse = reuse
        self.cwd, self.env = cwd, env
        self.engine_name: str | None = None
        self.processes_started = 0
        self._child: _Child | None = None

    def __repr__(self) -> str:
        return f"EngineCommand({self.command!r})"

    # -- the process
    def start(self) -> None:
        """Start the engine and greet it (once, before any match): :class:`EngineStartError`
        with one clear line when it cannot start or fails the handshake."""
        if self._child is None:
            try:
                self._child = self._spawn()
            except EngineFailure as e:
                raise EngineStartError(f"the engine command {self.command!r} did not start: "
                                       f"{e.message}") from None

    def _spawn(self) -> _Child:
        try:
            child = _Child(self.argv, self.cwd, self.env)
        except OSError as e:
            raise EngineStartError(f"cannot run the engine command {self.command!r}: "
                                   f"{e.strerror or e}") from None
        self.processes_started += 1
        engine = SubprocessEngine(self, child, self.startup_limit)
        answer = engine.question("hello", protocol=PROTOCOL, versions=list(VERSIONS))
        version = answer.get("version")
        if answer.get("protocol") != PROTOCOL or type(version) is not int \
                or version not in VERSIONS:
            engine.fail("protocol", f"the handshake: the engine speaks protocol "
                        f"{_shown(answer.get('protocol'))} version {_shown(version)}; "
                        f"tarneeb speaks {PROTOCOL!r} version "
                        f"{' or '.join(map(str, VERSIONS))}")
        name = answer.get("engine")
        self.engine_name = shown(clip(name, 200)) if isinstance(name, str) else self.command
        return child

    def finish(self) -> str | None:
        """Stop the engine's process after the run's last match, reading all it still
        writes: what it wrote unasked after its last answer (in words), if anything. A
        process serving on is given only :data:`_STRAY_WAIT` at the end of each match; a
        line written later than that after the last match would otherwise go unseen."""
        child, self._child = self._child, None
        if child is None or not child.alive:
            return None
        extra = child.drain()
        child.quit()
        return stray_words(extra) if extra else None

    def close(self) -> None:
        """Stop the engine's process, if one is running."""
        child, self._child = self._child, None
        if child is not None:
            child.quit()

    def __enter__(self) -> EngineCommand:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the factory
    def __call__(self) -> SubprocessEngine:
        """A fresh engine for one match, over the running process (or a fresh one)."""
        if self._child is not None and (not self._child.alive or self._child.proc.poll()
                                        is not None or (self._child.matches and not self.reuse)):
            self.close()
        if self._child is None:
            try:
                self._child = self._spawn()
            except EngineStartError as e:
                raise EngineFailure("crashed", str(e)) from None
        self._child.matches += 1
        guard = None if self.match_limit is None else time.monotonic() + self.match_limit
        return SubprocessEngine(self, self._child, self.time_limit, guard, self.match_limit)


class SubprocessEngine:
    """The :class:`~tarneeb.testing.protocol.Engine` methods as requests to an engine process.

    Answers are checked for their envelope only (one JSON object, the request's ``id``,
    the answer's field); the driver checks the values. Anything else raises
    :class:`~tarneeb.testing.protocol.EngineFailure` and kills the process.
    ``limit`` bounds each call (seconds from sending a request to reading its answer);
    ``match_deadline`` (a :func:`time.monotonic` time) the whole match, the guard of
    ``match_limit`` seconds.
    """

    def __init__(self, owner: EngineCommand, child: _Child, limit: float | None,
                 match_deadline: float | None = None, match_limit: float | None = None) -> None:
        self.owner, self.child = owner, child
        self.limit = limit
        self.match_deadline, self.match_limit = match_deadline, match_limit
        self._method = "the handshake"
        # deferred answers: id, command, call, the answer's deadline
        self._pending: list[tuple[int, str, str, float | None]] = []

    # -- the wire
    def fail(self, kind: str, message: str) -> None:
        """Kill the process and raise the failure, with the engine's last lines on stderr."""
        self.child.kill()
        raise EngineFailure(kind, message + self.child.stderr.text(wait=0.5))

    def ask(self, cmd: str, defer: bool = False, **args: Any) -> dict[str, Any] | None:
        """Send one request and read its answer (a dict with the answer's field).

        ``defer=True`` (an ``apply``, a ``deal``, a ``new_match``: answered ``ok``) reads the
        answer later, after the next request is sent: one wake-up of each process less a
        move. An error answer to it is reported at the next call, naming the request.
        """
        child = self.child
        if not child.alive:
            raise EngineFailure("crashed", "the engine's process was stopped after an earlier "
                                "failure")
        rid = child.next_id
        child.next_id += 1
        call = "the handshake" if cmd == "hello" else (
            f"{cmd}({args['action']})" if cmd == "apply" else f"{cmd}()")
        sent = time.monotonic()
        deadline = None if self.limit is None else sent + self.limit
        if self.match_deadline is not None:
            deadline = self.match_deadline if deadline is None else min(deadline,
                                                                        self.match_deadline)
        try:
            child.send({"id": rid, "cmd": cmd, **args})
        except (OSError, ValueError):
            self._method = self._pending[0][2] if self._pending else call
            self._died("before it read")
        try:
            while self._pending:
                self._read(*self._pending[0])
                del self._pending[0]
        except EngineFailure as e:
            e.calls_back = len(self._pending)  # sent that many requests before this one
            # an error answered to a deferred request: the process serves on, so the answers
            # still owed (the later deferred ones, this request's) are read and dropped, and
            # the next match's first answer is its own
            owed, self._pending = [*self._pending[1:], (rid, cmd, call, deadline)], []
            with contextlib.suppress(EngineFailure):
                for request in owed:
                    if self.child.alive:
                        self._read(*request)
            raise
        if defer:
            self._pending.append((rid, cmd, call, deadline))
            return None
        return self._read(rid, cmd, call, deadline)

    def question(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send a request and read its answer (a dict with the answer's field)."""
        answer = self.ask(cmd, **args)
        assert answer is not None
        return answer

    def _read(self, rid: int, cmd: str, call: str, deadline: float | None) -> dict[str, Any]:
        self._method = call
        try:
            line = self.child.lines.readline(deadline, self.child.exited)
        except TimeoutError:
            if cmd == "hello":
                self.fail("timeout", f"no answer to the handshake within {self.limit:g} s")
            if deadline is not None and deadline == self.match_deadline:
                self.fail("timeout", f"the match's time limit of {self.match_limit:g} s ran "
                          f"out: the engine was in {call}")
            self.fail("timeout", f"no answer within the time limit of {self.limit:g} s a "
                      f"call: the engine was in {call}")
        if line is None:
            if len(self.child.lines.buf) > MAX_LINE:
                self.fail("garbage", f"{call}: the engine answered a line longer than "
                          f"{MAX_LINE} bytes")
            self._died("without answering")
        assert line is not None  # (_died raised)
        return self._answer(cmd, rid, line)

    def _died(self, how: str) -> None:
        proc = self.child.proc
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(1.0)
        code = proc.poll()
        status = (f"exit code {code}" if code is not None and code >= 0 else
                  f"killed by signal {-code}" if code is not None else "its output closed")
        held = (", its output still held open by a process it started (killed with its "
                "process group)" if self.child.lines.held_open else "")
        self.fail("crashed", f"the engine's process died ({status}) in {self._method}, "
                  f"{how}{held}")

    def _answer(self, cmd: str, rid: int, line: bytes) -> dict[str, Any]:
        shown = clip(line.decode("utf-8", "replace"), 80)
        depth = _depth(line)
        if depth > MAX_DEPTH:  # refused unread: no answer is that deep, and the reader recurses
            self.fail("garbage", f"{self._method}: the engine answered a malformed line: a "
                      f"JSON value nested {depth} deep, deeper than any answer (at most "
                      f"{MAX_DEPTH}): {shown!r}")
        try:
            answer = json.loads(line, object_pairs_hook=_one_each)
        except _TwiceError as e:  # which of the two is the answer? neither is taken
            self.fail("garbage", f"{self._method}: the engine answered {shown!r}, with the "
                      f"field {_shown(str(e))} twice")
        except (ValueError, RecursionError):
            self.fail("garbage", f"{self._method}: the engine answered a line that is not "
                      f"JSON: {shown!r}")
        if not isinstance(answer, dict):
            self.fail("garbage", f"{self._method}: the engine answered {shown!r}, not a "
                      "JSON object")
        got = answer.get("id")
        if "id" not in answer:  # no answer at all: a line written unasked
            self.fail("protocol", f"{self._method}: the engine wrote a line that answers no "
                      f"request (it has no id), unasked: {shown!r} (a line written late after "
                      "an earlier answer is read as the next one's)")
        if type(got) is not int or got != rid:  # (1.0 and true are not the id 1)
            self.fail("protocol", f"{self._method}: the engine answered with id "
                      f"{_shown(got)} to request {rid} (one answer a request, in order)")
        if answer.get("error") is not None:  # ("error": null, as many writers put it: none)
            error = answer["error"]
            if cmd == "hello":
                self.fail("protocol", f"the handshake: the engine refused it: "
                          f"{clip(str(error), 200)!r}")
            raise EngineFailure("raised", f"{self._method} answered the error "
                                f"{clip(str(error), 200)!r}")
        field = ANSWERS[cmd]
        if field not in answer or (field == "ok" and answer["ok"] is not True):
            self.fail("garbage", f"{self._method}: the engine answered {shown!r}, which "
                      f"has no {field!r}" + (" true" if field == "ok" else ""))
        checked: dict[str, Any] = answer
        return checked

    def end_match(self) -> None:
        """The match is over (the driver made its last call): an engine that wrote more
        than its answers (a second line to the last request, a banner once the match is
        won) breaks the protocol here, in this match, rather than in the next one's first
        answer, or nowhere when this was the last. A process that serves one match is
        asked to quit and read to its end (within a second); one that serves on is given
        :data:`_STRAY_WAIT` for a line written just after its last answer."""
        child = self.child
        if not child.alive:
            return
        try:  # the answers still owed (a new_match with nothing after it): an error is this
            # match's, not left unread
            while self._pending:
                self._read(*self._pending[0])
                del self._pending[0]
        except EngineFailure:
            self._pending = []
            raise
        if not self.owner.reuse:  # it ends with the match: all it wrote is read
            extra = child.drain()
        else:
            lines = child.lines
            while not lines.eof and len(lines.buf) <= MAX_LINE and lines._more(_STRAY_WAIT):
                pass
            extra = bytes(lines.buf)
        if extra:
            self.fail("protocol", f"{self._method}: {stray_words(extra)}")

    # -- the Engine protocol
    def new_match(self, rules: RuleSet, first_dealer: int) -> None:
        self.ask("new_match", defer=True, rules=rules.to_dict(), first_dealer=first_dealer)

    def deal(self, hands: Sequence[int], thirteenth: int | None) -> None:
        self.ask("deal", defer=True, hands=[cards_of_mask(m) for m in hands], thirteenth=thirteenth)

    def to_move(self) -> Any:
        return self.question("to_move")["seat"]

    def legal_actions(self) -> Any:
        return self.question("legal_actions")["actions"]

    def apply(self, action: int) -> None:
        self.ask("apply", defer=True, action=action)

    def tricks(self) -> Any:
        return self.question("tricks")["tricks"]

    def hand_scores(self) -> Any:
        return self.question("hand_scores")["scores"]

    def totals(self) -> Any:
        return self.question("totals")["totals"]

    def winner(self) -> Any:
        return self.question("winner")["team"]


__all__ = ["ANSWERS", "PROTOCOL", "STARTUP_LIMIT", "VERSION", "VERSIONS", "EngineCommand",
           "EngineStartError", "SubprocessEngine", "cards_of_mask"]
