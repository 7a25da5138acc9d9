"""Blind dealing end to end: matches dealt blind verify clean, each seat's cheat is caught
and blamed, the hands replayed are the hands the seats learned."""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tarneeb.replay.log import LogError, parse_log
from tarneeb.replay.log.blind import BLIND, KEYS, PROOF, blind_list
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.blind import play_blind, play_blind_match
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.replayer import SECRET_HAND, verify_bytes
from tarneeb.testing.alterations import REGISTRY, NotApplicable, iter_tampers
from tarneeb.testing.alterations import base as tamper

RULES = sorted(PRESETS)
BLIND_TAMPERS = sorted(name for name, t in REGISTRY.items() if t.blind)


@functools.cache
def blind_log(rules: str, reveal_keys: bool = True) -> bytes:
    """A short match dealt blind (to 5 points: one to a few hands), reproducible."""
    return play_blind_match(rules, seed=b"blind-log " + rules.encode(), target=5,
                            reveal_keys=reveal_keys)


@pytest.mark.parametrize("rules", RULES)
def test_a_blind_match_verifies_clean_in_every_rule_set(rules: str) -> None:
    data = blind_log(rules)
    log = parse_log(data)
    assert log.header.blind
    assert all(h.blind is not None for h in log.hands)
    for h in log.hands:  # every card played came with its proof, at a position of its own
        assert h.blind is not None and sorted(h.blind.play_proofs) == list(range(len(h.plays)))
        assert len({p for p, _ in h.blind.play_proofs.values()}) == len(h.plays)
    assert [k.deal_number for k in log.keys] == list(range(len(log.hands)))
    v = verify_bytes(data)
    assert v.clean, [str(f) for f in v.findings]
    assert v.blind and v.deals_proven and v.played >= 1
    assert "dealt blind, every hand proven" in v.deals_line()


def test_without_the_keys_played_hands_are_proven_by_their_plays() -> None:
    # a match whose first two hands are cancelled (all four pass)
    data = play_blind_match("classic", seed=b"xclassic", target=5, reveal_keys=False)
    assert not parse_log(data).keys
    v = verify_bytes(data)
    assert v.clean and v.deals_proven, [str(f) for f in v.findings]
    cancelled = [h.deal_number for h in v.history if h.cancelled]
    assert cancelled  # this match has hands cancelled in the bidding: said in a note
    assert any("cancelled in the bidding" in n and "no keys" in n for n in v.notes)


def test_a_hand_neither_played_out_nor_opened_by_keys_is_not_replayed() -> None:
    log = tamper._open(blind_log("qahwa41", reveal_keys=False))
    last = log.hands[-1]  # the match stops ten cards into its last hand
    assert last.blind is not None and len(last.plays) == 52
    last.plays, last.closed = last.plays[:10], False
    last.tricks = last.scores = last.totals = None
    last.blind.play_proofs = {k: last.blind.play_proofs[k] for k in range(10)}
    log.end = None
    v = verify_bytes(tamper._close(log, None, keep_signature=False))
    assert not v.clean and not v.deals_proven
    secret = [f for f in v.findings if f.kind == "not-replayed"]
    assert secret and SECRET_HAND in secret[0].message and secret[0].hand == last.deal_number


@pytest.mark.parametrize("name", BLIND_TAMPERS)
def test_each_cheat_is_caught_and_the_seat_named(name: str) -> None:
    applied = 0
    for rules in ("eram41", "classic"):
        data = blind_log(rules)
        key = MatchSecrets(b"blind-log " + rules.encode()).key
        for choice in range(2):
            try:
                out, alt = REGISTRY[name](data, choice=choice, resign=key)
            except NotApplicable:
                continue
            applied += 1
            v = verify_bytes(out)
            assert not v.clean and not v.deals_proven
            assert alt.seat is not None or name == "drop-play-proof"  # no proof: no seat
            assert any((f.kind, f.hand, f.trick, f.seat) == (alt.expect, alt.hand, alt.trick,
                                                             alt.seat) for f in v.findings), \
                (alt, [(f.kind, f.hand, f.trick, f.seat) for f in v.findings])
            assert not {f.kind for f in v.findings} & {"broken-signature", "unsigned"}
    assert applied


