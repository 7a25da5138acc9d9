"""False statements of a shuffle pass, for the soundness tests of v2's proof and v3's argument.

A pass should be ``out[j] = x·in[π(j)]``; :func:`wrong_pass` builds one that is not, in the
way asked, with the permutation the prover then claims, so that the honest prover's
algorithm can be run on it and its proof shown to fail.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence

from tarneeb.audit.blind import element_from_hash, mul, mul_base, reduce64
from tarneeb.audit.blind.proofs import shuffle_context

Prover = Callable[[bytes, Sequence[int], Sequence[bytes], Sequence[bytes], bytes], bytes]

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


def wrong_pass_proven(rng: random.Random, n: int, kind: str, prove: Prover
                      ) -> tuple[bytes, list[bytes], list[bytes], bytes, bytes]:
    """``(Y, deck_in, deck_out, proof, ctx)``: a :func:`wrong_pass` and the proof ``prove``
    (the honest prover's algorithm) makes for it, in a random place."""
    x, claimed, deck, out = wrong_pass(rng, n, kind)
    ctx = shuffle_context(b"sound", rng.randrange(100), rng.randrange(4))
    return mul_base(x), deck, out, prove(x, claimed, deck, out, ctx), ctx
