"""The fair-play analysis of an archive, summed up: per player, per seat label, per
partnership.

Each analysed match comes as a :class:`MatchPlay` (its path, the names and labels of
its seats, its analysed hands). :class:`PlaySummary` folds them into one
:class:`~tarneeb.audit.fairness.scores.ScoreTally` per group:

* ``player NAME``: the decisions of every seat that name held;
* ``own NAME``: that player's decisions taken before its partner played a card of the
  hand (:attr:`~.analyse.Decision.before_partner`: the opening leads analysed), which
  no partner's play can have informed: a player is *named* (accused) only when this
  figure is flagged (:func:`attribute`; docs/FAIRPLAY.md, "Whose figure");
* ``label computer`` / ``label human``: the decisions of every seat with that label;
* ``partnership A & B``: the decisions of both partners of a team, pooled (two
  partners who see each other's cards choose better than their information allows
  on both sides of the table);
* ``partner-cards A & B``: the same team's partner-dependent decisions only, each
  scored by what knowing the partner's hand made of the card played
  (:attr:`~.analyse.Decision.partner_excess`), standardised by its own sum of squares
  (a self-normalised sum: ``variance`` holds Σ d²).

:meth:`PlaySummary.results` tests every group with at least ``MIN_DECISIONS``
decisions as one family at ``alpha`` — Holm-corrected, or, for an archive audited again
and again with a state, each group's e-value against the family's bar (valid however
often it is looked at) — worst first, each with the
hands that weigh most (where the group's choices beat its information by most). A
``player`` group is *significant* when its own test is, and *flagged* (the player named)
only when its ``own`` group is flagged; a significant player beside a named partner is
named only as that partner.

**Merging.** A summary holds, per group key ``(kind, name)``, only sums: a
:class:`~tarneeb.audit.fairness.scores.ScoreTally` (decisions, Σ excess, Σ variance),
the number of hands, and the ``TOP_HANDS`` hands that weigh most. A summary of one log
(``PlaySummary()`` with one :meth:`PlaySummary.add`) is therefore a small per-log record,
and :meth:`PlaySummary.merge` adds two summaries exactly as if their matches had been
added to one (the tallies' floating sums to rounding; the weighing hands by the same
order). ``--play-sample``'s cap per player depends on the order hands arrive, so only
summaries without a cap merge. :meth:`PlaySummary.to_record` / :meth:`from_record` give
the summary as JSON-ready data, for a state store.
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tarneeb.audit.fairness.scores import ScoreTally, anytime_flags, holm_flags, mixture_log_e
from tarneeb.replay.fairplay.analyse import FIRST_TRICK, LAST_TRICK, OWN_SHARE, HandPlay
from tarneeb.replay.rules.scoring import partner_of
from tarneeb.replay.verify.people import name_looks

MIN_DECISIONS = 50  # a group with fewer is shown, not tested
TOP_HANDS = 3  # hands kept per group: those that weigh most

Group = tuple[str, str]  # (kind, name): ("player", "Ann"), ("label", "computer"), ...


@dataclass(slots=True)
class MatchPlay:
    """One match's analysed hands, with the names and labels of its seats."""

    path: str
    names: tuple[str, ...]
    computer: tuple[bool, ...]
    hands: list[HandPlay]

    def to_json(self) -> dict[str, Any]:
        """A compact form a state store can keep (:meth:`from_json` reads it back)."""
        return {"path": self.path, "names": list(self.names), "computer": list(self.computer),
                "hands": [h.to_json() for h in self.hands]}

    @classmethod
    def from_json(cls, data: Any) -> MatchPlay:
        """The record :meth:`to_json` wrote (raises ValueError on anything else)."""
        try:
            path, names, computer = data["path"], data["names"], data["computer"]
            if not (isinstance(path, str) and len(names) == 4 and len(computer) == 4
                    and all(isinstance(n, str) for n in names)
                    and all(isinstance(c, bool) for c in computer)):
                raise ValueError("a path, four names and four labels")
            hands = [HandPlay.from_json(h) for h in data["hands"]]
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a fair-play match record: {e}") from None
        return cls(path, tuple(names), tuple(computer), hands)


