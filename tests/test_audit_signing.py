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
from tarneeb.audit.errors import AuditInputError
from tarneeb.audit.signing import public_path_for


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
