"""The game as data: cards, actions, rule sets and house rules, scoring, the engine.

One state machine (:class:`~tarneeb.replay.rules.engine.MatchState`) serves the computer
players, the simulator and the replayer alike, and judges a whole hand at once through
:mod:`~tarneeb.replay.rules.fastplay`; a rule set is a frozen dataclass (:class:`RuleSet`),
presets and rules files are values of it.

May import: :mod:`tarneeb.audit` only (nothing else of :mod:`tarneeb.replay`).
The rule sets' names are importable from here:

>>> from tarneeb.replay.rules import preset
>>> preset("sahrat400").target
41
"""

from __future__ import annotations

from tarneeb.replay.rules.ruleset import (
    CLASSIC,
    ERAM41,
    PRESETS,
    QAHWA41,
    SAHRAT41,
    SAHRAT400,
    RulesError,
    RuleSet,
    check_preset_name,
    house_preset,
    load_rules_file,
    parse_option,
    parse_rules_text,
    preset,
    preset_departures,
)

__all__ = ["CLASSIC", "ERAM41", "PRESETS", "QAHWA41", "SAHRAT41", "SAHRAT400", "RuleSet",
    "RulesError", "check_preset_name", "house_preset", "load_rules_file", "parse_option",
    "parse_rules_text", "preset", "preset_departures"]
