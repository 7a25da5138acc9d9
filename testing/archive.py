"""Archives of generated matches for testing the archive audit: fair, or with a known bias.

Each match mixes human and computer seats (both labels, at random). A *fair*
archive deals uniformly; ``redeal`` > 0 writes the archive of a platform that
cheats for its computer players: with that probability a deal is dealt twice and
the one giving the computer seats more high-card points is kept (about one point
more per computer hand at ``redeal=0.8``). Such a platform cannot use committed
seeds, so a biased archive is written with recorded deals, as is a fair one with
``recorded=True``.

Everything is reproducible from ``seed`` (NOT secret: tests, demos and benches only).

>>> import tempfile
>>> paths = write_archive(tempfile.mkdtemp(), 2, seed=b"doc")
>>> len(paths), paths[0].name
(2, 'm00000-eram41.tlog')
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.archive.battery.measures import hcp
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.players import BotPlayer, play_match
from tarneeb.replay.rules.ruleset import PRESETS, RuleSet
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match, write_log

NAMES = ("North", "East", "South", "West")


def labels_for(rng: random.Random) -> tuple[bool, ...]:
    """Computer (True) or human per seat, with at least one of each."""
    while True:
        labels = tuple(rng.random() < 0.5 for _ in range(4))
        if any(labels) and not all(labels):
            return labels


def platform_key(seed: bytes, k: int = 0) -> Ed25519PrivateKey:
    """Signing key ``k`` of the platform of an archive (reproducible: NOT secret)."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed + b"/key/%d" % k).digest())


def biased_match(rules: RuleSet, seed: bytes, computer: Sequence[bool], redeal: float,
                 key: Ed25519PrivateKey | None = None) -> bytes:
    """A match whose deals favour the computer seats (recorded deals, signed)."""
    secrets_ = MatchSecrets(seed)
    if key is not None:
        secrets_.key = key
    rng = random.Random(secrets_.rng_seed)
    deal_rng = random.Random(rng.getrandbits(64))

    def deal(_: int, dealer: int) -> tuple[tuple[int, int, int, int], int]:
        deck = list(range(52))
        deal_rng.shuffle(deck)
        hands = deal_hands(deck, dealer)
        if deal_rng.random() < redeal:
            other = list(range(52))
            deal_rng.shuffle(other)
            again = deal_hands(other, dealer)
            if _computer_points(again, computer) > _computer_points(hands, computer):
                return again, other[51]
        return hands, deck[51]

    players = [BotPlayer(random.Random(rng.getrandbits(64))) for _ in range(4)]
    state, flags = play_match(rules, rng.randrange(4), deal, players)
    names = [f"{n} {'bot' if c else 'player'}" for n, c in zip(NAMES, computer, strict=True)]
    return write_log(rules, state, flags, secrets_, names, computer, seeded=False)


def _computer_points(hands: Sequence[int], computer: Sequence[bool]) -> int:
    return sum(hcp(h) for h, c in zip(hands, computer, strict=True) if c)


def archive_log(i: int, seed: bytes = b"archive", redeal: float = 0.0, recorded: bool = False,
                rules: Sequence[str] = tuple(PRESETS), keys: int = 1) -> tuple[str, bytes]:
    """Match ``i`` of an archive: its file name and its log, signed with the platform's
    key ``i % keys``."""
    name = rules[i % len(rules)]
    match_seed = seed + b"/%d" % i
    computer = labels_for(random.Random(match_seed))
    key = platform_key(seed, i % keys)
    if redeal > 0:
        data = biased_match(PRESETS[name], match_seed, computer, redeal, key)
    else:
        names = [f"{n} {'bot' if c else 'player'}" for n, c in zip(NAMES, computer, strict=True)]
        data = play_logged_match(name, seed=match_seed, names=names, computer=computer,
                                 seeded=not recorded, key=key)
    return f"m{i:05d}-{name}.tlog", data


def write_archive(directory: str | Path, matches: int, *, seed: bytes = b"archive",
                  redeal: float = 0.0, recorded: bool = False,
                  rules: Sequence[str] = tuple(PRESETS), keys: int = 1) -> list[Path]:
    """Write ``matches`` logs into ``directory`` (rule sets in turn); returns their paths."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(matches):
        name, data = archive_log(i, seed, redeal, recorded, rules, keys)
        p = out / name
        p.write_bytes(data)
        paths.append(p)
    return paths


__all__ = ["archive_log", "biased_match", "labels_for", "platform_key", "write_archive"]