def test_blind_alterations_do_not_apply_to_seed_logs() -> None:
    data = play_logged_match("qahwa41", seed=b"not blind")
    for name in BLIND_TAMPERS:
        with pytest.raises(NotApplicable):
            REGISTRY[name](data)
    assert not any(t.blind for t in iter_tampers(PRESETS["qahwa41"]))
    assert {t.name for t in iter_tampers(PRESETS["qahwa41"], blind=True)} == set(BLIND_TAMPERS)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=1, max_size=8), rules=st.sampled_from(RULES))
def test_the_hands_replayed_are_the_hands_each_seat_learned(seed: bytes, rules: str) -> None:
    data, table = play_blind(rules, seed=seed, target=3)
    v = verify_bytes(data)
    assert v.clean, [str(f) for f in v.findings]
    assert [h.hands for h in v.history] == table.hands
    for hands in table.hands:  # honest passes deal a permutation of the deck
        assert sum(h.bit_count() for h in hands) == 52
        assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 52) - 1


def test_blind_records_are_refused_where_they_do_not_belong() -> None:
    data = blind_log("qahwa41")
    log = parse_log(data)
    start = log.offsets[0]
    seed_log = play_logged_match("qahwa41", seed=b"no blind")
    seeds = parse_log(seed_log)
    blind_record = msgpack.packb(blind_list(log.hands[0].blind), use_bin_type=True)
    assert data[start + 6:start + 6 + len(blind_record)] == blind_record  # after the deal
    assert blind_record[1] == BLIND
    with pytest.raises(LogError, match="does not say dealing: blind"):
        parse_log(seed_log[:seeds.offsets[0] + 6] + blind_record + seed_log[seeds.offsets[0]
                                                                            + 6:], strict=True)
    with pytest.raises(LogError, match="right after its deal record"):  # a second one
        i = start + 6 + len(blind_record)
        parse_log(data[:i] + blind_record + data[i:], strict=True)
    cut = parse_log(data[:i] + blind_record + data[i:]).cut_short  # read up to it
    assert cut is not None and cut.offset == i and "right after its deal record" in cut.message
    assert PROOF and KEYS  # the record types FORMAT.md gives


def test_play_dealing_blind_at_the_command_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.entry import main

    def run(*argv: str) -> tuple[int, str]:
        with pytest.raises(SystemExit) as e:
            main(list(argv))
        out, err = capsys.readouterr()
        return int(e.value.code or 0), out + err

    rules = tmp_path / "short.toml"
    rules.write_text('name = "short"\nbase = "qahwa41"\ntarget = 3\n')
    out = tmp_path / "b.tlog"
    code, said = run("play", "--rules-file", str(rules), "--dealing", "blind", "--seed", "b",
                     "-o", str(out))
    assert code == 0 and "dealt blind" in said
    code, said = run("verify", str(out))
    assert code == 0 and "dealt blind, every hand proven" in said
    page = tmp_path / "b.html"
    code, said = run("report", str(out), "-o", str(page))
    assert code == 0 and "dealt blind and proven" in page.read_text(encoding="utf-8")
    code, said = run("play", "--dealing", "shuffled", "-o", str(out))
    assert code == 2 and "give seeds or blind" in said


def test_a_platform_records_a_blind_match_move_by_move(tmp_path: Path) -> None:
    """MatchRecorder with dealing="blind" writes the very bytes the simulator writes."""
    from tarneeb.replay.server.recorder import MatchRecorder, RecorderError

    seed = b"blind-log eram41"
    data = blind_log("eram41")
    log = parse_log(data)
    h = log.header
    assert log.end is not None
    rec = MatchRecorder(tmp_path / "m.tlog", rules=h.rules, seats=[(s.name, s.computer)
                                                                  for s in h.seats],
                        match_id=h.match_id, first_dealer=h.first_dealer,
                        public_key=h.public_key, server_commitment=h.server_commitment,
                        client_commitments=h.client_commitments, client_seeds=h.client_seeds,
                        dealing="blind")
    for hand in log.hands:
        with pytest.raises(RecorderError, match="transcript"):
            rec.deal(hand.dealer, revealed=hand.revealed)
        rec.deal(hand.dealer, revealed=hand.revealed, blind=replace(
            hand.blind, play_proofs={}))
        for seat, call in hand.calls:
            rec.call(seat, None if call == 15 else call)
        assert hand.blind is not None
        for k, card in enumerate(hand.plays):
            rec.play(card, proof=hand.blind.play_proofs[k])
        rec.claim(totals=hand.totals, tricks=hand.tricks, scores=hand.scores, trump=hand.trump)
    rec.finish(log.end.winner, log.end.server_seed)
    for k in log.keys:
        rec.reveal_keys(k)
    rec.sign(MatchSecrets(seed).key)
    assert (tmp_path / "m.tlog").read_bytes() == data


