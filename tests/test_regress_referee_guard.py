"""``tarneeb regress --engine MODULE:FACTORY``: the engine's adapter runs in the process
that referees it. Before, an adapter that patched a house rule into tarneeb's own code
(``tarneeb.replay.rules.engine.score_hand = …``) changed the referee too: an engine that
scores a failed bid of 13 one point lower than the rules agreed with every match, exit 0.
The same engine as a subclass, or run as a program, disagrees. Now a change to the
referee's code, when the engine is loaded or while it plays, is said and never "agree"."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tarneeb.testing import regress_paths
from tarneeb.testing.regress.runner import EngineLoadError

REPO = Path(__file__).resolve().parent.parent
BIG_BIDS = REPO / "fixtures" / "matches" / "eram41-big-bids.tlog"  # a failed bid of 13

# a failed personal bid of 13 costs one point more than the rules say, patched into
# tarneeb's engine; WHEN says when: at import, or at the first engine the factory makes
ENGINE = textwrap.dedent('''
    from tarneeb.replay.rules import engine as tarneeb_engine, scoring
    from tarneeb.testing.adapters import ReferenceEngine

    WHEN = {when!r}
    _score = scoring.score_hand

    def house_score(rules, hand, totals):
        s = _score(rules, hand, totals)
        if rules.scoring == "personal":
            for seat in range(4):
                if hand.bid_of(seat) == 13 and hand.tricks[seat] < 13:
                    s[seat] -= 1
        return s

    if WHEN == "import":
        tarneeb_engine.score_hand = house_score

    class HouseEngine(ReferenceEngine):
        pass

    if WHEN == "subclass":  # the same rule, kept to the engine's own state
        from tarneeb.replay.rules.engine import MatchState

        class HouseState(MatchState):
            __slots__ = ()

            def _finish_scored(self):
                self.finish_hand_with(house_score(self.rules, self.hand_under_way,
                                                  self.totals))

        class HouseEngine(ReferenceEngine):  # noqa: F811
            state_class = HouseState

    def factory():
        if WHEN == "play":
            tarneeb_engine.score_hand = house_score
        return HouseEngine()
''')


def _engine(tmp_path: Path, when: str) -> str:
    (tmp_path / f"house_{when}.py").write_text(ENGINE.format(when=when))
    return f"house_{when}:factory"


def _cli(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tarneeb", "regress", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)


def test_an_engine_that_patches_the_referee_when_loaded_is_refused(tmp_path: Path) -> None:
    done = _cli(tmp_path, "--engine", _engine(tmp_path, "import"), str(BIG_BIDS))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "changed tarneeb's own code that referees it" in done.stderr
    assert "tarneeb.replay.rules.engine.score_hand" in done.stderr
    # in this process (no time limit) too, before any match
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(EngineLoadError, match="score_hand"):
            regress_paths(_engine(tmp_path, "import"), [BIG_BIDS], time_limit=None)
    finally:
        sys.path.remove(str(tmp_path))
        from tarneeb.replay.rules import engine, scoring
        engine.score_hand = scoring.score_hand  # (as it was)


def test_an_engine_that_patches_the_referee_as_it_plays_fails_its_matches(
        tmp_path: Path) -> None:
    done = _cli(tmp_path, "--engine", _engine(tmp_path, "play"), "--json", str(BIG_BIDS),
                str(REPO / "fixtures" / "matches" / "eram41-01.tlog"))
    assert done.returncode == 1, done.stderr
    assert "agree" not in {line for line in done.stdout.splitlines()}
    assert done.stdout.count("changed tarneeb's own code that referees it") >= 2


def test_a_house_rule_the_engine_keeps_to_itself_is_a_disagreement(tmp_path: Path) -> None:
    """The same rule in a subclass of tarneeb's engine (nothing of tarneeb's changed): not
    refused, and the scores it gives disagree with the recording."""
    done = _cli(tmp_path, "--engine", _engine(tmp_path, "subclass"), str(BIG_BIDS))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "DISAGREES" in done.stdout and "referees it" not in done.stdout + done.stderr
