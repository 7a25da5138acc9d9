"""What a replay says: findings and the verdict.

A :class:`Finding` names where a log departs from the rules (hand, trick,
seat, card, byte offset) and says which rule in a sentence a player understands;
``kind`` is a stable identifier for machines (see ``KINDS``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

# Every kind of finding, with what it means. The replayer makes no other kind.
KINDS: dict[str, str] = {
    "broken-signature": "the platform's signature does not match the log's bytes (changed "
                        "after signing, torn, or made by another key): it does not cover "
                        "the log",
    "unsigned": "the log carries no signature",
    "key-mismatch": "the log was signed by another key than the one given",
    "weak-key": "the signing key is a small-order point or not canonically encoded: a "
                "signature under it proves nothing",
    "server-seed": "the revealed server seed does not match its commitment, or is not the "
                   "seed the verifier was given",
    "seed-not-revealed": "the server seed was not revealed, so no deal can be proven",
    "batch-proof": "the server commitment is not the promised leaf of the signed season head",
    "client-seed": "a client seed does not match that seat's commitment",
    "receipt-mismatch": "the log is not the match the platform's pre-play receipt promised",
    "wrong-first-dealer": "the first dealer is not the one the seeds give (or no seeds draw "
                          "it: a log dealt blind without them)",
    "wrong-deal-number": "a dealing attempt has the wrong deal number",
    "wrong-dealer": "a hand was dealt by the wrong seat",
    "wrong-deal": "the deal is not the one the committed seeds produce",
    "bad-deal": "a recorded deal is not a valid deal of 52 cards",
    "wrong-revealed-card": "the revealed card is not the dealer's 13th card",
    "wrong-trump": "the trump is not the one the rules give",
    "bid-out-of-turn": "a bid or pass made by a seat whose turn it was not",
    "bid-out-of-range": "a bid outside the range the rules allow",
    "bid-below-minimum": "a bid below the 400 minimum for that player's score",
    "bid-not-higher": "an auction bid not higher than the bid before it",
    "pass-not-allowed": "a pass where the rules have no pass",
    "bidding-incomplete": "the bidding stops before the rules end it",
    "bidding-overrun": "calls recorded after the bidding had ended",
    "played-when-cancelled": "a hand played although the bids were too low",
    "cancelled-wrongly": "a hand cancelled although the bids were enough",
    "card-not-held": "a card played that the seat does not hold",
    "card-already-played": "a card played twice",
    "played-out-of-turn": "a card played by a seat whose turn it was not",
    "wrong-trick-winner": "the next trick is led by a seat that did not win the trick before",
    "renege": "a seat failed to follow suit while holding the suit led",
    "hand-incomplete": "a played hand does not have all 52 cards",
    "wrong-timer-move": "a move marked as the timer's is not the one the rules give",
    "wrong-trick-count": "the tricks claimed for a seat are not the tricks it took",
    "wrong-hand-score": "a claimed hand score is not the one the rules give",
    "wrong-total": "a claimed running total is not the one the rules give",
    "played-after-win": "a hand played after the match was won",
    "wrong-winner": "the declared winner is not the team the rules give",
    "winner-too-early": "a winner declared before the match was won",
    "no-winner": "the match was won but no winner was declared (an abandoned match too)",
    "timeout-out-of-turn": "a timeout blamed on a seat whose turn it was not when the log "
                           "stops",
    "timeout-no-turn": "a timeout when no player was to move: between two hands, after a "
                       "hand's last card, or after the match was won",
    "cut-short": "the log ends before the match does, or stops being readable (cut at a "
                 "byte: a crash, a torn or zero-filled tail, bytes no writer wrote)",
    "not-replayed": "a dealing attempt could not be replayed: no deal proven by the seeds "
                    "or recorded in the log",
    "not-canonical": "a record is not in the one byte form FORMAT.md gives it",
    "wrong-rules": "the rules bear a preset's name but differ from it where its platform "
                   "offers no house option",
    "blind-transcript": "a blind deal's transcript, a play's proof or a revealed key is "
                        "missing or malformed",
    "wrong-decryption": "a seat's partial decryption of a blind deal does not verify",
    "wrong-shuffle": "a shuffle pass of a blind deal is not a re-encryption and permutation "
                     "of the deck before it: it replaced, dropped or duplicated a card",
    "card-not-dealt": "a card played (or shown) is not the card dealt to that seat at that "
                      "position: its proof does not verify",
    "wrong-key": "a seat's revealed key does not match its public key, or is no permutation",
    "unproven-deal": "a deal not proven from the log (recorded by the platform, or dealt "
                     "blind under tarneeb-blind-v1, its passes without proofs) where the user "
                     "requires proof (--require-proof)",
}


def place(empty: str = "match", **parts: object) -> str:
    """Where something happened, as a player says it: the parts that are known, in order.

    >>> place(hand=3, trick=None, seat=1), place(hand=None)
    ('hand 3, seat 1', 'match')
    """
    return ", ".join(f"{k} {v}" for k, v in parts.items() if v is not None) or empty


@dataclass(slots=True)
class Finding:
    """One thing wrong with a log: its ``kind`` (a key of :data:`KINDS`), what is wrong
    in words, and where (deal number, trick, seat, card, byte offset), as far as known."""

    kind: str
    message: str
    hand: int | None = None  # deal number
    trick: int | None = None  # 1-13
    seat: int | None = None
    card: str | None = None
    offset: int | None = None  # byte offset of the record

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}")

    def where(self) -> str:
        return place(hand=self.hand, trick=self.trick, seat=self.seat)

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(slots=True)
class Verdict:
    """The outcome of verifying one log."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # facts that are not findings
    hands: int = 0  # dealing attempts replayed from a deal (derived or recorded)
    played: int = 0  # hands replayed to the 13th trick
    deals_proven: bool = False  # every deal replayed was derived from seeds that all check
    blind: bool = False  # dealt blind: the deals are proven by each deal's transcript
    blind_v1: bool = False  # some deal is tarneeb-blind-v1: its shuffle passes are not proven
    recorded: int = 0  # dealing attempts replayed from a deal the log records
    not_replayed: list[int] = field(default_factory=list)  # deal numbers not replayed
    key_id: str | None = None  # the key the signature was checked against
    key_pinned: bool = False  # that key was given by the user, not taken from the log
    signature_verified: bool = False  # the signature checks under that key (the log is whole)
    # what became of the signature when it did not verify: "absent" (the log stops before
    # it: a crash, or a log still being written), "weak-key", "broken" (torn or wrong)
    signature: str | None = None
    checked_to: int | None = None  # the bytes replayed: the log's whole records end here
    signer: str | None = None  # the platform the user's keys name for that key
    signer_scripts: tuple[str, ...] = ()  # the scripts of the signer's name's letters
    paths: Counter[str] = field(default_factory=Counter)  # rule paths the match exercised
    error: str | None = None  # set when the log could not be read at all (exit 2)
    ending: str | None = None  # how an abandoned match ended: who left, where and why
    # the platform's reason that ``ending`` ends with, as the end record gives it (its
    # words: shown as they are, not read as the replayer's)
    reason: str | None = field(default=None, repr=False)
    # the hand the log stops in, as far as it was replayed (an abandoned match's; the
    # Python replay's: None when the compiled core judged the log, or it stops in none)
    open_hand: Any = field(default=None, repr=False)
    history: list[Any] = field(default_factory=list, repr=False)  # the engine's hands
    rules: Any = None  # the RuleSet the match was replayed under
    computer: tuple[bool, ...] = ()  # per seat: a computer player (True) or a person
    names: tuple[str, ...] = ()  # per seat: the player's name or label in the log

    @property
    def clean(self) -> bool:
        return not self.findings and self.error is None

    def __bool__(self) -> bool:
        """A verdict has no truth value: ``if verdict:`` would hold for an unreadable log
        too. Ask ``verdict.clean`` (and ``verdict.key_pinned``: whose key signed it).

        >>> bool(Verdict("m.tlog", error="not a tarneeb log"))
        Traceback (most recent call last):
        TypeError: a Verdict has no truth value: ask verdict.clean (and verdict.key_pinned)
        """
        raise TypeError("a Verdict has no truth value: ask verdict.clean (and "
                        "verdict.key_pinned)")

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return 2
        return 1 if self.findings else 0

    def signed_by(self) -> str:
        """Who signed the log, as far as the user's keys say: the key id, and whether
        it was pinned. Without a pin the signature proves only that the log is whole.
        A log whose signature is absent, torn or wrong is never called signed: the line
        says so, and how far the log was checked.

        >>> v = Verdict("m.tlog", key_id="139e3940e64b5491", signature_verified=True)
        >>> v.signed_by()[:68]
        'signed by key 139e3940e64b5491 named in the log itself, NOT PINNED: '
        >>> v.key_pinned, v.signer = True, "cardroom"
        >>> v.signed_by()
        'signed by cardroom (key 139e3940e64b5491, pinned)'
        >>> v.signer_scripts = ("Cyrillic", "Latin")
        >>> v.signed_by()  # doctest: +ELLIPSIS
        'signed by cardroom (key 139e3940e64b5491, pinned; the name mixes Cyrillic and ...'
        >>> v.signature_verified, v.checked_to = False, 2255
        >>> v.signed_by()[:63]
        'signature does not verify: the signature does not cover the log'
        >>> v.signed_by()[63:]
        ' (key 139e3940e64b5491, pinned; checked up to byte 2255)'
        >>> Verdict("m.tlog", signature="absent", checked_to=2217).signed_by()
        'not signed yet: checked up to byte 2217 (crashed or still being written)'
        """
        upto = "" if self.checked_to is None else f"checked up to byte {self.checked_to}"
        if self.signature == "absent":
            return f"not signed yet: {upto or 'checked as far as it goes'} (crashed or still " \
                "being written)"
        if self.key_id is None:
            return "no key to check a signature against: anyone could have made this log"
        if not self.signature_verified:
            why = ("the key is weak, and a signature under it proves nothing"
                   if self.signature == "weak-key" else "the signature does not cover the log")
            whose = "pinned" if self.key_pinned else "named in the log itself"
            return (f"signature does not verify: {why} (key {self.key_id}, {whose}"
                    + (f"; {upto})" if upto else ")"))
        if self.key_pinned:
            who = self.signer if self.signer is not None else "the key given"
            mixed = (f"; the name mixes {' and '.join(self.signer_scripts)} letters: see "
                     "that it is the platform you mean" if len(self.signer_scripts) > 1
                     else "")
            return f"signed by {who} (key {self.key_id}, pinned{mixed})"
        return (f"signed by key {self.key_id} named in the log itself, NOT PINNED: anyone "
                "could have made this log with a key of their own (pin the platform's key: "
                "tarneeb verify --key or --keys)")

    def deals_line(self) -> str:
        """How many dealing attempts were replayed, and from which deals.

        >>> Verdict("m.tlog", hands=3, played=2, deals_proven=True).deals_line()
        '3 dealing attempts replayed, 2 played, deals proven by the committed seeds'
        """
        if self.deals_proven and self.blind and self.blind_v1:
            source = ("dealt blind (tarneeb-blind-v1: the shuffle passes not proven), every "
                      "hand proven by its decryptions and plays")
        elif self.deals_proven and self.blind:
            source = "dealt blind, every hand proven by the deal's transcript"
        elif self.deals_proven:
            source = "deals proven by the committed seeds"
        elif self.recorded and self.recorded == self.hands:
            source = "deals recorded by the platform, not proven"
        elif self.recorded:
            source = f"{self.recorded} deals recorded by the platform, not proven"
        else:
            source = "deals not proven"
        line = f"{self.hands} dealing attempts replayed, {self.played} played, {source}"
        if self.not_replayed:
            line += f"; {len(self.not_replayed)} NOT replayed"
        return line

    def add(self, kind: str, message: str, **where: Any) -> Finding:
        f = Finding(kind, message, **where)
        self.findings.append(f)
        return f

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "verdict": "unreadable" if self.error else ("clean" if self.clean else "findings"),
            "error": self.error,
            "hands": self.hands,
            "played": self.played,
            "deals_proven": self.deals_proven,
            "dealing": "blind" if self.blind else "seeds" if self.recorded == 0 else "recorded",
            "recorded_deals": self.recorded,
            "not_replayed": self.not_replayed,
            "key": {"id": self.key_id, "pinned": self.key_pinned, "platform": self.signer,
                    "scripts": list(self.signer_scripts)},
            "signed": self.signed_by(),
            "ending": self.ending,
            "reason": self.reason,
            # the players the findings' seats are (seat 0 first), as the log names them
            "players": [] if self.error else list(self.names),
            "findings": [f.to_json() for f in self.findings],
            "notes": self.notes,
            "paths": dict(sorted(self.paths.items())),
        }