@pytest.mark.parametrize("edit", ["zero-scalar", "big-scalar", "bad-permutation",
                                  "pass-not-elements", "last-pass-not-elements",
                                  "publics-identity", "partials-not-elements"])
def test_hostile_transcripts_are_findings_not_crashes(edit: str) -> None:
    log = tamper._open(blind_log("eram41"))
    t, k = log.hands[0].blind, log.keys[0]
    assert t is not None
    if edit == "zero-scalar":
        k.scalars[1] = bytes(32)
    elif edit == "big-scalar":
        k.scalars[1] = b"\xff" * 32
    elif edit == "bad-permutation":
        k.permutations[2] = bytes([255] * 52)
    elif edit == "pass-not-elements":
        t.passes[1] = b"\xff" * 1664
    elif edit == "last-pass-not-elements":
        t.passes[3] = b"\xff" * 1664
    elif edit == "publics-identity":
        t.publics = bytes(128)
    else:
        t.partials[2] = b"\xff" * 1664
    v = verify_bytes(tamper._close(log, MatchSecrets(b"blind-log eram41").key))
    assert v.error is None and not v.clean and not v.deals_proven
    assert {f.kind for f in v.findings} & {"wrong-key", "wrong-shuffle", "wrong-decryption",
                                           "blind-transcript", "card-not-dealt"}


def test_each_player_sees_its_own_hand_only() -> None:
    """A computer player is driven by what its seat learned, never by the whole deal."""
    import random

    from tarneeb.replay.rules.players import BotPlayer

    seen: list[tuple[int, list[int], tuple[int, ...]]] = []

    class Spy(BotPlayer):
        def choose(self, state):  # type: ignore[no-untyped-def]
            seat = state.current_player
            seen.append((seat, list(state.hands), state.hand.hands))
            return super().choose(state)

    players = [Spy(random.Random(s)) for s in range(4)]
    data, table = play_blind("eram41", seed=b"spy", target=3, players=players)
    assert verify_bytes(data).clean and seen
    for seat, hands, dealt in seen:
        assert all(h == 0 for s, h in enumerate(hands) if s != seat)
        assert all(h == 0 for s, h in enumerate(dealt) if s != seat)
        assert dealt[seat] in [hs[seat] for hs in table.hands]


def test_the_json_form_of_a_blind_log_converts_back_to_the_same_bytes() -> None:
    from tarneeb.replay.log.jsonform import dumps, loads

    data = blind_log("classic")
    text = dumps(data)
    assert '"dealing": "blind"' in text and '"type": "keys"' in text
    assert loads(text) == data
    doc = json.loads(text)
    doc["records"][1]["blind"]["extra"] = 1  # the log could not carry it: refused
    with pytest.raises(LogError, match="blind must be"):
        loads(json.dumps(doc))


@pytest.mark.parametrize("keys", [True, False])
def test_a_seat_that_stops_answering_is_named_in_the_abandoned_match(keys: bool) -> None:
    from tarneeb.replay.log import Abandonment, EndRecord

    data = blind_log("qahwa41")
    first = verify_bytes(data).history[0]
    seat = (first.trick_leaders[10 // 4] + 10 % 4) & 3  # to play the 11th card of the first hand
    log = tamper._open(data)
    last = log.hands[0]  # that seat stops answering ten cards into the first hand
    assert last.blind is not None and log.end is not None
    log.hands = [last]
    last.plays, last.closed = last.plays[:10], False
    last.tricks = last.scores = last.totals = None
    last.blind.play_proofs = {k: last.blind.play_proofs[k] for k in range(10)}
    log.end = EndRecord(None, log.end.server_seed, Abandonment("timeout", seat, "no answer"))
    log.keys = log.keys[:1] if keys else []
    v = verify_bytes(tamper._close(log, MatchSecrets(b"blind-log qahwa41").key))
    assert v.ending is not None and f"seat {seat}" in v.ending and "timed out" in v.ending
    if keys:  # the revealed keys open every hand: the ten cards are checked against them
        assert v.clean and v.deals_proven, [str(f) for f in v.findings]
    else:  # the cards not played stay secret: the hand is not proven, and the verdict says so
        assert [f.kind for f in v.findings] == ["not-replayed"] and not v.deals_proven
