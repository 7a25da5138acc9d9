"""False statements of a shuffle pass, for the soundness tests of v2's proof and v3's argument.

A pass should be ``out[j] = x·in[π(j)]``; :func:`wrong_pass` builds one that is not, in the
way asked, with the permutation the prover then claims, so that the honest prover's
algorithm can be run on it and its proof shown to fail.
"""

from __future__ import annotations

import hashlib
import random

from tarneeb.audit.blind import element_from_hash, mul, reduce64

KINDS = ("permutation", "exponent", "duplicate", "element")


def scalar(label: bytes) -> bytes:
    return reduce64(hashlib.sha512(label).digest())


def point(label: bytes) -> bytes:
    return element_from_hash(hashlib.sha512(label).digest())


def wrong_pass(rng: random.Random, n: int, kind: str
               ) -> tuple[bytes, list[int], list[bytes], list[bytes]]:
    """``(x, claimed, deck_in, deck_out)``: a pass of ``n`` random elements made false by
    ``kind`` — ``"permutation"`` (the proof claims another permutation than the one
    applied), ``"exponent"`` (the pass made with another scalar than ``x``), ``"duplicate"``
    (one card twice, another dropped) or ``"element"`` (one output element changed)."""
    x = scalar(b"x %d" % rng.getrandbits(64))
    perm = list(range(n))
    rng.shuffle(perm)
    deck = [point(b"in %d" % rng.getrandbits(64)) for _ in range(n)]
    out = [mul(x, deck[i]) for i in perm]
    claimed = list(perm)
    if kind == "permutation":
        while claimed == perm:
            rng.shuffle(claimed)
    elif kind == "exponent":
        other = scalar(b"other %d" % rng.getrandbits(64))
        out = [mul(other, deck[i]) for i in perm]
    elif kind == "duplicate":
        i, j = rng.sample(range(n), 2)
        out[i] = out[j]
    else:
        out[rng.randrange(n)] = point(b"changed %d" % rng.getrandbits(64))
    return x, claimed, deck, out