@dataclass(frozen=True, slots=True)
class WeighingHand:
    """A hand where a group's choices beat its information: ``excess`` best cards more than
    expected, over ``decisions`` of its decisions there."""

    excess: float
    path: str
    hand: int  # counted from 1, as show and report number hands
    decisions: int


@dataclass(slots=True)
class GroupResult:
    """The test of one group."""

    kind: str
    name: str
    decisions: int
    hands: int
    excess: float  # best cards chosen beyond the information's chance, per decision
    z: float
    p_value: float
    p_adjusted: float | None = None
    flagged: bool = False  # a finding: the group (for a player: its own figure) flagged
    weighing: list[WeighingHand] = field(default_factory=list)
    significant: bool = False  # its Holm-corrected test rejects (exit code 3)
    own: tuple[float, int] | None = None  # a player's own figure: (z, decisions)
    partner_of: str | None = None  # significant, not named: the named partner ("" none)
    log_e: float | None = None  # with a state: its e-value's log (mixture_log_e); else None

    @property
    def tested(self) -> bool:
        return self.p_adjusted is not None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "decisions": self.decisions,
                "hands": self.hands, "excess": self.excess, "z": self.z,
                "p_value": self.p_value, "p_adjusted": self.p_adjusted,
                "flagged": self.flagged, "significant": self.significant,
                "own": None if self.own is None else {"z": self.own[0],
                                                      "decisions": self.own[1]},
                "partner_of": self.partner_of, "log_e": self.log_e,
                "hands_that_weigh_most": [
                    {"path": w.path, "hand": w.hand, "excess": w.excess,
                     "decisions": w.decisions} for w in self.weighing]}

    def describe(self, shown: Callable[[str], str] = str) -> str:
        """One line: who, how much, how sure (``shown``: a name as the text shows it)."""
        who = {"player": "player", "own": "player, on its opening leads (before its "
                                          "partner played),",
               "label": "seats labelled", "partnership": "partnership",
               "partner-cards": "partnership, on decisions where the partner's cards "
                                "mattered,"}[self.kind]
        own = ("" if self.own is None or self.kind != "player" else
               f"; its own figure, before its partner played: z = {self.own[0]:.2f} over "
               f"{self.own[1]:,} decisions")
        return (f"{who} {shown(self.name)}: {100 * self.excess:+.1f} points of double-dummy "
                "best cards over its reference layouts (what it saw, with the real lengths and "
                "points; not what the bids say of which cards, nor what the other players' "
                "habits of play say of them), over "
                f"{self.decisions:,} decisions "
                f"in {self.hands:,} hands (z = {self.z:.2f}, p = {self.p_value:.2g}){own}"
                + (f"; {self.caveat(shown)}" if self.caveat() else ""))

    @property
    def own_untested(self) -> bool:
        """Whether too few of its decisions came before its partner played to test its own
        figure (a player could not be named on it)."""
        return self.own is None or self.own[1] < MIN_DECISIONS

    def caveat(self, shown: Callable[[str], str] = str) -> str:
        """Why a significant player is not named ("" for any other group)."""
        if self.kind != "player" or not self.significant or self.flagged:
            return ""
        own = ("too few decisions before its partner played to test"
               if self.own is None or self.own_untested else  # (None: for the type check)
               f"its own figure, before its partner played, is not (z {self.own[0]:.2f})")
        tail = (f"named only as the partner of {shown(self.partner_of)}, whose own figure is "
                f"flagged: a seat that sees the cards shows them to its partner through its "
                f"plays" if self.partner_of else
                "its partnership's play is in question; the test cannot tell which of the "
                "two, if either, saw cards it should not")
        return f"not accused: its figure is significant but {own}; {tail}"


