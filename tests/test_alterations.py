"""Every match the engine plays replays clean; every single alteration of a clean log
is found, in the hand it was made in."""

from __future__ import annotations

import doctest
import functools
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.players import BotPlayer, MatchTooLong
from tarneeb.replay.rules.ruleset import PRESETS, preset
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import Trust
from tarneeb.testing import alterations as tamper
from tarneeb.testing.alterations import (
    REGISTRY,
    Alteration,
    NotApplicable,
    alter,
    base,
    iter_tampers,
    with_recorded_deals,
)

RULES = sorted(PRESETS)
# alterations that sign (or leave unsigned) the log themselves, whatever ``resign`` says
OWN_SIGNATURE = {"flip-signature", "drop-signature", "other-key", "cut-short", "weak-key"}
SIGNATURE_KINDS = {"broken-signature", "unsigned", "key-mismatch", "weak-key"}


def match(rules: str, seed: int, timer_rate: float = 0.0, bid_shift: int = 0,
          seeded: bool = True) -> tuple[bytes, Ed25519PrivateKey]:
    """A whole signed match between bots, and the platform key that signed it."""
    seed_b = b"test-tamper %d" % seed
    rng = random.Random(seed)
    players = [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=timer_rate,
                         bid_shift=bid_shift) for _ in range(4)]
    data = play_logged_match(rules, seed=seed_b, players=players, seeded=seeded)
    return data, MatchSecrets(seed_b).key


def verdict_of(data: bytes, alt: Alteration) -> Verdict:
    return verify_bytes(data, trust=Trust(public_key=alt.pin_key))


def check_found(data: bytes, alt: Alteration, resigned: bool) -> None:
    """The alteration gives its finding, in its hand; re-signed, nothing about the signature."""
    v = verdict_of(data, alt)
    assert v.findings, f"{alt.name} not found: {alt.description}"
    if alt.hand is not None:
        assert any(f.hand == alt.hand for f in v.findings), (alt, v.findings)
    expected = [f for f in v.findings if f.kind == alt.expect]
    assert expected, (alt, [str(f) for f in v.findings])
    assert any((f.hand, f.trick, f.seat) == (alt.hand, alt.trick, alt.seat) for f in expected), \
        (alt, [(f.kind, f.hand, f.trick, f.seat) for f in expected])
    if alt.name not in OWN_SIGNATURE:
        signature = {f.kind for f in v.findings} & SIGNATURE_KINDS
        if resigned:
            assert not signature, (alt, signature)
        else:
            assert signature == {"broken-signature"}, (alt, signature)


# ---------------------------------------------------------------- clean matches

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1),
       timer_rate=st.sampled_from([0.0, 0.1, 0.3]), bid_shift=st.sampled_from([-1, 0]),
       seeded=st.booleans())
def test_every_match_the_engine_plays_replays_clean(rules: str, seed: int, timer_rate: float,
                                                    bid_shift: int, seeded: bool) -> None:
    try:
        data, _ = match(rules, seed, timer_rate, bid_shift, seeded)
    except MatchTooLong:
        assume(False)
    v = verify_bytes(data, count_paths=True)
    assert v.clean, [str(f) for f in v.findings]
    assert v.deals_proven == seeded
    assert v.paths["match-won"] == 1
    if timer_rate == 0:
        assert not {"timer-bid", "timer-play", "timer-trump"} & set(v.paths)


# ---------------------------------------------------------------- single alterations

@functools.cache
def fixed_logs(rules: str) -> list[tuple[bytes, Ed25519PrivateKey]]:
    """A plain match, one with timer moves and low bids, and the first as recorded deals."""
    plain = match(rules, 2)
    steered = match(rules, 2, timer_rate=0.15, bid_shift=-1)
    return [plain, steered, (with_recorded_deals(plain[0], plain[1]), plain[1])]


@pytest.mark.parametrize(("rules", "name"), [
    (rules, name) for rules in RULES for name in sorted(REGISTRY)
    if REGISTRY[name].applies(preset(rules)) and not REGISTRY[name].blind])
def test_each_alteration_is_found_in_each_rule_set(rules: str, name: str) -> None:
    tamper = REGISTRY[name]
    applied = 0
    for data, key in fixed_logs(rules):
        for choice in range(3):
            for resign in (key, None):
                try:
                    out, alt = tamper(data, choice=choice, resign=resign)
                except NotApplicable:
                    continue
                applied += 1
                assert alt.name == name
                assert (alt.hand is None) == tamper.match_level
                check_found(out, alt, resign is not None)
    assert applied, f"{name} applied to none of the {rules} logs"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_single_alteration_gives_a_finding_in_its_hand(data: st.DataObject) -> None:
    rules = data.draw(st.sampled_from(RULES), label="rules")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    timer_rate = data.draw(st.sampled_from([0.0, 0.2]), label="timer_rate")
    try:
        log, key = match(rules, seed, timer_rate, bid_shift=data.draw(st.sampled_from([-1, 0])))
    except MatchTooLong:
        assume(False)
    names = [t.name for t in iter_tampers(preset(rules))]
    name = data.draw(st.sampled_from(names), label="alteration")
    choice = data.draw(st.integers(0, 10**6), label="choice")
    resign = data.draw(st.booleans(), label="resign")
    try:
        out, alt = alter(name, log, choice=choice, resign=key if resign else None)
    except NotApplicable:
        assume(False)
    assert out != log
    check_found(out, alt, resign)


