"""Alterations of the card play: cards swapped or replaced, a renege, a lead out of
turn, a hand's plays cut short, dropped or copied into a cancelled hand, and a move
marked as the turn timer's that is not the rules' automatic one.

Each registers in :data:`~tarneeb.testing.alterations.REGISTRY` (see
:mod:`tarneeb.testing.alterations` for the call form).
"""

from __future__ import annotations

import random
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import HandRecord
from tarneeb.replay.rules.actions import Action, describe_action, is_play
from tarneeb.replay.rules.cards import card_name, suit_of
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    _cancelled,
    _close,
    _misplay_kind,
    _open,
    _owner,
    _pick_hand,
    _played,
    _register,
    _replay,
    _seat_of_play,
)


def _set_plays(log: EditableLog, n: int, plays: bytes) -> HandRecord:
    rec = log.hands[n]
    log.hands[n] = replace(rec, plays=plays)
    return rec


@_register("swap-plays", "swap two cards of different seats within a hand")
def swap_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Two played cards of different seats swapped: at the first of the two places a
    seat plays a card another seat holds."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    i = rng.randrange(51)
    seat_i = _seat_of_play(h, i)
    same_trick = rng.random() < 0.5
    pool = range(i + 1, min(52, i - i % 4 + 4)) if same_trick else range(i + 1, 52)
    options = [j for j in pool if _seat_of_play(h, j) != seat_i] or \
        [j for j in range(i + 1, 52) if _seat_of_play(h, j) != seat_i]
    j = rng.choice(options)
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "swap-plays", n, f"hand {n}: plays {i} ({card_name(h.plays[i])}, seat {seat_i}) and {j} "
        f"({card_name(h.plays[j])}, seat {_seat_of_play(h, j)}) swapped", trick=i // 4 + 1,
        seat=seat_i, expect=_misplay_kind(h, i, h.plays[j]))


@_register("replace-played-card", "a played card replaced by another seat's or a played one")
def replace_played_card(data: bytes, *, choice: int = 0, hand: int | None = None,
                        resign: Ed25519PrivateKey | None = None) -> Altered:
    """One played card replaced by a card another seat still holds then, or (one time in
    four) by a card already played."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    k = rng.randrange(1 if rng.random() < 0.25 else 0, 52)
    seat = _seat_of_play(h, k)
    if k > 0 and rng.random() < 0.25:
        card = rng.choice(h.plays[:k])
    else:
        later = [c for c in h.plays[k + 1:] if _owner(h, c) != seat]
        card = rng.choice(later) if later else rng.choice(h.plays[:k] or [h.plays[k]])
    if card == h.plays[k]:
        raise NotApplicable("no other card to play")
    plays = bytearray(h.plays)
    plays[k] = card
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "replace-played-card", n, f"hand {n}: play {k} by seat {seat} is {card_name(card)}, "
        f"not {card_name(h.plays[k])}", trick=k // 4 + 1, seat=seat,
        expect=_misplay_kind(h, k, card))


@_register("renege", "a seat plays off-suit while holding the suit led")
def renege(data: bytes, *, choice: int = 0, hand: int | None = None,
           resign: Ed25519PrivateKey | None = None) -> Altered:
    """A seat's card that followed suit swapped with a later card of the same seat of
    another suit: a renege at the first place."""
    log = _open(data)
    rng = random.Random(choice)
    options = []
    history = _replay(log)
    for n, rec in enumerate(log.hands):
        if (hand is not None and n != hand) or not _played(rec):
            continue
        h = history[n]
        for i in range(52):
            if i % 4 == 0:
                continue
            led = suit_of(h.plays[i - i % 4])
            if suit_of(h.plays[i]) != led:
                continue
            seat = _seat_of_play(h, i)
            for j in range(i + 1, 52):
                if _seat_of_play(h, j) == seat and suit_of(h.plays[j]) != led:
                    options.append((n, i, j))
    if not options:
        raise NotApplicable("no seat followed suit and later played another suit")
    n, i, j = rng.choice(options)
    h = history[n]
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    seat = _seat_of_play(h, i)
    return _close(log, resign), Alteration(
        "renege", n, f"hand {n}: seat {seat} plays {card_name(h.plays[j])} in trick "
        f"{i // 4 + 1} and {card_name(h.plays[i])} in trick {j // 4 + 1}", trick=i // 4 + 1,
        seat=seat, expect="renege")


@_register("lead-out-of-turn", "a trick led by a seat that did not win the trick before")
def lead_out_of_turn(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """The lead of a trick (not the first) swapped with another card of the same trick."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    h = _replay(log, n)[-1]
    t = rng.randrange(1, 13)
    i, j = 4 * t, 4 * t + 1 + rng.randrange(3)
    plays = bytearray(h.plays)
    plays[i], plays[j] = plays[j], plays[i]
    _set_plays(log, n, bytes(plays))
    return _close(log, resign), Alteration(
        "lead-out-of-turn", n, f"hand {n}: trick {t + 1} led with seat "
        f"{_seat_of_play(h, j)}'s {card_name(h.plays[j])}", trick=t + 1,
        seat=_seat_of_play(h, i), expect="wrong-trick-winner")


@_register("truncate-plays", "a played hand stops before its 52nd card")
def truncate_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last cards of one played hand removed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    keep = rng.randrange(1, 52)
    _set_plays(log, n, log.hands[n].plays[:keep])
    return _close(log, resign), Alteration(
        "truncate-plays", n, f"hand {n} stops after {keep} of 52 cards", trick=keep // 4 + 1,
        expect="hand-incomplete")


@_register("drop-plays", "a hand with enough bids left unplayed")
def drop_plays(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Every card of one played hand removed: as if it had been cancelled."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    _set_plays(log, n, b"")
    return _close(log, resign), Alteration(
        "drop-plays", n, f"hand {n}'s 52 cards removed", expect="cancelled-wrongly")


@_register("play-cancelled", "cards played in a hand that was cancelled")
def play_cancelled(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The plays of a played hand copied into a cancelled one."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _cancelled, "cancelled")
    src = _pick_hand(log, rng, None, _played, "played")
    _set_plays(log, n, log.hands[src].plays)
    return _close(log, resign), Alteration(
        "play-cancelled", n, f"hand {n}, cancelled, gets hand {src}'s 52 cards",
        expect="played-when-cancelled")

# ---------------------------------------------------------------- timer marks

@_register("mark-timer", "mark a move as the timer's that is not the rules' automatic move")
def mark_timer(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """One move that is not the rules' automatic move marked as made by the timer."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: True, "there")
    rec = log.hands[n]
    found: list[tuple[int, int, Action, int | None]] = []
    n_calls = len(rec.calls)

    def visit(state: MatchState, move: int, action: Action) -> None:
        if not rec.timer >> move & 1 and action not in state.timer_actions():
            declared = state.hand_under_way.declarer is not None
            trick = (move - n_calls - (1 if declared else 0)) // 4 + 1 \
                if is_play(action) and state.phase == Phase.PLAY else None
            found.append((move, state.to_move, action, trick))

    _replay(log, n, visit)
    if not found:
        raise NotApplicable(f"every move of hand {n} is the automatic one")
    move, seat, action, trick = rng.choice(found)
    log.hands[n] = replace(rec, timer=rec.timer | 1 << move)
    return _close(log, resign), Alteration(
        "mark-timer", n, f"hand {n}: seat {seat}'s {describe_action(action)} (move {move}) "
        "marked as the timer's", trick=trick, seat=seat, expect="wrong-timer-move")
