"""Other platforms' house rules: the shipped rules files, and how a rule set differs.

The package ships a rules file for each house-rule variant in common use
(``tarneeb/replay/rules/rulefiles/*.toml``, each field with a comment quoting the rule it
encodes). :func:`rule_set` finds a preset or a shipped variant by name;
:func:`nearest_preset` and :func:`explain` say, in words, where a rule set departs
from the preset it is closest to; :func:`to_toml` writes any rule set in full as a
rules file, ready to edit.

>>> r = rule_set("house400")
>>> nearest_preset(r).name
'sahrat400'
>>> explain(r)[0]
'values a 10 at 30, an 11 at 33, a 12 at 36 (sahrat400: 40, 40, 40)'
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from tarneeb.replay.rules.cards import SUIT_SYMBOLS
from tarneeb.replay.rules.ruleset import PRESETS, RulesError, RuleSet, parse_rules_text

# One line on every field: the comments of `tarneeb rules NAME` and docs/RULES.md.
FIELD_DOCS: dict[str, str] = {
    "name": "the rule set's name, recorded in every log",
    "trump": "revealed_mate (the colour-mate of the dealer's 13th card, shown), revealed "
             "(the suit of that shown card itself), fixed (always fixed_trump) or named (by "
             "the auction winner)",
    "fixed_trump": "the trump suit when trump is fixed: 0 clubs, 1 diamonds, 2 hearts, "
                   "3 spades (or \"H\")",
    "bidding": "personal (one bid each, no pass) or auction (classic: pass or bid higher)",
    "min_bid": "personal bids: the lowest bid, before it rises with the player's score",
    "max_bid": "the highest bid (13)",
    "auction_min": "auction: the lowest bid",
    "min_bid_steps": "personal bids: [own score at least, lowest bid] steps",
    "min_total": "personal bids: a hand is cancelled when the four bids total less",
    "min_total_steps": "[highest score at the table at least, lowest total] steps",
    "scoring": "personal (each player alone) or team (classic)",
    "values": "personal scoring: the value of a bid of 2, 3 ... 13 (made: +, failed: -)",
    "values_high_from": "from this own score on, values_high replaces values",
    "values_high": "the value table from values_high_from on; [] for none (which a log "
                   "records as nil, null in its JSON form)",
    "all_tricks_value": "team scoring: the declarers take all 13 tricks without bidding 13",
    "kaboot_made_value": "team scoring: the declarers make a bid of 13",
    "kaboot_failed_value": "team scoring: what the declarers lose on a failed 13",
    "defenders_all_tricks_value": "team scoring: the defenders take all 13 tricks against "
                                  "a contract below 13",
    "kaboot_defenders_factor": "team scoring: on a failed 13 the defenders score this "
                               "times their tricks",
    "kaboot_defenders_all_tricks_value": "team scoring: the defenders take all 13 tricks "
                                         "against a bid of 13",
    "auction_ends_on_13": "auction: a bid of 13 ends it at once (false: the others still "
                          "pass in turn)",
    "timer_bid": "the turn timer's personal bid: lowest (the lowest allowed) or "
                 "reach_minimum (the last bidder's brings the total up to the table minimum)",
    "target": "the score to reach",
    "partner_min": "personal scoring: a player on the target wins only with the partner "
                   "at this or more (1: above zero)",
    "tie": "both teams qualify after one hand: steps (highest_player, team_total) tried in "
           "order, then a fallback (play_on, team_0+2, team_1+3)",
    "made_13_wins": "a made bid of 13 wins the match outright",
    "dealer_rotates": "the deal passes one seat to the right after every hand (false: the "
                      "first dealer deals every hand, so the same seat bids first and leads)",
}

# One line on each preset, for listings.
PRESET_ABOUT: dict[str, str] = {
    "eram41": "ERAM CARDS Syrian 41: the revealed card's colour-mate is trump, bids worth "
              "their number, ties by team total",
    "qahwa41": "Qahwa Syrian 41: hearts always trump, bids of 5 and up worth double, ties by "
               "team total",
    "sahrat41": "Sahrat Syrian 41: the revealed card's colour-mate is trump, bids worth their "
                "number, ties by the higher player",
    "sahrat400": "Sahrat (and Qahwa) 400: hearts always trump, minimums rise with the scores, "
                 "a 10 or more worth 40",
    "classic": "Sahrat classic: an auction of 7-13, the winner names the trump, team scores",
}

_RULEFILES = "rulefiles"


@functools.cache
def _shipped() -> dict[str, tuple[RuleSet, str, str, str]]:
    """name -> (rule set, base preset, about, the file's text)."""
    from importlib import resources  # only for a rule set not among the presets

    out = {}
    folder = resources.files("tarneeb.replay.rules") / _RULEFILES
    for entry in sorted(folder.iterdir(), key=lambda e: e.name.removesuffix(".toml")):
        if not entry.name.endswith(".toml"):
            continue
        text = entry.read_text(encoding="utf-8")
        rules, base, about = parse_rules_text(text, entry.name)
        out[rules.name] = (rules, base, about, text)
    return out


def shipped() -> dict[str, RuleSet]:
    """The shipped house-rule variants by name.

    >>> sorted(shipped())[:2]
    ['house-classic31', 'house400']
    """
    return {name: v[0] for name, v in _shipped().items()}


def check_shipped_name(rules: RuleSet) -> RuleSet:
    """``rules``, unless they bear a shipped variant's name and are not it: what tarneeb
    writes under ``house400`` is the ``house400`` it ships (a platform's own rules take a
    name of their own; a verdict notes any other log's departures from it).

    >>> check_shipped_name(shipped()["house400"].with_options(target=5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tarneeb.replay.rules.ruleset.RulesError: rules named house400 differ from the house400 ...
    """
    variant = shipped().get(rules.name)
    if variant is not None and rules != variant:
        mine, theirs = rules.to_dict(every=True), variant.to_dict(every=True)
        changed = ", ".join(k for k in theirs if mine.get(k) != theirs[k])
        raise RulesError(f"rules named {rules.name} differ from the {rules.name} shipped with "
                         f"tarneeb in {changed}; give house rules a name of their own "
                         "(--option name=..., or name = in a rules file)")
    return rules


def shipped_about(name: str) -> str:
    """One line on a shipped variant (its file's ``about``)."""
    return _shipped()[name][2]


def shipped_text(name: str) -> str:
    """A shipped variant's rules file as it is written, comments included."""
    return _shipped()[name][3]


def rule_set(name: str) -> RuleSet:
    """A preset or a shipped variant by name.

    >>> rule_set("house-classic31").target
    31
    """
    if name in PRESETS:
        return PRESETS[name]
    found = _shipped().get(name)
    if found is None:
        raise RulesError(f"unknown rule set {name!r} (presets: {', '.join(PRESETS)}; "
                         f"shipped: {', '.join(_shipped())})")
    return found[0]


def field_differences(a: RuleSet, b: RuleSet) -> dict[str, tuple[Any, Any]]:
    """The fields (other than the name) where ``a`` and ``b`` disagree: field -> (a's, b's),
    as plain data."""
    da, db = a.to_dict(every=True), b.to_dict(every=True)
    return {k: (da[k], db[k]) for k in da if k != "name" and da[k] != db[k]}


def nearest_preset(rules: RuleSet) -> RuleSet:
    """The preset with the fewest fields different from ``rules`` (the first in
    ``PRESETS`` order on a tie); a preset's own name wins outright."""
    if rules.name in PRESETS:
        return PRESETS[rules.name]
    return min(PRESETS.values(), key=lambda p: distance(rules, p))


def distance(a: RuleSet, b: RuleSet) -> int:
    """How far apart two rule sets are: one for each differing field, but each differing
    entry of a list (a value table counts bid by bid; no second table counts as the first).

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> distance(preset("sahrat400", target=61), preset("sahrat400"))
    1
    """
    n = 0
    for field, (x, y) in field_differences(a, b).items():
        if field == "values_high":
            x = x if x is not None else list(a.values)
            y = y if y is not None else list(b.values)
        if isinstance(x, list) and isinstance(y, list):
            n += sum(1 for i, j in itertools.zip_longest(x, y) if i != j)
        else:
            n += 1
    return n


def _article(n: int) -> str:
    return "an" if n in (8, 11) or str(n).startswith("8") else "a"


def _tie_words(chain: tuple[str, ...]) -> str:
    words = {"highest_player": "the higher player", "team_total": "the higher team total",
             "play_on": "another hand", "team_0+2": "team 0+2 wins", "team_1+3": "team 1+3 wins"}
    return ", then ".join(words[s] for s in chain)


def _values_words(mine: tuple[int, ...], theirs: tuple[int, ...], base: str) -> str:
    bids = [b for b in range(2, 14) if mine[b - 2] != theirs[b - 2]]
    said = ", ".join(f"{_article(b)} {b} at {mine[b - 2]}" for b in bids)
    return f"values {said} ({base}: {', '.join(str(theirs[b - 2]) for b in bids)})"


def explain(rules: RuleSet, base: RuleSet | None = None) -> list[str]:
    """Where ``rules`` departs from ``base`` (default: the nearest preset), in words.

    >>> explain(rule_set("house-classic31"))  # doctest: +NORMALIZE_WHITESPACE
    ['defenders taking all 13 tricks score 13 (classic: 16)',
     'the defenders score 2 x their tricks on a failed 13 (classic: 1 x)',
     'defenders taking all 13 tricks against a 13 score 26 (classic: 16)',
     'the auction goes on after a 13, the others passing in turn (classic: it ends at once)',
     'plays to 31 (classic: 41)']
    """
    base = base or nearest_preset(rules)
    b = base.name
    out: list[str] = []
    for field, (mine, theirs) in field_differences(rules, base).items():
        if field == "values":
            out.append(_values_words(rules.values, base.values, b))
        elif field in ("values_high", "values_high_from"):
            said = _second_table_words(rules, base)
            if said and said not in out:
                out.append(said)
        elif field in _PHRASES:
            out.append(_PHRASES[field](rules, base).replace("{b}", b))
        else:
            out.append(f"{field} = {_show(mine)} ({b}: {_show(theirs)})")
    return out


def _changes(high: tuple[int, ...], low: tuple[int, ...]) -> str:
    return ", ".join(f"{_article(n)} {n} at {high[n - 2]}" for n in range(2, 14)
                     if high[n - 2] != low[n - 2])


def _second_table_words(rules: RuleSet, base: RuleSet) -> str:
    """The second value table (from an own score on), compared with the base's."""
    b = base.name
    if rules.values_high is None:
        return (f"values do not change with the player's own score ({b}: from "
                f"{base.values_high_from} on, "
                f"{_changes(base.values_high or base.values, base.values)})")
    if base.values_high is None:
        return (f"from an own score of {rules.values_high_from} on, "
                f"{_changes(rules.values_high, rules.values)} ({b}: no change)")
    out = []
    if rules.values_high_from != base.values_high_from:
        out.append(f"the second value table applies from an own score of "
                   f"{rules.values_high_from} ({b}: {base.values_high_from})")
    # a change that only repeats the one made to ``values`` says nothing new
    mirrored = all(rules.values_high[i] == rules.values[i]
                   and base.values_high[i] == base.values[i]
                   for i in range(12) if rules.values_high[i] != base.values_high[i])
    if not mirrored:
        out.append(f"from an own score of {rules.values_high_from} on, "
                   + _values_words(rules.values_high, base.values_high, b))
    return "; ".join(out)


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _trump_words(r: RuleSet) -> str:
    return {"revealed_mate": "the colour-mate of the dealer's shown 13th card",
            "revealed": "the suit of the dealer's shown 13th card itself",
            "named": "named by the auction winner"}.get(
                r.trump, f"always {SUIT_SYMBOLS[r.fixed_trump]}")


def _trump_phrase(r: RuleSet, p: RuleSet) -> str:
    if "revealed" not in (r.trump, p.trump):  # as before this rule: the field and its values
        return f"trump = {r.trump} ({{b}}: {p.trump})"
    return f"the trump is {_trump_words(r)} ({{b}}: {_trump_words(p)})"


_PHRASES: dict[str, Callable[[RuleSet, RuleSet], str]] = {
    "trump": _trump_phrase,
    "dealer_rotates": lambda r, p: (
        "the first dealer deals every hand, so the same seat bids first and leads ({b}: the "
        "deal passes to the right after every hand)" if not r.dealer_rotates else
        "the deal passes to the right after every hand ({b}: the first dealer deals every "
        "hand)"),
    "target": lambda r, p: f"plays to {r.target} ({{b}}: {p.target})",
    "made_13_wins": lambda r, p: "a made 13 wins the match outright ({b}: it does not)"
    if r.made_13_wins else "a made 13 does not win the match outright ({b}: it does)",
    "tie": lambda r, p: (f"breaks a tie of two qualifying teams by {_tie_words(r.tie)} "
                         f"({{b}}: {_tie_words(p.tie)})"),
    "timer_bid": lambda r, p: (
        "the timer raises the last bid to reach the table minimum ({b}: the lowest bid)"
        if r.timer_bid == "reach_minimum" else
        "the timer bids the lowest allowed ({b}: it raises the last bid to the minimum)"),
    "partner_min": lambda r, p: (f"a partner needs {r.partner_min} or more for the win "
                                 f"({{b}}: {p.partner_min})"),
    "min_total": lambda r, p: (f"the four bids must total at least {r.min_total} "
                               f"({{b}}: {p.min_total})"),
    "kaboot_defenders_factor": lambda r, p: (
        f"the defenders score {r.kaboot_defenders_factor} x their tricks on a failed 13 "
        f"({{b}}: {p.kaboot_defenders_factor} x)"),
    "defenders_all_tricks_value": lambda r, p: (
        f"defenders taking all 13 tricks score {r.defenders_all_tricks_value} "
        f"({{b}}: {p.defenders_all_tricks_value})"),
    "kaboot_defenders_all_tricks_value": lambda r, p: (
        f"defenders taking all 13 tricks against a 13 score "
        f"{r.kaboot_defenders_all_tricks_value} ({{b}}: {p.kaboot_defenders_all_tricks_value})"),
    "auction_ends_on_13": lambda r, p: (
        "the auction goes on after a 13, the others passing in turn ({b}: it ends at once)"
        if not r.auction_ends_on_13 else
        "a 13 ends the auction at once ({b}: the others still pass in turn)"),
    "all_tricks_value": lambda r, p: (
        f"declarers taking all 13 tricks without bidding 13 score {r.all_tricks_value} "
        f"({{b}}: {p.all_tricks_value})"),
    "kaboot_made_value": lambda r, p: (f"a made 13 scores {r.kaboot_made_value} "
                                       f"({{b}}: {p.kaboot_made_value})"),
    "kaboot_failed_value": lambda r, p: (f"a failed 13 loses {r.kaboot_failed_value} "
                                         f"({{b}}: {p.kaboot_failed_value})"),
}


def to_toml(rules: RuleSet) -> str:
    """``rules`` in full as a rules file (every field, each with a comment), ready to edit:
    :func:`~tarneeb.replay.rules.ruleset.parse_rules_text` reads it back to the same rule set.

    >>> from tarneeb.replay.rules.ruleset import parse_rules_text
    >>> parse_rules_text(to_toml(rule_set("house400-double56")))[0] == rule_set("house400-double56")
    True
    """
    import tomlkit  # only this needs it

    base = nearest_preset(rules)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"rule set {rules.name}, every field; edit and use with "
                            "tarneeb play --rules-file"))
    doc["name"] = rules.name
    doc["base"] = base.name
    about = _shipped()[rules.name][2] if rules.name in _shipped() else ""
    if about:
        doc["about"] = about
    data = rules.to_dict(every=True)
    for f in fields(rules):
        if f.name == "name":
            continue
        doc.add(tomlkit.nl())
        doc.add(tomlkit.comment(FIELD_DOCS[f.name]))
        value = data[f.name]
        if f.name == "values_high_from" and value is None:
            doc.add(tomlkit.comment("values_high_from: none (values_high = [])"))
            continue
        doc[f.name] = [] if value is None else value
    return tomlkit.dumps(doc)


def resolve(name_or_path: str) -> RuleSet:
    """A preset, a shipped variant, or (a name ending in ``.toml``) a rules file: one that
    takes a preset's or a shipped variant's name and is not it is refused, as ``tarneeb
    play`` refuses it (else it was printed under the shipped variant's words)."""
    if name_or_path.endswith(".toml"):
        from tarneeb.replay.rules.ruleset import check_preset_name, load_rules_file
        return check_shipped_name(check_preset_name(load_rules_file(name_or_path)))
    return rule_set(name_or_path)


__all__ = ["FIELD_DOCS", "PRESET_ABOUT", "distance", "explain", "field_differences",
           "nearest_preset", "resolve", "rule_set", "shipped", "shipped_about", "shipped_text",
           "to_toml"]
