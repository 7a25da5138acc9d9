"""Alterations of a match log, one thing at a time.

Each alteration takes the bytes of a clean signed log and returns the altered
bytes and an :class:`Alteration`: what changed, in which hand, and the finding
the replayer must report for it. Only that one thing changes: the claims
(tricks, scores, totals, winner) stay as they were, so the replayer has to find
the change by itself.

With ``resign=`` the altered log is signed again with the platform's key, as
when a platform itself wrote a wrong log: then only the rule finding appears.
Without it the old signature stays and breaks too.

This package's ``__init__`` is the catalogue; :mod:`~tarneeb.testing.alterations.base`
is what every alteration is built from, and each other module one kind (bids, claims,
deals, play, signature, endings, blind cheats). May import: :mod:`tarneeb.replay` and
:mod:`tarneeb.audit`, nothing else of :mod:`tarneeb.testing`.

Every alteration has the same call form, ``fn(data, *, choice=0, hand=None,
resign=None)``: ``choice`` picks deterministically among the places the log
offers (which hand, seat, card …), ``hand`` pins the hand (its index, which is
its deal number). :data:`REGISTRY` lists them all by name; :func:`alter` calls
one by name. A log that offers nothing to alter in that way raises
:class:`NotApplicable`.

The alterations live by what they change: :mod:`~tarneeb.testing.alterations.signature`
(the signature, the key, the byte form), :mod:`~tarneeb.testing.alterations.deal`
(seeds and deals), :mod:`~tarneeb.testing.alterations.bid` (bids and the trump),
:mod:`~tarneeb.testing.alterations.play` (card play and timer marks),
:mod:`~tarneeb.testing.alterations.claim` (tricks, scores, totals, the winner),
:mod:`~tarneeb.testing.alterations.end` (how an abandoned match ended),
:mod:`~tarneeb.testing.alterations.blind` (cheats in a log dealt blind) and
:mod:`~tarneeb.testing.alterations.shuffle` (cheats against the v2 proofs), all built on
:mod:`~tarneeb.testing.alterations.base`. This module registers them all and re-exports
every name it always had.

>>> from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> log = play_logged_match("eram41", seed=b"tamper doc")  # reproducible: not secret
>>> key = MatchSecrets(b"tamper doc").key
>>> bad, alt = alter("change-score", log, hand=0, resign=key)
>>> alt.expect, alt.hand
('wrong-hand-score', 0)
>>> [(f.kind, f.hand, f.seat) for f in verify_bytes(bad).findings] == [
...     ("wrong-hand-score", 0, alt.seat)]
True
"""

from __future__ import annotations

from collections.abc import Iterator

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.rules.ruleset import RuleSet

# registers the blind dealing alterations and the lies about how a match ended
from tarneeb.testing.alterations import blind as blind_alterations  # noqa: F401
from tarneeb.testing.alterations import end as end_alterations  # noqa: F401
from tarneeb.testing.alterations import shuffle as shuffle_alterations  # noqa: F401
from tarneeb.testing.alterations.base import (
    REGISTRY,
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    RulesTest,
    Tamper,
    TamperFn,
    Visit,
    rewrite,
)
from tarneeb.testing.alterations.bid import (
    bid_below_minimum,
    bid_not_higher,
    bid_out_of_range,
    change_bid,
    change_trump,
    drop_last_call,
    extra_call,
    lower_bids,
    pass_for_bid,
    raise_cancelled_bids,
    swap_calls,
)
from tarneeb.testing.alterations.claim import (
    append_hand,
    cancelled_claims,
    change_score,
    change_total,
    change_tricks,
    change_winner,
    drop_end,
    drop_last_hand,
)
from tarneeb.testing.alterations.deal import (
    bad_batch_proof,
    change_deal_number,
    change_dealer,
    change_revealed,
    change_revealed_and_trump,
    corrupt_client_seed,
    corrupt_server_seed,
    first_dealer,
    hide_server_seed,
    move_dealt_card,
    nil_deal,
    record_wrong_deal,
    strip_seeds,
    with_recorded_deals,
)
from tarneeb.testing.alterations.play import (
    drop_plays,
    lead_out_of_turn,
    mark_timer,
    play_cancelled,
    renege,
    replace_played_card,
    swap_plays,
    truncate_plays,
)
from tarneeb.testing.alterations.signature import (
    IDENTITY_POINT,
    cut_short,
    drop_signature,
    flip_signature,
    misname_rules,
    other_key,
    reorder_rules,
    weak_key,
)


def alter(name: str, data: bytes, *, choice: int = 0, hand: int | None = None,
          resign: Ed25519PrivateKey | None = None) -> Altered:
    """Apply the alteration ``name`` of :data:`REGISTRY` to the log ``data``.

    >>> sorted(REGISTRY)[:3]
    ['abandon-won-match', 'append-hand', 'bad-batch-proof']
    """
    try:
        t = REGISTRY[name]
    except KeyError:
        raise KeyError(f"no alteration {name!r} (known: {', '.join(sorted(REGISTRY))})") from None
    return t(data, choice=choice, hand=hand, resign=resign)

def iter_tampers(rules: RuleSet, blind: bool = False) -> Iterator[Tamper]:
    """The alterations that can apply to a log of ``rules``, by name (``blind``: those of
    a log dealt blind).

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> "bid-not-higher" in [t.name for t in iter_tampers(preset("classic"))]
    True
    """
    for name in sorted(REGISTRY):
        t = REGISTRY[name]
        if t.applies(rules) and t.blind == blind:
            yield t


__all__ = [
    "IDENTITY_POINT", "REGISTRY", "Alteration", "Altered", "EditableLog", "NotApplicable",
    "RulesTest", "Tamper", "TamperFn", "Visit", "alter", "append_hand", "bad_batch_proof",
    "bid_below_minimum", "bid_not_higher", "bid_out_of_range", "cancelled_claims",
    "change_bid", "change_deal_number", "change_dealer", "change_revealed",
    "change_revealed_and_trump", "change_score", "change_total", "change_tricks",
    "change_trump", "change_winner", "corrupt_client_seed", "corrupt_server_seed",
    "cut_short", "drop_end", "drop_last_call", "drop_last_hand", "drop_plays",
    "drop_signature", "extra_call", "first_dealer", "flip_signature", "hide_server_seed",
    "iter_tampers", "lead_out_of_turn", "lower_bids", "mark_timer", "misname_rules",
    "move_dealt_card", "nil_deal", "other_key", "pass_for_bid", "play_cancelled",
    "raise_cancelled_bids", "record_wrong_deal", "renege", "reorder_rules",
    "replace_played_card", "rewrite", "strip_seeds", "swap_calls", "swap_plays",
    "truncate_plays", "weak_key", "with_recorded_deals",
]
