"""Rule sets as data.

Each of the five rule sets of the specification is a frozen :class:`RuleSet`
preset; house options (the target, the table minimum, the 400 value table,
the partner rule, the tie rule …) are fields, so a platform with other house
rules describes them in a small TOML file instead of patching the engine.

>>> r = preset("qahwa41", target=61, min_total=12)
>>> r.target, r.min_total, r.bid_value(5, own_score=0)
(61, 12, 10)
>>> PRESETS["sahrat400"].bid_value(5, own_score=30)
5
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from tarneeb.replay.rules.cards import (
    HEARTS,
    SUIT_LETTERS,
    CardError,
    colour_mate,
    parse_suit,
    suit_of,
)

TrumpRule = Literal["revealed_mate", "revealed", "fixed", "named"]
BiddingRule = Literal["personal", "auction"]
ScoringRule = Literal["personal", "team"]
TieRule = Literal["team_total", "highest_player", "play_on"]
TimerBidRule = Literal["lowest", "reach_minimum"]

SCORING_CHOICES = ("personal", "team")
TRUMP_CHOICES = ("revealed_mate", "revealed", "fixed", "named")
REVEALING = ("revealed_mate", "revealed")  # the trump rules that show the dealer's 13th card
# fields a rules map leaves out at their default (added after logs were written without
# them): a rule set without the house rule keeps its bytes, in a log and on the wire
OPTIONAL_FIELDS: dict[str, Any] = {"dealer_rotates": True}
BIDDING_CHOICES = ("personal", "auction")
TIMER_BID_CHOICES = ("lowest", "reach_minimum")
# The tie rule is a chain: steps tried in order, then one fallback.
TIE_STEPS = ("team_total", "highest_player")  # the higher value of this wins, equal: next
TIE_FALLBACKS = ("play_on", "team_0+2", "team_1+3")  # another hand, or that team wins
TIE_CHOICES = ("team_total", "highest_player", "play_on")  # the single-rule shorthands

# Value of a bid b at index b-2 (bids 2..13).
LINEAR_VALUES = tuple(range(2, 14))
DOUBLED_VALUES = (2, 3, 4, 10, 12, 14, 16, 18, 20, 22, 24, 26)
VALUES_400 = (2, 3, 4, 10, 12, 14, 16, 27, 40, 40, 40, 40)
VALUES_400_FROM_30 = (2, 3, 4, 5, 6, 14, 16, 27, 40, 40, 40, 40)


class RulesError(ValueError):
    """A rule set or rules file that is not valid; the message says which field and why."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One rule set. Every field is a house option; the presets fix their values."""

    name: str
    # -- trump: "revealed_mate" (colour-mate of the dealer's 13th card, which is shown),
    #    "revealed" (the suit of that shown card itself), "fixed" (always ``fixed_trump``)
    #    or "named" (by the auction winner)
    trump: TrumpRule = "revealed_mate"
    fixed_trump: int = HEARTS
    # -- bidding
    bidding: BiddingRule = "personal"
    min_bid: int = 2  # personal bids: lowest bid (before escalation)
    max_bid: int = 13
    auction_min: int = 7  # auction: lowest bid
    # personal bids: (own score at least, lowest bid) steps, e.g. 400's ((30, 3), (40, 4), (50, 5))
    min_bid_steps: tuple[tuple[int, int], ...] = ()
    # cancelled hand: the four bids must total at least this ...
    min_total: int = 11
    # ... raised by (highest score at the table at least, minimum total) steps
    min_total_steps: tuple[tuple[int, int], ...] = ()
    # -- scoring
    scoring: ScoringRule = "personal"
    values: tuple[int, ...] = LINEAR_VALUES  # value of bids 2..13 (personal scoring)
    # from this own score on, ``values_high`` replaces ``values`` (400: 5 and 6 worth 5 and 6)
    values_high_from: int | None = None
    values_high: tuple[int, ...] | None = None
    # team scoring (classic), the declarers: all 13 tricks without bidding 13, a made 13,
    # the loss on a failed 13
    all_tricks_value: int = 16
    kaboot_made_value: int = 26
    kaboot_failed_value: int = 16
    # ... the defenders: all 13 tricks against a contract below 13; on a failed 13,
    # ``kaboot_defenders_factor`` x their tricks, or this when they took all 13
    defenders_all_tricks_value: int = 16
    kaboot_defenders_factor: int = 1
    kaboot_defenders_all_tricks_value: int = 16
    # classic auction: a bid of 13 ends it at once (false: the others still pass in turn)
    auction_ends_on_13: bool = True
    # -- the turn timer's bid (personal bids): the lowest allowed, or for the last bidder
    #    what brings the total up to the table minimum ("reach_minimum")
    timer_bid: TimerBidRule = "lowest"
    # -- winning
    target: int = 41
    partner_min: int = 1  # the partner's score must be at least this (1: "above zero")
    # both teams qualify after the same hand: a chain of steps and a final fallback,
    # e.g. ("highest_player", "team_total", "team_0+2"); a single rule is a shorthand
    # ("team_total" is ("team_total", "play_on"))
    tie: tuple[str, ...] = ("team_total", "play_on")
    made_13_wins: bool = False  # a made bid of 13 wins the match outright
    # -- the deal passes one seat to the right after every hand (false: the first dealer
    #    deals every hand, so the same seat bids first and leads); left out of a rules map
    #    when true (OPTIONAL_FIELDS)
    dealer_rotates: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "tie", tie_chain(self.tie))
        _validate(self)

    @property
    def tie_label(self) -> str:
        """The tie chain as written in a rules file: the shorthand where there is one.

        >>> PRESETS["sahrat41"].tie_label
        'highest_player'
        >>> preset("sahrat400", tie=["highest_player", "team_total", "team_0+2"]).tie_label
        'highest_player>team_total>team_0+2'
        """
        short = tie_shorthand(self.tie)
        return short if short is not None else ">".join(self.tie)

    # ---- derived rules -------------------------------------------------
    def trump_for_deal(self, thirteenth: int | None) -> int | None:
        """The trump that follows from the deal, or ``None`` when the auction winner names it
        (or the rules reveal a card and none is given)."""
        if self.trump == "revealed_mate":
            return None if thirteenth is None else colour_mate(suit_of(thirteenth))
        if self.trump == "revealed":
            return None if thirteenth is None else suit_of(thirteenth)
        if self.trump == "fixed":
            return self.fixed_trump
        return None

    @property
    def reveals_card(self) -> bool:
        return self.trump in REVEALING

    def lowest_bid(self, own_score: int) -> int:
        """The lowest personal bid allowed to a player with ``own_score``."""
        low = self.min_bid
        for at_least, bid in self.min_bid_steps:
            if own_score >= at_least:
                low = max(low, bid)
        return low

    def lowest_total(self, highest_score: int) -> int:
        """The lowest total of the four bids when the highest score at the table is given."""
        low = self.min_total
        for at_least, total in self.min_total_steps:
            if highest_score >= at_least:
                low = max(low, total)
        return low

    def bid_value(self, bid: int, own_score: int) -> int:
        """What a personal bid is worth (made: +value, failed: -value)."""
        table = self.values
        if self.values_high is not None and self.values_high_from is not None \
                and own_score >= self.values_high_from:
            table = self.values_high
        return table[bid - 2]

    def with_options(self, **options: Any) -> RuleSet:
        """A copy with some fields changed, validated; values as a rules file gives them
        (lists for the tables, ``values_high = []`` for no second table).

        >>> PRESETS["sahrat400"].with_options(min_total_steps=[[30, 12]]).min_total_steps
        ((30, 12),)
        """
        unknown = set(options) - {f.name for f in fields(self)}
        if unknown:
            raise RulesError(f"unknown rule option(s): {', '.join(sorted(map(repr, unknown)))}")
        name = options.get("name")
        if isinstance(name, str):
            from tarneeb.audit.encoding import unsafe_character

            bad = unsafe_character(name)
            if bad is not None:  # (a log refuses such a name; a terminal would act on it)
                raise RulesError(f"option name: holds the character {bad}, which would "
                                 "change how the text after it is shown")
        if options.get("values_high") == []:  # no second table
            options = {**options, "values_high": None, "values_high_from": None}
        return replace(self, **_field_values(options, options.get("name", self.name)))

    def to_dict(self, every: bool = False) -> dict[str, Any]:
        """Every field, as plain data (lists for tuples): what a log records. A field of
        ``OPTIONAL_FIELDS`` at its default is left out (``every``: kept, for a rules file)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if not every and f.name in OPTIONAL_FIELDS and v is OPTIONAL_FIELDS[f.name]:
                continue
            if f.name == "tie":
                short = tie_shorthand(v)
                v = short if short is not None else list(v)
            elif isinstance(v, tuple):
                v = [list(x) if isinstance(x, tuple) else x for x in v]
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """The inverse of :meth:`to_dict`; every field must be present or have a default."""
        if not isinstance(data, dict):
            raise RulesError("rules must be a table of fields")
        known = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(known)
        if unknown:
            raise RulesError(f"unknown rule field(s): {', '.join(sorted(map(str, unknown)))}")
        if "name" not in data:
            raise RulesError("rules have no name")
        return cls(**_fields_of(data))  # (a log's rules: the errors both verifiers give)


def _field_values(data: Mapping[str, Any], name: Any) -> dict[str, Any]:
    """Fields as a rules file or a log gives them (lists) as a RuleSet holds them (tuples),
    a table that is not one refused (the error names the rule set ``name``)."""
    try:
        return _fields_of(data)
    except RulesError as e:
        raise RulesError(f"rule set {name!r}: {e}") from None


def _fields_of(data: Mapping[str, Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for k, v in data.items():
        if k in ("min_bid_steps", "min_total_steps"):
            if not isinstance(v, list | tuple) or not all(
                    isinstance(p, list | tuple) and len(p) == 2 for p in v):
                raise RulesError(f"{k} must be a list of [score, value] pairs")
            v = tuple(tuple(p) for p in v)
        elif k == "values" and v is None:  # (no table of bid values: nothing scores)
            raise RulesError("values must be a list of 12 numbers (bids 2 to 13)")
        elif k in ("values", "values_high") and v is not None:
            if not isinstance(v, list | tuple):
                raise RulesError(f"{k} must be a list of 12 numbers (bids 2 to 13)"
                                 + (f" {_NO_SECOND_TABLE}" if k == "values_high" else ""))
            v = tuple(v)
        elif k == "tie" and isinstance(v, list):
            v = tuple(v)
        kwargs[k] = v
    return kwargs


def tie_chain(tie: Any) -> Any:
    """The full chain of a tie rule: a shorthand gets its fallback (anything else is left
    for validation to refuse).

    >>> tie_chain("highest_player"), tie_chain("play_on")
    (('highest_player', 'play_on'), ('play_on',))
    """
    if isinstance(tie, str) and tie in TIE_FALLBACKS:
        return (tie,)
    if isinstance(tie, str) and tie in TIE_STEPS:
        return (tie, "play_on")
    if isinstance(tie, list):
        return tuple(tie)
    return tie


def tie_shorthand(chain: tuple[str, ...]) -> str | None:
    """The single-rule shorthand of a chain, or ``None`` when it takes a list."""
    if chain == ("play_on",):
        return "play_on"
    if len(chain) == 2 and chain[1] == "play_on":
        return chain[0]
    return None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# how each form spells "no second value table" (values_high and values_high_from none)
_NO_SECOND_TABLE = ("(or be none, for no second table: nil in a log, null in its JSON form, "
                    "values_high = [] in a rules file)")


def _validate(r: RuleSet) -> None:
    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise RulesError(f"rule set {r.name!r}: {msg}")

    need(isinstance(r.name, str) and 0 < len(r.name) <= 64, "name must be 1-64 characters")
    need(r.trump in TRUMP_CHOICES, f"trump must be one of {', '.join(TRUMP_CHOICES)}")
    need(r.bidding in BIDDING_CHOICES, f"bidding must be one of {', '.join(BIDDING_CHOICES)}")
    need(r.scoring in SCORING_CHOICES, f"scoring must be one of {', '.join(SCORING_CHOICES)}")
    _validate_tie(r.tie, need)
    need(r.timer_bid in TIMER_BID_CHOICES,
         f"timer_bid must be one of {', '.join(TIMER_BID_CHOICES)}")
    values = ("all_tricks_value", "kaboot_made_value", "kaboot_failed_value",
              "defenders_all_tricks_value", "kaboot_defenders_all_tricks_value")
    for k in ("fixed_trump", "min_bid", "max_bid", "auction_min", "min_total", "target",
              "partner_min", "kaboot_defenders_factor", *values):
        need(_is_int(getattr(r, k)), f"{k} must be a whole number")
    for k in values:
        need(0 <= getattr(r, k) <= 1000, f"{k} must be 0-1000")
    need(1 <= r.kaboot_defenders_factor <= 10,
         "kaboot_defenders_factor must be 1-10 (1: the defenders' tricks, 2: twice them)")
    need(0 <= r.fixed_trump <= 3, f"fixed_trump must be a suit 0-3 ({SUIT_LETTERS})")
    for k in ("made_13_wins", "auction_ends_on_13", "dealer_rotates"):
        need(isinstance(getattr(r, k), bool), f"{k} must be true or false")
    # bid values are listed for bids 2-13: a lower min_bid would read the list from its end
    need(2 <= r.min_bid <= r.max_bid == 13, "bids must run from min_bid (2 or more) up to 13")
    need(1 <= r.auction_min <= 13, "auction_min must be 1-13")
    need(0 <= r.min_total <= 52, "min_total must be 0-52")
    need(1 <= r.target <= 10_000, "target must be 1-10000")
    need(-10_000 <= r.partner_min <= 10_000, "partner_min is out of range")
    for k in ("min_bid_steps", "min_total_steps"):
        for pair in getattr(r, k):
            need(isinstance(pair, tuple) and len(pair) == 2 and all(map(_is_int, pair)),
                 f"{k} must hold [score, value] pairs of whole numbers")
    for _, bid in r.min_bid_steps:
        need(r.min_bid <= bid <= 13, f"min_bid_steps: a lowest bid of {bid} is not 2-13")
    for k in ("values", "values_high"):
        v = getattr(r, k)
        if v is None:
            continue
        need(isinstance(v, tuple) and len(v) == 12 and all(map(_is_int, v)),
             f"{k} must list 12 whole numbers, the values of bids 2 to 13"
             + (f" {_NO_SECOND_TABLE}" if k == "values_high" else ""))
        need(all(0 <= x <= 1000 for x in v), f"{k}: values must be 0-1000")
    need((r.values_high is None) == (r.values_high_from is None),
         "values_high and values_high_from go together")
    need(r.values_high_from is None or _is_int(r.values_high_from),
         "values_high_from must be a whole number")
    if r.bidding == "auction":
        need(r.trump == "named" and r.scoring == "team",
             "an auction goes with a named trump and team scoring")
        need(r.timer_bid == "lowest", "timer_bid reach_minimum needs personal bids (in an "
             "auction the timer passes)")
    else:
        need(r.trump != "named" and r.scoring == "personal",
             "personal bids go with a dealt trump and personal scoring")


def _validate_tie(tie: Any, need: Callable[[bool, str], None]) -> None:
    every = (*TIE_STEPS, *TIE_FALLBACKS)
    need(isinstance(tie, tuple) and len(tie) >= 1 and all(isinstance(x, str) for x in tie),
         f"tie must be one of {', '.join(every)}, or a list of them ending in a fallback")
    *steps, last = tie
    need(last in TIE_FALLBACKS, "tie: the last entry must be a fallback "
         f"({', '.join(TIE_FALLBACKS)}), not {last!r}")
    for step in steps:
        need(step in TIE_STEPS, f"tie: {step!r} is not a step of the chain (steps: "
             f"{', '.join(TIE_STEPS)}; a fallback ends the list)")
    need(len(set(steps)) == len(steps), "tie: a step appears twice")


ERAM41 = RuleSet(name="eram41", trump="revealed_mate", values=LINEAR_VALUES,
                 tie=("team_total", "play_on"))
QAHWA41 = RuleSet(name="qahwa41", trump="fixed", fixed_trump=HEARTS, values=DOUBLED_VALUES,
                  tie=("team_total", "play_on"))
SAHRAT41 = RuleSet(name="sahrat41", trump="revealed_mate", values=LINEAR_VALUES,
                   tie=("highest_player", "play_on"))
SAHRAT400 = RuleSet(
    name="sahrat400", trump="fixed", fixed_trump=HEARTS,
    min_bid_steps=((30, 3), (40, 4), (50, 5)),
    min_total_steps=((30, 12), (40, 13), (50, 14)),
    values=VALUES_400, values_high_from=30, values_high=VALUES_400_FROM_30,
    tie=("highest_player", "play_on"),
)
CLASSIC = RuleSet(name="classic", trump="named", bidding="auction", scoring="team",
                  min_total=0)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (ERAM41, QAHWA41, SAHRAT41, SAHRAT400, CLASSIC)}

# The house options each platform's page offers; anything else needs a rules file.
PAGE_OPTIONS: dict[str, dict[str, tuple[int, ...]]] = {
    "eram41": {},
    "qahwa41": {"target": (31, 41, 61), "min_total": (11, 12, 13)},
    "sahrat41": {},
    "sahrat400": {},
    "classic": {"target": (31, 41, 61)},
}


def preset_departures(rules: RuleSet) -> list[str]:
    """The fields in which ``rules`` that bear a preset's name differ from that preset,
    other than the house options its platform's page offers (with a value it offers).
    Rules named as no preset have none: their name says they are a platform's own.

    >>> preset_departures(preset("qahwa41", target=61)), preset_departures(
    ...     preset("qahwa41", target=62, partner_min=0))
    ([], ['target', 'partner_min'])
    """
    base = PRESETS.get(rules.name)
    if base is None or base == rules:
        return []
    offered = PAGE_OPTIONS[rules.name]
    return [f.name for f in fields(RuleSet)
            if getattr(rules, f.name) != getattr(base, f.name)
            and getattr(rules, f.name) not in offered.get(f.name, ())]


def check_preset_name(rules: RuleSet) -> RuleSet:
    """``rules``, unless they bear a preset's name and differ from it where its platform
    offers no option: a log that says ``eram41`` is always a game ERAM CARDS offers.

    >>> check_preset_name(preset("eram41", target=61))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tarneeb.replay.rules.ruleset.RulesError: rules named eram41 differ from eram41 in target, ...
    """
    departures = preset_departures(rules)
    if departures:
        raise RulesError(f"rules named {rules.name} differ from {rules.name} in "
                         f"{', '.join(departures)}, which its platform does not offer; give "
                         "house rules a name of their own")
    return rules


def preset(name: str, **options: Any) -> RuleSet:
    """A preset by name, with house options applied.

    >>> preset("classic", target=31).target
    31
    """
    try:
        base = PRESETS[name]
    except KeyError:
        raise RulesError(
            f"unknown rule set {name!r} (known: {', '.join(PRESETS)})") from None
    return base.with_options(**options) if options else base


def house_preset(name: str, options: Mapping[str, Any] | None = None) -> RuleSet:
    """A preset with the house options its platform's page offers, refusing any other
    (``options``: a mapping of option to value; ``None``, none).

    >>> house_preset("qahwa41", {"target": 61}).target
    61
    >>> house_preset("qahwa41", {"target": 62})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tarneeb.replay.rules.ruleset.RulesError: qahwa41 offers target 31, 41 or 61, not 62; ...
    """
    if options is None:
        options = {}
    elif not isinstance(options, Mapping):
        raise TypeError(f"house_preset: options are a mapping of option to value "
                        f"(e.g. {{'target': 61}}), not {type(options).__name__}")
    base = preset(name)
    offered = PAGE_OPTIONS[name]
    for key, value in options.items():
        if key not in offered:
            choices = ", ".join(offered) or "no house options"
            raise RulesError(f"{name} offers {choices}, not {key}; describe other house rules "
                             "in a rules file")
        if value not in offered[key]:
            allowed = ", ".join(map(str, offered[key][:-1])) + f" or {offered[key][-1]}"
            raise RulesError(f"{name} offers {key} {allowed}, not {value}; describe other "
                             "house rules in a rules file")
    return base.with_options(**options) if options else base


def parse_option(text: str) -> tuple[str, Any]:
    """``target=61`` → ``("target", 61)``; values are TOML values (numbers, true, lists)."""
    if "=" not in text:
        raise RulesError(f"option {text!r} is not KEY=VALUE")
    # only for options and rules files: a replay does not load it
    from tarneeb.audit.tomltext import NotToml, read_toml_value

    key, _, raw = text.partition("=")
    key = key.strip()
    if not key:
        raise RulesError(f"option {text!r} has no KEY before its '='")
    try:
        is_toml, value = read_toml_value(raw.strip(), f"option {key}")
    except NotToml as e:
        raise RulesError(str(e)) from None
    if not is_toml:
        value = raw.strip()
    if key == "fixed_trump" and isinstance(value, str):
        try:
            value = parse_suit(value)
        except CardError as e:  # (a suit's name not one: said as any option's error)
            raise RulesError(f"option {key}: {e}") from None
    return key, value


def load_rules_file(path: str | Path) -> RuleSet:
    """Read a TOML rules file: ``base = "sahrat400"`` plus the fields that differ.

    Example (another platform's 400 values)::

        name = "club400"
        base = "sahrat400"
        values = [2, 3, 4, 10, 12, 14, 16, 27, 30, 33, 36, 40]
        partner_min = 0
    """
    from tarneeb.audit.encoding import read_small_file

    p = Path(path)
    try:  # a regular file of at most 1 MiB (SMALL_FILE_BYTES): no FIFO, no 3 GB read
        data = read_small_file(p)
        # as text mode reads it: universal newlines
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except OSError as e:
        raise RulesError(f"{p}: cannot read rules file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{p}: rules file is not UTF-8 text") from None
    return parse_rules_text(text, str(p))[0]


def parse_rules_text(text: str, where: str = "<rules>") -> tuple[RuleSet, str, str]:
    """A rules file's text: the rule set, its base preset's name and its ``about`` line.

    TOML has no null: ``values_high = []`` says there is no second value table.

    >>> r, base, about = parse_rules_text('name = "x"\\nbase = "sahrat400"\\nvalues_high = []')
    >>> base, r.values_high, r.values_high_from
    ('sahrat400', None, None)
    """
    # only for rules files: a replay does not load it
    from tarneeb.audit.tomltext import NotToml, read_toml

    try:
        data = read_toml(text, where, "a rules file holds lines field = value (docs/RULES.md)")
    except NotToml as e:
        raise RulesError(str(e)) from None
    base_name = data.pop("base", None)
    if base_name is None:
        raise RulesError(f"{where}: a rules file needs base = one of {', '.join(PRESETS)}")
    about = data.pop("about", "")
    if not isinstance(about, str):
        raise RulesError(f"{where}: about must be text")
    from tarneeb.audit.encoding import unsafe_character

    for field, text_of in (("name", data.get("name")), ("about", about)):
        bad = unsafe_character(text_of) if isinstance(text_of, str) else None
        if bad is not None:  # (a log refuses such a name; a terminal would act on it)
            raise RulesError(f"{where}: {field} holds the character {bad}, which would "
                             "change how the text after it is shown")
    if "fixed_trump" in data and isinstance(data["fixed_trump"], str):
        try:
            data["fixed_trump"] = parse_suit(data["fixed_trump"])
        except ValueError as e:
            raise RulesError(f"{where}: fixed_trump: {e}") from None
    if data.get("values_high") == []:
        if "values_high_from" in data:
            raise RulesError(f"{where}: values_high = [] (no second table) takes no "
                             "values_high_from")
        data["values_high"] = data["values_high_from"] = None
    try:
        base = preset(str(base_name))
        merged = base.to_dict()
        merged.update(data)
        merged.setdefault("name", f"{base.name}-custom")
        _field_values(merged, merged["name"])  # (its shapes' errors name the rule set)
        return check_preset_name(RuleSet.from_dict(merged)), base.name, about
    except (RulesError, TypeError) as e:
        raise RulesError(f"{where}: {e}") from None


__all__ = [
    "CLASSIC", "ERAM41", "OPTIONAL_FIELDS", "PRESETS", "QAHWA41", "SAHRAT41", "SAHRAT400",
    "RuleSet", "RulesError", "check_preset_name", "house_preset", "load_rules_file", "parse_option",
    "parse_rules_text", "preset", "preset_departures",
]
