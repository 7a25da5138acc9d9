"""The trump references under the house rule ``trump = "revealed"`` (the revealed card's
own suit is trump, docs/RULES.md): the shown card is a trump, so the unseen 51 cards hold
12 trumps, and the dealer's count leaves the shown one out. Taken as ``revealed_mate``
(51 cards holding 13 trumps, the shown card none), a fair archive of such matches was
flagged with certainty by every trumps test (p about 1e-240 at 300 matches)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.replay.rules.players import BotPlayer
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.server.simulate import play_logged_match


def test_fair_revealed_own_suit_archive_is_not_flagged_by_trump_tests(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = dataclasses.replace(preset("eram41"), name="revown", trump="revealed")
    for i in range(40):
        rng = random.Random(i)
        players = [BotPlayer(random.Random(rng.getrandbits(64))) for _ in range(4)]
        data = play_logged_match(rules, seed=b"revealed own %d" % i, players=players,
                                 computer=(True, False, True, False))
        (tmp_path / f"m{i:03d}.tlog").write_bytes(data)
    _, out, _ = run(capsys, "audit", "-j", "1", "--json", str(tmp_path))
    trumps = [t for ts in json.loads(out)["fairness"].values() for t in ts
              if t["test"][0] == "trumps" and t["p_value"] is not None]
    assert trumps
    assert min(t["p_value"] for t in trumps) > 1e-4
