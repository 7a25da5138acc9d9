"""What a player needs to check a match without trusting the report: the seeds, the
match id as ``tarneeb deal -m`` takes it (hex, as every command prints it), and the
commands that re-derive a hand, from the log or from the seeds alone.

>>> from tarneeb.replay.log import parse_log
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = parse_log(play_logged_match("eram41", seed=b"check it doc"))
>>> c = check_it(log, "m.tlog")
>>> c.log_command
'tarneeb deal m.tlog --hand 1'
>>> c.seeds_command.startswith("tarneeb deal -s ") and f"-m {c.match_id}" in c.seeds_command
True
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from tarneeb.replay.log import ParsedLog
from tarneeb.replay.rules.ruleset import PRESETS


@dataclass(frozen=True)
class CheckIt:
    """The seeds and commands of a log's "check it yourself" section (hex strings)."""

    match_id: str  # hex: what tarneeb deal -m takes
    match_id_text: str | None  # the id as text, when it is printable text
    server_commitment: str | None
    server_seed: str | None  # None while not revealed
    client_seeds: list[str]  # seat 0 first
    season: tuple[int, int, str] | None  # leaf index, size, root
    rules: str
    log_command: str  # tarneeb deal LOG --hand 1
    seeds_command: str | None  # the same hand from the seeds alone (None without them)


def check_it(log: ParsedLog, path: str, hand: int = 1, dealer: int | None = None) -> CheckIt:
    """The "check it yourself" facts of ``log`` (read from ``path``), with the commands
    that re-derive hand ``hand`` (from 1): the ``hand``-th dealing attempt, deal number
    ``hand - 1``, dealt by ``dealer`` (the rules' dealer, as the replay found it; the
    record's own when not given)."""
    h = log.header
    end = log.end
    seed = end.server_seed.hex() if end is not None and end.server_seed is not None else None
    clients = [c.hex() for c in h.client_seeds] if h.client_seeds is not None else []
    try:
        text = h.match_id.decode("utf-8")
        text_or_none: str | None = text if text.isprintable() else None
    except UnicodeDecodeError:
        text_or_none = None
    season = None if h.batch is None else (h.batch.index, h.batch.size, h.batch.root.hex())
    seeds_command = None
    if seed is not None and len(clients) == 4 and hand <= len(log.hands):
        rec = log.hands[hand - 1]
        parts = ["tarneeb", "deal", "-s", seed, *(x for c in clients for x in ("-c", c)),
                 "-m", h.match_id.hex(), "-d", str(hand - 1), "--dealer",
                 str(rec.dealer if dealer is None else dealer)]
        if h.rules.name in PRESETS:  # house rules change the trump, never the hands
            parts += ["--rules", h.rules.name]
        if season is not None:
            parts += ["--root", season[2], "--index", str(season[0]), "--size", str(season[1])]
        seeds_command = shlex.join(parts)
    return CheckIt(
        match_id=h.match_id.hex(), match_id_text=text_or_none,
        server_commitment=None if h.server_commitment is None else h.server_commitment.hex(),
        server_seed=seed, client_seeds=clients, season=season, rules=h.rules.name,
        log_command=shlex.join(["tarneeb", "deal", path, "--hand", str(hand)]),
        seeds_command=seeds_command)


__all__ = ["CheckIt", "check_it"]
