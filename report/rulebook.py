"""The rule each kind of finding breaks, in one sentence a player reads, quoted from the
rules (docs/RULES.md) and the protocol (docs/PROTOCOL.md) for the match's rule set.

>>> from tarneeb.replay.rules.ruleset import preset
>>> rule_for("renege", preset("eram41")).text
'Follow the led suit if you hold it; if void, any card (no duty to trump).'
>>> rule_for("played-when-cancelled", preset("classic")).text
'All four pass: the hand does not count, and the next dealer deals.'
"""

from __future__ import annotations

from dataclasses import dataclass

from tarneeb.replay.rules.cards import SUIT_SYMBOLS
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.verify.findings import KINDS


@dataclass(frozen=True)
class Rule:
    """A rule as the report quotes it: the sentence and where it comes from."""

    text: str
    source: str  # "the rules" or "the fair-deal protocol"


RULES, PROTOCOL = "the rules", "the fair-deal protocol"

# kinds whose rule is the same in every rule set
_FIXED: dict[str, Rule] = {
    "broken-signature": Rule("The log carries the platform's signature over every byte before "
                             "it, so it cannot be changed afterwards without the signature "
                             "failing.", PROTOCOL),
    "unsigned": Rule("Every log ends with the platform's signature over everything before it.",
                     PROTOCOL),
    "key-mismatch": Rule("The signature must check under the key the platform publishes.",
                         PROTOCOL),
    "weak-key": Rule("The signing key must be a proper Ed25519 public key, encoded in its one "
                     "canonical form.", PROTOCOL),
    "not-canonical": Rule("Every record of a log has exactly one byte form.", PROTOCOL),
    "wrong-rules": Rule("A log that names a preset (eram41, qahwa41, sahrat41, sahrat400, "
                        "classic) plays that game, with only the house options its platform "
                        "offers; other house rules go under a name of their own.", RULES),
    "blind-transcript": Rule("In blind dealing every deal's transcript, every card's proof "
                             "and every revealed key is in the log, in its one form.", PROTOCOL),
    "wrong-decryption": Rule("In blind dealing each seat removes its own layer from the cards "
                             "it does not receive, and proves it did.", PROTOCOL),
    "wrong-shuffle": Rule("In blind dealing each seat re-encrypts and reorders the whole deck "
                          "it is given: the same 52 cards, none replaced, dropped or "
                          "duplicated.", PROTOCOL),
    "card-not-dealt": Rule("In blind dealing a seat plays, or shows, only a card dealt to it, "
                           "and proves it when it plays it.", PROTOCOL),
    "wrong-key": Rule("In blind dealing the keys a seat reveals after the match are the keys "
                      "it dealt with.", PROTOCOL),
    "server-seed": Rule("The server publishes a commitment to its seed before play and reveals "
                        "the seed after; the seed must match the commitment.", PROTOCOL),
    "seed-not-revealed": Rule("When the match is over the server reveals its seed.", PROTOCOL),
    "batch-proof": Rule("A match of a season is proven to be the named leaf of the season head "
                        "(size and root) the platform signed and published before the season "
                        "began.", PROTOCOL),
    "receipt-mismatch": Rule("The log must be the match the platform promised in the receipt it "
                             "signed when play started: the same match id, rules, seats, "
                             "server commitment or season leaf, and players' commitments.",
                             PROTOCOL),
    "client-seed": Rule("Each player's seed must match the commitment that player made before "
                        "anyone revealed a seed.", PROTOCOL),
    "wrong-first-dealer": Rule("The first dealer is drawn from the same verifiable seeds as the "
                               "deals, so it is provable too.", RULES),
    "wrong-deal-number": Rule("Every dealing attempt has a deal number, cancelled ones "
                              "included, counted from the first.", RULES),
    "wrong-dealer": Rule("After every hand, scored or cancelled, the deal passes to the player "
                         "on the dealer's right.", RULES),
    "wrong-deal": Rule("Every deal follows from the committed server seed and the four "
                       "players' seeds, by the public algorithm.", PROTOCOL),
    "unproven-deal": Rule("Every deal is proven from the log itself: derived from the "
                          "committed seeds, or dealt blind with every shuffle pass proven.",
                          PROTOCOL),
    "not-replayed": Rule("Every deal follows from the committed server seed and the four "
                         "players' seeds, by the public algorithm.", PROTOCOL),
    "bad-deal": Rule("52 cards, no jokers; cards go one at a time starting with the dealer's "
                     "right, the dealer receiving last, 13 each.", RULES),
    "wrong-revealed-card": Rule("Only the dealer's 13th card, the last card the dealer "
                                "receives, can be revealed.", RULES),
    "card-not-held": Rule("Each player plays one card of their own hand to every trick.", RULES),
    "card-already-played": Rule("Each player plays one card of their own hand to every trick.",
                                RULES),
    "played-out-of-turn": Rule("Play goes to the right, and the winner of a trick leads the "
                               "next.", RULES),
    "wrong-trick-winner": Rule("A trick goes to the highest trump in it, else the highest card "
                               "of the led suit. The winner leads the next trick.", RULES),
    "wrong-trick-count": Rule("A trick goes to the highest trump in it, else the highest card "
                              "of the led suit.", RULES),
    "renege": Rule("Follow the led suit if you hold it; if void, any card (no duty to trump).",
                   RULES),
    "hand-incomplete": Rule("13 tricks a hand.", RULES),
    "wrong-timer-move": Rule("When the turn timer runs out, the system makes the lowest bid "
                             "allowed (classic: a pass), or plays the weakest legal card: the "
                             "lowest-ranked legal card that is not a trump, or the lowest trump "
                             "where every legal card is a trump.", RULES),
    "timeout-out-of-turn": Rule("A player can time out only on their own turn: a timeout "
                                "blames the player to bid, name the trump or play where the "
                                "log stops.", RULES),
    "timeout-no-turn": Rule("A player can time out only on their own turn: between two hands, "
                            "after a hand's last card or once the match is won, no player is "
                            "to move.", RULES),
    "wrong-total": Rule("Each player's running total adds every hand's score; scores may go "
                        "below zero.", RULES),
    "cut-short": Rule("A log runs from the first deal to the declared winner, then the revealed "
                      "server seed and the platform's signature.", PROTOCOL),
}


