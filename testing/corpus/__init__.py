"""The recorded-match corpus in ``fixtures/``: what it holds, and the code that writes it.

:mod:`~tarneeb.testing.corpus.specs` (the matches and altered logs), :mod:`~.writer`
(``python -m tarneeb.testing.corpus DIR``), :mod:`~.steering` and :mod:`~.scripted`
(play steered or scripted to reach every path of the rules).

May import: :mod:`tarneeb.testing.alterations`, :mod:`tarneeb.replay`, :mod:`tarneeb.audit`.
"""

from __future__ import annotations

from tarneeb.testing.corpus.specs import (
    ALTERED,
    BIG_BIDS,
    MATCHES,
    NOT_PRODUCIBLE,
    REGENERATE,
    RULE_SETS,
    VARIANTS,
    AlteredSpec,
    Director,
    MatchSpec,
    Policy,
    Stage,
    SteeringFailed,
    giving_card,
    make_altered,
    make_match,
    platform_key,
    search_variant,
    side_policy,
    stage,
    taking_card,
)
from tarneeb.testing.corpus.writer import (
    PATH_MEANINGS,
    Written,
    build,
    main,
    readme,
    write_corpus,
)

__all__ = [
    "ALTERED",
    "BIG_BIDS",
    "MATCHES",
    "NOT_PRODUCIBLE",
    "PATH_MEANINGS",
    "REGENERATE",
    "RULE_SETS",
    "VARIANTS",
    "AlteredSpec",
    "Director",
    "MatchSpec",
    "Policy",
    "Stage",
    "SteeringFailed",
    "Written",
    "build",
    "giving_card",
    "main",
    "make_altered",
    "make_match",
    "platform_key",
    "readme",
    "search_variant",
    "side_policy",
    "stage",
    "taking_card",
    "write_corpus",
]
