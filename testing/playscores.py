"""Fair-play decisions scored as the analysis scores them, without playing a card: for
the null and the power of the bars the figures are held to (a single look's Holm, the
anytime bar of an archive looked at again and again), at sizes DDS could not reach.

A decision is a legal card chosen among ``L`` (``b`` of them double-dummy best): its
score is ``x − b/L``, ``x`` whether the card played is best, against six reference
layouts (``DRAWS``), each best with the same chance ``q`` the chooser's information gave
it (honest), or ``q + shift`` on the real layout (a seat that beats its information).
The decision's excess is the real score less the draws' mean, its variance the sample
variance of the draws and the real score together times ``1 + 1/6``:
:func:`tarneeb.audit.fairness.scores.score`.

>>> import numpy as np
>>> n, s, v = group_scores(2, 5, 3, np.random.default_rng(1))
>>> n.shape == s.shape == v.shape == (2, 5, 3), set(n.flat) <= {0, 30}
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

DRAWS = 6  # reference layouts a decision (the analysis's SAMPLES)
PER_MATCH = 30  # decisions a group has in a match it plays (a player's, in about 10 hands)


def group_scores(archives: int, matches: int, groups: int, rng: np.random.Generator,
                 shift: Any = 0.0, per: int = PER_MATCH) -> tuple[Any, Any, Any]:
    """Per archive, match and group: the decisions, Σ excess and Σ variance the group adds
    in that match (arrays of that shape). Each group comes to its archive at a match of
    its own (in the first half) and then plays in half the matches; ``shift`` (per group,
    or one for all): how much more often than its information allows its card is best."""
    shape = (archives, matches, groups, per)
    legal = rng.integers(2, 9, size=shape)
    base = rng.integers(1, legal + 1) / legal
    q = rng.uniform(0.05, 0.95, size=shape)  # the chance its card is best, given what it saw
    real = np.minimum(1.0, q + np.broadcast_to(np.asarray(shift, dtype=float), (groups,))
                      [None, None, :, None])
    y = (rng.random(shape) < real) - base
    draws = (rng.random((*shape, DRAWS)) < q[..., None]) - base[..., None]
    excess = y - draws.mean(axis=-1)
    # the draws and the real score together (one more draw under the null), as score() does
    variance = np.concatenate([draws, y[..., None]], axis=-1).var(axis=-1, ddof=1) * (
        1 + 1 / DRAWS)
    come = rng.integers(0, max(1, matches // 2), size=(archives, 1, groups))
    plays = (np.arange(matches)[None, :, None] >= come) & (
        rng.random((archives, matches, groups)) < 0.5)
    return plays * per, excess.sum(axis=-1) * plays, variance.sum(axis=-1) * plays


__all__ = ["DRAWS", "PER_MATCH", "group_scores"]
