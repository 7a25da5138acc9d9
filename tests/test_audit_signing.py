"""Ed25519 keys, PEM files and signatures."""

from __future__ import annotations

import os
import stat

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tarneeb.audit import (
    KeyFileError,
    SignatureError,
    generate_private_key,
    key_id,
    load_private_key,
    load_private_key_file,
    load_public_key,
    load_public_key_file,
    private_key_pem,
    public_key_from_raw,
    public_key_pem,
    public_key_raw,
    sign,
    verify,
    write_key_pair,
)
from tarneeb.audit.errors import AuditInputError, WeakKeyError
from tarneeb.audit.signing import check_public_key, load_keys_file, parse_keys, public_path_for


def test_sign_and_verify():
    key = generate_private_key()
    sig = sign(key, b"log bytes")
    assert len(sig) == 64
    verify(key.public_key(), b"log bytes", sig)
    with pytest.raises(SignatureError, match="does not verify with public key"):
        verify(key.public_key(), b"log bytez", sig)
    bad = bytes([sig[0] ^ 1]) + sig[1:]
    with pytest.raises(SignatureError):
        verify(key.public_key(), b"log bytes", bad)
    with pytest.raises(SignatureError, match="signature is 63 bytes"):
        verify(key.public_key(), b"log bytes", sig[:63])
    with pytest.raises(SignatureError):
        verify(generate_private_key().public_key(), b"log bytes", sig)


def test_pem_round_trip():
    key = generate_private_key()
    pem = private_key_pem(key)
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    pub_pem = public_key_pem(key.public_key())
    assert pub_pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    again = load_private_key(pem)
    assert public_key_raw(again.public_key()) == public_key_raw(key.public_key())
    pub = load_public_key(pub_pem)
    verify(pub, b"x", sign(again, b"x"))
    assert public_key_raw(public_key_from_raw(public_key_raw(pub))) == public_key_raw(pub)
    assert len(key_id(pub)) == 16


def test_key_files(tmp_path):
    priv = tmp_path / "platform.pem"
    key = write_key_pair(priv)
    pub = tmp_path / "platform.pub.pem"
    assert stat.S_IMODE(os.stat(priv).st_mode) == 0o600
    assert public_key_raw(load_public_key_file(pub)) == public_key_raw(key.public_key())
    assert public_key_raw(load_private_key_file(priv).public_key()) == \
        public_key_raw(key.public_key())
    with pytest.raises(KeyFileError, match="file exists; use --force"):
        write_key_pair(priv)
    assert load_private_key_file(priv).private_bytes_raw() == key.private_bytes_raw()
    os.chmod(priv, 0o644)
    key2 = write_key_pair(priv, force=True)
    assert stat.S_IMODE(os.stat(priv).st_mode) == 0o600
    assert load_private_key_file(priv).private_bytes_raw() == key2.private_bytes_raw()
    assert public_path_for("k") .name == "k.pub"
    with pytest.raises(KeyFileError, match="must differ"):
        write_key_pair(tmp_path / "a.pem", tmp_path / "a.pem")


def test_unreadable_and_wrong_key_files(tmp_path):
    with pytest.raises(KeyFileError, match="no such file"):
        load_private_key_file(tmp_path / "missing.pem")
    with pytest.raises(KeyFileError, match="is a directory"):
        load_public_key_file(tmp_path)
    junk = tmp_path / "junk.pem"
    junk.write_bytes(b"not a key")
    with pytest.raises(KeyFileError, match=r"junk\.pem: not a PEM private key"):
        load_private_key_file(junk)
    with pytest.raises(KeyFileError, match="not a PEM public key"):
        load_public_key_file(junk)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    other = tmp_path / "ec.pem"
    other.write_bytes(ec_key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    with pytest.raises(KeyFileError, match="not an Ed25519 key"):
        load_private_key_file(other)
    enc = tmp_path / "enc.pem"
    enc.write_bytes(generate_private_key().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"pw")))
    with pytest.raises(KeyFileError, match="encrypted with a password"):
        load_private_key_file(enc)
    with pytest.raises(KeyFileError, match="cannot write key file"):
        write_key_pair(tmp_path / "no" / "such" / "dir.pem")
    with pytest.raises(AuditInputError):
        public_key_from_raw(b"short")


# ---------------------------------------------------------------- weak keys

P = 2**255 - 19
D = -121665 * pow(121666, -1, P) % P


