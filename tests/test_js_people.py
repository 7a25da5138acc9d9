"""The two CLIs say a verdict alike: ``tarneeb-js verify`` prints the lines ``tarneeb verify``
prints, the players named where the log's header names them (``seat 2 (Nour)`` is Nour),
hands counted from 1, and ``--json`` gives the players of both (``players``, seat 0 first).

The JSON of every fixture log is held field for field by tests/test_js_conformance.py, the
players among the fields; here the words for people: a batch of logs (altered logs whose
findings or ending name seats, the same logs given names that read as seats, that two
seats share, that hold spaces, Arabic or digits of another script, a log not read) in one
node run against ``print_verdict`` in this process, and the naming of seats, teams and
hands sentence by sentence in one more.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
from js_build import js_verdict_lines
from test_js_conformance import CLI, JS, ROOT, home, node  # noqa: F401 (fixtures)

from tarneeb.replay.verify.people import Table

ALTERED = ROOT / "fixtures" / "altered"
# findings and endings that name seats, teams and hands
NAMED = ["renege-classic", "timeout-out-of-turn-eram41", "played-out-of-turn-eram41",
         "bid-out-of-turn-sahrat400", "wrong-winner-sahrat41", "wrong-trick-count-sahrat41",
         "timeout-no-turn-classic"]
# names a sentence could misread: a seat's own label, another's, a name two seats share
# (case aside), spaces around or inside, an empty one, a team's word, Arabic, Arabic digits,
# and names that only look like one of those
PLAYERS = [["seat 1", "Nour", "hand 3", "nour"], [" نور ", "x seat 3", "Team 1", ""],
           ["Ana", "player\u00a02", "seat \u0663", "Dee\u3000"], ["", "", "", ""],
           # names that only look like a seat's or another's: an invisible character, a
           # letter of another script, capital I for small l, "rn" for "m"
           ["Ana", "Seat\u200b 4", "\u0421y", "Cy"], ["Omar\u200b", "Bill", "Omar", "BiII"],
           ["\u041emar", "Ben", "Omar", "Bern"],
           # names that write a seat into themselves, or the verdict's own quoted form
           ["“Omar” (Seat 3)", "Seat #2", "Omar", "Seat three"],
           ["Omar (Seat 4)", "player-1", "“Dee”", "Seattle 5"],
           ["\u3164", "Ben", "\u200b\u3164", "Dee"]]  # names that only look blank


def _named(data: bytes, names: list[str]) -> bytes:
    """The log with its seats' names changed, signed again by a new key."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tarneeb.testing.alterations.base import rewrite

    def change(log) -> None:  # type: ignore[no-untyped-def]
        log.header = dataclasses.replace(log.header, seats=[
            dataclasses.replace(s, name=n) for s, n in zip(log.header.seats, names, strict=True)])
    return rewrite(data, change, resign=Ed25519PrivateKey.generate())


