"""The recorded-match corpus in ``fixtures/``: clean logs that between them cover
every rule path, and altered logs with the finding each must produce.

Regenerate everything (deterministic, well under a minute)::

    python -m tarneeb.testing.corpus fixtures      # what `make fixtures` runs

Every clean log is made the way ``tarneeb play`` makes one:
:func:`~tarneeb.replay.server.simulate.play_logged_match` with a fixed seed. The plain
ones use the default players, so ``tarneeb play --rules eram41 --seed
corpus-eram41-01`` writes the very same bytes as ``fixtures/matches/eram41-01.tlog``.
The others pass steered computer players (``players=``): bots that leave moves to
the turn timer, or a :class:`Director` that chooses the bids (and, for a few
hands, asks one side to let the other take every trick) so that the match goes
through a rare path. Nothing is ever edited in a log.

The altered logs are clean corpus logs changed in exactly one way by
:mod:`tarneeb.testing.alterations`; ``fixtures/altered/manifest.json`` names the
finding each must produce.

The steering (:class:`Director`, :func:`stage`, the card play that gives one side
the tricks) is :mod:`tarneeb.testing.corpus.steering`; writing ``fixtures/`` (the logs, the
manifest, the README) and the command line are :mod:`tarneeb.testing.corpus.writer`.
This module is the list of what the corpus holds and how each log is made.

>>> spec = MATCHES[0]
>>> spec.file, spec.seed_text
('eram41-01.tlog', 'corpus-eram41-01')
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> verify_bytes(make_match(spec)).clean
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.rules.house import rule_set
from tarneeb.replay.rules.paths import all_paths
from tarneeb.replay.rules.players import BotPlayer
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match, seed_bytes
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations import REGISTRY
from tarneeb.testing.alterations.base import Alteration, NotApplicable
from tarneeb.testing.corpus.steering import (
    Director,
    Policy,
    Stage,
    SteeringFailed,
    giving_card,
    side_policy,
    stage,
    taking_card,
)

RULE_SETS = tuple(PRESETS)
REGENERATE = "python -m tarneeb.testing.corpus fixtures"


# ---------------------------------------------------------------- the clean corpus

@dataclass(frozen=True)
class MatchSpec:
    """One clean log of the corpus: ``fixtures/matches/<rules>-<label>.tlog``.

    ``stages`` steer it with a :class:`Director`; ``timer_rate`` leaves moves to the
    turn timer; ``requires`` are paths the log must show. ``variant`` is the first
    seed variant (0, 1, 2 …) that does all that, found by ``--search`` and kept here
    so regeneration is quick. ``seeded=False`` writes a platform's log with recorded
    deals instead of committed seeds.
    """

    rules: str
    label: str
    about: str
    stages: tuple[Stage, ...] = ()
    timer_rate: float = 0.0
    requires: frozenset[str] = frozenset()
    variant: int = 0
    seeded: bool = True
    dealing: str = "seeds"  # or "blind" (PROTOCOL.md §13)
    base: str | None = None  # house rules: ``rules`` names them, ``base`` the preset ...
    target: int | None = None  # ... played to this target (a short blind match)

    @property
    def file(self) -> str:
        return f"{self.rules}-{self.label}.tlog"

    @property
    def steered(self) -> bool:
        return bool(self.stages) or self.timer_rate > 0

    @property
    def seed_text(self) -> str:
        """The ``--seed`` text; a variant other than 0 is appended as ``/v<n>``."""
        base = f"corpus-{self.rules}-{self.label}"
        return base if self.variant == 0 else f"{base}/v{self.variant}"

    def with_variant(self, variant: int) -> MatchSpec:
        return replace(self, variant=variant)


def _players(spec: MatchSpec, seed: bytes) -> tuple[list[BotPlayer], Director | None]:
    rng = random.Random(MatchSecrets(seed).rng_seed)
    director = Director(rule_set(spec.rules), spec.stages) if spec.stages else None
    return [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=spec.timer_rate,
                      override=director) for _ in range(4)], director


def make_match(spec: MatchSpec) -> bytes:
    """The signed log of ``spec``: the same call as ``tarneeb play --seed``, with steered
    players where the spec asks for them. Raises :class:`SteeringFailed` when the match
    misses what the spec requires."""
    seed = seed_bytes(spec.seed_text)
    players, director = _players(spec, seed) if spec.steered else (None, None)
    if spec.dealing == "blind":
        from tarneeb.replay.server.blind import play_blind_match

        base = rule_set(spec.rules if spec.base is None else spec.base)
        rules = base if spec.base is None else replace(
            base, name=spec.rules, target=base.target if spec.target is None else spec.target)
        data = play_blind_match(rules, seed=seed, players=players)
    else:
        data = play_logged_match(rule_set(spec.rules), seed=seed, players=players,
                                 seeded=spec.seeded)
    if director is not None or spec.requires:
        verdict = verify_bytes(data, count_paths=True)
        if director is not None:
            director.settle(verdict.history)
            if not director.done:
                raise SteeringFailed(f"{spec.file}: the match ended in stage {director.index}")
        missing = spec.requires - set(verdict.paths)
        if missing:
            raise SteeringFailed(f"{spec.file}: no {', '.join(sorted(missing))}")
    return data


def search_variant(spec: MatchSpec, tries: int = 50) -> MatchSpec:
    """The spec with the first variant from 0 whose match does what it should."""
    problem = ""
    for v in range(tries):
        candidate = spec.with_variant(v)
        try:
            make_match(candidate)
        except SteeringFailed as e:
            problem = str(e)
            continue
        return candidate
    raise SteeringFailed(f"{spec.file}: no variant in {tries} tries ({problem})")


def _personal(name: str) -> list[MatchSpec]:
    r = PRESETS[name]
    t = r.target
    close = (t - 3, t - 1)  # one made low bid from the target
    low = (1, 12)  # a partner above zero, far from the target
    out = [
        MatchSpec(name, "01", "default players, as `tarneeb play --seed corpus-"
                  f"{name}-01` plays it"),
        MatchSpec(name, "timer", "every player leaves one move in five to the turn timer",
                  timer_rate=0.2, requires=frozenset({"timer-bid", "timer-play"})),
        MatchSpec(name, "cancelled-in-a-row", "three hands in a row cancelled by low bids, "
                  "then a negative total",
                  (stage({"cancelled": 1, "cancelled-in-a-row": 2}),
                   stage({"negative-total": 1}, {s: (-30, 10) for s in range(4)}))),
        MatchSpec(name, "partner-blocks-win", "seat 0 on the target while its partner is at "
                  "exactly zero, then below zero: no win",
                  (stage({"partner-blocks-win:zero": 1}, {0: close, 2: (2, 4), 1: low, 3: low}),
                   stage({"partner-blocks-win": 2}, {0: (t, t + 20), 2: (-20, -1)}))),
        MatchSpec(name, "both-qualify-equal", f"both teams qualify in one hand with the tie "
                  f"rule ({r.tie_label}) equal, so another hand is dealt; then both qualify again "
                  "and the rule decides",
                  (stage({"both-qualify-equal": 1}, {0: close, 1: close, 2: low, 3: low}),
                   stage({"both-qualify-decided": 1}, {2: low, 3: low}))),
    ]
    out.append(MatchSpec(
        name, "big-bids", "bids of 11, 12 and 13 made and failed, and a bidder who takes no "
        "trick (one player takes the tricks, the others let it)",
        (stage(BIG_BIDS | {"no-trick": 1}, {s: (-300, 0) for s in range(4)},
               side_play=True),)))
    classes = sorted(p for p in all_paths(r) if p.startswith(("made:", "failed:"))
                     and "@" not in p)
    if len(classes) > 2:
        out.append(MatchSpec(
            name, "bid-values", "a made and a failed bid of every value class (one side lets "
            "the other take the tricks where a high bid needs them)",
            (stage(classes, {s: (-300, 0) for s in range(4)}, side_play=True),)))
    if r.min_bid_steps:
        steps = list(zip(r.min_bid_steps, r.min_total_steps, strict=True))
        stages = []
        for i, ((at, bid), (_, total)) in enumerate(steps):
            upto = steps[i + 1][0][0] - 1 if i + 1 < len(steps) else at + 20
            want = {f"min-bid:{bid}": 1, f"min-total:{total}": 1}
            if r.values_high_from is not None and i == 0:
                want |= {p: 1 for p in all_paths(r) if "@" in p}
            stages.append(stage(want, {0: (at, upto), 2: (-30, 0), 1: (-30, 25),
                                       3: (-30, 25)}))
        out.append(MatchSpec(
            name, "min-steps", "seat 0 climbs through every step of the lowest bid and the "
            "lowest total (its partner below zero, so no win), bidding at the values that "
            "change at 30", tuple(stages)))
    return out


BIG_BIDS = {f"bid-{b}-{m}": 1 for b in (11, 12, 13) for m in ("made", "failed")}


def _classic() -> list[MatchSpec]:
    name = "classic"
    keep = {0: (-40, 30), 1: (-40, 30)}
    return [
        MatchSpec(name, "big-contracts", "contracts of 11 and 12 made and failed, declarers "
                  "who take no trick, below 13 and on a 13 (the defenders take all 13)",
                  (stage({p: 1 for p in BIG_BIDS if "13" not in p}
                         | {"declarers-no-trick": 1, "kaboot-failed-no-trick": 1}, keep,
                         side_play=True),)),
        MatchSpec(name, "01", "default players, as `tarneeb play --seed corpus-classic-01` "
                  "plays it"),
        MatchSpec(name, "timer", "every player leaves one move in five to the turn timer, "
                  "naming the trump too", timer_rate=0.2,
                  requires=frozenset({"timer-bid", "timer-play", "timer-trump"})),
        MatchSpec(name, "cancelled-in-a-row", "all four pass in three hands in a row",
                  (stage({"cancelled": 1, "cancelled-in-a-row": 2}),)),
        MatchSpec(name, "kaboot-made", "a bid of 13 ends the auction at once and is made",
                  (stage({"kaboot-made": 1}, keep, side_play=True),)),
        MatchSpec(name, "kaboot-failed", "a bid of 13 that fails, and a failed contract "
                  "below 13 (negative totals)",
                  (stage({"kaboot-failed": 1, "classic-failed": 1, "negative-total": 1},
                         keep),)),
        MatchSpec(name, "all-13-without-13", "a team takes all 13 tricks on a bid below 13",
                  (stage({"all-13-without-13": 1, "classic-made": 1}, keep,
                         side_play=True),)),
    ]


def _variants() -> list[MatchSpec]:
    """Two of the shipped house-rule variants, through the paths their fields add."""
    keep = {0: (-40, 20), 1: (-40, 20)}
    return [
        MatchSpec("house400", "01", "default players, as `tarneeb play --rules house400 "
                  "--seed corpus-house400-01` plays it"),
        MatchSpec("house400", "timer", "every player leaves one move in five to the turn "
                  "timer, which raises the last bid to the table minimum", timer_rate=0.2,
                  requires=frozenset({"timer-bid", "timer-play", "timer-bid-reaches-minimum"})),
        MatchSpec("house400", "made-13", "one player bids 13 and takes every trick (the others "
                  "let it): a made 13 wins the match at once",
                  (stage({"made-13-wins": 1}, {s: (-30, 20) for s in range(4)},
                         side_play=True),)),
        *(MatchSpec("house400", f"tie-{step.replace('_', '-').replace('+', '')}",
                    f"both teams qualify after one hand and the tie chain's step {step} "
                    "decides", (stage({f"tie-decided:{step}": 1},
                                      {0: (38, 40), 1: (38, 40), 2: (1, 12), 3: (1, 12)}),))
          for step in rule_set("house400").tie),
        MatchSpec("house-classic31", "01", "default players, as `tarneeb play --rules "
                  "house-classic31 --seed corpus-house-classic31-01` plays it"),
        MatchSpec("house-classic31", "after-13", "the others pass in turn after a 13; the "
                  "defenders score twice their tricks on a failed 13, 13 for taking all 13 "
                  "tricks, 26 against a 13",
                  (stage({"auction-passes-after-13": 1, "kaboot-failed": 1,
                          "declarers-no-trick": 1, "kaboot-failed-no-trick": 1}, keep,
                         side_play=True),)),
    ]


MATCHES: list[MatchSpec] = [spec for name in RULE_SETS if name != "classic"
                            for spec in _personal(name)] + _classic() + [
    MatchSpec("eram41", "recorded-deals", "a platform without the seed protocol: every deal "
              "written out in the log, nothing committed", seeded=False),
    MatchSpec("qahwa5", "blind", "dealt blind (docs/PROTOCOL.md §13): each seat its own "
              "keys, every card played with its proof, the keys revealed after the match; "
              "house rules qahwa5, qahwa41 to 5 points: one hand", dealing="blind",
              base="qahwa41", target=5),
] + _variants()

# Variants found by `python -m tarneeb.testing.corpus fixtures --search`.
VARIANTS: dict[str, int] = {
    "sahrat400-partner-blocks-win.tlog": 1,
    "sahrat400-both-qualify-equal.tlog": 3,
    "house400-tie-team-total.tlog": 1,
    "house400-tie-team-02.tlog": 3,
    "qahwa5-blind.tlog": 4,  # one hand: each blind log is about 24 KB
}

MATCHES = [m.with_variant(VARIANTS.get(m.file, 0)) for m in MATCHES]


# ---------------------------------------------------------------- the altered corpus

@dataclass(frozen=True)
class AlteredSpec:
    """One altered log: ``tamper`` applied to the corpus log ``base`` (a ``.tlog`` name
    without the suffix), with the first ``choice`` from the one given whose alteration
    produces ``kind``; re-signed with the platform's key unless ``resign`` is false.
    ``label`` tells apart two altered logs of the same kind and base."""

    kind: str
    base: str
    tamper: str
    choice: int = 0
    hand: int | None = None
    resign: bool = True
    label: str = ""

    @property
    def file(self) -> str:
        label = f"-{self.label}" if self.label else ""
        return f"{self.kind}-{self.base.split('-')[0]}{label}.tlog"


ALTERED: list[AlteredSpec] = [
    AlteredSpec("broken-signature", "eram41-01", "flip-signature", resign=False),
    AlteredSpec("unsigned", "qahwa41-01", "drop-signature", resign=False),
    AlteredSpec("key-mismatch", "sahrat41-01", "other-key", resign=False),
    AlteredSpec("server-seed", "sahrat400-01", "corrupt-server-seed"),
    AlteredSpec("seed-not-revealed", "classic-01", "hide-server-seed"),
    AlteredSpec("batch-proof", "eram41-timer", "bad-batch-proof"),
    AlteredSpec("client-seed", "qahwa41-timer", "corrupt-client-seed"),
    AlteredSpec("wrong-first-dealer", "sahrat41-timer", "first-dealer"),
    AlteredSpec("wrong-deal-number", "sahrat400-timer", "change-deal-number"),
    AlteredSpec("wrong-dealer", "classic-timer", "change-dealer"),
    AlteredSpec("wrong-deal", "eram41-01", "record-wrong-deal"),
    AlteredSpec("bad-deal", "eram41-recorded-deals", "move-dealt-card"),
    AlteredSpec("wrong-revealed-card", "sahrat41-01", "change-revealed"),
    AlteredSpec("wrong-revealed-card", "eram41-timer", "change-revealed-and-trump"),
    AlteredSpec("wrong-trump", "qahwa41-01", "change-trump"),
    AlteredSpec("wrong-trump", "eram41-both-qualify-equal", "change-trump"),
    AlteredSpec("bid-out-of-turn", "sahrat400-01", "swap-calls"),
    AlteredSpec("bid-out-of-range", "eram41-cancelled-in-a-row", "bid-out-of-range"),
    AlteredSpec("bid-out-of-range", "classic-01", "bid-out-of-range"),
    AlteredSpec("bid-below-minimum", "sahrat400-min-steps", "bid-below-minimum"),
    AlteredSpec("bid-not-higher", "classic-01", "bid-not-higher"),
    AlteredSpec("pass-not-allowed", "qahwa41-01", "pass-for-bid"),
    AlteredSpec("bidding-incomplete", "sahrat41-01", "drop-last-call"),
    AlteredSpec("bidding-incomplete", "classic-kaboot-made", "drop-last-call"),
    AlteredSpec("bidding-overrun", "classic-01", "extra-call"),
    AlteredSpec("bidding-overrun", "eram41-01", "extra-call"),
    AlteredSpec("played-when-cancelled", "eram41-01", "lower-bids"),
    AlteredSpec("played-when-cancelled", "classic-cancelled-in-a-row", "play-cancelled"),
    AlteredSpec("cancelled-wrongly", "qahwa41-cancelled-in-a-row", "raise-cancelled-bids"),
    AlteredSpec("cancelled-wrongly", "classic-01", "drop-plays"),
    AlteredSpec("card-not-held", "sahrat41-01", "replace-played-card"),
    AlteredSpec("card-already-played", "qahwa41-01", "replace-played-card", choice=1),
    AlteredSpec("played-out-of-turn", "eram41-01", "swap-plays"),
    AlteredSpec("played-out-of-turn", "classic-01", "move-dealt-card"),
    AlteredSpec("wrong-trick-winner", "sahrat400-01", "lead-out-of-turn"),
    AlteredSpec("wrong-trick-winner", "classic-01", "change-trump"),
    AlteredSpec("renege", "eram41-01", "renege"),
    AlteredSpec("renege", "classic-01", "renege"),
    AlteredSpec("hand-incomplete", "qahwa41-01", "truncate-plays"),
    AlteredSpec("wrong-timer-move", "eram41-timer", "mark-timer"),
    AlteredSpec("wrong-timer-move", "classic-timer", "mark-timer"),
    AlteredSpec("wrong-trick-count", "sahrat41-01", "change-tricks"),
    AlteredSpec("wrong-hand-score", "sahrat400-bid-values", "change-bid"),
    AlteredSpec("wrong-hand-score", "classic-kaboot-failed", "change-score"),
    AlteredSpec("wrong-total", "eram41-partner-blocks-win", "change-total"),
    AlteredSpec("played-after-win", "qahwa41-both-qualify-equal", "append-hand"),
    AlteredSpec("wrong-winner", "sahrat41-both-qualify-equal", "change-winner"),
    AlteredSpec("winner-too-early", "sahrat400-01", "drop-last-hand"),
    AlteredSpec("no-winner", "classic-01", "change-winner", choice=1),
    AlteredSpec("no-winner", "sahrat41-01", "abandon-won-match"),
    AlteredSpec("timeout-out-of-turn", "eram41-01", "blame-timeout"),
    AlteredSpec("timeout-no-turn", "classic-01", "timeout-no-turn"),
    AlteredSpec("cut-short", "eram41-01", "cut-short", resign=False),
    AlteredSpec("cut-short", "classic-all-13-without-13", "drop-end"),
    AlteredSpec("not-replayed", "qahwa41-01", "strip-seeds"),
    AlteredSpec("not-replayed", "eram41-recorded-deals", "nil-deal"),
    AlteredSpec("weak-key", "sahrat41-01", "weak-key", resign=False),
    AlteredSpec("not-canonical", "sahrat400-cancelled-in-a-row", "cancelled-claims"),
    AlteredSpec("not-canonical", "classic-cancelled-in-a-row", "cancelled-claims"),
    AlteredSpec("not-canonical", "eram41-01", "reorder-rules"),
    AlteredSpec("wrong-rules", "sahrat400-01", "misname-rules"),
    AlteredSpec("wrong-rules", "classic-01", "misname-rules"),
    AlteredSpec("wrong-decryption", "qahwa5-blind", "wrong-partial-decryption"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "pass-duplicates-card"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "pass-substitutes-card",
                label="pass-substitutes-card"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "pass-wrong-exponent",
                label="pass-wrong-exponent"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "forged-shuffle-proof",
                label="forged-shuffle-proof"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "replayed-shuffle-proof",
                label="replayed-shuffle-proof"),
    AlteredSpec("wrong-decryption", "qahwa5-blind", "wrong-batched-decryption",
                label="wrong-batched-decryption"),
    AlteredSpec("wrong-decryption", "qahwa5-blind", "forged-batch-proof",
                label="forged-batch-proof"),
    AlteredSpec("card-not-dealt", "qahwa5-blind", "forged-play-proof"),
    AlteredSpec("wrong-key", "qahwa5-blind", "wrong-revealed-key"),
    AlteredSpec("blind-transcript", "qahwa5-blind", "drop-play-proof"),
]

# Finding kinds no single alteration of a tarneeb log can produce, and why.
NOT_PRODUCIBLE: dict[str, str] = {
    "receipt-mismatch": "it compares a log with a seat's pre-play receipt, a second file; "
                        "tests/test_protocol_v2.py plays it (a server that moves the match to "
                        "another season leaf, or re-makes the commitments)",
    "unproven-deal": "it is a finding only when the user asks for --require-proof (the log "
                     "alone is clean, its deals said to be recorded); "
                     "tests/test_require_proof.py plays it",
}


def make_altered(spec: AlteredSpec, clean: dict[str, bytes],
                 keys: dict[str, Ed25519PrivateKey]) -> tuple[bytes, Alteration]:
    """The altered log of ``spec`` and what changed; the first choice from ``spec.choice``
    whose alteration is expected to give ``spec.kind``."""
    base = clean[spec.base]
    key = keys[spec.base] if spec.resign else None
    for choice in range(spec.choice, spec.choice + 500):
        try:
            data, alt = REGISTRY[spec.tamper](base, choice=choice, hand=spec.hand, resign=key)
        except NotApplicable:
            continue
        if alt.expect == spec.kind:
            return data, alt
    raise NotApplicable(f"{spec.tamper} on {spec.base} never gives {spec.kind}")


def platform_key(spec: MatchSpec) -> Ed25519PrivateKey:
    """The platform's signing key of a corpus match (derived from its seed: not secret).

    >>> len(platform_key(MATCHES[0]).sign(b"x"))
    64
    """
    return MatchSecrets(seed_bytes(spec.seed_text)).key



__all__ = [
    "ALTERED", "BIG_BIDS", "MATCHES", "NOT_PRODUCIBLE", "REGENERATE", "RULE_SETS", "VARIANTS",
    "AlteredSpec", "Director", "MatchSpec", "Policy", "Stage", "SteeringFailed", "giving_card",
    "make_altered", "make_match", "platform_key", "search_variant", "side_policy", "stage",
    "taking_card",
]