@dataclass(slots=True)
class PlaySummary:
    """Every analysed match folded in; ``cap``: hands kept per player (``--play-sample``)."""

    cap: int | None = None
    matches: int = 0
    hands: int = 0
    decisions: int = 0
    tallies: dict[Group, ScoreTally] = field(default_factory=dict)
    hand_counts: dict[Group, int] = field(default_factory=dict)
    weighing: dict[Group, list[WeighingHand]] = field(default_factory=dict)
    # hands kept per seat name under the cap (nameless seats, which are no player's
    # group, share one count, as the analysis's own cap counts them)
    sampled: dict[str, int] = field(default_factory=dict)

    def add(self, match: MatchPlay) -> None:
        names, labels = match.names, match.computer
        analysed = False  # (a match counts when a hand of it is: "the matches analysed")
        for hp in match.hands:
            seats = [s for s in range(4) if self.cap is None
                     or self.sampled.get(names[s], 0) < self.cap]
            if not seats:
                continue
            self.hands += 1
            if not analysed:
                self.matches += 1
                analysed = True
            for who in {names[s] for s in seats}:
                self.sampled[who] = self.sampled.get(who, 0) + 1
            per_group: dict[Group, list[float]] = {}
            for d in hp.decisions:
                if d.seat not in seats:
                    continue
                self.decisions += 1
                scored = [(g, d.excess, d.variance) for g in _groups(d.seat, names, labels)]
                if d.before_partner and named(names[d.seat]):
                    scored.append((("own", names[d.seat]), d.excess, d.variance))
                if d.partner_dependent and _pair(d.seat, names):
                    e = d.partner_excess
                    scored.append((("partner-cards", _pair(d.seat, names)), e, e * e))
                for g, e, v in scored:
                    self.tallies.setdefault(g, ScoreTally()).add(e, v)
                    acc = per_group.setdefault(g, [0.0, 0])
                    acc[0] += e
                    acc[1] += 1
            for g in {g for s in seats for g in _groups(s, names, labels, True)} | {
                    g for g in per_group if g[0] == "own"}:
                self.hand_counts[g] = self.hand_counts.get(g, 0) + 1
            for g, (excess, n) in per_group.items():
                self._weigh(g, WeighingHand(excess, match.path, hp.deal_number + 1, int(n)))

    def _weigh(self, g: Group, w: WeighingHand) -> None:
        top = self.weighing.setdefault(g, [])
        top.append(w)
        top.sort(key=lambda h: (-h.excess, h.path, h.hand))
        del top[TOP_HANDS:]

    def merge(self, other: PlaySummary) -> None:
        """Add ``other``'s matches (see the module: summaries without a cap only)."""
        if self.cap is not None or other.cap is not None:
            raise ValueError("summaries with a --play-sample cap do not merge")
        self.matches += other.matches
        self.hands += other.hands
        self.decisions += other.decisions
        for g, t in other.tallies.items():
            self.tallies.setdefault(g, ScoreTally()).merge(t)
        for g, n in other.hand_counts.items():
            self.hand_counts[g] = self.hand_counts.get(g, 0) + n
        for g, ws in other.weighing.items():
            for w in ws:
                self._weigh(g, w)

    def to_record(self) -> dict[str, Any]:
        """The summary as JSON-ready data (:meth:`from_record` reads it back)."""
        return {"matches": self.matches, "hands": self.hands, "decisions": self.decisions,
                "groups": [[g[0], g[1], t.n, t.excess, t.variance,
                            self.hand_counts.get(g, 0),
                            [[w.excess, w.path, w.hand, w.decisions]
                             for w in self.weighing.get(g, [])]]
                           for g in sorted(self.tallies.keys() | self.hand_counts.keys())
                           for t in [self.tallies.get(g, ScoreTally())]]}

    @classmethod
    def from_record(cls, data: Any) -> PlaySummary:
        """The record :meth:`to_record` wrote (raises ValueError on anything else)."""
        out = cls()
        try:
            out.matches, out.hands, out.decisions = (
                _count(data["matches"]), _count(data["hands"]), _count(data["decisions"]))
            for kind, name, n, excess, variance, hands, weighing in data["groups"]:
                if kind not in KINDS or not isinstance(name, str):
                    raise ValueError(f"a group {kind!r} {name!r}")
                t = ScoreTally(_count(n), float(excess), float(variance))
                if not (math.isfinite(t.excess) and math.isfinite(t.variance)
                        and t.variance >= 0):
                    raise ValueError(f"sums out of range in group {kind} {name}")
                if t.n:
                    out.tallies[(kind, name)] = t
                out.hand_counts[(kind, name)] = _count(hands)
                out.weighing[(kind, name)] = [
                    WeighingHand(float(e), str(p), _count(h), _count(d))
                    for e, p, h, d in weighing][:TOP_HANDS]
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a fair-play summary record: {e}") from None
        return out

    def results(self, alpha: float, anytime: bool = False) -> list[GroupResult]:
        """Every group, tested when it has ``MIN_DECISIONS`` decisions, as one family at
        ``alpha``: Holm-corrected (a look at the archive as it is), or, ``anytime`` (an
        archive audited again and again with a state), each group's e-value against the
        family's threshold (:func:`~tarneeb.audit.fairness.scores.anytime_flags`: at most
        ``alpha`` that an honest archive is ever flagged, however often it is looked at);
        worst (highest z) first."""
        out = []
        for g, tally in self.tallies.items():
            sr = tally.result()
            out.append(GroupResult(g[0], g[1], sr.n, self.hand_counts.get(g, 0), sr.excess,
                                   sr.z, sr.p_value, weighing=list(self.weighing.get(g, []))))
        tested = [r for r in out if r.decisions >= MIN_DECISIONS]
        if anytime:  # (every group's e-value shown; the tested ones' held to the bar)
            for r in out:
                r.log_e = mixture_log_e(self.tallies[(r.kind, r.name)].excess,
                                        self.tallies[(r.kind, r.name)].variance)
            for r, (_, adj, flag) in zip(tested, anytime_flags(
                    [self.tallies[(r.kind, r.name)] for r in tested], alpha), strict=True):
                r.p_adjusted, r.significant, r.flagged = adj, flag, flag
        else:
            for r, (adj, flag) in zip(tested, holm_flags([r.p_value for r in tested], alpha),
                                      strict=True):
                r.p_adjusted, r.significant, r.flagged = adj, flag, flag
        attribute(out)
        out.sort(key=lambda r: (-r.z, r.kind, r.name))
        return out

    def to_json(self, results: Sequence[GroupResult]) -> dict[str, Any]:
        return {"matches": self.matches, "hands": self.hands, "decisions": self.decisions,
                "test": "anytime" if anytime(results) else "holm",
                "flagged": [f"{r.kind} {r.name}" for r in results if r.flagged],
                "groups": [r.to_json() for r in results]}


