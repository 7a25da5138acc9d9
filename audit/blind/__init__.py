"""Blind dealing (``docs/PROTOCOL.md`` §13): a deck shuffled and dealt so that only each
card's owner ever sees it.

* :mod:`~tarneeb.audit.blind.deal`: the seats, one deal, its Chaum–Pedersen proofs and
  its checks under ``tarneeb-blind-v1``; its names are this package's too
  (``from tarneeb.audit.blind import BlindSeat``), loaded when first used;
* :mod:`~tarneeb.audit.blind.group`: the ristretto255 group layer (the optional C
  extension ``_group``, or libsodium);
* :mod:`~tarneeb.audit.blind.proofs`: ``tarneeb-blind-v2``'s shuffle proofs, the
  batched proofs, and the dealing and checks of a v2 or v3 deal;
* :mod:`~tarneeb.audit.blind.argument`: ``tarneeb-blind-v3``'s compact shuffle argument.

It knows no game rules, and may import the rest of :mod:`tarneeb.audit` (its encodings and
errors) and nothing of the other packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names of .deal, which __getattr__ gives at run time, typed
    from .deal import *  # noqa: F403

_SUBMODULES = frozenset({"deal", "group", "proofs", "argument", "_group"})


def __getattr__(name: str) -> Any:
    """A name of :mod:`.deal`, imported on first use (the group layer alone, as a test of
    its backends uses it, loads neither the deal nor libsodium)."""
    if name in _SUBMODULES or name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import deal

    try:
        value = getattr(deal, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from . import deal

    return sorted({*globals(), *(n for n in vars(deal) if not n.startswith("__"))})
