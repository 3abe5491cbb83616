"""JWS signing and verification: ES256/RS256 compact tokens and cluster-info's detached HS256 form."""

from __future__ import annotations

import base64
import hashlib
import hmac

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from flotilla.apiserver.authn import jws


def test_detached_signature_has_go_header_bytes_and_no_payload() -> None:
    """The detached JWS is header..signature, with the header exactly {"alg":"HS256","kid":"<id>"}."""
    signature = jws.detached_signature("content", "abcdef", "0123456789abcdef")
    header, payload, mac = signature.split(".")
    assert payload == ""
    assert jws.b64url_decode(header) == b'{"alg":"HS256","kid":"abcdef"}'
    signing_input = f"{header}.{jws.b64url_encode(b'content')}".encode()
    expected = hmac.new(b"0123456789abcdef", signing_input, hashlib.sha256).digest()
    assert jws.b64url_decode(mac) == expected
    assert "=" not in signature


def test_detached_signature_verifies_only_with_the_same_content_and_token() -> None:
    """Verification recomputes the signature: another secret, id or content fails."""
    signature = jws.detached_signature("kubeconfig", "abcdef", "0123456789abcdef")
    assert jws.detached_signature_is_valid(signature, "kubeconfig", "abcdef", "0123456789abcdef")
    assert not jws.detached_signature_is_valid(signature, "kubeconfig", "abcdef", "0123456789abcdeX")
    assert not jws.detached_signature_is_valid(signature, "kubeconfig", "abcdeX", "0123456789abcdef")
    assert not jws.detached_signature_is_valid(signature, "kubeconfig2", "abcdef", "0123456789abcdef")
    assert not jws.detached_signature_is_valid("é", "kubeconfig", "abcdef", "0123456789abcdef")


@pytest.mark.parametrize(
    ("key", "algorithm"),
    [
        (ec.generate_private_key(ec.SECP256R1()), "ES256"),
        (rsa.generate_private_key(public_exponent=65537, key_size=2048), "RS256"),
    ],
)
def test_compact_tokens_verify_with_their_key_and_not_when_tampered(
    key: jws.SigningKey, algorithm: str
) -> None:
    """A signed token verifies with its key; a changed payload does not."""
    token = jws.sign_compact({"sub": "me"}, key, jws.key_id(key))
    header, payload, signature, signing_input = jws.split_compact(token)
    assert header == {"alg": algorithm, "kid": jws.key_id(key)}
    assert orjson.loads(payload) == {"sub": "me"}
    assert jws.verify_signature(signing_input, signature, algorithm, key.public_key())
    forged = signing_input.split(".")[0] + "." + jws.b64url_encode(b'{"sub":"admin"}')
    assert not jws.verify_signature(forged, signature, algorithm, key.public_key())
    other = "RS256" if algorithm == "ES256" else "ES256"
    assert not jws.verify_signature(signing_input, signature, other, key.public_key())


def test_es256_signatures_are_raw_r_and_s() -> None:
    """ES256 signatures are 64 bytes (r || s), as JOSE requires, not DER."""
    key = ec.generate_private_key(ec.SECP256R1())
    _, _, signature, _ = jws.split_compact(jws.sign_compact({}, key, "k"))
    assert len(signature) == 64


def test_key_id_is_the_sha256_of_the_public_key_der() -> None:
    """The kid is base64url(SHA-256(SubjectPublicKeyInfo)), the same for the private and public key."""
    key = ec.generate_private_key(ec.SECP256R1())
    assert jws.key_id(key) == jws.key_id(key.public_key())
    assert len(base64.urlsafe_b64decode(jws.key_id(key) + "=")) == 32


@pytest.mark.parametrize("text", ["a.b", "a.b.c.d", "!!!.e30.AA", "e30=.e30.AA", "WzFd.e30.AA"])
def test_malformed_compact_tokens_are_refused(text: str) -> None:
    """Wrong part counts, bad base64url, padding and non-object headers are malformed."""
    with pytest.raises(jws.MalformedJWS):
        jws.split_compact(text)


def test_p384_keys_are_refused_for_es256() -> None:
    """Only P-256 ECDSA keys can sign ES256."""
    with pytest.raises(TypeError):
        jws.algorithm_for(ec.generate_private_key(ec.SECP384R1()))
