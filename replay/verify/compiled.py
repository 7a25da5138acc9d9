"""The replayer's compiled path: a clean log in the common form, confirmed in C.

:mod:`tarneeb.replay.rules.compiled` loads the C core when it is built and not turned
off (``TARNEEB_PURE=1``). For a log whose every record is in the common form that
:mod:`tarneeb.replay.log.fastread` reads, signed, with seeds that all check, under rules
the core covers, :func:`verify_data` runs the same checks of the header, signature and
seeds as :func:`~tarneeb.replay.verify.replayer.verify_log` (the same Python code),
then hands the hands' bytes to the core, which derives each deal from the seeds (its
HMAC blocks by :mod:`hashlib`), replays the calls and the cards and confirms every
claim. Anything else gives ``None``: a finding of any kind, a form or rule the core
does not cover, a claim that is not what the rules give. The caller then verifies the
log with the pure-Python replayer, which is the definition of a verdict and the only
path that makes findings. So this path only ever says "clean", and only where the
Python path says it too (``tests/test_compiled.py`` holds the two to the same verdict
JSON and the same history on the corpus, the altered corpus, the vectors and generated
and mutated logs).

The verdict's ``history`` (the engine's :class:`~tarneeb.replay.rules.scoring.Hand`
values) is made from the core's output when it is first read.

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> data = play_logged_match("eram41", seed=b"compiled doc")  # reproducible: not secret
>>> v = verify_data(data, "m.tlog")
>>> v is None or (v.clean and v.history == verify_bytes(data, count_paths=False).history)
True
>>> from tarneeb.replay.rules.compiled import pure_python
>>> with pure_python():
...     python_history = verify_bytes(data).history
>>> v is None or (python_history == v.history and v.history == python_history)
True
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from tarneeb.replay.log.fastread import _record
from tarneeb.replay.log.records import EndRecord, Header, ParsedLog, SignatureRecord
from tarneeb.replay.rules import compiled as core_switch
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.verify.findings import Verdict
from tarneeb.replay.verify.provenance import (
    NO_RECEIPT_NOTE,
    check_header_form,
    check_seeds,
    check_signature,
    note_rules,
    report_not_replayed,
)
from tarneeb.replay.verify.trust import NOTHING, Trust

if TYPE_CHECKING:
    from tarneeb.replay.rules.scoring import Hand

# one hand of the core's output (OUT_SIZE bytes): deal number, where its calls and its
# plays start in the log, dealer, 13th card, trump, declarer, contract (255: none),
# cancelled, the match's winner after it (255: none), how many calls; the deck order,
# the 13 tricks' winners, the tricks, the scores, the totals
OUT_FORMAT = struct.Struct("<IIIBBBBBBBB52s13s4s4i4q")
_TRUMP_RULES = {"revealed_mate": 0, "fixed": 1, "named": 2}
_PARAMS: dict[RuleSet, tuple[int, ...] | None] = {}
_SMALL = 256  # as fastread: under caps this tight a log is read carefully


def rules_params(rules: RuleSet) -> tuple[int, ...] | None:
    """``rules`` as the flat tuple of ints the core reads, or ``None`` when the core does
    not cover them (the Python path replays such a match)."""
    try:
        return _PARAMS[rules]
    except KeyError:  # not known yet
        pass
    out: tuple[int, ...] | None = None
    high = rules.values_high
    covered = (
        rules.trump in _TRUMP_RULES and 0 <= rules.fixed_trump <= 3
        and rules.dealer_rotates  # the core's deal rotates; other rules: the Python path
        and (rules.bidding, rules.scoring) in (("personal", "personal"), ("auction", "team"))
        and rules.min_bid >= 2 and all(b >= 2 for _, b in rules.min_bid_steps)
        and len(rules.min_bid_steps) <= 16 and len(rules.min_total_steps) <= 16
        and len(rules.values) == 12 and (high is None or len(high) == 12)
        and all(-2**31 < x < 2**31 for x in (*rules.values, *(high or ()))))
    if covered:
        has_high = high is not None and rules.values_high_from is not None
        out = (_TRUMP_RULES[rules.trump], rules.fixed_trump,
               int(rules.bidding == "auction"), rules.min_bid, rules.auction_min,
               int(rules.auction_ends_on_13),
               len(rules.min_bid_steps), *(x for step in rules.min_bid_steps for x in step),
               rules.min_total,
               len(rules.min_total_steps), *(x for step in rules.min_total_steps for x in step),
               int(rules.scoring == "team"), *rules.values, int(has_high),
               rules.values_high_from if has_high and rules.values_high_from is not None else 0,
               *(high if high is not None and has_high else rules.values),
               rules.all_tricks_value, rules.kaboot_made_value, rules.kaboot_failed_value,
               rules.defenders_all_tricks_value, rules.kaboot_defenders_factor,
               rules.kaboot_defenders_all_tricks_value, rules.target, rules.partner_min,
               int(rules.made_13_wins))
        if not all(-2**62 < x < 2**62 for x in out):
            out = None
    _PARAMS[rules] = out
    return out


def verify_data(data: bytes, path: str = "<log>", trust: Trust = NOTHING,
                count_paths: bool = False) -> Verdict | None:
    """The verdict on ``data`` when the compiled core confirms it clean; ``None`` for the
    Python path to judge it (always ``None`` when the core is not in use)."""
    confirmed = confirm(data, path, trust, count_paths)
    return None if confirmed is None else confirmed[0]


def confirm(data: bytes, path: str = "<log>", trust: Trust = NOTHING,
            count_paths: bool = False) -> tuple[Verdict, ParsedLog, list[int]] | None:
    """What :func:`verify_data` gives, with the log's records but its hands (``hands``
    is empty: the core read them) and the running totals its last hand claims (and
    the rules give); ``None`` for the Python path to judge it."""
    core = core_switch.CORE
    if core is None:
        return None
    limits = trust.limits
    if len(data) > limits.max_bytes or limits.max_record_bytes < _SMALL \
            or limits.max_depth < 2 or limits.max_field < 64 \
            or not data or data[0] & 0xf0 not in (0x90, 0xd0):
        return None
    try:
        header, start = _record(data, 0, limits)
        if type(header) is not Header or header.blind:
            return None
        params = rules_params(header.rules)
        if params is None:
            return None
        most = min(limits.max_hands, (limits.max_records - 3) // 3)
        scanned = core.scan(data, start, most)
        if scanned is None:
            return None
        end_offset, count = scanned
        end, pos = _record(data, end_offset, limits)
        if type(end) is not EndRecord or end.abandoned is not None or end.winner is None:
            return None
        signature, after = _record(data, pos, limits)
        if type(signature) is not SignatureRecord or after != len(data):
            return None
    except Exception:  # anything unusual (msgpack's errors, a LogError): the Python path
        return None
    log = ParsedLog(header=header, hands=[], offsets=[], end=end, end_offset=end_offset,
                    signature=signature, signed_bytes=data[:pos], signature_offset=pos,
                    cut_short=None, size=len(data),
                    zero_tail=len(data) - len(data.rstrip(b"\0")))
    return _judge(core, log, data, start, count, path, trust, params, count_paths)


def _judge(core: Any, log: ParsedLog, data: bytes, start: int, count: int, path: str, trust: Trust,
           params: tuple[int, ...], count_paths: bool
           ) -> tuple[Verdict, ParsedLog, list[int]] | None:
    """What :func:`~tarneeb.replay.verify.replayer.verify_log` does for a clean log,
    with the hands confirmed by the core; ``None`` at any finding."""
    header = log.header
    public_key = trust.public_key
    receipt = trust.receipt_for(header.match_id)
    v = Verdict(path)
    v.rules = header.rules
    v.computer = tuple(s.computer for s in header.seats)
    v.names = tuple(s.name for s in header.seats)
    note_rules(header.rules, v)
    check_header_form(header, v)
    check_signature(log, v, public_key, trust.keys)
    if v.findings:
        return None
    deriver, _ = check_seeds(log, v, trust.root, public_key, trust.server_seed)
    if receipt is not None:
        from tarneeb.replay.verify.receipt import check_receipt  # only when given

        check_receipt(header, receipt, v, public_key, log.hands)
    elif header.server_commitment is not None:
        v.notes.append(NO_RECEIPT_NOTE)
    if deriver is None or v.findings or deriver.first_dealer() != header.first_dealer:
        return None
    inner, outer = deriver.deal_hashes()
    out = core.replay(data, start, count, params, header.first_dealer, inner, outer)
    if out is None:
        return None
    played, winner, hands = out
    if log.end is None or winner != log.end.winner or not count:
        return None
    v.hands, v.played, v.recorded = count, played, 0
    v.deals_proven = True
    report_not_replayed(v, [])
    v.history = LazyHistory(lambda: _history(data, hands), count,
                            lambda: _deal_views(hands), hands)
    if count_paths:
        from tarneeb.replay.rules.paths import exercised_paths  # only when asked

        v.paths = exercised_paths(header.rules, v.history, [0] * count)
    return v, log, list(struct.unpack_from("<4q", hands, (count - 1) * OUT_FORMAT.size + 105))


def _history(data: bytes, hands: bytes) -> list[Hand]:
    """The engine's hands, as the Python path's replay leaves them, from the core's output
    (the engine's modules are loaded only when the history is read)."""
    from tarneeb.replay.rules.actions import BID_BASE, PASS
    from tarneeb.replay.rules.fastplay import hands_of, owners_from_order
    from tarneeb.replay.rules.scoring import Hand

    none = 255
    out = []
    for row in OUT_FORMAT.iter_unpack(hands):
        (n, calls_at, plays_at, dealer, thirteenth, trump, declarer, contract, cancelled,
         winner, n_calls, deck, winners, tricks) = row[:14]
        calls = [((b >> 4) & 3, PASS if b & 15 == 15 else BID_BASE + (b & 15))
                 for b in data[calls_at:calls_at + n_calls]]
        hand = Hand(n, dealer, hands_of(owners_from_order(deck, dealer)), thirteenth,
                    None if trump == none else trump, calls,
                    None if declarer == none else declarer,
                    None if contract == none else contract)
        hand.totals = list(row[18:22])
        if cancelled:
            hand.cancelled = True
        else:
            hand.plays = [b - 1 for b in data[plays_at:plays_at + 52]]
            hand.trick_winners = list(winners)
            hand.tricks = list(tricks)
            hand.scores = list(row[14:18])
            hand.winner = None if winner == none else winner
        out.append(hand)
    return out


class DealView(NamedTuple):
    """What a hand's deal is, as the engine's ``Hand`` has it, without its calls and play
    (what the archive audit's statistics read)."""

    hands: tuple[int, ...]
    dealer: int
    thirteenth: int | None
    trump: int | None
    declarer: int | None
    cancelled: bool
    totals: list[int]


def _deal_views(hands: bytes) -> list[DealView]:
    """The deals of :func:`_history`'s hands, from the same rows of the core's output."""
    from tarneeb.replay.rules.fastplay import hands_of, owners_from_order

    none = 255
    return [DealView(hands_of(owners_from_order(row[11], row[3])), row[3], row[4],
                     None if row[5] == none else row[5], None if row[6] == none else row[6],
                     bool(row[8]), list(row[18:22]))
            for row in OUT_FORMAT.iter_unpack(hands)]


class LazyHistory(list["Hand"]):
    """A list made when it is first read: the verdict of a log no one asks the history
    of does not pay for it; ``size``, when known, answers whether it is empty without
    making it (an archive audit without statistics asks only that); ``rows``, the core's
    output it is made from (``OUT_FORMAT`` a hand), which the archive audit decodes a
    chunk at a time."""

    __slots__ = ("_make", "_size", "_views", "rows")

    def __init__(self, make: Callable[[], Any], size: int | None = None,
                 views: Callable[[], list[DealView]] | None = None,
                 rows: bytes | None = None) -> None:
        super().__init__()
        self._make: Callable[[], Any] | None = make
        self._size = size
        self._views = views
        self.rows = rows

    def deals(self) -> list[Any]:
        """The hands' deals (:class:`DealView`, without making the history when it is
        not made yet), or the hands themselves."""
        if self._make is not None and self._views is not None:
            return self._views()
        return list(self)

    def _fill(self) -> None:
        make = self._make
        if make is not None:
            self._make = None
            list.extend(self, make())

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled (to a worker) as a plain list
        self._fill()
        return list, (list(self),)


def _filled(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def wrapper(self: LazyHistory, *args: Any, **kwargs: Any) -> Any:
        self._fill()
        for other in args:  # list's own methods read another list's items directly
            if isinstance(other, LazyHistory):
                other._fill()
        return method(self, *args, **kwargs)

    wrapper.__name__ = name
    return wrapper


for _name in ("__len__", "__iter__", "__getitem__", "__setitem__", "__delitem__",
              "__contains__", "__reversed__", "__eq__", "__ne__", "__lt__", "__le__",
              "__gt__", "__ge__", "__add__", "__mul__", "__rmul__", "__iadd__", "__imul__",
              "__repr__", "__copy__", "append", "extend", "insert", "pop", "remove", "index",
              "count", "sort", "reverse", "clear", "copy"):
    if hasattr(list, _name):
        setattr(LazyHistory, _name, _filled(_name))
setattr(LazyHistory, "__bool__",  # noqa: B010 (a dunder)
        lambda self: self._size > 0 if self._make is not None and self._size is not None
        else len(self) > 0)
LazyHistory.__hash__ = None

__all__ = ["OUT_FORMAT", "LazyHistory", "confirm", "rules_params", "verify_data"]