@pytest.mark.parametrize("rules", RULES)
def test_alterations_name_the_hand_they_pin(rules: str) -> None:
    data, key = fixed_logs(rules)[0]
    last = len(parse_log(data).hands) - 1
    for name in ("change-total", "change-dealer", "mark-timer", "change-deal-number"):
        for hand in (0, last):
            try:
                out, alt = alter(name, data, hand=hand, resign=key)
            except NotApplicable:
                continue
            assert alt.hand == hand
            check_found(out, alt, True)
    with pytest.raises(NotApplicable):
        alter("change-total", data, hand=last + 1)


def test_unaltered_records_encode_to_the_same_bytes() -> None:
    for rules in RULES:
        for data, key in fixed_logs(rules):
            assert base._close(base._open(data), None) == data
            assert base._close(base._open(data), key) == data  # Ed25519 is deterministic
            out, _ = alter("change-total", data, hand=0, resign=key)
            start = parse_log(data).offsets[0]  # the header before the altered hand is as it was
            assert out[:start] == data[:start] and out != data


def test_recorded_deals_verify_clean_with_a_note() -> None:
    data, key = fixed_logs("sahrat41")[2]
    v = verify_bytes(data)
    assert v.clean and not v.deals_proven
    assert any("recorded" in n for n in v.notes)
    out, alt = alter("move-dealt-card", data, resign=key)
    assert alt.expect == "bad-deal"
    check_found(out, alt, True)


def test_registry_covers_the_brief() -> None:
    must = {"swap-plays", "change-bid", "change-score", "change-tricks", "change-total",
            "move-dealt-card", "change-trump", "change-revealed", "flip-signature", "cut-short",
            "drop-end", "change-winner", "append-hand", "mark-timer", "change-deal-number",
            "change-dealer", "corrupt-client-seed", "corrupt-server-seed"}
    assert must <= set(REGISTRY)
    for t in REGISTRY.values():
        assert t.fn.__doc__ and t.summary


def test_unknown_alteration() -> None:
    with pytest.raises(KeyError, match="no alteration"):
        alter("swap-everything", b"")


def test_doctests() -> None:
    assert doctest.testmod(tamper, optionflags=doctest.ELLIPSIS).failed == 0


@pytest.mark.parametrize("rules", ["eram41", "classic"])
def test_every_alteration_of_a_match_abandoned_mid_hand_applies_or_says_why(rules: str) -> None:
    """A log that ends abandoned in the middle of a hand (whose open hand claims no tricks,
    scores or totals): each alteration either applies and is found, or says it does not
    apply; none fails (change-total raised a TypeError on the open hand)."""
    from tarneeb.replay.log import Abandonment, EndRecord
    from tarneeb.testing.alterations.base import EditableLog, rewrite

    seed = 7
    data, key = match(rules, seed)

    def stop(log: EditableLog) -> None:
        n = next(i for i, r in enumerate(log.hands) if len(r.plays) == 52)
        rec = log.hands[n]
        log.hands[n:] = [base.replace(rec, plays=rec.plays[:9], tricks=None, scores=None,
                                      totals=None, closed=False)]
        assert log.end is not None
        log.end = EndRecord(None, log.end.server_seed, Abandonment("resignation", 0, "left"))

    stopped = rewrite(data, stop, resign=key)
    assert verify_bytes(stopped).clean
    applied = 0
    for name in sorted(REGISTRY):
        if REGISTRY[name].blind or not REGISTRY[name].applies(preset(rules)):
            continue
        for choice in range(3):
            try:
                out, alt = alter(name, stopped, choice=choice, resign=key)
            except NotApplicable:
                continue
            applied += 1
            if out != stopped:
                assert verdict_of(out, alt).findings, (name, alt)
    assert applied


def test_a_contract_of_13_changed_under_rules_where_the_auction_goes_on_after_13() -> None:
    """Under house rules where the others still pass after a 13 (``house-classic31``),
    change-bid expected the auction left unfinished (a 13 made 12) or overrun (a bid made
    13), as if a 13 ended it; the verifiers find the hand's score wrong, as they should."""
    import random

    from tarneeb.replay.log import parse_log
    from tarneeb.replay.rules.house import shipped
    from tarneeb.replay.rules.players import BotPlayer
    from tarneeb.replay.server.simulate import play_logged_match
    from tarneeb.replay.verify.replayer import verify_bytes
    from tarneeb.testing.alterations import alter

    rules = shipped()["house-classic31"]
    assert not rules.auction_ends_on_13
    players = [BotPlayer(random.Random(i), bid_shift=5, aggression=3) for i in range(4)]
    data = play_logged_match(rules, seed=b"b13-0", players=players, max_hands=30)
    thirteens = [n for n, h in enumerate(parse_log(data).hands)
                 if len(h.plays) == 52 and any(code == 13 for _, code in h.calls)]
    assert thirteens
    for n in thirteens[:3]:
        altered, what = alter("change-bid", data, hand=n)
        assert what.expect in {f.kind for f in verify_bytes(altered, "m.tlog").findings}, what
