"""Ed25519 signatures for the platform: key pairs, PEM files, sign and verify.

Private keys are stored as unencrypted PKCS#8 PEM (``-----BEGIN PRIVATE KEY-----``),
public keys as SubjectPublicKeyInfo PEM (``-----BEGIN PUBLIC KEY-----``): the
forms ``openssl pkey`` reads and writes.

>>> key = generate_private_key()
>>> sig = sign(key, b"a whole log")
>>> len(sig)
64
>>> public = load_public_key(public_key_pem(key.public_key()))
>>> verify(public, b"a whole log", sig)
>>> try:
...     verify(public, b"another log", sig)
... except SignatureError as e:
...     print(str(e)[:41])
signature does not verify with public key
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .encoding import read_small_file, unsafe_character
from .errors import AuditInputError, KeyFileError, SignatureError, WeakKeyError

SIGNATURE_LEN = 64
RAW_KEY_LEN = 32

__all__ = [
    "Ed25519PrivateKey", "Ed25519PublicKey", "check_platform_names", "check_public_key",
    "generate_key_pair",
    "generate_private_key", "key_id", "load_keys_file", "load_private_key",
    "load_private_key_file", "load_public_key", "load_public_key_file", "parse_keys",
    "private_key_from_raw", "private_key_pem", "public_key_from_raw", "public_key_pem",
    "public_key_raw", "public_path_for", "sign", "verify", "write_key_pair",
]


def generate_private_key() -> Ed25519PrivateKey:
    """A new platform key (the library draws it from the operating system's secure source)."""
    return Ed25519PrivateKey.generate()


def generate_key_pair() -> tuple[Ed25519PrivateKey, Ed25519PublicKey]:
    """A new platform key pair: ``(private_key, public_key)``.

    >>> private, public = generate_key_pair()
    >>> verify(public, b"x", sign(private, b"x"))
    """
    key = generate_private_key()
    return key, key.public_key()


def private_key_from_raw(raw: bytes) -> Ed25519PrivateKey:
    """A private key from its 32 raw bytes (RFC 8032 seed): for test vectors."""
    if not isinstance(raw, bytes) or len(raw) != RAW_KEY_LEN:
        raise AuditInputError(f"Ed25519 private key must be {RAW_KEY_LEN} raw bytes")
    return Ed25519PrivateKey.from_private_bytes(raw)


# Edwards25519: the field prime, and the y coordinates of its eight points of small
# order (1, 2, 4 and 8): the identity (y = 1), the point of order 2 (y = p - 1), the two
# of order 4 (y = 0) and the four of order 8. Any encoding whose y is one of these (either
# sign bit) is a small-order point; these are libsodium's blocklist, and
# tests/test_audit_signing.py derives them again from the curve equation.
_P = 2**255 - 19
_Y8 = 0x7A03AC9277FDC74EC6CC392CFA53202A0F67100D760B3CBA4FD84D3D706A17C7
SMALL_ORDER_Y = frozenset({0, 1, _P - 1, _Y8, _P - _Y8})


def check_public_key(raw: bytes) -> None:
    """Refuse a weak Ed25519 public key: raise :class:`~tarneeb.audit.errors.WeakKeyError`
    for a non-canonical encoding (y ≥ p, or a sign bit on a point whose x is 0) or a point
    of small order (the identity and the seven others).

    OpenSSL accepts such keys, and a signature under them can verify for any message:
    with the identity point as key, ``01 00…00 ‖ 00…00`` verifies for everything. So
    a signature under a weak key proves nothing.

    >>> check_public_key(public_key_raw(private_key_from_raw(bytes(32)).public_key()))
    >>> try:
    ...     check_public_key(bytes([1]) + bytes(31))
    ... except WeakKeyError as e:
    ...     print(e)
    weak Ed25519 public key 0100000000000000…: a point of small order (the identity)
    """
    if not isinstance(raw, bytes) or len(raw) != RAW_KEY_LEN:
        raise AuditInputError(f"Ed25519 public key must be {RAW_KEY_LEN} raw bytes")
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    what = None
    if y >= _P:
        what = "not canonically encoded (y ≥ p)"
    elif y in SMALL_ORDER_Y:
        what = "a point of small order" + (" (the identity)" if y == 1 else "")
    if what is not None:
        raise WeakKeyError(f"weak Ed25519 public key {raw.hex()[:16]}…: {what}")


def public_key_from_raw(raw: bytes) -> Ed25519PublicKey:
    """A public key from its 32 raw bytes (RFC 8032 encoding); a weak key
    (:func:`check_public_key`) is refused."""
    check_public_key(raw)
    try:
        return Ed25519PublicKey.from_public_bytes(raw)
    except ValueError as e:
        raise AuditInputError(f"not an Ed25519 public key: {e}") from None


def public_key_raw(public_key: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    if not isinstance(public_key, Ed25519PublicKey):
        hint = " (its public key is key.public_key())" \
            if isinstance(public_key, Ed25519PrivateKey) else ""
        raise TypeError(f"public_key_raw takes an Ed25519 public key, not "
                        f"{type(public_key).__name__}{hint}")
    return public_key.public_bytes_raw()


def key_id(public_key: Ed25519PublicKey | bytes) -> str:
    """A short name for a public key (or its 32 raw bytes): the first 16 hex digits of
    SHA-256 of its raw bytes.

    >>> key = private_key_from_raw(bytes(32)).public_key()
    >>> key_id(key), key_id(public_key_raw(key))
    ('139e3940e64b5491', '139e3940e64b5491')
    """
    if isinstance(public_key, bytes | bytearray):
        raw = bytes(public_key)
    elif isinstance(public_key, Ed25519PublicKey):
        raw = public_key.public_bytes_raw()
    else:
        raise TypeError(f"key_id takes an Ed25519 public key or its 32 raw bytes, not "
                        f"{type(public_key).__name__}")
    return hashlib.sha256(raw).hexdigest()[:16]


def private_key_pem(private_key: Ed25519PrivateKey) -> bytes:
    """The private key as unencrypted PKCS#8 PEM."""
    from cryptography.hazmat.primitives import serialization  # PEM only: loaded when used

    return private_key.private_bytes(serialization.Encoding.PEM,
                                     serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())


def public_key_pem(public_key: Ed25519PublicKey) -> bytes:
    """The public key as SubjectPublicKeyInfo PEM."""
    from cryptography.hazmat.primitives import serialization  # PEM only: loaded when used

    return public_key.public_bytes(serialization.Encoding.PEM,
                                   serialization.PublicFormat.SubjectPublicKeyInfo)


def load_private_key(pem: bytes, source: str = "private key") -> Ed25519PrivateKey:
    """An Ed25519 private key from PKCS#8 PEM; ``source`` names it in error messages."""
    from cryptography.hazmat.primitives import serialization  # PEM only: loaded when used

    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except TypeError:
        raise KeyFileError(
            f"{source}: the key is encrypted with a password; store it unencrypted "
            "(protect the file instead)") from None
    except (ValueError, UnsupportedAlgorithm):
        raise KeyFileError(f"{source}: not a PEM private key (PKCS#8, BEGIN PRIVATE KEY)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{source}: the key is not an Ed25519 key")
    return key


def load_public_key(pem: bytes, source: str = "public key") -> Ed25519PublicKey:
    """An Ed25519 public key from SubjectPublicKeyInfo PEM."""
    end = pem.rfind(b"-----END")
    if pem.count(b"-----BEGIN") > 1 or (end >= 0 and (pem[end:].strip().count(b"\n")
                                                       or not pem.rstrip().endswith(b"-----"))):
        # a PEM reader takes the first block and skips the rest: two keys would pin one,
        # and a keys file's last key (a PEM block in a TOML string: '-----"""') alone
        raise KeyFileError(f"{source}: one PEM public key and nothing else, not two blocks "
                           "or text after the key")
    raw = _plain_ed25519_pem(pem)
    if raw is not None:  # the file tarneeb keygen writes: no PEM reader needed
        try:
            check_public_key(raw)
        except WeakKeyError as e:
            raise KeyFileError(f"{source}: {e}") from None
        try:
            return Ed25519PublicKey.from_public_bytes(raw)
        except ValueError:
            raise KeyFileError(f"{source}: not a PEM public key (SubjectPublicKeyInfo, "
                               "BEGIN PUBLIC KEY)") from None
    from cryptography.hazmat.primitives import serialization  # PEM only: loaded when used

    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, UnsupportedAlgorithm):
        raise KeyFileError(
            f"{source}: not a PEM public key (SubjectPublicKeyInfo, BEGIN PUBLIC KEY)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{source}: the key is not an Ed25519 key")
    try:
        check_public_key(public_key_raw(key))
    except WeakKeyError as e:
        raise KeyFileError(f"{source}: {e}") from None
    return key


# the DER of an Ed25519 SubjectPublicKeyInfo (RFC 8410) before its 32 raw key bytes
_ED25519_SPKI = bytes.fromhex("302a300506032b6570032100")
_PEM_BEGIN, _PEM_END = b"-----BEGIN PUBLIC KEY-----", b"-----END PUBLIC KEY-----"


def _plain_ed25519_pem(pem: bytes) -> bytes | None:
    """The raw key of a PEM file in the one plain form of an Ed25519 public key (one
    block, base64 lines, the RFC 8410 DER), else ``None``: anything else is read by
    cryptography's PEM reader, which says what is wrong. Loading that reader (with RSA,
    DSA, SSH and the ciphers) costs more than a one-log verify; this form needs none of it.

    >>> pem = public_key_pem(private_key_from_raw(bytes(32)).public_key())
    >>> _plain_ed25519_pem(pem).hex()[:16], _plain_ed25519_pem(b"#" + pem)
    ('3b6a27bcceb6a42d', None)
    """
    import binascii

    lines = pem.strip().split(b"\n")
    if len(lines) < 3 or lines[0] != _PEM_BEGIN or lines[-1] != _PEM_END:
        return None
    try:
        der = binascii.a2b_base64(b"".join(lines[1:-1]), strict_mode=True)
    except binascii.Error:
        return None
    if len(der) != len(_ED25519_SPKI) + RAW_KEY_LEN or not der.startswith(_ED25519_SPKI):
        return None
    return der[len(_ED25519_SPKI):]


def _read(path: str | Path, what: str) -> bytes:
    """The bytes of a key or keys file: a regular file of at most 1 MiB
    (:data:`~tarneeb.audit.encoding.SMALL_FILE_BYTES`), else a :class:`KeyFileError`."""
    p = Path(path)
    try:
        return read_small_file(p)
    except FileNotFoundError:
        raise KeyFileError(f"{p}: cannot read {what}: no such file") from None
    except IsADirectoryError:
        raise KeyFileError(f"{p}: cannot read {what}: it is a directory") from None
    except OSError as e:
        raise KeyFileError(f"{p}: cannot read {what}: {e.strerror or e}") from None


def load_private_key_file(path: str | Path) -> Ed25519PrivateKey:
    """Read a private key file (PKCS#8 PEM)."""
    return load_private_key(_read(path, "private key file"), str(path))


def load_public_key_file(path: str | Path) -> Ed25519PublicKey:
    """Read a public key file (SubjectPublicKeyInfo PEM)."""
    return load_public_key(_read(path, "public key file"), str(path))


def check_platform_names(names: Sequence[str], source: str = "keys") -> None:
    """Raise :class:`~tarneeb.audit.errors.KeyFileError` (naming ``source`` and the name,
    escaped) unless every name can name a platform in a verdict ("signed by <name>"): no
    control, line-break or bidi character, one a person can read as it is written
    (:func:`~tarneeb.audit.names.name_problem`), and none that looks like another
    (:func:`~tarneeb.audit.names.name_keys`, the UTS #39 skeleton, case folded).

    >>> check_platform_names(["cardroom", "Club 400"])
    >>> check_platform_names(["cardroom", "cardr00m"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    tarneeb.audit.errors.KeyFileError: keys: 'cardr00m': looks the same as 'cardroom' ...
    """
    from .names import name_keys, name_problem, quoted

    seen: dict[str, str] = {}  # each name as compared by eye (names.name_keys)
    for name in names:
        where = f"{source}: {quoted(name)}"
        bad = unsafe_character(name)
        if bad is not None:  # the name is printed in verdicts: "signed by <name>"
            raise KeyFileError(f"{where}: the name holds the character {bad} (a control, "
                               "line-break or bidi character)")
        problem = name_problem(name)
        if problem is not None:  # "signed by <name>" must read as the name it is
            raise KeyFileError(f"{where}: a name a person cannot read as it is written: "
                               f"{problem}")
        # one name looks like no other: the look-alike data (a 0.2 s load) is not needed
        looks = name_keys(name) if len(names) > 1 else frozenset()
        same = next((seen[k] for k in looks if k in seen), None)
        if same is not None:  # "signed by Cardroom" must name one platform
            raise KeyFileError(f"{where}: looks the same as {quoted(same)} (the same Unicode "
                               "look-alike skeleton, UTS #39: letters of another script, "
                               "digits for letters, rn for m, case): a verdict could not "
                               "tell the two platforms apart")
        seen.update(dict.fromkeys(looks, name))


def parse_keys(text: str, source: str = "keys file") -> dict[str, bytes]:
    """Platform keys from the text of a keys file: platform name → raw public key.

    A keys file is TOML: one line per platform, its name as the key and its Ed25519
    public key as the value, either 64 hex digits (the raw key) or a SubjectPublicKeyInfo
    PEM block in a multi-line string. Weak keys are refused, and so is a key listed
    under two names, a name a person cannot read as it is written
    (:func:`~tarneeb.audit.names.name_problem`: an invisible character, a space other than
    one U+0020 between words, a form other than NFKC, nothing to see) and two names that
    look the same (:func:`~tarneeb.audit.names.name_keys`: Latin ``ERAM`` and ``ЕRАМ`` with
    Cyrillic letters, ``cardroom`` and ``cardr00m``).

    >>> raw = public_key_raw(private_key_from_raw(bytes(32)).public_key())
    >>> parse_keys(f'"card room" = "{raw.hex()}"') == {"card room": raw}
    True
    >>> parse_keys('cardroom = "01' + "00" * 31 + '"')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tarneeb.audit.errors.KeyFileError: keys file: cardroom: weak Ed25519 public key ...
    """
    from tarneeb.audit.tomltext import KEYS_HINT, NotToml, read_toml

    try:
        doc = read_toml(text, source, KEYS_HINT)
    except NotToml as e:
        raise KeyFileError(str(e)) from None
    check_platform_names(list(doc), source)
    keys: dict[str, bytes] = {}
    seen: dict[bytes, str] = {}
    for name, value in doc.items():
        where = f"{source}: {name}"
        if not isinstance(value, str):
            raise KeyFileError(f"{where}: the value must be a string: 64 hex digits or a PEM "
                               "public key")
        text_value = value.strip()
        if text_value.startswith("-----BEGIN"):
            raw = public_key_raw(load_public_key(text_value.encode(), where))
        else:
            try:
                raw = bytes.fromhex(text_value)
            except ValueError:
                raise KeyFileError(f"{where}: not hex and not a PEM public key") from None
            if len(raw) != RAW_KEY_LEN:
                raise KeyFileError(f"{where}: a raw Ed25519 key is 64 hex digits, not "
                                   f"{len(text_value)}")
            try:
                public_key_from_raw(raw)
            except (WeakKeyError, AuditInputError) as e:
                raise KeyFileError(f"{where}: {e}") from None
        if raw in seen:
            raise KeyFileError(f"{where}: the same key as {seen[raw]}")
        seen[raw] = name
        keys[name] = raw
    if not keys:  # (every log would be "none of the 0 platform keys given": a finding)
        raise KeyFileError(f"{source}: names no platform: a keys file gives a line a platform, "
                           'its name = "64 hex digits" or a PEM public key')
    return keys


def load_keys_file(path: str | Path) -> dict[str, bytes]:
    """Read a keys file (see :func:`parse_keys`): platform name → raw public key."""
    data = _read(path, "keys file")
    if data.startswith(b"\xef\xbb\xbf"):  # one reading: TOML readers differ on it
        raise KeyFileError(f"{path}: it begins with a byte-order mark (U+FEFF); a keys file "
                           "is UTF-8 without one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KeyFileError(f"{path}: not UTF-8 text") from None
    return parse_keys(text, str(path))


def sign(private_key: Ed25519PrivateKey, data: bytes) -> bytes:
    """The 64-byte Ed25519 signature of ``data``."""
    return private_key.sign(bytes(data))


def verify(public_key: Ed25519PublicKey | bytes, data: bytes, signature: bytes) -> None:
    """Check a signature; raise :class:`~tarneeb.audit.errors.SignatureError` if it is bad.
    The key is an Ed25519 public key or its 32 raw bytes (a weak one refused:
    :func:`public_key_from_raw`)."""
    if isinstance(public_key, bytes | bytearray):
        public_key = public_key_from_raw(bytes(public_key))
    elif not isinstance(public_key, Ed25519PublicKey):
        raise TypeError(f"verify takes an Ed25519 public key or its 32 raw bytes, not "
                        f"{type(public_key).__name__}")
    if not isinstance(signature, bytes | bytearray) or len(signature) != SIGNATURE_LEN:
        n = len(signature) if isinstance(signature, bytes | bytearray) else "no"
        raise SignatureError(f"signature is {n} bytes; an Ed25519 signature is 64 bytes")
    try:
        public_key.verify(bytes(signature), bytes(data))
    except InvalidSignature:
        raise SignatureError(
            f"signature does not verify with public key {key_id(public_key)}: the data was "
            "changed after signing, or it was signed with another key") from None


def public_path_for(private_path: str | Path) -> Path:
    """Where :func:`write_key_pair` puts the public key by default:
    ``platform.pem`` → ``platform.pub.pem``, ``platform`` → ``platform.pub``.

    >>> str(public_path_for("keys/platform.pem"))
    'keys/platform.pub.pem'
    """
    p = Path(private_path)
    return p.with_name(p.stem + ".pub" + p.suffix) if p.suffix else p.with_name(p.name + ".pub")


def write_key_pair(private_path: str | Path, public_path: str | Path | None = None,
                   force: bool = False,
                   private_key: Ed25519PrivateKey | None = None) -> Ed25519PrivateKey:
    """Write a (new, unless given) key pair: the private key file with mode 0600 and
    the public key file beside it. Refuses to replace an existing file unless ``force``.

    Both files are written whole beside their place first, then moved in: a symlink at
    either path is replaced, never followed, and if either file cannot be written,
    neither is left behind (with ``force``, the files that were there are put back).
    """
    priv = Path(private_path)
    pub = Path(public_path) if public_path is not None else public_path_for(priv)
    if priv.resolve() == pub.resolve():
        raise KeyFileError(f"{priv}: the private and public key files must differ")
    if not force:
        for p in (priv, pub):
            if p.exists() or p.is_symlink():
                raise KeyFileError(f"{p}: file exists; use --force to replace it")
    key = private_key if private_key is not None else generate_private_key()
    staged: list[tuple[Path, Path]] = []
    placed: list[tuple[Path, Path | None]] = []  # (path, the file it replaced, kept aside)
    try:
        staged.append((_stage(priv, private_key_pem(key), 0o600), priv))
        staged.append((_stage(pub, public_key_pem(key.public_key()), 0o644), pub))
        for tmp, path in staged:
            placed.append((path, _place(tmp, path, force)))
    except BaseException:
        for path, old in reversed(placed):
            with contextlib.suppress(OSError):
                if old is not None:
                    os.replace(old, path)
                else:
                    path.unlink()
        placed.clear()
        raise
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        for _, old in placed:
            if old is not None:
                with contextlib.suppress(FileNotFoundError):
                    old.unlink()
    return key


def _stage(path: Path, data: bytes, mode: int) -> Path:
    """``data`` in a new file beside ``path`` (mode ``mode`` from the start)."""
    import tempfile  # only keygen needs it: verify starts without it

    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise KeyFileError(f"{path}: cannot write key file: {e.strerror or e}") from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise KeyFileError(f"{path}: cannot write key file: {e.strerror or e}") from None
    return tmp


def _place(tmp: Path, path: Path, force: bool) -> Path | None:
    """Move ``tmp`` to ``path``; returns where the file it replaced was kept, if any.

    Without ``force`` a hard link refuses an existing name (even a dangling symlink);
    with it, ``os.replace`` swaps the name itself, so a symlink is replaced, not followed.
    """
    try:
        if not force:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise KeyFileError(f"{path}: file exists; use --force to replace it") from None
            return None
        old = None
        if os.path.lexists(path):
            old = tmp.with_suffix(".old")
            os.link(path, old, follow_symlinks=False)  # the link itself, not its target
        os.replace(tmp, path)
        return old
    except OSError as e:
        raise KeyFileError(f"{path}: cannot write key file: {e.strerror or e}") from None