def _trump(r: RuleSet) -> str:
    if r.trump == "revealed_mate":
        return ("The trump is the revealed card's colour-mate: ♣→♠, ♠→♣, ♦→♥, ♥→♦; the "
                "revealed card stays in the dealer's hand.")
    if r.trump == "revealed":
        return ("The trump is the suit of the revealed card itself; the revealed card stays "
                "in the dealer's hand.")
    if r.trump == "fixed":
        return f"{SUIT_SYMBOLS[r.fixed_trump]} is always trump; nothing is revealed."
    return "The highest bidder names the trump suit and leads the first trick."


def _bidding(r: RuleSet) -> str:
    if r.bidding == "auction":
        return (f"The auction starts on the dealer's right and goes round to the right. Each "
                f"call is a pass or a bid of {r.auction_min}–13 higher than the highest bid so "
                "far. A pass is final for that hand.")
    return (f"One personal bid each, dealer's right first, dealer last, {r.min_bid}–{r.max_bid}, "
            "no pass, no raising.")


def _cancelled(r: RuleSet) -> str:
    if r.bidding == "auction":
        return "All four pass: the hand does not count, and the next dealer deals."
    steps = "".join(f"; {total} once a player at the table has {score} or more"
                    for score, total in r.min_total_steps)
    return (f"The four bids must total at least {r.min_total}{steps}; otherwise the hand does "
            "not count, and the next dealer deals.")


def _minimum(r: RuleSet) -> str:
    steps = "; ".join(f"{score} and up → {bid}" for score, bid in r.min_bid_steps)
    return (f"A player's lowest bid rises with their own score before the hand: below "
            f"{r.min_bid_steps[0][0] if r.min_bid_steps else '—'} → {r.min_bid}; {steps}.")


def _score(r: RuleSet) -> str:
    if r.scoring == "team":
        return ("The bidder's team adds the tricks it took when it makes its bid (16 for all "
                "13, 26 for a made 13) and loses its bid when it fails; then the other team "
                "adds its tricks.")
    return ("Each player scores alone: made (tricks ≥ bid) adds the bid's value, failed "
            "subtracts it. Tricks above a bid add nothing.")


def _win(r: RuleSet) -> str:
    if r.scoring == "team":
        return f"The first team whose total reaches {r.target} wins the match."
    partner = "more than 0" if r.partner_min == 1 else f"at least {r.partner_min}"
    return (f"After each scored hand, a team wins when one of its players has {r.target} or "
            f"more and the partner has {partner}.")


_BY_RULES = {
    "wrong-trump": _trump,
    "bid-out-of-turn": _bidding,
    "bid-out-of-range": _bidding,
    "bid-not-higher": _bidding,
    "pass-not-allowed": _bidding,
    "bidding-incomplete": _bidding,
    "bidding-overrun": _bidding,
    "bid-below-minimum": _minimum,
    "played-when-cancelled": _cancelled,
    "cancelled-wrongly": _cancelled,
    "wrong-hand-score": _score,
    "played-after-win": _win,
    "wrong-winner": _win,
    "winner-too-early": _win,
    "no-winner": _win,
}


def rule_for(kind: str, rules: RuleSet) -> Rule:
    """The rule a finding of ``kind`` breaks under ``rules``; a kind this table does not know
    yet falls back to what the kind means (``findings.KINDS``)."""
    if kind == "wrong-dealer" and not rules.dealer_rotates:
        return Rule("The same player deals every hand, so the same seat bids first and leads.",
                    RULES)
    if kind in _FIXED:
        return _FIXED[kind]
    if kind in _BY_RULES:
        return Rule(_BY_RULES[kind](rules), RULES)
    meaning = KINDS.get(kind, kind)
    return Rule(meaning[0].upper() + meaning[1:] + ".", RULES)


def known_kinds() -> set[str]:
    """The kinds this table quotes a rule for (the tests hold it to ``KINDS``)."""
    return set(_FIXED) | set(_BY_RULES)