KINDS = ("player", "own", "label", "partnership", "partner-cards")


def _partners(results: Sequence[GroupResult]) -> dict[str, set[str]]:
    """Each player's partners, read from the partnership groups' names (:func:`_pair`)."""
    out: dict[str, set[str]] = {}
    for r in results:
        pair = _pair_names(r.name) if r.kind == "partnership" else None
        if pair is not None:
            a, b = pair
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)
    return out


def attribute(results: Sequence[GroupResult]) -> None:
    """Name players on their own figures. A player's ``flagged`` becomes its ``own`` group's
    (the decisions before its partner played: no partner's play can have informed them),
    whatever its whole figure says; a player significant on its whole figure but not on
    its own is not named, and is marked ``partner_of`` the partner who is named ("" when
    neither is: the partnership's play is in question). A seat that sees the cards shows
    them to its partner through its plays, and the honest partner's later choices follow
    them beyond what its reference layouts give (docs/FAIRPLAY.md, "Whose figure")."""
    own = {r.name: r for r in results if r.kind == "own"}
    partners = _partners(results)
    for r in results:
        if r.kind != "player":
            continue
        o = own.get(r.name)
        r.own = None if o is None else (o.z, o.decisions)
        r.flagged = o is not None and o.flagged
    for r in results:
        if r.kind == "player" and r.significant and not r.flagged:
            named = sorted(n for n in partners.get(r.name, ()) if n in own and own[n].flagged)
            r.partner_of = " & ".join(named)


def named(name: str) -> bool:
    """Whether a seat's name names a player: a seat the log gives no name (or only spaces)
    is nobody's, and nameless seats of many matches are not one player."""
    return bool(name.strip())


