"""The near-repeats e-process: hands of a new match that share 12 or 13 of their 13 cards
with a hand seen before or with another of its own deals.

Per match, the pairs its hands make with the hands seen before and with each other (of
different deals) that share 12 or 13 cards, ``N``, against its exact mean ``μ`` (each
such pair has the chance ``(1 + 13·39) / C(52, 13)``): the factor ``1 + λ (N − μ)`` with
``0 ≤ λ ≤ 1/μ`` is nonnegative and of mean exactly 1 (:func:`near_factor`). ``λ`` makes
it the likelihood ratio of a match with pairs at a rate learnt from the matches before
(as the repeat bet), against ``μ``; the e-value is the average of that bet and of none
(:func:`advance_near`). The hands seen before are :class:`NearIndex`, about 20 bytes a
hand in memory (not kept in the evidence: made again from the deals the archive's state
keeps, :meth:`NearIndex.count` the only question asked of it); a hand's 13·39 neighbours
are looked up in its bit map by their hashes alone (:func:`_hand_hash` is linear in the
cards), so that a match costs what its own hands cost, whatever the archive's size.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from tarneeb.audit.fairness.anytime.threats import _logmean, deal_hands
from tarneeb.audit.fairness.nearrepeat import DEAL_BYTES, HANDS, SHARED, near_pairs, unpack_hands


def _card_words() -> tuple[int, ...]:
    """Per card a fixed 64-bit word (splitmix64 of its number): a hand's hash is the
    exclusive or of its cards' words, so a hand with one card swapped hashes to its own
    hash with two words flipped."""
    out = []
    for c in range(52):
        z = (c + 1) * 0x9E3779B97F4A7C15 & (1 << 64) - 1
        z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9 & (1 << 64) - 1
        z = (z ^ z >> 27) * 0x94D049BB133111EB & (1 << 64) - 1
        out.append(z ^ z >> 31)
    return tuple(out)


_CARD_WORDS = _card_words()
PROBE_HANDS = 128  # hands whose neighbours' hashes are probed at once (each 13·39 of them)
MARK_HANDS = 1 << 16  # hands whose hashes are marked in the map at once


@functools.lru_cache(maxsize=1)
def _byte_words() -> Any:
    """Per byte of a hand (7) and value (256), the exclusive or of its cards' words."""
    import numpy as np
    out = np.zeros((7, 256), dtype=np.uint64)
    for i in range(7):
        for v in range(256):
            w = 0
            for j in range(8):
                if v >> j & 1 and 8 * i + j < 52:
                    w ^= _CARD_WORDS[8 * i + j]
            out[i, v] = w
    return out


@functools.lru_cache(maxsize=1)
def _two_bits() -> Any:
    """Per value of a hash's low 12 bits, its two bits in its word of the map (a mask)."""
    import numpy as np
    v = np.arange(4096, dtype=np.uint64)
    return np.uint64(1) << (v & np.uint64(63)) | np.uint64(1) << (v >> np.uint64(6))


def _hand_hash(hands: Any) -> Any:
    """Each hand's hash: the exclusive or of its cards' words (uint64)."""
    import numpy as np
    table = _byte_words()
    # byte i of each hand, (hand >> 8 i) & 255, read from its little-endian bytes
    raw = np.ascontiguousarray(hands, dtype="<u8").view(np.uint8).reshape(-1, 8)
    out = table[0][raw[:, 0]]
    for i in range(1, 7):
        out ^= table[i][raw[:, i]]
    return out