def _reason(data: bytes, reason: str) -> bytes:
    """The log ended as abandoned by seat 1's disconnect, for ``reason``."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tarneeb.replay.log import Abandonment
    from tarneeb.testing.alterations.base import rewrite

    def change(log) -> None:  # type: ignore[no-untyped-def]
        log.end = dataclasses.replace(log.end, winner=None,
                                      abandoned=Abandonment("disconnect", 1, reason))
    return rewrite(data, change, resign=Ed25519PrivateKey.generate())


def _logs(tmp: Path) -> list[Path]:
    paths = [p for name in NAMED for p in ALTERED.glob(f"{name}.tlog")]
    assert len(paths) == len(NAMED)
    for i, names in enumerate(PLAYERS):
        for base in (paths[0], paths[1]):
            p = tmp / f"{i}-{base.name}"
            p.write_bytes(_named(base.read_bytes(), names))
            paths.append(p)
    # an abandoned match whose reason, the platform's words, names a seat and a hand: kept
    # as written, quoted, not read as the verifier's seats and hands
    reason = tmp / "reason.tlog"
    reason.write_bytes(_reason(paths[0].read_bytes(), "seat 2 left in hand 3 (team 0+2)"))
    paths.append(reason)
    cut = tmp / "header-cut.tlog"  # not read: its error, on stderr
    cut.write_bytes(bytes([0x9c, 0x00]))
    return [*paths, cut]


def test_the_js_cli_says_a_verdict_as_tarneeb_verify_does(
        node: str, home: dict[str, str], tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tarneeb.cli.verify_cmd import print_verdict, run
    from tarneeb.replay.verify.replayer import verify_file

    paths = _logs(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", home["XDG_CONFIG_HOME"])
    # many logs: a short line each, the notes they share and the count, alike
    js = subprocess.run([node, str(CLI), "verify", *map(str, paths)], capture_output=True,
                        text=True, env=home, cwd=ROOT, timeout=120)
    assert js.returncode == 2 == run([str(p) for p in paths], False, None, None), js.stderr
    out, err = capsys.readouterr()
    assert js.stdout.splitlines() == out.splitlines() and js.stderr == err == ""
    assert out.splitlines()[-1] == f"{len(paths)} logs: 0 clean, {len(paths) - 1} with " \
        "findings, 1 unreadable"
    # one log: its verdict in full, each log's from the JS verifier's words in one node run
    said = js_verdict_lines(node, [str(p) for p in paths], home)
    py_out, py_err = [], []
    for p in paths:
        print_verdict(verify_file(str(p)))
        out, err = capsys.readouterr()
        py_out.append(out)
        py_err.append(err)
    for (lines, error), out, err in zip(said, py_out, py_err, strict=True):
        assert lines == out.splitlines()
        assert (error is None and err == "") or err == f"tarneeb: error: {error}\n"
    said = "".join(py_out)
    # the players named in findings and endings, their names as written or quoted with seat
    assert "East bot played 6♥ on a ♦ lead" in said
    assert "the log says West bot timed out" in said
    assert "the log says “nour” (Seat 4) timed out, but it was “Nour” (Seat 2)’s turn" in said
    # a name that holds a seat's words is quoted with its seat, and not read again
    assert "hand 7, trick 2, “x seat 3” (Seat 2): renege: “x seat 3” (Seat 2) played 6♥" \
        in said
    assert "abandoned at hand 15, trick 6: Seat 4 timed out" in said
    assert ": East bot disconnected: “seat 2 left in hand 3 (team 0+2)”" in said


SENTENCES = ["seat 2 led in hand 0; team 0+2 won; seat 1 (NAME1) left",
             "seat 3's turn in hands 3-4, 7 (dealing attempt 2); team 1+3 scored",
             "hand(s) 0, 2 of seat 0; seat 4 and seat 12 are no seats; seats 1",
             "the log says seat 3 (NAME3) timed out, but it was seat 0's turn",
             "éseat 1 and seat 1é and 1seat 2; attempt 9 then handsome 3"]


def test_seats_teams_and_hands_are_said_alike(node: str) -> None:  # noqa: F811
    """Table.say and the JS Table's say, in one node run: the same words for every
    sentence and set of names."""
    cases = [(names, s.replace("NAME1", names[1]).replace("NAME3", names[3]))
             for names in PLAYERS for s in SENTENCES]
    script = ("import { Table } from './dist/src/verify/people.js';"
              "const cases = JSON.parse(process.argv[1]);"
              "process.stdout.write(JSON.stringify(cases.map(([n, s]) => new Table(n).say(s))));")
    out = subprocess.run([node, "--input-type=module", "-e", script, json.dumps(cases)],
                         capture_output=True, text=True, cwd=JS, timeout=60, check=True)
    py = [Table(names).say(s) for names, s in cases]
    assert json.loads(out.stdout) == py
    assert py[0] == ("“hand 3” (Seat 3) led in hand 1; seat 1 & “hand 3” (Seat 3) won; "
                     "“Nour” (Seat 2) left")
    # a name that imitates the quoted form, to pass for the player of another seat
    assert Table(["“Omar” (Seat 3)", "Bo", "Omar", "Di"]).say("seat 0 reneged") == \
        "““Omar” (Seat 3)” (Seat 1) reneged"


def test_a_rules_name_is_quoted_as_pythons_repr_quotes_it(node: str) -> None:  # noqa: F811
    """The note on house rules names them as Python's ``repr`` does; the JS verifier wrote
    an invisible character raw (``eram41`` and a zero-width space looked like ``eram41``)
    and a backslash unescaped beside a quote, so the two verifiers' JSON differed."""
    names = ["eram41\u00a0", "eram41\u200b", "x\u0085y", "it's\\here", 'say "hi"',
             "both ' and \"", "tab\there", "\U000e0041tag", "\ue000pua", "\u2028line",
             "ﻧﻮر", "café", "\udcff", "a\x7fb", "\u3000wide"]
    script = ("import { pyQuote } from './dist/src/rules/house.js';"
              "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map(pyQuote)));")
    out = subprocess.run([node, "--input-type=module", "-e", script,
                          json.dumps(names)], capture_output=True, text=True, cwd=JS,
                         timeout=60, check=True)
    assert json.loads(out.stdout) == [repr(n) for n in names]