def _sqrt(a: int) -> int | None:
    """A square root mod p (p = 5 mod 8), or None."""
    a %= P
    x = pow(a, (P + 3) // 8, P)
    if (x * x - a) % P:
        x = x * pow(2, (P - 1) // 4, P) % P
    return x if (x * x - a) % P == 0 else None


def _add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2
    return ((x1 * y2 + x2 * y1) * pow(1 + t, -1, P) % P,
            (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P)


def small_order_points() -> list[tuple[int, int]]:
    """The eight points of order dividing 8, from the curve equation -x²+y² = 1+dx²y²."""
    ys = {1, P - 1, 0}
    root = _sqrt(1 + D)
    for s in (1, -1):  # order 8: doubling gives y = 0, so y² = -x², d·x⁴ - 2x² - 1 = 0
        y = _sqrt(-(1 + s * root) * pow(D, -1, P))
        if y is not None:
            ys |= {y, P - y}
    points = []
    for y in ys:
        x = _sqrt((y * y - 1) * pow(D * y * y + 1, -1, P))
        points += [(x, y), ((P - x) % P, y)]
    return sorted(set(points))


def encode(point: tuple[int, int], bit: int) -> bytes:
    return (point[1] | bit << 255).to_bytes(32, "little")


def test_small_order_points_are_the_eight_and_all_refused() -> None:
    points = small_order_points()
    assert len(points) == 8
    for pt in points:
        q, order = pt, 1
        while q != (0, 1):
            q, order = _add(q, pt), order + 1
        assert order in (1, 2, 4, 8)
        for bit in (0, 1):  # with either sign bit (x = 0 with the bit set is non-canonical)
            with pytest.raises(WeakKeyError, match="small order"):
                check_public_key(encode(pt, bit))
            with pytest.raises(WeakKeyError):
                public_key_from_raw(encode(pt, bit))
        if pt[1] + P < 2**255:  # the non-canonical encoding y + p of the same point
            with pytest.raises(WeakKeyError, match="not canonically encoded"):
                check_public_key((pt[1] + P).to_bytes(32, "little"))


def test_non_canonical_and_normal_keys() -> None:
    for y in (P, P + 5, 2**255 - 1):
        with pytest.raises(WeakKeyError, match=r"y ≥ p"):
            check_public_key(y.to_bytes(32, "little"))
    for _ in range(20):
        check_public_key(public_key_raw(generate_private_key().public_key()))


def test_the_identity_key_forgery_that_openssl_accepts_is_refused() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    identity, forged = bytes([1]) + bytes(31), bytes([1]) + bytes(63)
    Ed25519PublicKey.from_public_bytes(identity).verify(forged, b"any message")  # OpenSSL: ok
    with pytest.raises(WeakKeyError):
        public_key_from_raw(identity)
    pem = Ed25519PublicKey.from_public_bytes(identity).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(KeyFileError, match="weak Ed25519 public key"):
        load_public_key(pem, "platform.pub.pem")


def test_keys_file(tmp_path) -> None:
    a, b = (public_key_raw(generate_private_key().public_key()) for _ in range(2))
    path = tmp_path / "keys.toml"
    path.write_text(f'cardroom = "{a.hex()}"\n"club 2" = """\n'
                    + public_key_pem(public_key_from_raw(b)).decode() + '"""\n')
    assert load_keys_file(path) == {"cardroom": a, "club 2": b}
    path.write_text(f'one = "{a.hex()}"\ntwo = "{a.hex().upper()}"\n')
    with pytest.raises(KeyFileError, match="two: the same key as one"):
        load_keys_file(path)
    with pytest.raises(KeyFileError, match="no such file"):
        load_keys_file(tmp_path / "none.toml")
    for empty in ("", "# no platform yet\n"):  # every log a finding: bad input instead
        with pytest.raises(KeyFileError, match="names no platform"):
            parse_keys(empty)


def test_the_keys_file_example_of_format_md_reads() -> None:
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "FORMAT.md").read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    assert list(parse_keys(example)) == ["cardroom", "Club Tarneeb"]


def _outcome(pem: bytes) -> tuple[str, str]:
    try:
        return "key", public_key_raw(load_public_key(pem, "k.pem")).hex()
    except KeyFileError as e:
        return "error", str(e)


def test_a_plain_public_key_file_reads_as_cryptographys_pem_reader_reads_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The file ``tarneeb keygen`` writes is read without loading cryptography's PEM
    reader (a one-log ``verify --key`` would pay for its RSA, DSA and SSH code); every
    file gives what that reader gives: the same key, or the same error."""
    import base64

    import tarneeb.audit.signing as signing

    spki = bytes.fromhex("302a300506032b6570032100")  # RFC 8410: Ed25519, then 32 bytes

    def pem_of(der: bytes) -> bytes:
        return (b"-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der)
                + b"\n-----END PUBLIC KEY-----\n")

    keys = [public_key_pem(generate_private_key().public_key()) for _ in range(8)]
    assert all(signing._plain_ed25519_pem(pem) is not None for pem in keys)  # the quick way
    body = spki + public_key_raw(load_public_key(keys[0]))
    weak_pems = [pem_of(spki + raw) for raw in (bytes(32), (1).to_bytes(32, "little"),
                                                b"\xff" * 32)]
    first = keys[0]
    variants = [
        *keys, *weak_pems,
        first.replace(b"\n", b"\r\n"),  # Windows line ends
        b"my platform's key\n" + first,  # text before the block
        first.replace(b"MCow", b"MC ow"),  # a space in the base64
        first.replace(b"=\n", b"\n"),  # padding dropped
        first.replace(b"PUBLIC KEY", b"PRIVATE KEY"),
        first[:40] + b"\n" + first[40:],  # lines wrapped shorter
        b"-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",
        pem_of(body + b"\0"),  # a byte too many
        pem_of(bytes.fromhex("302a300506032b6571032100") + body[12:]),  # Ed448's OID
    ]
    fast = [_outcome(pem) for pem in variants]
    monkeypatch.setattr(signing, "_plain_ed25519_pem", lambda pem: None)
    careful = [_outcome(pem) for pem in variants]
    assert fast == careful
    assert [kind for kind, _ in fast[:8]] == ["key"] * 8
    assert all(kind == "error" for kind, _ in fast[8:11])