def _pair(seat: int, names: Sequence[str]) -> str:
    """The partnership's group name ("" when either seat has no name: no partnership): the
    two names, sorted, joined by " & ", a name that holds "&" or a double quote written as
    a JSON string, so that no two partnerships share a group ("A & B" with "C" is not "A"
    with "B & C").

    >>> _pair(0, ("Ann", "x", "Bo", "y")), _pair(0, ("A & B", "x", "C", "y"))
    ('Ann & Bo', '"A & B" & C')
    """
    a, b = names[seat], names[partner_of(seat)]
    if not (named(a) and named(b)):
        return ""
    return " & ".join(json.dumps(n, ensure_ascii=False) if "&" in n or '"' in n else n
                      for n in sorted((a, b)))


def _pair_names(pair: str) -> tuple[str, str] | None:
    """The two names of a partnership's group name (:func:`_pair`); None if it is none.

    >>> _pair_names('"A & B" & C'), _pair_names('A & "B & C"'), _pair_names("Ann & Bo")
    (('A & B', 'C'), ('A', 'B & C'), ('Ann', 'Bo'))
    """
    names: list[str] = []
    at = 0
    for i in range(2):
        if pair.startswith('"', at):
            try:
                name, at = json.JSONDecoder().raw_decode(pair, at)
            except ValueError:
                return None
        else:  # a plain name holds no "&"
            end = pair.find(" & ", at) if i == 0 else len(pair)
            if end < 0:
                return None
            name, at = pair[at:end], end
        names.append(name)
        if i == 0:
            if not pair.startswith(" & ", at):
                return None
            at += 3
    return (names[0], names[1]) if at == len(pair) else None


def _groups(seat: int, names: Sequence[str], labels: Sequence[bool],
            partner_cards: bool = False) -> list[Group]:
    """The groups a seat's decisions count in: its label's always; its player's and its
    partnership's when the log names the players."""
    pair = _pair(seat, names)
    out: list[Group] = [("label", "computer" if labels[seat] else "human")]
    if named(names[seat]):
        out.append(("player", names[seat]))
    if pair:
        out.append(("partnership", pair))
        if partner_cards:
            out.append(("partner-cards", pair))
    return out


def _count(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"not a count: {v!r}")
    return v


def flagged(results: Sequence[GroupResult]) -> list[GroupResult]:
    return [r for r in results if r.flagged]


def replay_hint(w: WeighingHand) -> str:
    """The command that replays a hand that weighs."""
    return shlex.join(["tarneeb", "show", w.path, "--hand", str(w.hand)])


def _written_out(name: str) -> str:
    """``name`` quoted, each character but printable ASCII written as its code point."""
    plain = "".join(c if c.isascii() and c.isprintable() else f"\\u{ord(c):04x}"
                    if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in name)
    return f"“{name}”" if plain == name else f"“{name}” ({plain})"


def distinct_names(results: Sequence[GroupResult]) -> Callable[[str], str]:
    """How the text shows a group's name: as it is, unless it looks like another
    group's name (``Bob`` and a Cyrillic ``Вob``, ``Omar`` and ``Omar`` with a zero-width
    space, ``Ann`` and ``Ann `` with a space): then quoted and written out, so that a
    sentence naming one cannot be read as naming the other."""
    def alike(names: set[str]) -> set[str]:
        seen: dict[str, set[str]] = {}
        for n in names:
            for k in name_looks(n) | {n.casefold()}:
                seen.setdefault(k, set()).add(n)
        return {n for group in seen.values() if len(group) > 1 for n in group}

    players = alike({r.name for r in results if r.kind in ("player", "own")})
    pairs = {r.name for r in results if r.kind in ("partnership", "partner-cards")}
    # a partnership is written out when it looks like another, or holds a player's name
    # that does (split where the names are: a name may hold " & ")
    out = players | alike(pairs) | {p for p in pairs if any(n in p for n in players)}
    return lambda name: _written_out(name) if name in out or not name.isprintable() else name