class NearIndex:
    """The hands seen before (13-card masks, uint64, with their multiplicity): sorted
    distinct hands and their counts (one 1 read as many when the few hands seen twice
    keep their other copies in the tail), a small tail (kept sorted) merged into them now
    and then, and a bit map of the hands' hashes (at least 32 bits a hand, two bits a hand in
    one 64-bit word) that turns away at once nearly every hand not seen; about 20 bytes a
    hand. The hash is linear in the cards (:func:`_hand_hash`): a hand's 13·39 neighbours
    are looked up in the map by their hashes alone, made from the hand's with two words
    flipped, and only the few the map lets through are made and looked up."""

    def __init__(self) -> None:
        import numpy as np
        self.hands = np.zeros(0, dtype=np.uint64)  # sorted, distinct
        self.counts = np.zeros(0, dtype=np.int64)
        self.tail = np.zeros(0, dtype=np.uint64)  # sorted
        self.size = 0
        self.log_bits = 20
        self.bits = np.zeros(1 << (self.log_bits - 6), dtype=np.uint64)
        self._near: Any = None  # probe's buffers, kept between calls
        self._work: Any = None

    def __len__(self) -> int:
        return self.size

    def _passes(self, hashes: Any) -> Any:
        """Whether the map lets each hash through (both its bits set in its word), made
        in buffers kept between calls (arrays this large made afresh each time cost the
        system more than the arithmetic)."""
        import numpy as np
        n = len(hashes)
        if self._work is None or len(self._work[0]) < n:
            self._work = (np.empty(n, np.uint64), np.empty(n, np.uint64),
                          np.empty(n, np.uint64), np.empty(n, bool))
        a, b, c, ok = (w[:n] for w in self._work)
        # indices always in range: "clip" only spares the checks (and a buffered copy)
        np.bitwise_and(hashes, np.uint64(4095), out=a)
        np.take(_two_bits(), a.view(np.int64), out=b, mode="clip")
        np.right_shift(hashes, np.uint64(70 - self.log_bits), out=a)
        np.take(self.bits, a.view(np.int64), out=c, mode="clip")
        np.bitwise_and(c, b, out=c)
        return np.equal(c, b, out=ok)

    def _mark(self, hands: Any) -> None:
        """The hands' hashes' bits set in the map, a block of hands at a time (arrays of
        the block's size, not of every hand's: an archive's hands are millions)."""
        import numpy as np
        for lo in range(0, len(hands), MARK_HANDS):
            hashes = _hand_hash(hands[lo:lo + MARK_HANDS])
            np.bitwise_or.at(self.bits, hashes >> np.uint64(70 - self.log_bits),
                             _two_bits()[(hashes & np.uint64(4095)).astype(np.intp)])

    def add(self, hands: Any, given_up: bool = False) -> None:
        """Add ``hands`` (``given_up``: an array the caller lets go of, taken as it is, and
        sorted, into an empty index: not copied)."""
        import numpy as np
        new = np.asarray(hands, np.uint64).ravel()
        self.size += len(new)
        if len(self.tail) + len(new) > max(4096, len(self.hands) // 8):  # merged
            # (sorted in place: numpy.unique's hands and counts would copy them again)
            every = new if given_up and self.size == len(new) else np.concatenate(
                (np.repeat(self.hands, self.counts), self.tail, new))
            every.sort()
            again = np.flatnonzero(every[1:] == every[:-1])  # each hand's copies after it
            if len(again) <= max(64, len(every) // 64):
                # a few copies: counted in the tail (sorted), taken out of the hands in
                # place (each stretch between two moved down), the counts all 1, one number
                self.tail, cut = every[again + 1], 0
                for j, at in enumerate((again + 1).tolist()):
                    end = int(again[j + 1]) + 1 if j + 1 < len(again) else len(every)
                    every[at - cut:end - cut - 1] = every[at + 1:end]
                    cut += 1
                self.hands = every[:len(every) - cut]
                self.counts = np.broadcast_to(np.ones(1, dtype=np.int64), len(self.hands))
            else:  # many: each adds 1 to its hand's count (its place: less those before it)
                self.hands = every[np.concatenate(([True], every[1:] != every[:-1]))]
                self.counts = np.ones(len(self.hands), dtype=np.int64)
                np.add.at(self.counts, again - np.arange(len(again)), 1)
                self.tail = np.zeros(0, dtype=np.uint64)
            del every
        else:
            self.tail = np.sort(np.concatenate((self.tail, new)))
        if self.size * 32 > (1 << self.log_bits):  # the map grows: made again, larger
            while self.size * 32 > (1 << self.log_bits):
                self.log_bits += 1
            self.bits = np.zeros(1 << (self.log_bits - 6), dtype=np.uint64)
            self._mark(self.hands)
            self._mark(self.tail)
        else:
            self._mark(new)

    def count(self, hands: Any) -> int:
        """The pairs (a hand of ``hands``, a hand seen before) that share 12 or 13 cards."""
        import numpy as np
        h = np.asarray(hands, dtype=np.uint64).ravel()
        if not len(h) or not self.size:
            return 0
        return int(self.found(self.probe(h)[1]).sum())

    def probe(self, h: Any) -> tuple[Any, Any]:
        """The hands sharing 12 or 13 cards with a hand of ``h`` (itself, and each of its
        cards swapped for one it lacks: 1 + 13·39 a hand) that the map lets through: the
        index of their hand in ``h``, and their values (uint64)."""
        import numpy as np
        n = len(h)
        if not n or not self.size:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.uint64)
        cards = np.uint64(1) << np.arange(52, dtype=np.uint64)
        held = (h[:, None] & cards[None, :]) != 0  # (n, 52)
        number = np.broadcast_to(np.arange(52), held.shape)
        inside = number[held].reshape(n, 13)
        outside = number[~held].reshape(n, 39)
        words = np.array(_CARD_WORDS, dtype=np.uint64)
        own = _hand_hash(h)
        less, more = own[:, None] ^ words[inside], words[outside]
        if self._near is None:
            self._near = np.empty(13 * 39 * PROBE_HANDS, np.uint64)
        # the neighbours' hashes made and let through a few hands at a time: arrays that
        # stay in the processor's cache (made whole, they cost twice as much)
        ats = []
        for lo in range(0, n, PROBE_HANDS):
            hi = min(n, lo + PROBE_HANDS)
            near = self._near[:13 * 39 * (hi - lo)]
            np.bitwise_xor(less[lo:hi, :, None], more[lo:hi, None, :],
                           out=near.reshape(hi - lo, 13, 39))
            ats.append(np.flatnonzero(self._passes(near)) + 13 * 39 * lo)
        at = np.concatenate(ats)
        i, j, k = at // (13 * 39), at // 39 % 13, at % 39
        same = np.flatnonzero(self._passes(own))
        which = np.concatenate((same, i))
        values = np.concatenate((h[same], h[i] ^ cards[inside[i, j]] ^ cards[outside[i, k]]))
        return which, values

    def found(self, probe: Any) -> Any:
        """Per value of ``probe`` (uint64), how many of the hands seen it is (int64)."""
        import numpy as np
        out = np.zeros(len(probe), dtype=np.int64)
        if not self.size or not len(probe):
            return out
        # looked up in order: each binary search starts from the last one's place and
        # reads the hands in one sweep (in the probes' order nearly every step misses
        # the cache); the counts put back in the probes' order
        order = np.argsort(probe)
        probe = probe[order]
        got = np.zeros(len(probe), dtype=np.int64)
        if len(self.hands):
            i = np.minimum(np.searchsorted(self.hands, probe), len(self.hands) - 1)
            hit = self.hands[i] == probe
            got[hit] += self.counts[i[hit]]
        if len(self.tail):
            t = self.tail
            got += np.searchsorted(t, probe, "right") - np.searchsorted(t, probe)
        out[order] = got
        return out


def near_factor(pairs: int, new: int, deals: int, earlier: int, matches: int,
                hits: int) -> tuple[float, float]:
    """One match's factor (a log) and its exact mean count: ``pairs`` near pairs of its
    ``new`` hands (``deals`` deals) with ``earlier`` hands before and with each other;
    ``matches`` and ``hits`` (matches with a pair) before it set the bet.

    >>> near_factor(0, 40, 10, 0, 0, 0)[0] < 0 < near_factor(1, 40, 10, 0, 0, 0)[0]
    True
    """
    mu = (new * earlier + new * (new - 1) // 2 - 6 * deals) * SHARED / HANDS
    if mu <= 0:
        return (math.inf if pairs else 0.0), mu
    q = (hits + 0.5) / (matches + 1)  # a rate learnt from the matches before
    if mu >= min(q, 1.0):
        return 0.0, mu
    lam = (q - mu) / (mu * (1 - mu))  # then lam·mu <= 1: the factor is never negative
    return math.log1p(lam * (pairs - mu)) if lam * (pairs - mu) > -1 else -math.inf, mu


def advance_near(totals: dict[Any, list[Any]], bets: list[float], obs: dict[Any, list[Any]],
                 index: NearIndex) -> float:
    """Near-repeats (see the module): ``obs`` the match's deals (20-byte values) under one
    key; ``index`` the hands seen before (the match's are added after its bet); ``bets``
    matches, matches with a pair, the log of the wealth."""
    if not bets:
        bets.extend([0.0, 0.0, 0.0])
    values = [v for vs in obs.values() for v in vs]
    hands = deal_hands(values)
    if len(hands):
        pairs = near_pairs(hands)[0] + index.count(hands)
        log_f, _ = near_factor(pairs, 4 * len(hands), len(hands), len(index),
                               int(bets[0]), int(bets[1]))
        bets[0] += 1
        bets[1] += pairs > 0
        bets[2] += log_f
        index.add(hands)
    return _logmean([0.0, bets[2]])  # the average of no bet and the bet


NEAR_BLOCK = 2048  # hands of the matches whose near pairs are counted at once (probed by
# NearIndex.probe a few hands at a time)


def near_many(bets: list[float], index: NearIndex, seq: list[tuple[int, dict[Any, list[Any]]]]
              ) -> list[tuple[int, float]]:
    """The near-repeats bet (``bets``: matches, matches with a pair, the log of the
    wealth; ``index``: the hands seen before) over its matches ``seq`` (each match's
    number and its deals), its e-value after each, as :func:`advance_near` a match at a
    time: each match's pairs with the hands seen before it (the index, and the matches of
    ``seq`` before it) and among its own hands, counted for many matches at once (each
    hand's neighbours looked up once among the hands seen and the block's, the block's
    own told apart by their match)."""
    out: list[tuple[int, float]] = []
    start = 0
    while start < len(seq):
        end, hands = start, 0
        while end < len(seq) and (end == start or hands < NEAR_BLOCK) and end - start < 4095:
            hands += 4 * sum(len(v) for v in seq[end][1].values())
            end += 1
        out.extend(_near_block(bets, index, seq[start:end]))
        start = end
    return out


def _near_block(bets: list[float], index: NearIndex,
                seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """:func:`near_many` over at most 4,095 matches (a hand and its match in one uint64)."""
    import numpy as np
    values = [[v for vs in obs.values() for v in vs] for _, obs in seq]
    deals = [len(v) for v in values]
    before = len(index)
    pairs = [0] * len(seq)
    if any(deals):
        hands = unpack_hands(np.frombuffer(b"".join(v for vs in values for v in vs),
                                           dtype=np.dtype(f"V{DEAL_BYTES}"))).ravel()
        match = np.repeat(np.arange(len(seq), dtype=np.uint64), [4 * d for d in deals])
        index.add(hands)  # first: each probe's hands seen, the block's own among them
        which, probes = index.probe(hands)
        found = index.found(probes)
        at = np.flatnonzero(found)
        probe, of = probes[at], match[which[at]]
        keys = np.sort(hands << np.uint64(12) | match)
        base = probe << np.uint64(12)
        low = np.searchsorted(keys, base | of)
        high = np.searchsorted(keys, base | of, "right")
        last = np.searchsorted(keys, base | np.uint64(4095), "right")
        # the hands seen before each match: all those found less the block's from its
        # match on; among its own hands, each pair found from both, each hand by itself
        before_it = np.bincount(of.astype(np.int64), weights=found[at] - (last - low),
                                minlength=len(seq))
        own = np.bincount(of.astype(np.int64), weights=high - low, minlength=len(seq))
        pairs = [int(b) + (int(o) - 4 * d) // 2
                 for b, o, d in zip(before_it.tolist(), own.tolist(), deals, strict=True)]
    out = []
    for (m, _), n, p in zip(seq, deals, pairs, strict=True):
        if n:
            log_f, _ = near_factor(p, 4 * n, n, before, int(bets[0]), int(bets[1]))
            bets[0] += 1
            bets[1] += p > 0
            bets[2] += log_f
            before += 4 * n
        out.append((m, _logmean([0.0, bets[2]])))
    return out


__all__ = ["NEAR_BLOCK", "NearIndex", "advance_near", "near_factor", "near_many"]
