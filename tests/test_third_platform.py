"""A third platform's Tarneeb 41: the suit of the dealer's revealed last card is itself
trump (``trump = "revealed"``), and the same seat bids first and leads every hand
(``dealer_rotates = false``: the first dealer deals every hand).

Matches played under a rules file with the fields verify clean in both verifiers, follow
the rules (every hand dealt by the first dealer, its trump the revealed card's suit), and
a change that breaks each rule is caught, by both. Rule sets without the fields keep
their bytes: their rules map has no ``dealer_rotates``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cli_runner import run
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_js_conformance import _disagreements, home, node  # noqa: F401 (fixtures)

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.cards import colour_mate, suit_of
from tarneeb.replay.rules.compiled import pure_python
from tarneeb.replay.rules.house import explain
from tarneeb.replay.rules.ruleset import PRESETS, RuleSet, load_rules_file
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing import EngineCommand, regress_paths
from tarneeb.testing.alterations.base import EditableLog, rewrite
from tarneeb.testing.engine_server import REFERENCE

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "matches"

RULES_FILE = '''\
name = "third41"
base = "eram41"
about = "a third platform's 41: the revealed card's own suit is trump, no rotation"
trump = "revealed"        # the suit of the dealer's revealed last card itself
dealer_rotates = false    # the same seat bids first and leads every hand
'''
VARIANTS = {"both": "", "trump only": "dealer_rotates = true\n",
            "dealer only": 'trump = "revealed_mate"\n'}


def _rules(tmp_path: Path, variant: str) -> RuleSet:
    text = RULES_FILE
    for line in VARIANTS[variant].splitlines():  # a later key replaces the earlier one
        key = line.split("=")[0].strip()
        text = "\n".join(x for x in text.splitlines() if not x.startswith(key + " ")) + "\n"
        text += line + "\n"
    path = tmp_path / f"{variant.replace(' ', '-')}.toml"
    path.write_text(text, encoding="utf-8")
    return load_rules_file(path)


@pytest.fixture(scope="module")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory, key: Ed25519PrivateKey
            ) -> dict[str, bytes]:
    tmp = tmp_path_factory.mktemp("third")
    return {v: play_logged_match(_rules(tmp, v), seed=b"third platform " + v.encode(), key=key)
            for v in VARIANTS}


def test_the_rules_file_reads_both_fields(tmp_path: Path) -> None:
    r = _rules(tmp_path, "both")
    assert (r.trump, r.dealer_rotates) == ("revealed", False)
    assert r.to_dict()["dealer_rotates"] is False
    assert explain(r) == [
        "the trump is the suit of the dealer's shown 13th card itself (eram41: the "
        "colour-mate of the dealer's shown 13th card)",
        "the first dealer deals every hand, so the same seat bids first and leads (eram41: "
        "the deal passes to the right after every hand)"]


def test_rules_diff_says_what_each_field_does(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    _rules(tmp_path, "both")
    code, out, _ = run(capsys, "rules", "diff", "eram41", str(tmp_path / "both.toml"))
    assert code == 0
    assert 'dealer_rotates  true | false' in out
    assert 'trump           "revealed_mate" | "revealed"' in out
    assert "the trump is the suit of the dealer's shown 13th card itself" in out
    assert "the first dealer deals every hand, so the same seat bids first and leads" in out
    code, out, _ = run(capsys, "rules", str(tmp_path / "both.toml"))
    assert code == 0 and "dealer_rotates = false" in out and 'trump = "revealed"' in out


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_matches_under_the_rules_verify_clean_and_follow_them(
        matches: dict[str, bytes], variant: str) -> None:
    data = matches[variant]
    log = parse_log(data)
    rules = log.header.rules
    assert len(log.hands) > 4
    dealers = [h.dealer for h in log.hands]
    if rules.dealer_rotates:
        assert dealers == [(log.header.first_dealer + n) % 4 for n in range(len(dealers))]
    else:
        assert set(dealers) == {log.header.first_dealer}
    for h in log.hands:
        assert h.revealed is not None
        if h.trump is not None:
            mate = colour_mate(suit_of(h.revealed))
            assert h.trump == (suit_of(h.revealed) if rules.trump == "revealed" else mate)
    v = verify_bytes(data)
    assert v.findings == [] and v.played > 0, [str(f) for f in v.findings]
    with pure_python():
        assert verify_bytes(data).to_json() == v.to_json()


def _rotate_dealer(log: EditableLog) -> None:
    """Hand 1 dealt by the next seat, as a platform whose deal rotates would."""
    log.hands[1] = replace(log.hands[1], dealer=(log.hands[1].dealer + 1) % 4)


def _trump_the_mate(log: EditableLog) -> None:
    """Every played hand's trump claimed as the revealed card's colour-mate (eram41's)."""
    log.hands[:] = [replace(h, trump=colour_mate(suit_of(h.revealed)))
                    if h.trump is not None and h.revealed is not None else h
                    for h in log.hands]


@pytest.mark.parametrize(("variant", "change", "kind"), [
    ("both", _rotate_dealer, "wrong-dealer"),
    ("dealer only", _rotate_dealer, "wrong-dealer"),
    ("both", _trump_the_mate, "wrong-trump"),
    ("trump only", _trump_the_mate, "wrong-trump"),
])
def test_a_change_that_breaks_each_rule_is_caught(
        matches: dict[str, bytes], key: Ed25519PrivateKey, variant: str,
        change: object, kind: str) -> None:
    altered = rewrite(matches[variant], change, resign=key)  # type: ignore[arg-type]
    kinds = {f.kind for f in verify_bytes(altered).findings}
    assert kind in kinds, kinds


def test_both_verifiers_agree_on_the_matches_and_the_changes(
        matches: dict[str, bytes], key: Ed25519PrivateKey, tmp_path: Path, node: str,  # noqa: F811
        home: dict[str, str]) -> None:  # noqa: F811
    paths = []
    for variant, data in matches.items():
        for name, log in [("clean", data), ("dealer", rewrite(data, _rotate_dealer, resign=key)),
                          ("trump", rewrite(data, _trump_the_mate, resign=key))]:
            path = tmp_path / f"{variant.replace(' ', '-')}-{name}.tlog"
            path.write_bytes(log)
            paths.append(path)
    assert _disagreements(node, home, paths) == []


def _rotates_written(log: EditableLog) -> None:
    """The rules map writes dealer_rotates = true, which its one form leaves out."""
    raw = log.header.rules_raw
    assert raw is not None and "dealer_rotates" not in raw
    log.header = replace(log.header, rules_raw={**raw, "dealer_rotates": True})


def test_a_rules_map_that_writes_the_default_is_not_canonical_in_both(
        key: Ed25519PrivateKey, tmp_path: Path, node: str,  # noqa: F811
        home: dict[str, str]) -> None:  # noqa: F811
    data = rewrite(play_logged_match("eram41", seed=b"third platform form", key=key),
                   _rotates_written, resign=key)
    v = verify_bytes(data)
    assert [f.kind for f in v.findings] == ["not-canonical"], [str(f) for f in v.findings]
    path = tmp_path / "written.tlog"
    path.write_bytes(data)
    assert _disagreements(node, home, [path]) == []


def test_rule_sets_without_the_fields_keep_their_bytes() -> None:
    for rules in PRESETS.values():
        assert "dealer_rotates" not in rules.to_dict() and rules.dealer_rotates
    for path in sorted(FIXTURES.glob("*.tlog"))[:6]:
        raw = parse_log(path.read_bytes()).header.rules_raw
        assert raw is not None and "dealer_rotates" not in raw
    again = play_logged_match("eram41", seed=b"third platform bytes")
    assert json.dumps(parse_log(again).header.rules_raw) == json.dumps(PRESETS["eram41"].to_dict())


def test_both_reference_engines_play_the_matches_as_recorded(
        matches: dict[str, bytes], tmp_path: Path, node: str) -> None:  # noqa: F811
    """The Python engine and the TypeScript one (over the line protocol) agree with every
    move of the matches: who is to move, what is legal, the tricks and the scores."""
    paths = []
    for variant, data in matches.items():
        path = tmp_path / f"{variant.replace(' ', '-')}.tlog"
        path.write_bytes(data)
        paths.append(path)
    server = Path(__file__).resolve().parent.parent / "js" / "dist" / "src" / "engine-server.js"
    for engine in (REFERENCE, EngineCommand([node, str(server)], time_limit=30)):
        run_ = regress_paths(engine, paths, time_limit=None)
        assert [r.status for r in run_.reports] == ["agree"] * 3, [r.line() for r in run_.reports]
