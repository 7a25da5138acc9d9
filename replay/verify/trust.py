"""What the user trusts, as one value: the anchors a verdict is proven against.

A verdict is only as good as what it is checked against. :class:`Trust` holds every
anchor the user names: the platform's pinned key or a keys file of platforms' keys,
the season root the platform published, seats' pre-play receipts, a server seed
revealed outside a crashed log, and the caps a log is read within. The command line
builds it once from its options and hands it whole to the replayer, the match report,
the archive audit and each of its workers; a new anchor is a field here and an option
there, and nothing in between changes.

>>> from tarneeb.replay.verify.trust import Trust
>>> t = Trust()
>>> t.pinned, t.receipt_for(b"any match")
(False, None)
>>> Trust(public_key=bytes(32)).pinned
True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tarneeb.audit.errors import KeyFileError
from tarneeb.audit.signing import check_platform_names
from tarneeb.replay.log.stream import DEFAULT_LIMITS, Limits

if TYPE_CHECKING:  # receipts are read (and their module loaded) only when one is given
    from tarneeb.replay.verify.receipt import SignedReceipt


class PlatformKeys(Mapping[str, bytes]):
    """A trust's platform keys (name → raw key), read-only: checked when the trust is made.

    >>> keys = PlatformKeys({"cardroom": bytes(32)})
    >>> keys["cardr00m"] = bytes(32)
    Traceback (most recent call last):
    ...
    TypeError: 'PlatformKeys' object does not support item assignment
    """

    __slots__ = ("_keys",)

    def __init__(self, keys: Mapping[str, bytes]) -> None:
        self._keys = dict(keys)

    def __getitem__(self, name: str) -> bytes:
        return self._keys[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"PlatformKeys({self._keys!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # (to a pool's or a cluster's workers)
        return PlatformKeys, (self._keys,)


@dataclass(frozen=True, slots=True)
class Trust:
    """The anchors a log is verified against; the default trusts nothing but the rules.

    - ``public_key``: the platform's raw Ed25519 key, pinned (``--key``);
    - ``keys``: platform name → raw key (``--keys``, a keys file): the log must be
      signed by one of them, and the verdict names that platform; with ``public_key`` too
      (``--key`` beside the user's own keys file) the pinned key alone is taken, and the
      keys only name it when they list it; read-only once the trust is made;
    - ``key_source``: where the pinned key or keys came from (a file name), for reports;
    - ``root``: the season root the platform published (``--root``);
    - ``receipts``: seats' pre-play receipts (``--receipt``): a log must be the match its
      receipt promised;
    - ``server_seed``: the server seed revealed outside a log cut short (``--server-seed``);
    - ``limits``: the caps a log is read within;
    - ``require_proof``: the user's policy (``--require-proof``): a deal not proven from
      the log (recorded by the platform, or dealt blind under ``tarneeb-blind-v1``) is a
      finding, not a note.

    It is frozen and made of plain values, so it pickles to a worker as it is. Names in
    ``keys`` are held to the rules of a keys file
    (:func:`~tarneeb.audit.signing.check_platform_names`): a name a person cannot read as
    written, or two that look alike, raise :class:`~tarneeb.audit.errors.KeyFileError`.

    >>> Trust(keys={"cardroom": bytes(32), "cardr00m": bytes(32)})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tarneeb.audit.errors.KeyFileError: keys: 'cardr00m': looks the same as 'cardroom' ...
    """

    public_key: bytes | None = None
    keys: Mapping[str, bytes] | None = None
    key_source: str | None = None
    root: bytes | None = None
    receipts: tuple[SignedReceipt, ...] = ()
    server_seed: bytes | None = None
    limits: Limits = field(default=DEFAULT_LIMITS)
    require_proof: bool = False

    def __post_init__(self) -> None:
        for name in ("public_key", "root", "server_seed"):  # raw bytes, or nothing
            value = getattr(self, name)
            if value is not None and not isinstance(value, bytes):
                raise TypeError(f"Trust({name}=...) takes raw bytes"
                                + (" (tarneeb.public_key_raw(key))" if name == "public_key"
                                   else " (bytes.fromhex(text))")
                                + f", not {type(value).__name__}")
        if self.keys is not None and not all(isinstance(k, bytes) for k in
                                             dict(self.keys).values()):
            raise TypeError("Trust(keys=...) maps platform names to raw key bytes")
        if not isinstance(self.receipts, tuple | list):
            raise TypeError("Trust(receipts=...) takes a tuple of receipts (read_receipt)")
        if not isinstance(self.limits, Limits):
            raise TypeError(f"Trust(limits=...) takes a Limits, not {type(self.limits).__name__}")
        if not isinstance(self.require_proof, bool):
            raise TypeError("Trust(require_proof=...) is True or False, not "
                            f"{self.require_proof!r}")
        if self.keys is not None:
            # a name given here is held to the keys file's rules: "signed by <name>" must
            # read as the platform it is (raises KeyFileError); kept read-only, so that a
            # name added after these checks cannot pass them
            check_platform_names(list(self.keys), "keys")
            if not self.keys:  # (every log "signed by none of the 0 platform keys given")
                raise KeyFileError("keys: names no platform (keys=None pins none)")
            object.__setattr__(self, "keys", PlatformKeys(self.keys))
        # receipts=(None,) is no receipt: a caller may pass the one it has, or has not
        object.__setattr__(self, "receipts", tuple(r for r in self.receipts if r is not None))
        if self.receipts:  # their module is loaded once one is given
            from tarneeb.replay.verify.receipt import SignedReceipt

            if not all(isinstance(r, SignedReceipt) for r in self.receipts):
                raise TypeError("Trust(receipts=...) takes receipts as read_receipt(data) "
                                "gives them, not their files' bytes or text")

    @property
    def pinned(self) -> bool:
        """Whether the user named the platform's key (one key, or a keys file)."""
        return self.public_key is not None or bool(self.keys)

    def receipt_for(self, match_id: bytes) -> SignedReceipt | None:
        """The receipt for the match ``match_id``: the one that names it; else, when the
        user gave a single receipt, that one (so a log that is not its match is a
        finding, not a log checked against nothing); else none."""
        for r in self.receipts:
            if r.receipt.match_id == match_id:
                return r
        return self.receipts[0] if len(self.receipts) == 1 else None

    def replace(self, **changes: Any) -> Trust:
        """This trust with some anchors changed (``dataclasses.replace``)."""
        return replace(self, **changes)


NOTHING = Trust()

__all__ = ["NOTHING", "Trust"]
