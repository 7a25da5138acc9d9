"""The matches the verification benchmarks time: ``n`` matches of every preset, made
from fixed seeds (reproducible, so two runs time the same logs), and where they are written.

>>> len(generate(1)) == len(PRESETS_ORDER)
True
"""

from __future__ import annotations

from pathlib import Path

from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.server.simulate import play_logged_match

PRESETS_ORDER = list(PRESETS)


def generate(matches_per_rules: int) -> list[bytes]:
    """``matches_per_rules`` signed logs of each preset, the presets in turn."""
    return [play_logged_match(name, seed=f"bench/{name}/{i}".encode())
            for i in range(matches_per_rules) for name in PRESETS]


def write(logs: list[bytes], folder: Path) -> list[Path]:
    """The logs written to ``folder``, each named by its preset and its place."""
    paths = []
    for k, log in enumerate(logs):
        name = PRESETS_ORDER[k % len(PRESETS_ORDER)]
        paths.append(folder / f"{name}-{k // len(PRESETS_ORDER):03d}.tlog")
        paths[-1].write_bytes(log)
    return paths