def play_lines(summary: PlaySummary, results: Sequence[GroupResult], alpha: float,
               ) -> list[str]:
    """The fair-play analysis in words: what was analysed, the verdict, each flagged group
    with its effect and the hands that weigh most, then every group worst first."""
    tested = [r for r in results if r.tested]
    untested = len(results) - len(tested)
    bad = flagged(results)
    unnamed = [r for r in results if r.caveat()]
    shown = distinct_names(results)
    lines = [f"fair play: {summary.decisions:,} decisions analysed in {summary.hands:,} "
             f"hand{'' if summary.hands == 1 else 's'} of {summary.matches:,} "
             f"match{'' if summary.matches == 1 else 'es'} (clean logs only, each match once); "
             f"{len(tested)} groups tested (players, seat labels, partnerships), "
             + (f"each group's e-value against the bar of {len(tested)} groups at {alpha:g}, "
                "valid however often the archive is looked at" if anytime(results) else
                f"Holm-corrected at {alpha:g}")
             + (f"; {untested} with fewer than {MIN_DECISIONS} decisions not tested"
                if untested else "")]
    quiet = quiet_verdict(results)
    if quiet is not None:
        lines.append(f"fair play: {quiet}")
    own = {x.name: x for x in results if x.kind == "own"}
    for r in bad:
        # a player is named on its own figure: the bar it passed is that figure's (its whole
        # figure's p was printed, 1 for a player that passed on its opening leads alone)
        basis = own.get(r.name, r) if r.kind == "player" else r
        lines.append(f"fair play: FLAGGED {r.describe(shown)}; "
                     + ("named on its own figure: " if basis is not r else "") + (
            f"e-value e^{basis.log_e:.1f}, p (anytime, {len(tested)} groups) = "
            if basis.log_e is not None else "p (Holm) = ") + f"{basis.p_adjusted:.2g}")
        for w in r.weighing:
            lines.append(f"  weighs most: {w.excess:+.1f} best cards over {w.decisions} "
                         f"decisions: {replay_hint(w)}")
    for r in unnamed:
        lines.append(f"fair play: player {shown(r.name)}: {r.caveat(shown)} (z = {r.z:.2f})")
    for r in results:
        mark = ("flagged" if r.flagged else "significant, not named" if r.significant
                else "tested" if r.tested else "too few to test")
        lines.append(f"  {r.kind} {shown(r.name)}: {r.decisions:,} decisions, excess "
                     f"{100 * r.excess:+.1f} points, z {r.z:+.2f}"
                     + ("" if r.log_e is None else f", e-value e^{r.log_e:.1f}") + f" ({mark})")
    return lines


def quiet_verdict(results: Sequence[GroupResult]) -> str | None:
    """The verdict of the fair-play analysis when no group is flagged nor significant (else
    None): that nothing was tested, or what was examined and by whom, no more.

    >>> quiet_verdict([])
    'NOT TESTED: no group has the 50 decisions a test needs; nothing is said of the play'
    """
    if not any(r.tested for r in results):
        # nothing was tested: no verdict either way
        return (f"NOT TESTED: no group has the {MIN_DECISIONS} decisions a test needs; "
                "nothing is said of the play")
    if flagged(results) or any(r.caveat() for r in results):
        return None
    # what was examined, and whom it could have named: no more is claimed
    unnameable = [r for r in results if r.kind == "player" and r.own_untested]
    return ("no evidence of play with cards not seen"
            f", in the play examined (tricks {FIRST_TRICK} to {LAST_TRICK}, and the "
            f"opening lead of {OWN_SHARE:.0%} of hands; not the bidding nor the "
            "first tricks) by the groups tested"
            + (f"; {len(unnameable)} of {sum(r.kind == 'player' for r in results)} "
               "players had too few decisions of their own, before their partner "
               "played, to be named had they cheated" if unnameable else ""))


def anytime(results: Sequence[GroupResult]) -> bool:
    """Whether ``results`` were tested to stay valid however often they are looked at (an
    audit with a state): each group carries its e-value."""
    return any(r.log_e is not None for r in results)


__all__ = ["KINDS", "MIN_DECISIONS", "GroupResult", "MatchPlay", "PlaySummary", "WeighingHand",
           "anytime", "attribute", "distinct_names", "flagged", "named", "play_lines",
           "quiet_verdict", "replay_hint"]
