"""More forgeries against "clean means proven": mixed dealing modes, the fast paths against
the careful ones, the live format's cut logs, the JSON form, keys files and the summaries
that count clean logs. None may verify clean (exit 0).

Each log here is signed again after the change with a key the header then names, as the
platform that wrote it would, so only the verifier's own checks stand between the forgery
and a clean verdict.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from tarneeb.replay.blindplay import play_blind_match
from tarneeb.replay.replayer import verify_bytes
from tarneeb.replay.simulate import MatchSecrets
from tarneeb.testing.alterations import EditableLog, rewrite

KEY = MatchSecrets(b"test-forgeries2").key


@functools.cache
def blind(rules: str) -> bytes:
    return play_blind_match(rules, seed=b"forgeries2 " + rules.encode(), target=5, key=KEY)


# ---------------------------------------------------------------- blind dealing
@pytest.mark.parametrize("rules", ["eram41", "classic"])
def test_a_blind_log_without_seeds_is_not_clean(rules: str) -> None:
    """The seeds draw the first dealer of a match dealt blind (PROTOCOL.md §13): a blind log
    that commits to none has its first dealer on the platform's word alone, and its
    verdict said "deals not proven" with exit 0."""
    def drop_seeds(log: EditableLog) -> None:
        log.header = dataclasses.replace(log.header, server_commitment=None, batch=None,
                                         client_commitments=None, client_seeds=None)
        assert log.end is not None
        log.end = dataclasses.replace(log.end, server_seed=None)

    assert verify_bytes(blind(rules)).clean
    v = verify_bytes(rewrite(blind(rules), drop_seeds, KEY))
    assert not v.clean and "wrong-first-dealer" in [f.kind for f in v.findings]
    assert "seeds" in v.findings[0].message


def test_the_recorder_refuses_a_blind_match_without_seeds(tmp_path) -> None:
    from tarneeb.replay.recorder import MatchRecorder, RecorderError

    with pytest.raises(RecorderError, match="first dealer"):
        MatchRecorder(tmp_path / "m.tlog", rules="eram41", seats=["A", "B", "C", "D"],
                      match_id=b"m", first_dealer=0, dealing="blind")
    assert not (tmp_path / "m.tlog").exists()
