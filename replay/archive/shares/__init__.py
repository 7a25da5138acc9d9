"""A log's share of the fairness tallies, as the archive state keeps it: its bytes, and
every deal the shares counted keep (:mod:`~tarneeb.replay.archive.shares.packing`), what
its deals give, which the bytes leave out and count again
(:mod:`~tarneeb.replay.archive.shares.dealt`), and a share as its chunk's columns,
written without asking about each key again (:mod:`~tarneeb.replay.archive.shares.columns`),
and what a key is to the writing (:mod:`~tarneeb.replay.archive.shares.keys`).

Part of :mod:`tarneeb.replay.archive`: it may import :mod:`tarneeb.audit` and nothing
else of tarneeb (the archive audit's modules import it).
"""

from tarneeb.replay.archive.shares.columns import ChunkKeys, ShareColumns
from tarneeb.replay.archive.shares.dealt import (
    deal_array_of_planes,
    deal_of_planes,
    deal_planes,
    deals_of_planes,
)
from tarneeb.replay.archive.shares.packing import (
    DamagedShare,
    deals_seen,
    pack_share,
    share_deals,
    unpack_share,
)

__all__ = ["ChunkKeys", "DamagedShare", "ShareColumns", "deal_array_of_planes", "deal_of_planes",
           "deal_planes", "deals_of_planes", "deals_seen", "pack_share", "share_deals",
           "unpack_share"]
