"""``tarneeb regress``: the driver, isolation and time limits, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import msgpack
import pytest
import typer
from typer.testing import CliRunner

from tarneeb.cli.regress_cmd import register
from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.actions import BID_BASE
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing import (
    Disagreement,
    EngineLoadError,
    MatchScript,
    ReferenceEngine,
    RegressInputError,
    Runner,
    compare,
    load_factory,
    prepare,
    regress_log,
    regress_paths,
    run_script,
)
from tarneeb.testing.adapters import broken_trump, reference

RULE_SETS = tuple(PRESETS)
REFERENCE = "tarneeb.testing.adapters:reference"
BROKEN = "tarneeb.testing.adapters:broken_trump"
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "matches"

# Engines that misbehave, chosen by the rule set of the match: imported by name in the worker.
MISBEHAVING = textwrap.dedent('''
    import os
    from tarneeb.testing.adapters import ReferenceEngine

    class Chaos(ReferenceEngine):
        """eram41 raises, qahwa41 loops, sahrat400 kills its process, sahrat41 answers
        garbage, classic behaves (but chatters on stdout)."""

        def new_match(self, rules, first_dealer):
            print("chaos engine says hello")
            os.write(1, b"and writes to fd 1\\n")
            super().new_match(rules, first_dealer)

        def apply(self, action):
            s = self.state
            name = s.rules.name
            if s.deal_number >= 1 and len(s.hand.plays) == 9:
                if name == "eram41":
                    raise RuntimeError("engine bug")
                if name == "qahwa41":
                    while True:
                        pass
                if name == "sahrat400":
                    os._exit(3)
            super().apply(action)

        def legal_actions(self):
            s = self.state
            if s.rules.name == "sahrat41" and s.deal_number == 2:
                return "all of them"
            return super().legal_actions()

    def chaos():
        return Chaos()

    def broken_factory():
        raise ValueError("cannot start")

    SLOW_IMPORT = False
''')


def _corpus(directory: Path, per_rule_set: int = 1) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for i, name in enumerate(RULE_SETS):
        for k in range(per_rule_set):
            path = directory / f"{i + 1}-{name}-{k}.tlog"
            path.write_bytes(play_logged_match(name, seed=f"regress test/{name}/{k}".encode()))
            out.append(path)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    _corpus(d)
    return d


@pytest.fixture(scope="module")
def engines_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("engines")
    (d / "misbehaving_engines.py").write_text(MISBEHAVING)
    return d


@pytest.fixture
def on_path(engines_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(engines_dir))
    return engines_dir


def _script(name: str, seed: str = "s") -> MatchScript:
    script = prepare(play_logged_match(name, seed=seed.encode()), f"{name}.tlog")
    assert isinstance(script, MatchScript)
    return script


# ---------------------------------------------------------------------- the driver

def test_reference_engine_agrees_on_every_rule_set(corpus: Path) -> None:
    seen = []
    run = regress_paths(REFERENCE, [corpus], time_limit=10, on_report=seen.append)
    assert [r.status for r in run.reports] == ["agree"] * 5 == [r.status for r in seen]
    assert run.exit_code == 0 and run.matches == 5
    assert run.hands == sum(len(parse_log(p.read_bytes()).hands) for p in corpus.iterdir())
    assert {r.rules for r in run.reports} == set(RULE_SETS)
    assert "5 matches" in run.summary() and "5 agree" in run.summary()


def test_broken_trump_fails_naming_match_and_trick(corpus: Path) -> None:
    run = regress_paths(BROKEN, [corpus], time_limit=10)
    assert run.exit_code == 1
    for report in run.reports:
        assert report.status == "disagree", report.line()
        d = report.first
        assert d is not None and d.kind == "trick-winner" and d.trick is not None
        assert Path(report.name).name in report.line() and f"trick {d.trick}" in report.line()
        # The trick named really is one a seat void in the led suit won by trumping.
        verdict = verify_bytes(Path(report.name).read_bytes())
        hand = verdict.history[d.hand]
        cards = hand.plays[(d.trick - 1) * 4:d.trick * 4]
        winner_card = cards[(hand.trick_winners[d.trick - 1] - hand.trick_leaders[d.trick - 1]) & 3]
        assert winner_card // 13 == hand.trump != cards[0] // 13
        assert d.reference == f"seat {hand.trick_winners[d.trick - 1]}" != d.engine


def test_regress_log_takes_bytes_or_a_parsed_log_in_or_out_of_process() -> None:
    log = play_logged_match("sahrat400", seed=b"one log")
    assert regress_log(REFERENCE, log, time_limit=None).status == "agree"
    report = regress_log(reference, parse_log(log), time_limit=10, name="x.tlog")
    assert report.status == "agree" and report.name == "x.tlog" and report.moves > 52
    assert regress_log(broken_trump, log, time_limit=None).first.kind == "trick-winner"


def test_a_log_that_is_not_clean_is_skipped_and_garbage_is_unreadable(tmp_path: Path) -> None:
    data = bytearray(play_logged_match("eram41", seed=b"tamper"))
    data[-10] ^= 1  # inside the signature
    (tmp_path / "a-tampered.tlog").write_bytes(bytes(data))
    (tmp_path / "b-text.tlog").write_bytes(b"not a log at all")
    run = regress_paths(REFERENCE, [tmp_path], time_limit=None)
    skipped, unreadable = run.reports
    assert skipped.status == "skipped" and "not clean" in skipped.reason
    assert "broken" in skipped.reason or "signature" in skipped.reason
    assert unreadable.status == "unreadable" and "not a tarneeb log" in unreadable.reason
    assert run.matches == 0 and run.exit_code == 2


def test_a_misbehaving_engine_fails_each_match_and_the_run_goes_on(
        tmp_path: Path, on_path: Path) -> None:
    _corpus(tmp_path)
    run = regress_paths("misbehaving_engines:chaos", [tmp_path], time_limit=1.5)
    by_rules = {r.rules: r for r in run.reports}
    raised = by_rules["eram41"].first
    assert raised.kind == "raised" and "RuntimeError: engine bug" in raised.message
    assert "apply(" in raised.message and "misbehaving_engines.py" in raised.message
    assert raised.hand >= 1 and raised.trick == 3 and raised.move is not None
    looped = by_rules["qahwa41"].first
    assert looped.kind == "timeout" and "apply()" in looped.message and looped.hand >= 1
    assert "1.5 s" in looped.message and looped.trick == 3
    crashed = by_rules["sahrat400"].first
    assert crashed.kind == "crashed" and "exit code 3" in crashed.message
    assert crashed.hand >= 1 and crashed.trick == 3
    garbage = by_rules["sahrat41"].first
    assert garbage.kind == "garbage" and "'all of them'" in garbage.message
    assert garbage.hand == 2
    assert by_rules["classic"].status == "agree"  # after a timeout and a crash: a fresh worker
    assert all(r.status == "engine-failure" for r in run.reports if r.rules != "classic")
    assert run.exit_code == 1 and "4 engine failures" in run.summary()


def test_a_factory_that_raises_fails_every_match(on_path: Path) -> None:
    report = regress_log("misbehaving_engines:broken_factory",
                         play_logged_match("classic", seed=b"f"), time_limit=10)
    assert report.status == "engine-failure" and report.first.kind == "factory"
    assert "ValueError: cannot start" in report.first.message


def test_engine_names_that_do_not_load() -> None:
    for spec, words in [("no_such_module_xyz:make", "cannot import"),
                        ("tarneeb.testing.adapters:nothing", "has no 'nothing'"),
                        ("tarneeb.testing.adapters", "MODULE:FACTORY"),
                        ("tarneeb.testing.adapters:__doc__", "not callable")]:
        with pytest.raises(EngineLoadError, match=words):
            load_factory(spec)
    with pytest.raises(EngineLoadError, match="cannot import"):
        Runner("no_such_module_xyz:make", time_limit=5).start()


def test_paths_that_hold_no_logs(tmp_path: Path) -> None:
    with pytest.raises(RegressInputError, match="no such file"):
        regress_paths(REFERENCE, [tmp_path / "missing"])
    with pytest.raises(RegressInputError, match=r"no \*\.tlog"):
        regress_paths(REFERENCE, [tmp_path])


# ---------------------------------------------------------------------- in-process checks

class _Tweaked(ReferenceEngine):
    """The reference engine with one answer replaced (``what`` names the method)."""

    def __init__(self, what: str, value: object) -> None:
        super().__init__()
        self.what, self.value = what, value

    def _tweak(self, method: str, answer: object) -> object:
        """Replace the answer from hand 1 on (after its first trick, for the play)."""
        s = self.state
        if method in ("hand_scores", "totals", "winner"):
            due = s.hand is None and len(s.history) >= 2
        else:
            due = s.hand is not None and s.deal_number >= 1 and (
                s.phase != Phase.PLAY or len(s.hand.plays) >= 4)
        if self.what == method and due:
            return self.value(answer) if callable(self.value) else self.value
        return answer

    def to_move(self):  # type: ignore[no-untyped-def]
        return self._tweak("to_move", super().to_move())

    def legal_actions(self):  # type: ignore[no-untyped-def]
        return self._tweak("legal_actions", super().legal_actions())

    def tricks(self):  # type: ignore[no-untyped-def]
        return self._tweak("tricks", super().tricks())

    def hand_scores(self):  # type: ignore[no-untyped-def]
        return self._tweak("hand_scores", super().hand_scores())

    def totals(self):  # type: ignore[no-untyped-def]
        return self._tweak("totals", super().totals())

    def winner(self):  # type: ignore[no-untyped-def]
        return self._tweak("winner", super().winner())


def _first(what: str, value: object, rules: str = "eram41") -> Disagreement:
    found = compare(_Tweaked(what, value), _script(rules))
    assert found is not None
    return found


@pytest.mark.parametrize(("what", "value", "kind", "words"), [
    ("legal_actions", "abc", "garbage", "legal_actions() answered 'abc'"),
    ("legal_actions", None, "garbage", "not a sequence of distinct actions"),
    ("legal_actions", [99], "garbage", "answered [99]"),
    ("legal_actions", [True], "garbage", "answered [True]"),
    ("legal_actions", lambda a: [*a, *a], "garbage", "distinct"),
    ("legal_actions", lambda a: iter(int, 1), "garbage", "callable_iterator"),
    ("legal_actions", lambda a: a[1:] or a, "legal-actions", "legal actions in"),
    ("to_move", "north", "garbage", "a seat 0-3 or None"),
    ("to_move", lambda s: None if s is None else (s + 1) % 4, "to-move", "is to move in"),
    ("tricks", [0, 0, 0], "garbage", "four numbers 0-13"),
    ("tricks", lambda t: [t[3], t[0], t[1], t[2]], "trick-winner", "per the recording, by seat"),
    ("tricks", [9, 9, 9, 9], "tricks", "[9, 9, 9, 9] per the engine"),
    ("hand_scores", lambda s: None if s is None else [-x for x in s], "hand-score", "took"),
    ("hand_scores", 3.5, "garbage", "four whole numbers"),
    ("totals", lambda t: [x + 1 for x in t], "totals", "running totals"),
    ("winner", 1, "winner", "team 1 (seats 1 and 3) per the engine"),
    ("winner", 7, "garbage", "a team 0-1 or None"),
])
def test_each_disagreement_and_garbage_is_named(what: str, value: object, kind: str,
                                                words: str) -> None:
    found = _first(what, value)
    assert found.kind == kind, str(found)
    assert words in found.message, str(found)
    assert found.hand >= 1


def test_a_renege_allowed_by_the_engine_is_a_legal_actions_disagreement() -> None:
    class AllowsRenege(ReferenceEngine):
        def legal_actions(self) -> list[int]:
            s = self._state
            if s.phase == Phase.PLAY:
                from tarneeb.replay.rules.cards import cards_of
                return cards_of(s.hands[s.current_player])
            return s.legal_actions()

    found = compare(AllowsRenege(), _script("qahwa41"))
    assert found.kind == "legal-actions" and "which the rules do not" in found.message
    assert found.trick is not None and found.seat is not None and found.move is not None
    assert found.engine_failure is False
    # the rule is named, with the seat as people count it
    assert re.search(rf"seat {found.seat + 1} holds [♣♦♥♠], the led suit, and must follow it",
                     found.said()), found.said()


def test_a_bid_below_the_rising_minimum_allowed_by_the_engine_names_the_rule() -> None:
    class AllowsLowBids(ReferenceEngine):
        def legal_actions(self) -> list[int]:
            s = self._state
            if s.phase == Phase.BID:
                return [BID_BASE + n for n in range(s.rules.min_bid, 14)]
            return s.legal_actions()

    found = compare(AllowsLowBids(), _script("sahrat400"))
    assert found is not None and found.kind == "legal-actions", found
    assert re.search(r"the engine allows bid 2(, bid \d+)*, which the rules do not: the "
                     r"lowest bid of seat \d is \d+, as its score is \d+ \(the minimum bid "
                     r"rises with the score\)", found.message), found.message


def test_a_cancelled_hand_the_engine_plays_on_is_caught() -> None:
    class NeverCancels(ReferenceEngine):
        def to_move(self) -> int | None:
            s = self._state
            if s.phase == Phase.DEAL and s.history and s.history[-1].cancelled:
                return 0
            return s.current_player

    scripts = [_script(n, seed) for n in ("eram41", "classic") for seed in "abcdefgh"]
    script = next(s for s in scripts
                  if any(len(d.actions) < 52 for d in s.deals))  # one with a cancelled hand
    found = compare(NeverCancels(), script)
    assert found.kind == "to-move" and "cancelled" in found.message


def test_methods_missing_and_factories_that_fail() -> None:
    found = compare(object(), _script("eram41"))  # type: ignore[arg-type]
    assert found.kind == "protocol" and "legal_actions()" in found.message

    def factory() -> ReferenceEngine:
        raise KeyError("x")

    report = run_script(factory, _script("classic"))
    assert report.status == "engine-failure" and report.first.kind == "factory"


def test_the_reference_adapter_follows_the_engine() -> None:
    e = reference()
    with pytest.raises(RuntimeError, match="new_match"):
        e.to_move()
    script = _script("classic")
    e.new_match(script.rules, script.first_dealer)
    state = MatchState(script.rules, script.first_dealer)
    assert e.hand_scores() is None and e.tricks() == [0, 0, 0, 0]
    for d in script.deals:
        e.deal(d.hands, d.thirteenth)
        state.deal(d.hands, d.thirteenth)
        for a in d.actions:
            assert e.to_move() == state.current_player
            e.apply(a)
            state.apply(a)
    assert e.winner() == state.winner is not None and e.totals() == state.totals


# ---------------------------------------------------------------------- the CLI

def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """tarneeb"""

    register(app)
    return app


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(_app(), ["regress", *args])
    return result.exit_code, result.stdout, result.stderr


def test_cli_exit_codes_and_lines(corpus: Path) -> None:
    code, out, _ = _cli("--engine", REFERENCE, str(corpus))
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 6 and all(": ok (" in line for line in lines[:5])
    assert lines[-1].startswith("regress: 5 matches, ") and " hands, " in lines[-1]
    assert lines[-1].split(", ")[2].endswith(" s: 5 agree")

    code, out, _ = _cli("--engine", BROKEN, str(corpus / "2-qahwa41-0.tlog"))
    assert code == 1 and "2-qahwa41-0.tlog: DISAGREES at hand" in out and "trick" in out

    code, out, _ = _cli("--engine", BROKEN, "--json", str(corpus))
    data = json.loads(out)
    assert code == 1 and data["summary"]["disagree"] == 5 and data["summary"]["exit_code"] == 1
    assert data["matches"][0]["first"]["kind"] == "trick-winner"


def test_cli_bad_input_is_one_line_and_exit_code_2(corpus: Path, tmp_path: Path) -> None:
    for args, words in [
        (["--engine", REFERENCE, str(tmp_path / "nope")], "no such file or directory"),
        (["--engine", REFERENCE, str(tmp_path)], "no *.tlog"),
        (["--engine", "no_such_module_xyz:make", str(corpus)], "cannot import"),
        (["--engine", "no-colon", str(corpus)], "MODULE:FACTORY"),
    ]:
        code, out, err = _cli(*args)
        assert code == 2, (args, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tarneeb: error: ")
        assert words in err and "Traceback" not in out + err


def test_cli_time_limit_reaches_the_runner(corpus: Path, on_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "q.tlog"
    target.write_bytes((corpus / "2-qahwa41-0.tlog").read_bytes())
    code, out, _ = _cli("--engine", "misbehaving_engines:chaos", "--time-limit", "0.5",
                        str(target))
    assert code == 1 and "no answer within the time limit of 0.5 s" in out


def test_cli_json_stays_clean_when_the_engine_prints(corpus: Path, engines_dir: Path) -> None:
    script = ("import typer\n"
              "from tarneeb.cli.regress_cmd import register\n"
              "app = typer.Typer()\n"
              "app.callback()(lambda: None)\n"
              "register(app)\n"
              "app()\n")
    env = {**os.environ, "PYTHONPATH": str(engines_dir)}
    done = subprocess.run([sys.executable, "-c", script, "regress", "--json", "--engine",
                           "misbehaving_engines:chaos", str(corpus / "5-classic-0.tlog")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["agree"] == 1
    assert "chaos engine says hello" in done.stderr and "fd 1" in done.stderr


# ---------------------------------------------------------------------- the shipped corpus

def test_fixture_corpus_reference_agrees_and_broken_trump_is_caught() -> None:
    good = regress_paths(REFERENCE, [FIXTURES])
    assert good.count("disagree") == good.count("engine-failure") == 0, good.summary()
    assert good.matches == len(list(FIXTURES.glob("*.tlog"))) >= 30
    bad = regress_paths(BROKEN, [FIXTURES])
    caught = [r for r in bad.reports if r.status == "disagree"]
    assert caught and all(r.first.kind == "trick-winner" for r in caught)
    for r in caught:
        assert r.line().startswith(f"{r.name}: DISAGREES at hand {r.first.hand + 1}, "
                                   f"trick {r.first.trick}, ")
    assert bad.exit_code == 1


def test_altered_logs_are_no_reference() -> None:
    run = regress_paths(REFERENCE, [REPO / "fixtures" / "altered"], time_limit=None)
    assert run.count("skipped") > 0
    assert run.count("disagree") == run.count("engine-failure") == 0


def test_reports_serialise() -> None:
    report = regress_log(broken_trump, play_logged_match("eram41", seed=b"j"), time_limit=None)
    data = report.to_json()
    assert json.loads(json.dumps(data))["first"]["kind"] == "trick-winner"
    assert msgpack.unpackb(msgpack.packb(data)) == data


# ---------------------------------------------------------------------- docs/ENGINES.md

def _doc_block(after_heading: str) -> str:
    text = (REPO / "docs" / "ENGINES.md").read_text(encoding="utf-8")
    section = text[text.index(after_heading):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```\n", start)]


def test_the_worked_example_in_the_docs_agrees_on_every_rule_set() -> None:
    namespace: dict[str, object] = {}
    exec(compile(_doc_block("## The worked example"), "ENGINES.md", "exec"), namespace)
    factory = namespace["reference"]
    for name in RULE_SETS:
        assert compare(factory(), _script(name, "docs")) is None  # type: ignore[operator]


def test_the_docs_name_every_kind_of_disagreement_and_failure() -> None:
    from tarneeb.testing.regress.report import DISAGREEMENTS, ENGINE_FAILURES

    text = (REPO / "docs" / "ENGINES.md").read_text(encoding="utf-8")
    for kind in [*DISAGREEMENTS, *ENGINE_FAILURES]:
        assert f"| `{kind}` |" in text, kind


def test_text_counts_hands_and_seats_from_1_and_json_from_0(tmp_path: Path) -> None:
    """The lines for people count hands and seats from 1, as every text of tarneeb does;
    ``--json`` and the JUnit report's fields keep the protocol's numbers, from 0."""
    log = str(FIXTURES / "eram41-01.tlog")
    _, out, _ = _cli("--engine", BROKEN, "--json", log)
    first = json.loads(out)["matches"][0]["first"]
    hand, trick, seat = first["hand"], first["trick"], first["seat"]
    assert f"seat {seat}" in first["message"]
    junit = tmp_path / "r.xml"
    code, out, _ = _cli("--engine", BROKEN, "--junit-xml", str(junit), log)
    line = out.splitlines()[0]
    assert code == 1
    assert line.startswith(f"{log}: DISAGREES at hand {hand + 1}, trick {trick}, "
                           f"seat {seat + 1}, move ")
    # the message's seats too: the trick's four cards and who won it, per each side
    said = line.split(": ", 2)[2]
    assert said == Disagreement(**first).said().split(": ", 1)[1]
    assert [int(n) for n in _seat_numbers(said)] == \
        [int(n) + 1 for n in _seat_numbers(first["message"])]
    import xml.etree.ElementTree as ET

    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None and failure.get("message") == line
    body = failure.text or ""
    assert f"\nhand: {hand}\n" in body and f"\nseat: {seat}\n" in body


def _seat_numbers(text: str) -> list[str]:
    import re

    return re.findall(r"\bseat (\d)", text)


def test_a_skipped_log_is_said_with_hands_and_seats_from_1() -> None:
    altered = REPO / "fixtures" / "altered" / "renege-eram41.tlog"
    report = prepare(altered.read_bytes(), "renege-eram41.tlog")
    assert not isinstance(report, MatchScript)
    finding = verify_bytes(altered.read_bytes()).findings[0]
    assert f"hand {finding.hand}, trick {finding.trick}, seat {finding.seat}" in report.reason
    assert (f"hand {finding.hand + 1}, trick {finding.trick}, seat {finding.seat + 1}"
            in report.line())


def test_the_summary_says_one_engine_failure_in_the_singular() -> None:
    from tarneeb.testing.regress.report import MatchReport, RegressRun

    one = RegressRun([MatchReport("a.tlog", "engine-failure", "eram41", 1, 3)], 0.1).summary()
    assert one.endswith(": 0 agree, 0 disagree, 1 engine failure") and "1 hand," in one
    two = RegressRun([MatchReport(n, "engine-failure", "eram41", 2, 3) for n in "ab"], 0.1)
    assert two.summary().endswith(", 2 engine failures")


def test_a_run_whose_every_log_is_skipped_compares_nothing_and_does_not_pass(
        tmp_path: Path) -> None:
    """A CI job whose logs all stopped verifying checks nothing: exit 2 and a line saying
    so (it exited 0 with "0 matches"); one compared log beside them passes as before."""
    data = bytearray(play_logged_match("eram41", seed=b"tamper"))
    data[-10] ^= 1  # inside the signature: not clean, skipped
    (tmp_path / "a.tlog").write_bytes(bytes(data))
    code, out, err = _cli("--engine", REFERENCE, str(tmp_path))
    assert code == 2 and "skipped" in out
    assert err == "tarneeb: error: no match compared: every log was skipped (not clean: no " \
        "reference)\n"
    (tmp_path / "b.tlog").write_bytes(play_logged_match("eram41", seed=b"clean"))
    code, _, err = _cli("--engine", REFERENCE, str(tmp_path))
    assert code == 0 and err == ""


class _DealsNothing(ReferenceEngine):
    """An engine that cannot deal: every match with a hand fails on it."""

    def deal(self, hands, thirteenth):  # type: ignore[no-untyped-def]
        raise RuntimeError("no deal")


def test_the_hand_an_abandoned_match_stops_in_is_the_engines_to_agree_with() -> None:
    """An abandoned match's log is clean, so a reference: the hand it stops in was left
    out of the script, and an engine that could not deal passed one abandoned in its first
    hand ("ok, 0 hands"), or got a whole hand's moves wrong unseen."""
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations.end import abandon_in_hand

    full = play_logged_match("eram41", seed=b"regress abandoned")
    key = MatchSecrets(b"regress abandoned").key
    for hand, moves in ((0, 0), (0, 9), (2, 30)):
        data, _ = abandon_in_hand(full, hand, moves, resign=key)
        assert verify_bytes(data).clean
        script = prepare(data, "abandoned.tlog")
        assert isinstance(script, MatchScript) and script.deals[-1].open
        assert len(script.deals) == hand + 1 and len(script.deals[-1].actions) == moves
        assert regress_log(reference, data, time_limit=None).ok
        report = regress_log(_DealsNothing, data, time_limit=None)
        assert not report.ok and report.status == "engine-failure", report.line()
